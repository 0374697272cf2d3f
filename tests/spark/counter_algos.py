"""Algorithms with Counters, containers that start with elements, sorted lists used as values
(tests/spark/test_counter.py): the shapes real UDFs write (issue 25, item 4).

>>> starting_values([(1, "EUR", 2), (1, "a", 3)])
[(1, 2, 1, 0, 5, 2)]
"""

from typing import Optional

from looplift import RowStream, dataflow, group_by


@dataflow(columns=("u", "n_cur", "a", "b", "total", "n_vals"))
def starting_values(rows: RowStream[int, str, int]):
    """Per user: a set, a dict of counts and a list that start with elements."""
    for u, g in group_by(0, rows):
        seen = {"EUR"}
        counts = {"a": 0, "b": 0}
        acc = [0]
        for _u, cur, v in g:
            seen.add(cur)
            counts[cur] = counts.get(cur, 0) + 1
            acc.append(v)
        yield u, len(seen), counts["a"], counts["b"], sum(acc), len(acc)


@dataflow(columns=("u", "first", "n_keys", "has_x"))
def starting_ordered(rows: RowStream[int, int, Optional[str]]):
    """In time order: a list that starts with a marker, a dict of sums that starts with two
    keys (its insertion order is Python's), a set read inside the loop."""
    for u, g in group_by(0, rows, order_by=1):
        path = ["start"]
        sums = {"x": 0, "y": 1}
        seen = {"x"}
        hits = 0
        for _u, _ts, page in g:
            if page in seen:
                hits += 1
            seen.add(page)
            path.append(page)
            sums[page] = sums.get(page, 0) + 1
        yield u, path[-1], list(sums.keys())[-1], hits
