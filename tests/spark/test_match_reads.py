"""Match objects read where they are used, and the yield's filter first, against CPython
(issue 27, items 2 and 5): ``if m:`` as one ``regexp_like``, ``m.group(k)`` as the
``regexp_extract`` of that group only, the AttributeError of a group read on no match,
the TypeError of a None string, and errors of values computed before the test on rows
the yield then drops. Algorithms in ``match_algos.py``; hypothesis text plus curated
lines (Unicode digits and letters, empty strings, newlines)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.spark import match_algos as A
from tests.spark.harness import expect_same_or_both_raise

pytestmark = pytest.mark.spark

LINES = ["12-ab", "12-ab=7", "0-x", "7-\u00e9t\u00e9", "\u0663-x", "3-", "-ab", "", "x 5-yy=1\n",
         "5-a=", " 9-b ", "#1-a", "99-z_1=000", "4-a\n", "1-\u65e5"]  # fmt: skip
ALPHABET = "09-=ab_ \u00e9\u0663\n#x"
texts = st.one_of(st.sampled_from(LINES), st.text(st.sampled_from(ALPHABET), max_size=8))


def _check(spark: Any, name: str, rows: list[tuple]) -> None:
    expect_same_or_both_raise(spark, getattr(A, name), rows)


@pytest.mark.parametrize("name", ["parsed", "both_branches", "nested"])
def test_match_reads_equal_python(spark: Any, name: str) -> None:
    @settings(max_examples=2, derandomize=True, database=None, deadline=None,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(st.lists(texts, min_size=30, max_size=30))
    def check(lines: list[str]) -> None:
        _check(spark, name, list(enumerate([*LINES, *lines])))

    check()


@pytest.mark.parametrize(("name", "rows"), [
    ("checked_before", [(1, "1-a"), (2, "3-b=4"), (3, "")]),           # returns
    ("checked_before", [(1, "1-a"), (2, "x no match")]),                # ValueError on a dropped row
    ("checked_before", [(1, "a 1-a")]),                                 # ValueError on a kept row
    ("unguarded", [(1, "ab"), (2, "\u00e9t\u00e9"), (3, "z9")]),        # returns
    ("unguarded", [(1, "ab"), (2, "12")]),                              # AttributeError
    ("unguarded", [(1, "ab"), (2, None)]),                              # TypeError
])  # fmt: skip
def test_errors_where_python_raises(spark: Any, name: str, rows: list[tuple]) -> None:
    _check(spark, name, rows)
