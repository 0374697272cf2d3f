"""`collections.defaultdict(int)`, `defaultdict(float)` and `Counter()` as per-key sums:
`d[k] += v`, then read with `max(d, key=d.get)`, `len(d)`, `d[k]` (a missing key reads 0)
and `sorted(d.items())`."""

from collections import Counter, defaultdict

from looplift import RowStream, dataflow, group_by


@dataflow(columns=("k", "top", "kinds", "a_count", "spent"))
def tallies(rows: RowStream[int, str, float]):
    for k, g in group_by(0, rows):
        counts = defaultdict(int)
        spent = defaultdict(float)
        seen = Counter()
        for _, item, price in g:
            counts[item] += 1
            spent[item] += price
            seen[item[:1]] += 1
        top = max(counts, key=counts.get)
        yield k, top, len(seen), seen["a"], sorted(spent.items())[0][1]


EXAMPLES = {
    "tallies": [([(1, "apple", 1.5), (1, "bread", 2.0), (1, "apple", 0.5), (2, "cake", 3.0)],)],
}

EXPECTED = {
    # k 1: apple twice -> top apple; first letters {a, b}; "a" 2; apple spent 2.0 (first item)
    # k 2: cake; {c}; "a" missing -> 0; cake 3.0
    "tallies": [[(1, "apple", 2, 2, 2.0), (2, "cake", 1, 0, 3.0)]],
}
