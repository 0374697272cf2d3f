"""The signed plan ``f.stream`` runs natively (issue 13): additive states only.

The streaming runs themselves are in tests/incremental/test_stream.py; here, without
Spark, which samples have a signed plan, what it sums, and why the others have none.
"""

from __future__ import annotations

import pytest
from looplift.compiler.backend.signed import NotSigned, signed_plan

from tests.helpers import SAMPLES, import_path


def algo(stem: str, name: str):  # noqa: ANN201
    return getattr(import_path(SAMPLES / f"{stem}.py"), name)


def named(src: str, col: str) -> bool:
    """Does the plan name a column ``col`` (``.alias('c')``, or ``AS `c``` in SQL text)?"""
    return f"alias({col!r})" in src or f"AS `{col}`" in src


@pytest.mark.parametrize(("stem", "name"), [("average", "average"), ("average", "mean"),
                                            ("sum", "sum"), ("weekly", "weekly_revenue")])  # fmt: skip
def test_additive_algorithms_have_a_signed_plan(stem: str, name: str) -> None:
    src = signed_plan(algo(stem, name).compile()).source
    assert "keep=['_sign']" in src and "sum(`_sign`)" in src and named(src, "_live")
    assert "F.lit(1)" not in src  # the rows' own signs, not the batch plan's +1
    assert named(src, "_key") == (name in ("average", "weekly_revenue"))
    assert "Pandas" not in src and "ll.ActionReducer" not in src


@pytest.mark.parametrize(("stem", "name", "why"), [
    ("clickstream", "clickstream", "state `avg_path.seq` is not additive"),
    ("sessions", "session_stats", "ordered loop"),
    ("geo", "visits_by_country", "two aggregates"),
    ("topn", "top_products", "conditional"),
    ("weblog", "page_hits", "host function"),
])  # fmt: skip
def test_other_algorithms_say_why_they_have_none(stem: str, name: str, why: str) -> None:
    with pytest.raises(NotSigned, match=why):
        signed_plan(algo(stem, name).compile())


def test_the_batch_plan_is_unchanged() -> None:
    """The batch plan has no sign (every row counts once) and no live count: the hooks
    only act in the signed plan, whose sums weigh each row by its sign."""
    a = algo("average", "average")
    src = a.backend().source
    assert "_sign" not in src and "_live" not in src
    signed = signed_plan(a.compile()).source
    assert "* `_sign`" in signed and "_live" in signed
