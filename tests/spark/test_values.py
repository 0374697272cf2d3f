"""Constructing values on Spark against CPython (issue 10 item 6): ``raise``
surfaces as the same Python error class, lookup tables, tuples, datetimes.

Scalar algorithms run their values as one batch (one Spark job) per
algorithm; each value on which Python raises runs alone and must raise with
the same class (``same_error_class``).
"""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from tests.spark import value_algos as V
from tests.spark.harness import check_scalar_batch, expect_same_or_both_raise

pytestmark = pytest.mark.spark


def test_raise_surfaces_the_python_error_class(spark: Any) -> None:
    counts = check_scalar_batch(
        spark,
        V.checked_ratio,
        [(1, 0), (7, 3), (100, 0), (-5, 2), (101, 0), (3, -1)],
        max_raise_checks=1,  # KeyError (a ValueError is checked in the loop tests)
    )
    assert counts == {"rows": 4, "raising rows": 1, "overflow allowed": 0}


def test_raise_in_a_loop_body(spark: Any) -> None:
    ok = [(1, 4), (2, 5), (1, 0)]
    expect_same_or_both_raise(spark, V.rows_checked, ok)
    expect_same_or_both_raise(spark, V.rows_checked, [*ok, (3, -1)])
    expect_same_or_both_raise(spark, V.total_checked, [*ok, (0, 1)])
    expect_same_or_both_raise(spark, V.groups_checked, [*ok, (2, 101)])


def test_lookup_tables_are_native_case_expressions(spark: Any) -> None:
    counts = check_scalar_batch(
        spark,
        V.convert,
        [(2.0, "EUR"), (3.5, "USD"), (1.0, "it's"), (1.0, "eur"), (1.0, "")],
        max_raise_checks=1,
    )
    assert counts["rows"] == 3 and counts["raising rows"] == 1  # KeyError
    counts = check_scalar_batch(
        spark,
        V.lookups,
        [
            ("EUR", 0, "cart"),
            ("XYZ", 2, "view"),
            ("GBP", -3, "buy"),
            ("USD", 1, "buy"),
            ("EUR", 3, "cart"),
            ("EUR", 0, "pay"),
        ],  # fmt: skip
        max_raise_checks=1,
    )
    assert counts["rows"] == 4 and counts["raising rows"] == 1  # IndexError


def test_datetime_construction_and_arithmetic(spark: Any) -> None:
    dt = datetime.datetime
    rows = [
        (1, dt(2024, 2, 29, 23, 59, 58, 250), dt(2024, 2, 28, 1, 0, 0), 2),
        (2, dt(2023, 12, 31, 0, 0, 0), dt(2024, 1, 1, 0, 30, 0, 1), 12),  # negative delta
        (3, dt(1999, 1, 4, 5, 6, 7), dt(1999, 1, 4, 5, 6, 7), 7),
    ]
    expect_same_or_both_raise(spark, V.periods, rows)
    # datetime(2023, 2, 1) is fine, month 13 raises ValueError as in Python
    expect_same_or_both_raise(spark, V.periods, [(4, dt(2023, 3, 1), dt(2023, 1, 1), 13)])


def test_tuples_as_values(spark: Any) -> None:
    counts = check_scalar_batch(
        spark,
        V.tuple_values,
        [(1, 2, "a"), (2, 1, ""), (3, 3, "x"), (-4, 3, "y"), (3, -4, "it's")],
    )
    assert counts["rows"] == 5
