"""Group values used per row (issue 27, item 2): which scopes' additive sums become
window aggregates over the rows, what the plan and ``--explain`` say (no Spark needed;
the results on Spark: tests/spark/test_pergroup.py)."""

from __future__ import annotations

import pytest
from looplift import RowStream, dataflow, group_by
from looplift.compiler.backend import backend_for
from looplift.compiler.backend.signed import NotSigned, signed_plan
from looplift.compiler.dataflow.strategy import Strategy
from looplift.compiler.pipeline import compile_dataflow

from tests.helpers import GOLDEN, check_golden
from tests.spark import pergroup_algos as algos
from tests.spark.named_algos import Click
from tests.spark.test_pergroup import ALGOS, JOINED_TOO, WINDOWED

WINDOW = "OVER (PARTITION BY the scope key)"


def _sums(compiled):  # noqa: ANN001, ANN202
    """The choices of the states a window over the rows can compute: additive sums, and a
    native Min/Max (the other sequence states never are)."""
    return [n.strategy for n in compiled.graph.nodes()
            if n.strategy is not None and (n.strategy.strategy is Strategy.NATIVE_SUMS
                                           or n.strategy.strategy is Strategy.SEQUENCE
                                           and n.strategy.form_why is not None)]  # fmt: skip


@pytest.mark.parametrize("algo", ALGOS, ids=lambda a: a.name)
def test_form_recorded_built_and_explained(algo) -> None:  # noqa: ANN001
    compiled = compile_dataflow(algo)
    sums = _sums(compiled)
    source = backend_for(compiled).source
    text = compiled.explain()
    windows, _, joined = source.partition("\ndef plan_joined(")
    if algo.name in WINDOWED:
        assert any(c.over_rows for c in sums)
        assert ") OVER (PARTITION BY" in windows and "join_on_keys" not in windows
        assert WINDOW in text and "read only per row" in text
    else:
        assert sums and not all(c.over_rows for c in sums)
        assert "join_on_keys" in source
        assert "not a window over the rows:" in text
    # the other form, built where Spark's statistics show few large groups
    if algo.name in JOINED_TOO:
        assert all(c.by_statistics for c in sums if c.over_rows)
        key = "[[0, 1]]" if algo.name == "nested" else "[[0]]"
        assert f"if ll.few_large_groups(rows, {key}):" in windows
        assert "broadcast=True" in joined and ") OVER (PARTITION BY `" not in joined
        assert "spark.looplift.groupValues" in text
    else:
        assert not joined and "few_large_groups" not in source
        assert not any(c.by_statistics for c in sums)
        assert "spark.looplift.groupValues" not in text


def test_reasons_name_what_keeps_the_join() -> None:
    why = {a.name: {c.form_why for c in _sums(compile_dataflow(a))} for a in ALGOS}
    assert why["per_key_too"] == {"a row per key is yielded at line 118"}
    assert why["rank_then_last"] == {
        "`ordered._loop2` of the same scope is not an additive state, a minimum or a maximum"}
    assert any("used outside it" in w for w in why["nested"])


def test_signed_plans_are_unchanged() -> None:
    """A signed plan (incremental views, streams) keeps the aggregate per key, so a group
    value read per row is still a join it refuses (Structured Streaming runs no window
    over a key)."""
    with pytest.raises(NotSigned, match=r"\(a join\)"):
        signed_plan(compile_dataflow(algos.share))


@dataflow(columns=("k", "id", "share"))
def share_by_decade(rows: RowStream[int, int, int]):
    """A computed key: Spark's statistics cannot count it, so only the window is built."""
    for k, grp in group_by(lambda r: r[0] // 10, rows):
        total = 0
        for _k, _i, w in grp:
            total += w
        for _k, i, w in grp:
            yield k, i, w / total


@dataflow(columns=("user_id", "ts", "share"))
def share_named(clicks: RowStream[Click]):
    """Named rows: the key is the input's column by name."""
    for user, grp in group_by(lambda c: c.user_id, clicks):
        total = 0
        for c in grp:
            total += c.page
        for c in grp:
            yield user, c.ts, c.page / total


def test_the_other_form_needs_a_key_of_input_fields() -> None:
    computed = compile_dataflow(share_by_decade)
    assert [c.by_statistics for c in _sums(computed) if c.over_rows] == [False]
    assert "plan_joined" not in backend_for(computed).source
    assert "spark.looplift.groupValues" not in computed.explain()
    named = backend_for(compile_dataflow(share_named)).source
    assert "if ll.few_large_groups(clicks, [['user_id']]):" in named


@pytest.mark.parametrize("algo", [algos.centered, algos.share], ids=lambda a: a.name)
def test_plan_with_both_forms_as_generated(algo) -> None:  # noqa: ANN001
    """The generated module (product output) of a plan that holds both forms, and its
    explanation: snapshots, reviewed when they change."""
    compiled = compile_dataflow(algo)
    check_golden(GOLDEN / "plans" / f"pergroup.{algo.name}.py", backend_for(compiled).source)
    check_golden(GOLDEN / "explain" / f"pergroup.{algo.name}.txt", compiled.explain())
