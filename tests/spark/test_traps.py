"""The known traps of SPEC §4, each on hand-picked values (``trap_algos.py``).

Every test first pins what CPython gives (the values in the comments are the
trap), then runs the compiled plan on Spark: the values on which Python
returns are compared in one job, each value on which Python raises runs
alone and must raise. No overflow allowance here: a compiled plan that fails
on a value whose Python result fits in 64 bits is wrong.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pytest
from looplift import Dataflow

from tests.spark import trap_algos as T
from tests.spark.harness import (
    INT64_MAX,
    INT64_MIN,
    Int64Overflow,
    attempt,
    compiled_frame,
    expect_same_or_both_raise,
    kind_of,
    run_compiled,
    run_reference,
    same,
)

pytestmark = pytest.mark.spark


def _exact(got: Any, want: Any) -> bool:
    """Equal with the same Python types (what CPython gives, pinned down)."""
    if isinstance(want, list | tuple):
        return (
            type(got) is type(want)
            and len(got) == len(want)
            and all(_exact(g, w) for g, w in zip(got, want, strict=True))
        )
    if isinstance(want, float) and math.isnan(want):
        return isinstance(got, float) and math.isnan(got)
    return type(got) is type(want) and same(got, want)


def _raises(expected: Any) -> bool:
    return isinstance(expected, type) and issubclass(expected, BaseException)


def check_values(spark: Any, algo: Dataflow, cases: Sequence[tuple[tuple, Any]]) -> None:
    """A scalar algorithm on ``(args, expected)`` pairs; ``expected`` is a value or
    the exception class Python raises."""
    assert kind_of(algo) == "scalar"
    for args, expected in cases:
        if _raises(expected):
            with pytest.raises(expected):
                run_reference(algo, [args])
        else:
            got = run_reference(algo, [args])[0]
            assert _exact(got, expected), f"Python: {algo.name}{args} = {got!r}, not {expected!r}"
    good = [args for args, expected in cases if not _raises(expected)]
    if good:
        expect_same_or_both_raise(spark, algo, good, allow_overflow=False)
    for args, expected in cases:
        if _raises(expected):
            expect_same_or_both_raise(spark, algo, [args], allow_overflow=False)


def check_rows(
    spark: Any, algo: Dataflow, rows: list[tuple], expected: Any, scalars: tuple = ()
) -> None:
    """A table or aggregate algorithm on ``rows``: CPython gives ``expected`` (a value,
    rows as a multiset, or an exception class); the compiled plan agrees."""
    kind = kind_of(algo)
    if _raises(expected):
        with pytest.raises(expected):
            run_reference(algo, rows, scalars)
    else:
        got = run_reference(algo, rows, scalars)
        if kind == "table":
            left, right = sorted(got, key=repr), sorted(expected, key=repr)
            assert len(left) == len(right) and all(
                _exact(g, w) for g, w in zip(left, right, strict=True)
            ), f"Python: {algo.name} gave {got!r}, not {expected!r}"
        else:
            assert _exact(got, expected), f"Python: {algo.name} = {got!r}, not {expected!r}"
    expect_same_or_both_raise(spark, algo, rows, scalars, allow_overflow=False)


# -- // and % ---------------------------------------------------------------------------


def test_floor_division_and_modulo_of_ints(spark: Any) -> None:
    check_values(
        spark,
        T.int_floor_mod,
        [
            ((-7, 2), (-4, 1)),  # floors toward -inf (SQL div truncates: -3, and % gives -1)
            ((7, -2), (-4, -1)),  # the remainder takes the divisor's sign
            ((-7, -2), (3, -1)),
            ((7, 2), (3, 1)),
            ((0, -3), (0, 0)),
            ((-1, 10), (-1, 9)),  # a small negative lands in bucket -1 with rest 9
            ((-10, 5), (-2, 0)),  # exact: no adjustment
            ((INT64_MIN, 3), (-3074457345618258603, 1)),  # floors without overflowing
        ],
    )
    check_rows(
        spark,
        T.buckets,
        [(1, -15), (2, 25), (3, -1), (4, 0), (5, -20)],
        [(1, -2, 5), (2, 2, 5), (3, -1, 9), (4, 0, 0), (5, -2, 0)],
    )


def test_floor_division_and_modulo_of_floats(spark: Any) -> None:
    check_values(
        spark,
        T.float_floor_mod,
        [
            ((-7.5, 2.0), (-4.0, 0.5)),
            ((7.5, -2.0), (-4.0, -0.5)),
            ((-0.5, 1.0), (-1.0, 0.5)),
            ((5.0, 0.5), (10.0, 0.0)),
            ((7.0, -0.5), (-14.0, 0.0)),
            ((-2.0, 3.0), (-1.0, 1.0)),
            ((0.0, -3.0), (-0.0, -0.0)),  # zero takes the divisor's sign
            ((-1e-20, 1.0), (-1.0, 1.0)),  # fmod gives -1e-20, + 1.0 rounds to 1.0 (not 0.0)
        ],
    )
    # -3.0 // 2.5 = -2.0, -3.0 % 2.5 = 2.0; 6.0 -> 2.0, 1.0; 2.5 -> 1.0, 0.0
    check_rows(spark, T.float_bucket_sums, [(-3.0,), (6.0,), (2.5,)], (1.0, 3.0))


# -- division by zero -----------------------------------------------------------------------


def test_division_by_zero_raises(spark: Any) -> None:
    # SQL gives NULL (or NaN/Infinity for doubles); Python raises ZeroDivisionError, for
    # floats too. The second value of each pair is a control that must not raise.
    check_values(spark, T.int_true_div, [((7, 0), ZeroDivisionError), ((7, 2), 3.5)])
    check_values(spark, T.int_floor_div, [((7, 0), ZeroDivisionError), ((-7, 2), -4)])
    check_values(spark, T.int_mod, [((7, 0), ZeroDivisionError), ((-7, 2), 1)])
    check_values(
        spark,
        T.float_true_div,
        [((1.0, 0.0), ZeroDivisionError), ((1.0, -0.0), ZeroDivisionError), ((1.0, 4.0), 0.25)],
    )
    check_values(spark, T.float_floor_div, [((1.0, 0.0), ZeroDivisionError), ((1.0, 4.0), 0.0)])
    check_values(spark, T.float_mod, [((1.0, 0.0), ZeroDivisionError), ((-1.0, 4.0), 3.0)])


def test_division_by_zero_in_aggregate_and_table(spark: Any) -> None:
    check_rows(spark, T.unguarded_mean, [], ZeroDivisionError)  # 0 / 0 on no rows
    check_rows(spark, T.unguarded_mean, [(1, 3), (2, 4)], 3.5)
    check_rows(spark, T.ratios, [(1, 1, 2), (2, 5, 0), (3, 3, 3)], ZeroDivisionError)
    check_rows(spark, T.ratios, [(1, 1, 2), (3, -3, 4)], [(1, 0.5), (3, -0.75)])


# -- 64-bit overflow ----------------------------------------------------------------------------


def test_integer_overflow_raises_never_wraps(spark: Any) -> None:
    # Python's ints do not overflow; a result beyond 64 bits must be an error in the compiled
    # plan (the harness's reference raises Int64Overflow for it). Controls sit at the limits.
    check_values(
        spark,
        T.add,
        [
            ((2**62, 2**62), Int64Overflow),  # 2**63: one past INT64_MAX
            ((INT64_MAX, 1), Int64Overflow),  # would wrap to INT64_MIN
            ((INT64_MIN, -1), Int64Overflow),
            ((2**62, 2**62 - 1), INT64_MAX),  # fits exactly
            ((INT64_MIN, 0), INT64_MIN),
        ],
    )
    check_values(
        spark,
        T.sub,
        [
            ((INT64_MIN, 1), Int64Overflow),
            ((0, INT64_MIN), Int64Overflow),
            ((-1, INT64_MAX), INT64_MIN),
        ],
    )
    check_values(
        spark,
        T.mul,
        [
            ((2**32, 2**31), Int64Overflow),  # 2**63
            ((INT64_MIN, -1), Int64Overflow),
            ((-(2**32), 2**31), INT64_MIN),  # -2**63 fits
            ((2**32, 2**31 - 1), 2**63 - 2**32),
        ],
    )
    check_values(
        spark,
        T.neg_abs,
        [
            ((INT64_MIN,), Int64Overflow),  # -x and abs(x) of -2**63
            ((INT64_MAX,), (-INT64_MAX, INT64_MAX)),
        ],
    )
    check_values(
        spark,
        T.power,
        [
            ((3, 40), Int64Overflow),
            ((2, 63), Int64Overflow),
            ((2, 62), 2**62),
            ((-2, 63), INT64_MIN),
            ((7, 0), 1),
        ],
    )
    check_values(spark, T.int_floor_mod, [((INT64_MIN, -1), Int64Overflow)])  # 2**63, rest 0
    check_values(
        spark,
        T.float_to_int,
        [
            ((1e19,), Int64Overflow),
            ((-1e19,), Int64Overflow),
            ((9.2e18,), (9200000000000000000, 9200000000000000000)),
        ],
    )


def test_integer_overflow_in_sums(spark: Any) -> None:
    big = [(2**62,), (2**62,)]
    check_rows(spark, T.int_total, big, Int64Overflow)
    check_rows(spark, T.state_total, big, Int64Overflow)
    check_rows(spark, T.int_total, [(2**62,), (2**62 - 1,)], INT64_MAX)
    check_rows(spark, T.group_totals, [(1, 2**62), (1, 2**62), (2, 5)], Int64Overflow)
    check_rows(
        spark, T.group_totals, [(1, 2**62), (2, 2**62), (2, 5)], [(1, 2**62), (2, 2**62 + 5)]
    )


# -- None ----------------------------------------------------------------------------------


def test_none_tests_are_python_comparisons(spark: Any) -> None:
    # SQL's NULL = 0, NULL != 0 and NOT NULL are all NULL; Python's are False, True, True
    check_rows(
        spark,
        T.none_tests,
        [(1, None), (2, 0), (3, 5)],
        [
            (1, True, False, False, True, True),
            (2, False, True, True, False, True),
            (3, False, True, False, True, False),
        ],
    )


def test_none_branches_and_defaults(spark: Any) -> None:
    rows = [(1, 2.5, "ab"), (2, None, None), (3, -1.0, ""), (4, None, "xyz")]
    # missing: rows 2 and 4; total 2.5 - 1.0; named "ab", "", "xyz" (empty is not None): 5 chars
    check_rows(spark, T.none_counts, rows, (2, 1.5, 3, 5))
    check_rows(spark, T.none_counts, [], (0, 0.0, 0, 0))
    check_rows(
        spark, T.none_defaults, [(1, "a"), (2, None), (3, "")], [(1, "a!"), (2, "anon!"), (3, "!")]
    )
    # None is a group key of its own, next to "" (a null key must not vanish in a join)
    check_rows(
        spark,
        T.none_groups,
        [(None, 1), ("a", 2), (None, 3), ("", 4)],
        [(None, 2, 4), ("a", 1, 2), ("", 1, 4)],
    )


def test_arithmetic_on_none_raises(spark: Any) -> None:
    # Python raises TypeError; SQL would quietly give NULL
    check_rows(spark, T.none_plus_one, [(1, 5), (2, None)], TypeError)
    check_rows(spark, T.none_plus_one, [(1, 5), (2, -1)], [(1, 6), (2, 0)])
    check_rows(spark, T.none_compared, [(1, None)], TypeError)
    check_rows(spark, T.none_summed, [(1.5,), (None,)], TypeError)
    check_rows(spark, T.none_summed, [(1.5,), (2.0,)], 3.5)


# -- round ------------------------------------------------------------------------------------


def test_round_is_bankers_rounding(spark: Any) -> None:
    check_values(
        spark,
        T.round_int,
        [
            ((2.5,), 2),  # halves go to the even neighbour (SQL round: 3)
            ((3.5,), 4),
            ((-2.5,), -2),  # (SQL: -3)
            ((0.5,), 0),
            ((-0.5,), 0),
            ((1.5,), 2),
            ((2.4999,), 2),
            ((1e15 + 0.5,), 1000000000000000),
        ],
    )
    check_values(
        spark,
        T.round_digits,
        [
            ((2.675,), (3.0, 2.7, 2.67)),  # 2.675 is 2.67499999... in binary: 2.67 (SQL: 2.68)
            ((0.125,), (0.0, 0.1, 0.12)),  # 0.125 is exact: the half goes to the even 2
            ((0.375,), (0.0, 0.4, 0.38)),
            ((2.5,), (2.0, 2.5, 2.5)),  # round(2.5, 0) is 2.0
            ((1.005,), (1.0, 1.0, 1.0)),  # 1.00499999...
            ((0.15,), (0.0, 0.1, 0.15)),  # 0.1499999...
            ((-2.675,), (-3.0, -2.7, -2.67)),
        ],
    )
    check_rows(spark, T.rounded_rows, [(1, 0.5), (2, 1.5), (3, -2.5)], [(1, 0), (2, 2), (3, -2)])


# -- strings -----------------------------------------------------------------------------------


def test_string_concatenation(spark: Any) -> None:
    check_values(
        spark,
        T.concat,
        [
            (("ab", "c"), "abc|cab"),
            (("", ""), "|"),
            (("é", "日本"), "é日本|日本é"),
        ],
    )


def test_str_of_ints_floats_and_bools(spark: Any) -> None:
    check_values(
        spark,
        T.int_text,
        [((0,), "n=0"), ((-5,), "n=-5"), ((INT64_MIN,), "n=-9223372036854775808")],
    )
    check_values(
        spark,
        T.float_text,
        [
            ((1.0,), "x=1.0"),  # Spark's cast: "1.0" too, but ...
            ((100.0,), "x=100.0"),
            ((1e20,), "x=1e+20"),  # ... Spark: "1.0E20"
            ((1e16,), "x=1e+16"),  # repr switches to exponents at 1e16
            ((1e15,), "x=1000000000000000.0"),
            ((12345678901234567.0,), "x=1.2345678901234568e+16"),
            ((0.1,), "x=0.1"),
            ((1 / 3,), "x=0.3333333333333333"),
            ((-0.0,), "x=-0.0"),
            ((1e-05,), "x=1e-05"),  # Spark: "1.0E-5"
            ((0.0001,), "x=0.0001"),
            ((2.5e-07,), "x=2.5e-07"),
            ((math.inf,), "x=inf"),  # Spark: "Infinity"
            ((-math.inf,), "x=-inf"),
            ((math.nan,), "x=nan"),  # Spark: "NaN"
        ],
    )
    check_values(spark, T.bool_text, [((True,), "b=True"), ((False,), "b=False")])  # not "true"
    check_rows(
        spark,
        T.labels,
        [(1, 2.0, True), (-2, 1e20, False)],
        [(1, "1:2.0:True"), (-2, "-2:1e+20:False")],
    )


# -- nulls in non-Optional fields --------------------------------------------------------------


def _message(e: BaseException) -> str:
    parts = []
    while e is not None and len(parts) < 10:
        parts.append(f"{type(e).__name__}: {e}")
        e = e.__cause__ or e.__context__
    return "\n".join(parts)


def test_null_in_non_optional_field_names_the_column(spark: Any) -> None:
    # The DataFrame's column may hold nulls (nullable schema) though the RowStream field is
    # `int`: a clear error naming the column, never a silently wrong total.
    names = ("account_id", "amount_cents")
    rows = [(1, 250), (2, None), (3, 100)]
    out = attempt(lambda: run_compiled(spark, T.strict_total, rows, names=names, nullable=True))
    assert out.raised, f"a null in amount_cents gave {out.value!r}"
    assert "amount_cents" in _message(out.error), _message(out.error)[:2000]
    # the same column without nulls, nullable in the schema: fine
    assert same(
        run_compiled(spark, T.strict_total, [(1, 250), (3, 100)], names=names, nullable=True), 350
    )
    # a null group key
    names = ("region_code", "qty")
    out = attempt(
        lambda: run_compiled(
            spark, T.strict_groups, [("n", 1), (None, 2)], names=names, nullable=True
        )
    )
    assert out.raised, f"a null in region_code gave {out.value!r}"
    assert "region_code" in _message(out.error), _message(out.error)[:2000]


# -- empty inputs --------------------------------------------------------------------------------


def test_aggregate_over_empty_dataframe(spark: Any) -> None:
    # exactly one row: the values of a fresh state (Max of nothing is None)
    check_rows(spark, T.empty_aggregate, [], (0, 0.0, -1, None))
    check_rows(spark, T.empty_count, [], 0)
    check_rows(spark, T.empty_aggregate, [(3, 1.5), (1, -2.0)], (2, -0.5, 3, 1.5))


def test_table_over_empty_dataframe(spark: Any) -> None:
    check_rows(spark, T.empty_table, [], [])
    check_rows(spark, T.empty_per_row, [], [])
    # the columns are there even without rows: named, or _1, _2 for an unnamed table
    assert compiled_frame(spark, T.empty_table, []).columns == ["k", "n", "share"]
    assert compiled_frame(spark, T.empty_per_row, []).columns == ["_1", "_2"]
    check_rows(
        spark,
        T.empty_table,
        [(1, 0.5), (1, 2.0), (2, 1.0), (3, 1.0)],
        [(1, 2, 0.5), (2, 1, 0.25), (3, 1, 0.25)],
    )
