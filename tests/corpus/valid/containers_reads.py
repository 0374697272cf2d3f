"""Local containers read after the loop: `if k in d` accumulation, a dict of minima, d[k], sorted keys
with reverse= and a slice, zip over a sorted set and its slice, range(len(...)), and
reductions over a dict's values in no defined order (a fold)."""

from looplift import RowStream, dataflow, group_by


@dataflow(columns=("u", "k", "v", "lowest"))
def keys_desc(rows: RowStream[int, int, int]):
    for u, g in group_by(0, rows):
        d = {}
        low = {}
        for _u, k, v in g:
            if k in d:
                d[k] += v
            else:
                d[k] = v
            low[k] = min(low.get(k, v), v)
        for k in sorted(d.keys(), reverse=True)[:2]:
            yield u, k, d[k], low[k]


@dataflow(columns=("u", "lo", "hi", "gap"))
def gaps(rows: RowStream[int, int]):
    for u, g in group_by(0, rows):
        vals = set()
        for _u, v in g:
            vals.add(v)
        s = sorted(vals)
        for lo, hi in zip(s, s[1:]):
            yield u, lo, hi, hi - lo


@dataflow(columns=("u", "i", "x", "next_x"))
def neighbours(rows: RowStream[int, int]):
    for u, g in group_by(0, rows):
        xs = []
        for _u, x in g:
            xs.append(x)
        s = sorted(xs)
        for i in range(len(s)):
            if i + 1 < len(s):
                yield u, i, s[i], s[i + 1]


@dataflow
def big_keys(rows: RowStream[int, int]) -> int:
    d = {}
    for k, v in rows:
        d[k] = d.get(k, 0) + v
    n = 0
    best = 0
    for _k, v in d.items():
        if v > 1:
            n += 1
        best = max(best, v)
    return n * 1000 + best


EXAMPLES = {
    "keys_desc": [([(1, 5, 2), (1, 7, 1), (1, 5, 3), (1, 2, 9), (2, 1, 1)],), ([],)],
    "gaps": [([(1, 5), (1, 9), (1, 5), (1, 2), (2, 1)],), ([],)],
    "big_keys": [([(1, 2), (1, 4), (3, 1), (2, 7)],), ([],)],
    "neighbours": [([(1, 5), (1, 9), (1, 5), (2, 1)],), ([],)],
}
