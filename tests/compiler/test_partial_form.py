"""Which states aggregate partially (issue 28 item 3): decided once, recorded on the graph
(``Choice.partial``), printed by ``--explain``, and read by the plan builder. No Spark."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import import_path

SOURCE = """
from looplift import RowStream, dataflow, group_by
from looplift.states import Median, Min, TopK


@dataflow(columns=("k", "top"))
def top_literal(rows: RowStream[int, int]):
    for k, g in group_by(0, rows):
        t = TopK(5)
        for _k, v in g:
            t.add(v)
        yield k, t.values()


@dataflow(columns=("k", "top"))
def top_param(rows: RowStream[int, int], n: int):
    for k, g in group_by(0, rows):
        t = TopK(n)
        for _k, v in g:
            t.add(v)
        yield k, t.values()


@dataflow(columns=("k", "top"))
def top_zero(rows: RowStream[int, int]):
    for k, g in group_by(0, rows):
        t = TopK(0)
        for _k, v in g:
            t.add(v)
        yield k, t.values()


@dataflow(columns=("k", "top", "med", "lo"))
def top_fused(rows: RowStream[int, int]):
    for k, g in group_by(0, rows):
        t = TopK(2)
        m = Median()
        lo = Min()
        for _k, v in g:
            t.add(v)
            m.add(v)
            lo.add(v)
        yield k, t.values(), m.value(), lo.value()


@dataflow(columns=("k", "s"))
def windowed(rows: RowStream[int, int]):
    for k, g in group_by(0, rows):
        s = 0
        for _k, v in g:
            s += v
        for _k, v in g:
            yield k, v - s
"""


@pytest.fixture(scope="module")
def mod(tmp_path_factory: Any) -> Any:
    path: Path = tmp_path_factory.mktemp("partial_form") / "partial_form_mod.py"
    path.write_text(textwrap.dedent(SOURCE), encoding="utf-8")
    return import_path(path)


def _partials(algo: Any) -> list[str]:
    return [ln.strip().removeprefix("partial aggregation: ")
            for ln in algo.compile().explain().splitlines() if "partial aggregation:" in ln]  # fmt: skip


def test_topk_with_a_literal_k_is_spark_max_by(mod: Any) -> None:
    assert _partials(mod.top_literal) == [
        "Spark's partial max_by(v, v, k) per scope key before the shuffle (the k largest "
        "values of each input partition), merged per scope key"
    ]
    assert "max_by(`_event" in mod.top_literal.backend().source


def test_topk_without_a_literal_k_from_1_is_not_partial(mod: Any) -> None:
    assert _partials(mod.top_param) == ["none"]  # max_by needs a constant k
    assert _partials(mod.top_zero) == ["none"]  # and k >= 1
    assert "max_by" not in mod.top_param.backend().source


def test_fused_states_keep_one_aggregate(mod: Any) -> None:
    """TopK in one aggregate with a Median: no max_by of its own; Min stays Spark's."""
    got = _partials(mod.top_fused)
    assert (
        got.count("none") == 2 and "Spark's partial min() per scope key before the shuffle" in got
    )
    assert "max_by" not in mod.top_fused.backend().source


def test_sums_as_a_window_over_the_rows_are_not_partial(mod: Any) -> None:
    assert _partials(mod.windowed) == ["none"]


def test_the_switch_off_repartitions_by_the_scope_key(tmp_path: Path) -> None:
    from looplift.compiler.backend.plan import Planner

    path = tmp_path / "partial_form_off.py"
    path.write_text(textwrap.dedent(SOURCE), encoding="utf-8")
    off = import_path(path)
    Planner.partial_aggregation = False
    try:
        source = off.top_literal.backend().source
    finally:
        Planner.partial_aggregation = True
    assert "max_by" not in source and ".repartition(" in source
