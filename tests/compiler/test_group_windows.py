"""Group values used per row (issue 27, item 2): which scopes' additive sums become
window aggregates over the rows, what the plan and ``--explain`` say (no Spark needed;
the results on Spark: tests/spark/test_pergroup.py)."""

from __future__ import annotations

import pytest
from looplift.compiler.backend import backend_for
from looplift.compiler.backend.signed import NotSigned, signed_plan
from looplift.compiler.dataflow.strategy import Strategy
from looplift.compiler.pipeline import compile_dataflow

from tests.spark import pergroup_algos as algos
from tests.spark.test_pergroup import ALGOS, WINDOWED

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
    if algo.name in WINDOWED:
        assert any(c.over_rows for c in sums)
        assert ") OVER (PARTITION BY" in source and "join_on_keys" not in source
        assert WINDOW in text and "read only per row" in text
    else:
        assert sums and not all(c.over_rows for c in sums)
        assert "join_on_keys" in source
        assert "not a window over the rows:" in text


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
