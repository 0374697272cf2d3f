"""Per user: the favourite category and how many distinct ones, with ``collections.Counter``
the way a clickstream reducer writes it."""
from collections import Counter

from looplift import RowStream, dataflow, group_by


@dataflow(columns=("user_id", "favourite", "times", "distinct", "n_home"))
def favourites(clicks: RowStream[int, int, str]):
    for uid, g in group_by(0, clicks, order_by=1):
        counts = Counter()
        for _u, _ts, category in g:
            counts[category] += 1
        favourite, times = counts.most_common(1)[0]
        yield uid, favourite, times, len(counts), counts["home"]


@dataflow(columns=("user_id", "category", "n"))
def top_categories(clicks: RowStream[int, int, str]):
    for uid, g in group_by(0, clicks):
        counts = Counter(c for _u, _ts, c in g)
        for category, n in counts.most_common(3):
            yield uid, category, n
