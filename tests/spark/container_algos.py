"""Algorithms with local containers used as accumulators (tests/spark/test_containers.py).

>>> key_stats([(1, 2, 3), (1, 2, 4), (1, 3, 1)])
[(1, 2, 7, 8, True, 1, 2, 2)]
"""

from looplift import RowStream, dataflow, group_by


@dataflow(columns=("u", "keys", "top", "total", "has3", "at7", "argmax", "sums"))
def key_stats(rows: RowStream[int, int, int]):
    """Per user: a dict of sums per key, read with len, max, sum, `in`, get, an arg-max and
    the number of distinct sums."""
    for u, g in group_by(0, rows):
        d = {}
        for _u, k, v in g:
            if k not in d:
                d[k] = 0
            d[k] += v
        argmax = max(d.items(), key=lambda kv: (kv[1], kv[0]))[0]
        sums = len(set(d.values()))
        yield u, len(d), max(d.values()), sum(d.values()), 3 in d, d.get(7, 1), argmax, sums


@dataflow
def spread(rows: RowStream[int, float]) -> float:
    """Over all rows: distinct users, and the median-ish element of a list of values, and how
    many values exceed 1 (a generator expression over the list)."""
    users = set()
    vals = []
    for u, x in rows:
        users.add(u)
        if x > 0:
            vals.append(x)
    big = sum(1 for v in vals if v > 1.0)
    return len(users) + sum(vals) + max(vals, default=0.0) + sorted(vals)[len(vals) // 2] + big


@dataflow(columns=("u", "rank", "value", "share"))
def top3(rows: RowStream[int, int]):
    """Per user: the three largest values with their rank and share of the user's total."""
    for u, g in group_by(0, rows):
        vals = []
        for _u, v in g:
            vals.append(v)
        top = sorted(vals, reverse=True)[:3]
        total = sum(vals)
        for i, v in enumerate(top):
            yield u, i + 1, v, v / total


@dataflow(columns=("u", "page", "visits"))
def top_pages(rows: RowStream[int, int]):
    """Per user: the two most visited pages (ties: the smaller page first)."""
    for u, g in group_by(0, rows):
        visits = {}
        for _u, page in g:
            visits[page] = visits.get(page, 0) + 1
        ranked = sorted(visits.items(), key=lambda kv: (-kv[1], kv[0]))
        for page, n in ranked[:2]:
            yield u, page, n


@dataflow(columns=("u", "k", "running_total"))
def running(rows: RowStream[int, int, int]):
    """Per user: a running total over the keys in order, then how many keys exceed 2."""
    for u, g in group_by(0, rows):
        d = {}
        for _u, k, v in g:
            d[k] = d.get(k, 0) + v
        cum = 0
        n_big = 0
        for k, v in sorted(d.items()):
            cum += v
            if v > 2:
                n_big += 1
            yield u, k, cum
        yield u, -1, n_big


@dataflow(columns=("u", "item", "latest", "n_new"))
def latest(rows: RowStream[int, int, int, int]):
    """Per user, in time order: the last value of each item, and how many items were new."""
    for u, g in group_by(0, rows, order_by=1):
        last = {}
        seen = set()
        n_new = 0
        for _u, _ts, item, v in g:
            if item not in seen:
                n_new += 1
            seen.add(item)
            last[item] = v
        for item, v in last.items():
            yield u, item, v, n_new
