"""The shape of plans that read match objects (issue 27, items 2 and 5): the yield's
filter first, one match test per ``if m`` and one group read per group read (looplift's
kernels of ``regexp_like`` and ``regexp_extract``: the row's match runs once; none of the
groups not read), no array of groups, and values that may raise on rows the
filter drops made before it. The results are checked against CPython in
tests/spark/test_match_reads.py; here, what the plan holds (no Spark needed)."""

from __future__ import annotations

import re

from looplift.compiler.backend import backend_for
from looplift.compiler.cli import algorithms_of
from looplift.compiler.pipeline import compile_dataflow

from tests.helpers import SAMPLES, import_path
from tests.spark import match_algos as A


def _plan(algo: object) -> str:
    return backend_for(compile_dataflow(algo, verify=True)).source  # type: ignore[arg-type]


def _body(source: str) -> str:
    """The ``plan`` function, its long strings' pieces joined (quotes may differ)."""
    return re.sub(r"['\"]\n\s*['\"]", "", source[source.index("def plan(") :])


def test_parse_log_is_a_filter_then_one_select() -> None:
    module = import_path(SAMPLES / "regex_text.py")
    (algo,) = [a for a in algorithms_of(module) if a.name == "parse_log"]
    body = _body(_plan(algo))
    assert "withColumn" not in body and "array(" not in body
    assert body.count("looplift_regex_like(") == 1 and "regexp_" not in body
    where, select = body.index(".where("), body.index(".select")  # select or selectExpr
    assert where < select
    reads = re.findall(r"\)\)', (\d)\)", body)  # the group number after each pattern
    assert sorted(reads) == ["1", "2", "3", "4", "5"], reads  # group 0 is not read


def test_groups_read_under_the_test_are_not_checked_again() -> None:
    body = _body(_plan(A.parsed))
    assert "AttributeError" not in body and "IS NOT NULL" not in body
    assert body.count("looplift_regex_like(") == 1 and body.count("looplift_regex_group(") == 3
    assert "nullif(looplift_regex_group(" in body  # group 3 may take no part: None


def test_a_value_that_may_raise_is_made_before_the_filter() -> None:
    body = _body(_plan(A.checked_before))
    assert body.index("invalid literal for int()") < body.index(".where(")


def test_a_group_read_without_a_test_raises_where_nothing_matches() -> None:
    body = _body(_plan(A.unguarded))
    assert "AttributeError: " in body and "no attribute" in body
    assert "TypeError: expected string or bytes-like object" in body
    assert "where(" not in body


def test_two_yields_keep_their_filters() -> None:
    body = _body(_plan(A.both_branches))
    assert body.count(".where(") == 2 and "union_all" in body
