"""Arg-best loops (issue 27, ``test_argbest.py``): the "keep the best row" shape in every
mode, with a guard, a starting key that must be beaten, Optional, computed and text keys,
nested and global scopes. The compiled plan takes ``min``/``max`` of a struct per scope
key where the key's order can be turned into the fields' (numbers, bools) and the values
are fields; else it keeps the row ranked 1 by a ``row_number()`` window (a filter, which
Spark pre-limits before the shuffle), or an aggregate of it without a scope key.

>>> latest_gt([(1, 5, "a"), (1, 7, "b"), (1, 7, "a"), (2, 1, "c")])
[(1, 7, 'a'), (2, 1, 'c')]
>>> latest_ge([(1, 5, "a"), (1, 7, "b"), (1, 7, "a")])
[(1, 7, 'b')]
"""

from looplift import RowStream, dataflow, group_by


@dataflow(columns=("k", "ts", "s"))
def latest_gt(rows: RowStream[int, int, str]):
    """``>``: ties to the first row of the canonical order."""
    for k, g in group_by(0, rows):
        best = None
        s = None
        for row in g:
            if best is None or row[1] > best:
                best, s = row[1], row[2]
        yield k, best, s


@dataflow(columns=("k", "ts", "s"))
def latest_ge(rows: RowStream[int, int, str]):
    """``>=``: ties to the last row."""
    for k, g in group_by(0, rows):
        best = None
        s = "-"
        for row in g:
            if best is None or row[1] >= best:
                best, s = row[1], row[2]
        yield k, best, s


@dataflow(columns=("k", "lo", "s"))
def below_zero(rows: RowStream[str, int, str]):
    """``<`` against a starting key that must be beaten: groups with no negative keep
    the starting values."""
    for k, g in group_by(0, rows):
        lo = 0
        s = "none"
        for _k, v, t in g:
            if v < lo:
                lo, s = v, t
        yield k, lo, s


@dataflow(columns=("k", "lo", "s"))
def lowest_le(rows: RowStream[int, float, str]):
    """``<=`` on floats: ties to the last row."""
    for k, g in group_by(0, rows):
        lo = None
        s = ""
        for row in g:
            if lo is None or row[1] <= lo:
                lo, s = row[1], row[2]
        yield k, lo, s


@dataflow(columns=("k", "ts", "s"))
def guarded(rows: RowStream[int, int, str]):
    """Only rows with a non-empty text are offered: a group with none keeps the start."""
    for k, g in group_by(0, rows):
        best = None
        s = "?"
        for row in g:
            if row[2] != "" and (best is None or row[1] > best):
                best, s = row[1], row[2]
        yield k, best, s


@dataflow(columns=("k", "ts", "s"))
def optional_key(rows: RowStream[int, int | None, str | None]):
    """An Optional key, offered only where it is not None; an Optional value."""
    for k, g in group_by(0, rows):
        best = None
        s = "start"
        for row in g:
            if row[1] is not None and (best is None or row[1] > best):
                best, s = row[1], row[2]
        yield k, best, s


@dataflow(columns=("k", "neg", "s", "n"))
def computed(rows: RowStream[int, int, str]):
    """A computed key and computed values (Unicode and the row's fields)."""
    for k, g in group_by(0, rows):
        best = None
        s = ""
        n = 0
        for row in g:
            if best is None or -row[1] > best:
                best, s, n = -row[1], row[2] + "·", row[0] + row[1]
        yield k, best, s, n


@dataflow(columns=("k", "s", "v"))
def greatest_text(rows: RowStream[int, int, str]):
    """A text key, greatest first: no struct order for it, the window form."""
    for k, g in group_by(0, rows):
        best = None
        v = 0
        for row in g:
            if best is None or row[2] > best:
                best, v = row[2], row[1]
        yield k, best, v


@dataflow(columns=("a", "b", "ts", "s"))
def two_keys(rows: RowStream[int, str, int, str]):
    """A scope of two group keys."""
    for (a, b), g in group_by((0, 1), rows):
        best = None
        s = None
        for row in g:
            if best is None or row[2] > best:
                best, s = row[2], row[3]
        yield a, b, best, s


@dataflow
def global_best(rows: RowStream[int, int, str]) -> str:
    """No scope key: the aggregate form (one result also for no rows)."""
    best = None
    s = "empty"
    for row in rows:
        if best is None or row[1] > best:
            best, s = row[1], row[2]
    return s


@dataflow(columns=("k", "lo", "hi", "n"))
def min_fold(rows: RowStream[int, str, int | None]):
    """The min / max folds from None (``x if lo is None else min(lo, x)``, issue 25): the
    same update as ``if lo is None or x < lo: lo = x``; ``max(x, hi)`` keeps ties' last. A
    None value before the first value (in the canonical order) is skipped, one after it is
    CPython's TypeError."""
    for k, g in group_by(0, rows):
        lo = None
        hi = None
        n = None
        for _k, s, v in g:
            lo = v if lo is None else min(lo, v)
            hi = max(v, hi) if hi is not None else v
            n = len(s) if n is None else max(n, len(s))
        yield k, lo, hi, n


@dataflow(columns=("k", "lo", "hi", "first"))
def min_fold_blocks(rows: RowStream[int, int, str]):
    """The statement spellings: ``if lo is None: lo = v`` + ``else: lo = min(lo, v)``, the
    ``is not None`` branch first, and ``elif v > hi: hi = v``; a text fold."""
    for k, g in group_by(0, rows):
        lo = None
        hi = None
        first = None
        for _k, v, s in g:
            if lo is None:
                lo = v
            else:
                lo = min(lo, v)
            if hi is None:
                hi = v * 2
            elif v * 2 > hi:
                hi = v * 2
            if first is not None:
                first = min(first, s)
            else:
                first = s
        yield k, lo, hi, first


@dataflow(columns=("k", "lo", "hi"))
def float_folds(rows: RowStream[int, float]):
    """``lo = min(lo, x)`` / ``hi = max(hi, x)`` of floats from a number (beside the folds
    from None): a NaN never wins (``nan > hi`` is false), in any order; Spark's ``max`` takes
    NaN for the largest, so the compiled fold leaves NaNs out."""
    for k, g in group_by(0, rows):
        lo = 0.5
        hi = -0.5
        for _k, x in g:
            lo = min(lo, x)
            hi = max(hi, x)
        yield k, lo, hi
