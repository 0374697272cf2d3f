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


def quickselect_median(xs: list) -> float:
    """A host function over a list (a helper real UDFs write): the median by quickselect."""
    if not xs:
        raise ValueError("median of nothing")
    k = len(xs) // 2
    items = list(xs)
    while True:
        pivot = items[len(items) // 2]
        lows = [x for x in items if x < pivot]
        highs = [x for x in items if x > pivot]
        n_eq = len(items) - len(lows) - len(highs)
        if k < len(lows):
            items = lows
        elif k < len(lows) + n_eq:
            return float(pivot)
        else:
            k -= len(lows) + n_eq
            items = highs


@dataflow(columns=("u", "path", "last", "empty", "n0", "top", "med"))
def sorted_paths(rows: RowStream[int, int, str, float]):
    """In time order: the path joined, its last page; the values sorted in place by a key,
    and their median by a host function."""
    for u, g in group_by(0, rows, order_by=1):
        pages = []
        vals = []
        for _u, _ts, page, v in g:
            if not pages or pages[-1] != page:  # consecutive repeats once
                pages.append(page)
            vals.append(v)
        vals.sort(key=lambda x: -x)
        yield u, " > ".join(pages), pages[-1], not pages, len(pages) == 0, vals[0], quickselect_median(vals)


@dataflow(columns=("u", "hi", "lo", "second", "med"))
def sorted_unordered(rows: RowStream[int, float]):
    """Unordered: a list sorted in place (descending), read by position; a list given to a
    host function as it is."""
    for u, g in group_by(0, rows):
        vals = []
        for _u, v in g:
            vals.append(v)
        med = quickselect_median(vals)
        vals.sort(reverse=True)
        second = vals[1] if len(vals) > 1 else 0.0
        yield u, vals[0], vals[-1], second, med
