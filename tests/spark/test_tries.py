"""``try``/``except`` around primitives, compiled natively, against CPython on Spark:
edge data (None, empty strings, Unicode digits, NaN, ±inf, 2**63, invalid dates) in the
Column call form, through ``looplift.sql`` and in a group loop; a class no handler
catches raises with Python's class (``try_algos.py``)."""

from __future__ import annotations

import math
from typing import Any

import pytest

from tests.spark import try_algos as T
from tests.spark.harness import check_scalar_batch, expect_same_or_both_raise

pytestmark = pytest.mark.spark

STRS = [None, "", " ", "12", " 12 ", "-7", "+1_000", "1__0", "٣", "１２", "nan", "-inf", "1e5",
        "9223372036854775808", "-9223372036854775809", "abc", "a,b", "a,b,c", "1,2,345",
        "x,12,y", "a,b,c12", "$1,200.50", "12.5", "😀", "id 42 here", "a,x"]  # fmt: skip
FLOATS = [0.0, -0.0, 1.0, -1.0, 2.5, math.nan, math.inf, -math.inf, 1e300, 2.0**63]
INTS = [0, 1, -1, 7, 2**63 - 1, -(2**63), 2**31]
DATES = [(2024, 2, 29), (2023, 2, 29), (1900, 2, 29), (2000, 2, 29), (2023, 4, 31),
         (2023, 13, 1), (2023, 0, 1), (0, 1, 1), (9999, 12, 31), (10000, 1, 1), (2023, 1, 0),
         (2**31, 1, 1), (2023, 12, 31)]  # fmt: skip

ROWS: dict[str, list[tuple]] = {
    "price": [(s,) for s in STRS],
    "to_int": [(s,) for s in STRS],
    "to_int_value_error": [(s,) for s in STRS if s is not None] + [(None,)],
    "third_field": [(s,) for s in STRS if s is not None],
    "field_kept": [(s,) for s in STRS if s is not None],
    "only_index": [(s,) for s in STRS if s is not None],
    "safe_div": [(a, b) for a in (1.0, -2.0, math.nan, math.inf) for b in FLOATS],
    "int_div": [(a, b) for a in (7, -7, 2**63 - 1) for b in INTS],
    "log_or": [(x,) for x in FLOATS],
    "make_day": DATES,
    "first_number": [(s,) for s in STRS if s is not None],
    "floor_of": [(x,) for x in FLOATS],
}


@pytest.mark.parametrize("name", sorted(ROWS))
def test_column_form(spark: Any, name: str) -> None:
    """``df.select(algo(F.col(...)))`` equals CPython row by row; rows on which CPython
    raises (a class no handler catches) raise with that class."""
    check_scalar_batch(spark, getattr(T, name), ROWS[name], max_raise_checks=2)


def test_group_loop(spark: Any) -> None:
    rows = [("a", "1.5"), ("a", "x"), ("a", "٣"), ("b", "nan"), ("b", ""), ("c", "-inf"),
            ("c", "1_0")]  # fmt: skip
    expect_same_or_both_raise(spark, T.parse_sum, rows)
