"""Distinct pages and most visited page per user."""
from looplift import RowStream, dataflow, group_by


@dataflow(columns=("user_id", "distinct_pages", "top_page", "top_count"))
def pages(visits: RowStream[int, str]):
    for uid, g in group_by(0, visits):
        seen = set()
        counts = {}
        for _u, page in g:
            seen.add(page)
            counts[page] = counts.get(page, 0) + 1
        top = max(counts.values())
        best = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]
        yield uid, len(seen), best, top
