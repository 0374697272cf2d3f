"""Constructs once lowered to the wrong operator, silently (issue 24; tests/spark/test_silent_lowerings.py).

- a set comprehension read by ``len`` / ``sum`` / ``list`` is a set: a distinct count, a
  sum of distinct values (it was a count of rows, a sum with duplicates);
- a list filled over an ordered group (a comprehension, or ``append`` in the loop) is in
  the group's order (it was in the values' order); a set of an ordered loop is a set;
- an ordered loop after a group loop's ``continue`` (so inside the branch that falls
  through) yields nothing, updates nothing and raises nothing for the groups the
  ``continue`` skips (its rows leaked with nulls); rows yielded before a ``continue`` stay,
  as in Python.

>>> distinct_values([(1, "a"), (1, "a"), (1, "b")])
[(1, 2, 0, 2)]
>>> in_group_order([(1, 3, "a"), (1, 1, "z"), (1, 2, "b"), (1, 1, "c")])
[(1, 'c,z,b,a', 4)]
>>> skip_none_key([(None, 1, "x"), (1, 2, None), (1, 1, "y")])
[(1, 1, 1), (1, 2, 0)]
"""

from looplift import RowStream, dataflow, group_by, sorted_by


def shout(s: str) -> str:
    return s.upper() + "!"


# -- set comprehensions -------------------------------------------------------------------


@dataflow(columns=("k", "n", "m", "listed"))
def distinct_values(rows: RowStream[int, str | None]):
    """Per key: distinct values (None is one), distinct non-None values, `len(list({...}))`."""
    for k, g in group_by(0, rows):
        n = len({v for _, v in g})
        m = len({v for _, v in g if v is not None})
        yield k, n, n - m, len(list({v for _, v in g}))


@dataflow(columns=("k", "total", "wide", "top"))
def distinct_sums(rows: RowStream[int, int]):
    """`sum` of a set, a set's size in a condition, and `max` of a set (the values')."""
    for k, g in group_by(0, rows):
        wide = 0
        if len({v % 3 for _, v in g}) > 1:
            wide = 1
        yield k, sum({v for _, v in g}), wide, max({v for _, v in g})


@dataflow
def distinct_per_group_total(rows: RowStream[int, str | None]) -> int:
    """The number of distinct values summed over the groups (an aggregate)."""
    n = 0
    for _k, g in group_by(0, rows):
        n += len({v for _, v in g})
    return n


@dataflow
def distinct_overall(rows: RowStream[int, str | None]) -> int:
    """Distinct values and keys of the whole input."""
    return len({v for _, v in rows}) * 100 + len({k for k, _ in rows})


# -- containers of an ordered group ---------------------------------------------------------


@dataflow(columns=("k", "joined", "n"))
def in_group_order(rows: RowStream[int, int, str]):
    """A list comprehension over an ordered group, joined: the group's order, ties by the
    remaining fields."""
    for k, g in group_by(0, rows, order_by=1):
        vals = [v for _, _, v in g]
        yield k, ",".join(vals), len(vals)


@dataflow(columns=("k", "first", "last", "second"))
def descending_positions(rows: RowStream[int, int | None, str | None]):
    """A list filled with `append` over a group in descending order of an Optional field
    (None last), read by position."""
    for k, g in group_by(0, rows, order_by=-1):
        out = []
        for _, t, v in g:
            if t is None or t % 2 == 0:
                out.append(v)
        if not out:
            continue
        second = out[1] if len(out) > 1 else "-"
        yield k, out[0], out[-1], second


@dataflow(columns=("k", "i", "v"))
def numbered_values(rows: RowStream[int, int, str | None]):
    """The values of an ordered group exploded with their position."""
    for k, g in group_by(0, rows, order_by=(1, -2)):
        vals = [v for _, _, v in g]
        for i, v in enumerate(vals):
            yield k, i, v


@dataflow(columns=("k", "seen", "order"))
def ordered_sets_and_dicts(rows: RowStream[int, int, str]):
    """A set of an ordered group (distinct, sorted) and a dict in insertion order."""
    for k, g in group_by(0, rows, order_by=1):
        d = {}
        for _, t, v in g:
            d[v] = t
        seen = ",".join(sorted({v for _, _, v in g}))
        yield k, seen, ",".join([a + str(b) for a, b in d.items()])


@dataflow
def whole_input_order(rows: RowStream[int, int, str]) -> str:
    """The values of the whole input in an order (an aggregate)."""
    return ",".join([v for _, _, v in sorted_by(rows, (1, 0))])


# -- continue in a group loop with an ordered inner loop -----------------------------------


@dataflow(columns=("k", "t", "run"))
def skip_none_key(rows: RowStream[int | None, int, str | None]):
    """Groups of a None key are skipped; the others yield a run length per row (a fold)."""
    for k, g in group_by(0, rows, order_by=1):
        if k is None:
            continue
        n = 0
        for _, t, v in g:
            if v is None:
                n = 0
            else:
                n = n + 1
            yield k, t, n


@dataflow(columns=("k", "t", "total", "prev"))
def skip_then_window(rows: RowStream[int, int, str | None]):
    """A skipped key, then rows with a running sum and the previous value (windows)."""
    for k, g in group_by(0, rows, order_by=1):
        if k == 1:
            continue
        total = 0
        prev = None
        for _, t, v in g:
            total += t
            yield k, t, total, prev
            prev = v


@dataflow(columns=("k", "t", "m"))
def skip_by_first_loop(rows: RowStream[int, int, str | None]):
    """A first ordered loop decides the `continue`; a second one yields."""
    for k, g in group_by(0, rows, order_by=1):
        n = 0
        for _, _, v in g:
            if v is None:
                n = 0
            else:
                n = n + 1
        if n == 0:
            continue
        m = 0
        for _, t, v in g:
            if v is None:
                m = 0
            else:
                m = m + 1
            yield k, t, m


@dataflow(columns=("k", "t", "v"))
def yield_then_continue(rows: RowStream[int, int, str | None]):
    """Rows yielded before a `continue` stay (a `continue` does not un-yield); those of the
    ordered loop after it do not, where it skips."""
    for k, g in group_by(0, rows, order_by=1):
        last = None
        for _, t, v in g:
            last = v
            yield k, t, v
        if last is None:
            continue
        n = 0
        for _, t, _v in g:
            n = n * 2 + t
            yield k, -t, str(n)


@dataflow(columns=("k", "total"))
def skip_before_raise(rows: RowStream[int, int, int | None]):
    """The skipped groups' rows would raise in the loop (None in a sum): Python never runs
    it there."""
    for k, g in group_by(0, rows, order_by=1):
        if k == 2:
            continue
        total = 0
        for _, _, v in g:
            total = total * 2 + v
        yield k, total


@dataflow(columns=("k", "t", "last"))
def skip_python_loop(rows: RowStream[int | None, int, str | None]):
    """The ordered loop calls a host function (Python per key), after a `continue`."""
    for k, g in group_by(0, rows, order_by=1):
        if k is None:
            continue
        last = ""
        for _, t, v in g:
            if v is not None:
                last = shout(v)
            yield k, t, last


@dataflow(columns=("k", "t", "run"))
def skip_fold_and_after(rows: RowStream[int | None, int, str | None]):
    """A fold that yields rows and is read after the loop (one fold for both), after a
    `continue`."""
    for k, g in group_by(0, rows, order_by=1):
        if k is None:
            continue
        n = 0
        for _, t, v in g:
            if v is None:
                n = 0
            else:
                n = n + 1
            yield k, t, n
        yield k, -1, n


# ties of an ordered loop over a projection are broken by the projection's fields, in its
# order, as the runtime breaks them (they were broken by the source row's fields)


@dataflow
def first_change(rows: RowStream[int, int]) -> int:
    v = 0
    for x, _ in sorted_by(rows, 1):
        if v != x:
            return v
        v = x + 10
    return -1


@dataflow(columns=("k", "first"))
def projected_ties(rows: RowStream[int, int, int]):
    """A native fold over ``g.project(2, 1)`` sorted by its field 1: ties by field 2."""
    for k, g in group_by(1, rows):
        yield k, first_change(g.project(2, 1))


@dataflow(columns=("k", "seen"))
def projected_tie_list(rows: RowStream[int, int, int]):
    """A list filled over ``g.project(2, 0)`` sorted by its field 1: ties by field 2."""
    for k, g in group_by(1, rows):
        out = []
        for x, _ in sorted_by(g.project(2, 0), 1):
            out.append(x)
        yield k, out[0] * 100 + out[-1]
