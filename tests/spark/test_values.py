"""Constructing values on Spark against CPython (issue 10 item 6): ``raise``
surfaces as the same Python error class, lookup tables, tuples, datetimes.

Scalar algorithms run their values as one batch (one Spark job) per
algorithm; each value on which Python raises runs alone and must raise with
the same class (``same_error_class``).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.spark import value_algos as V
from tests.spark.harness import check_scalar_batch, expect_same_or_both_raise

pytestmark = pytest.mark.spark


def test_raise_surfaces_the_python_error_class(spark: Any) -> None:
    counts = check_scalar_batch(
        spark,
        V.checked_ratio,
        [(1, 0), (7, 3), (100, 0), (-5, 2), (3, -1), (101, 0)],
        max_raise_checks=2,
    )
    assert counts == {"rows": 4, "raising rows": 2, "overflow allowed": 0}
    expect_same_or_both_raise(spark, V.checked_rows, [(1, 4, 1), (2, 5, 0)])
    expect_same_or_both_raise(spark, V.checked_rows, [(1, 4, 1), (2, 5, -3)])


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
        max_raise_checks=2,
    )
    assert counts["rows"] == 4 and counts["raising rows"] == 2  # IndexError, ValueError
