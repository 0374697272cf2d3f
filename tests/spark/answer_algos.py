"""Wrong answers on Spark against CPython, fixed (tests/spark/test_wrong_answers.py).

- ``s += v`` / ``s = s + v`` / ``s = v + s`` over str in an ordered loop concatenate in the
  loop's order (they were a numeric sum, and ``v + s`` appended);
- a float group key that is NaN makes a group per row (CPython's dict holds each row's NaN,
  a distinct object), in every strategy; -0.0 and 0.0 are one key;
- a bool carry updated by ``f = f or c > t`` is a bool (it was typed "any": a double);
- a set of float fields keeps each row's NaN (distinct objects), one of each other value;

>>> concat_in_order([(1, 2, "x"), (1, -1, "y"), (2, 0, "z")])
[(1, 'yx', 'xy', '<y|x|'), (2, 'z', 'z', '<z|')]
"""

from looplift import RowStream, dataflow, group_by, sorted_by


def shout(s: str) -> str:
    return s.upper()


# -- str concatenation in an ordered loop --------------------------------------------------


@dataflow(columns=("k", "appended", "prepended", "framed"))
def concat_in_order(rows: RowStream[int, int, str]):
    for k, g in group_by(0, rows, order_by=1):
        s = ""
        p = ""
        f = "<"
        for _, _, v in g:
            s += v
            p = v + p
            f = f + v + "|"
        yield k, s, p, f


@dataflow(columns=("k", "seen"))
def concat_running(rows: RowStream[int, int, str]):
    """Read in the loop (a fold that yields), and through Python (a host function)."""
    for k, g in group_by(0, rows):
        s = ""
        for _, b, v in sorted_by(g, 1):
            s = shout(v) + s
            yield k, s + str(b)


@dataflow
def concat_all(rows: RowStream[int, int, str]) -> str:
    s = "="
    for _, _, v in sorted_by(rows, 1):
        s = v + s
    return s


# -- NaN group keys ------------------------------------------------------------------------


@dataflow(columns=("k", "n", "total", "fold", "top"))
def nan_keys(rows: RowStream[int, int, float | None]):
    """Additive (len, sum), an ordered fold, a Python state (max of a generator)."""
    for k, g in group_by(2, rows, order_by=1):
        n = 0
        total = 0
        f = 0
        for _, b, _ in g:
            n += 1
            total += b
            f = f * 3 + b
        yield k, n, total, f, max(b for _, b, _ in g)


@dataflow(columns=("k", "b", "run"))
def nan_keys_window(rows: RowStream[int, int, float | None]):
    """A running sum that yields per row (a window), the key a tuple with a float part."""
    for (a, k), g in group_by((0, 2), rows, order_by=1):
        run = 0
        for _, b, _ in g:
            run += b
            yield k, b, run + a


@dataflow(columns=("k", "s"))
def nan_keys_python(rows: RowStream[int, int, float | None]):
    """The loop body in Python (a host function)."""
    for k, g in group_by(2, rows, order_by=1):
        s = ""
        for _, b, _ in g:
            s = shout(str(b)) + s
        yield k, s


# -- NaNs in a set -------------------------------------------------------------------------


@dataflow(columns=("k", "n", "guarded", "nans", "total", "has", "ordered"))
def nan_sets(rows: RowStream[int, int, float | None]):
    """A set comprehension (len, NaN count, sum, `in`), one filled under a guard, one of an
    ordered loop."""
    for k, g in group_by(0, rows):
        s = {c for _, _, c in g if c is not None}
        kept = set()
        for _, b, c in g:
            if b > 0:
                kept.add(c)
        ordered = set()
        for _, _, c in sorted_by(g, 1):
            ordered.add(c)
        nans = len([x for x in s if x != x])
        yield k, len(s), len(kept), nans, sum(s), 2.5 in s, len(ordered)


@dataflow
def nan_set_overall(rows: RowStream[int, int, float | None]) -> int:
    return len({c for _, _, c in rows})


# -- a bool carry --------------------------------------------------------------------------


@dataflow(columns=("k", "any_big", "all_small"))
def bool_carries(rows: RowStream[int, int, int], t: int):
    for k, g in group_by(0, rows, order_by=1):
        f = False
        a = True
        for _, _, c in g:
            f = f or c > t
            a = a and c < t
        yield k, f, a
