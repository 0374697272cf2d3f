"""Tiny algorithms, one group per trap of SPEC §4, for ``test_traps.py``.

The compiler reads source files, so the algorithms live here rather than in
the test module. Each is as small as possible so that a failure names the
trap: floor division and modulo, division by zero, 64-bit overflow, None,
banker's rounding, string building, nulls in non-Optional fields, empty
inputs.
"""

from looplift import RowStream, dataflow, group_by
from looplift.states import Max, Sum

# -- // and % (Python floors) -------------------------------------------------


@dataflow
def int_floor_mod(a: int, b: int) -> tuple[int, int]:
    return a // b, a % b


@dataflow
def float_floor_mod(a: float, b: float) -> tuple[float, float]:
    return a // b, a % b


@dataflow(columns=("k", "bucket", "rest"))
def buckets(rows: RowStream[int, int]):
    """The same per row of a table: buckets of ten."""
    for k, v in rows:
        yield k, v // 10, v % 10


@dataflow
def float_bucket_sums(rows: RowStream[float]) -> tuple[float, float]:
    """The same inside an aggregate, on floats."""
    q = 0.0
    r = 0.0
    for (x,) in rows:
        q += x // 2.5
        r += x % 2.5
    return q, r


# -- division by zero -----------------------------------------------------------


@dataflow
def int_true_div(a: int, b: int) -> float:
    return a / b


@dataflow
def int_floor_div(a: int, b: int) -> int:
    return a // b


@dataflow
def int_mod(a: int, b: int) -> int:
    return a % b


@dataflow
def float_true_div(x: float, y: float) -> float:
    return x / y


@dataflow
def float_floor_div(x: float, y: float) -> float:
    return x // y


@dataflow
def float_mod(x: float, y: float) -> float:
    return x % y


@dataflow
def unguarded_mean(rows: RowStream[int, int]) -> float:
    """No guard for the empty input: Python raises ZeroDivisionError on []."""
    n = 0
    total = 0
    for _k, v in rows:
        n += 1
        total += v
    return total / n


@dataflow(columns=("k", "ratio"))
def ratios(rows: RowStream[int, int, int]):
    for k, a, b in rows:
        yield k, a / b


# -- 64-bit overflow --------------------------------------------------------------


@dataflow
def add(a: int, b: int) -> int:
    return a + b


@dataflow
def sub(a: int, b: int) -> int:
    return a - b


@dataflow
def mul(a: int, b: int) -> int:
    return a * b


@dataflow
def neg_abs(a: int) -> tuple[int, int]:
    return -a, abs(a)


@dataflow
def power(a: int, b: int) -> int:
    return a**b


@dataflow
def float_to_int(x: float) -> tuple[int, int]:
    return int(x), round(x)


@dataflow
def int_total(rows: RowStream[int]) -> int:
    total = 0
    for (x,) in rows:
        total += x
    return total


@dataflow
def state_total(rows: RowStream[int]) -> int:
    s = Sum()
    for (x,) in rows:
        s.add(x)
    return s.value()


@dataflow(columns=("k", "total"))
def group_totals(rows: RowStream[int, int]):
    for k, g in group_by(0, rows):
        total = 0
        for _k, v in g:
            total += v
        yield k, total


# -- None -------------------------------------------------------------------------


@dataflow(columns=("k", "is_none", "is_not_none", "eq0", "ne0", "falsy"))
def none_tests(rows: RowStream[int, int | None]):
    """``None == 0`` is False, ``None != 0`` True, ``not None`` True (SQL says NULL)."""
    for k, x in rows:
        yield k, x is None, x is not None, x == 0, x != 0, not x


@dataflow
def none_counts(rows: RowStream[int, float | None, str | None]) -> tuple[int, float, int, int]:
    missing = 0
    total = 0.0
    named = 0
    chars = 0
    for _k, x, s in rows:
        if x is None:
            missing += 1
        else:
            total += x
        if s is not None:
            named += 1
            chars += len(s)
    return missing, total, named, chars


@dataflow(columns=("k", "label"))
def none_defaults(rows: RowStream[int, str | None]):
    for k, s in rows:
        yield k, (s if s is not None else "anon") + "!"


@dataflow(columns=("key", "n", "total"))
def none_groups(rows: RowStream[str | None, int]):
    """None is a group key like any other (and must survive joins on the scope key)."""
    for key, g in group_by(0, rows):
        n = 0
        total = 0
        for _key, v in g:
            n += 1
            total += v
        yield key, n, total


@dataflow(columns=("k", "next"))
def none_plus_one(rows: RowStream[int, int | None]):
    """``None + 1`` raises TypeError in Python (SQL would give NULL)."""
    for k, x in rows:
        yield k, x + 1


@dataflow(columns=("k", "positive"))
def none_compared(rows: RowStream[int, int | None]):
    """``None > 0`` raises TypeError in Python."""
    for k, x in rows:
        yield k, x > 0


@dataflow
def none_summed(rows: RowStream[float | None]) -> float:
    total = 0.0
    for (x,) in rows:
        total += x
    return total


# -- round (banker's, on the binary value) -------------------------------------------


@dataflow
def round_int(x: float) -> int:
    return round(x)


@dataflow
def round_digits(x: float) -> tuple[float, float, float]:
    return round(x, 0), round(x, 1), round(x, 2)


@dataflow(columns=("k", "r"))
def rounded_rows(rows: RowStream[int, float]):
    for k, x in rows:
        yield k, round(x)


# -- strings ----------------------------------------------------------------------


@dataflow
def concat(a: str, b: str) -> str:
    return a + b + "|" + b + a


@dataflow
def int_text(x: int) -> str:
    return "n=" + str(x)


@dataflow
def float_text(x: float) -> str:
    return "x=" + str(x)


@dataflow
def bool_text(b: bool) -> str:
    return "b=" + str(b)


@dataflow(columns=("k", "label"))
def labels(rows: RowStream[int, float, bool]):
    for k, x, b in rows:
        yield k, str(k) + ":" + str(x) + ":" + str(b)


# -- nulls in non-Optional fields --------------------------------------------------------


@dataflow
def strict_total(rows: RowStream[int, int]) -> int:
    total = 0
    for _account, cents in rows:
        total += cents
    return total


@dataflow(columns=("region", "n"))
def strict_groups(rows: RowStream[str, int]):
    for region, g in group_by(0, rows):
        n = 0
        for _region, _v in g:
            n += 1
        yield region, n


# -- empty inputs --------------------------------------------------------------------


@dataflow
def empty_aggregate(rows: RowStream[int, float]) -> tuple[int, float, int, float]:
    n = 0
    total = 0.0
    best = -1
    hi = Max()
    for k, v in rows:
        n += 1
        total += v
        best = max(best, k)
        hi.add(v)
    return n, total, best, hi.value()


@dataflow
def empty_count(rows: RowStream[int, float]) -> int:
    n = 0
    for _k, _v in rows:
        n += 1
    return n


@dataflow(columns=("k", "n", "share"))
def empty_table(rows: RowStream[int, float]):
    everything = 0
    for _k, _v in rows:
        everything += 1
    for k, g in group_by(0, rows):
        n = 0
        for _k, _v in g:
            n += 1
        yield k, n, n / everything


@dataflow
def empty_per_row(rows: RowStream[int, float]):
    for k, v in rows:
        if v > 0:
            yield k, v
