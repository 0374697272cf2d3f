"""Algorithms calling the host functions of ``hostret_lib`` (``test_host_returns``): each
annotation's value read the ways the language reads it (tuple indexing and unpacking,
``len``/indexing of lists, ``d[k]``/``d.get``/``in`` of dicts, None tests, datetime
comparisons), as a scalar, in a loop over rows and in a loop over groups."""

from __future__ import annotations

from looplift import RowStream, dataflow, group_by

from tests.spark.hostret_lib import (
    bare_dict,
    bare_list,
    bare_pair,
    big,
    big_items,
    counts,
    day,
    describe,
    digits,
    flag,
    keyed,
    maybe_day,
    maybe_digits,
    maybe_half,
    maybe_pair,
    maybe_stamp,
    mistyped,
    nan_or,
    nested,
    split_pair,
    stamp,
    stamp_aware,
    words,
)


@dataflow
def scalar_all(n: int):
    """Every annotation in one struct (one Spark job)."""
    a, b = split_pair(n)
    xs = digits(n)
    d = counts(n)
    h = maybe_half(n)
    m = maybe_stamp(n)
    p = maybe_pair(n)
    total = 0
    for x in digits(n):  # a loop over a list result
        total += x
    best = -1
    for i, x in enumerate(xs):
        if x > best:
            best = x + i
    chars = 0
    for w in words(n):
        if w is not None:
            chars += len(w)
    text = describe(split_pair(n), d, xs, stamp(n))
    return (text, total, best, chars, sum(xs), max(xs), stamp(n), day(n), a, b, split_pair(n)[1], bare_pair(n)[1], bare_list(n)[0],
            bare_dict(n).get("odd", -1), h, h is None, m, m is not None and m > stamp(0), p,
            len(xs), xs[0], xs[-1], xs, words(n), d["n"], d.get("even", -1), "even" in d,
            len(d), d, nested(n), nan_or(n), stamp(n) - stamp(0), day(n).year, maybe_day(n))  # fmt: skip


@dataflow
def scalar_aware(n: int):
    """An aware datetime: its instant (compared, subtracted, returned)."""
    t = stamp_aware(n)
    u = stamp_aware(n + 1)
    return t, t < u, (u - t).total_seconds(), t == stamp_aware(n)


@dataflow
def key_error(n: int):
    return counts(n)["even"]


@dataflow
def none_arithmetic(n: int):
    return maybe_half(n) + 1.0


@dataflow
def index_error(n: int):
    return digits(n)[2]


@dataflow
def none_item(n: int):
    return maybe_pair(n)[0]


@dataflow
def none_iter(n: int):
    total = 0
    for x in maybe_digits(n):
        total += x
    return total


@dataflow
def overflow(n: int):
    return big(n)


@dataflow
def overflow_item(n: int):
    return big_items(n)


@dataflow
def wrong_type(n: int):
    return mistyped(n)


@dataflow
def wrong_bool(n: int):
    return flag(n)


@dataflow
def none_key(n: int):
    return len(keyed(n))


@dataflow(
    columns=(
        "k",
        "ts",
        "day",
        "a",
        "b",
        "f",
        "half",
        "n_digits",
        "last",
        "even",
        "has",
        "n",
        "later",
    )
)
def rows_all(rows: RowStream[int, int]):
    """A loop over rows: each row's host results, read and yielded."""
    for k, n in rows:
        a, b = split_pair(n)
        d = counts(n)
        xs = digits(n)
        yield (k, stamp(n), day(n), a, b, bare_pair(n)[1], maybe_half(n), len(xs), xs[-1],
               d.get("even", -1), "even" in d, d["n"], stamp_aware(n) > stamp_aware(k))  # fmt: skip


@dataflow(columns=("k", "digit"))
def rows_items(rows: RowStream[int, int]):
    """A loop over a list result inside a loop over rows: one row per item."""
    for k, n in rows:
        for x in digits(n):
            if x != 1:
                yield k, x


@dataflow(columns=("k", "digit"))
def groups_items(rows: RowStream[int, int]):
    """A loop over the list result of each group's total."""
    for k, g in group_by(0, rows):
        total = 0
        for _, n in g:
            total += n
        for i, x in enumerate(digits(total)):
            yield k, x * 10 + i


@dataflow(columns=("k", "last", "d", "p", "n"))
def groups_ordered(rows: RowStream[int, int]):
    """An ordered loop over each group with host calls in its body (it runs as Python per
    group): the carried dict, tuple and datetime come out as the declared columns."""
    for k, g in group_by(0, rows, order_by=1):
        last = stamp(0)
        d = counts(0)
        p = split_pair(0)
        n = 0
        for _, v in g:
            if stamp(v) > last:
                last = stamp(v)
            d = counts(v)
            p = split_pair(v)
            n += len(digits(v))
        yield k, last, d, p, n


@dataflow(columns=("k", "total", "latest", "day", "half", "pair"))
def groups_all(rows: RowStream[int, int]):
    """A loop over groups: host results summed per row, and of each group's total."""
    for k, g in group_by(0, rows):
        total = 0
        latest = stamp(0)
        for _, n in g:
            d = counts(n)
            total += split_pair(n)[0] + len(digits(n)) + d.get("even", 0)
            latest = max(latest, stamp(n))
        yield k, total, latest, day(total % 400), maybe_half(total), maybe_pair(total)
