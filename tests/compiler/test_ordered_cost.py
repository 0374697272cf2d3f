"""The plan of an ordered loop chosen by its largest group's size (issue 27 item 1,
``compiler/backend/ordered_cost.py``): above ``FOLD_ROWS`` rows per group (the user's
``@dataflow(largest_group=N)``) windows, which spill, where they give the rows; else the
fastest plan. Recorded on the graph, built by the plan, and said by ``--explain``. No
Spark: plans are generated, not run (the window and fold plans' results are checked
against CPython in tests/spark/test_ordered_native.py and test_boundary_fold.py)."""

from __future__ import annotations

from typing import Any

import pytest
from looplift.api import Dataflow
from looplift.compiler.backend import backend_for
from looplift.compiler.backend.ordered_cost import FOLD_ROWS
from looplift.compiler.dataflow.payloads import NodeKind
from looplift.compiler.dataflow.strategy import Strategy
from looplift.compiler.frontend import parse_module
from looplift.compiler.frontend.decorators import check_decorators
from looplift.compiler.pipeline import compile_dataflow

from tests.helpers import ROOT, import_path

ALGOS = import_path(ROOT / "tests" / "perf" / "algos.py")


def _with(algo: Any, rows: int | None) -> Dataflow:
    return Dataflow(algo.fn, algo.columns, largest_group=rows)


def _chosen(algo: Dataflow) -> tuple[set[Strategy], str]:
    compiled = compile_dataflow(algo)
    recorded = {n.strategy.strategy for n in compiled.graph.of_kind(NodeKind.STATE)}
    made = {s for _, s in backend_for(compiled).strategies}
    assert made == recorded
    return recorded, compiled.explain()


@pytest.mark.parametrize(
    ("name", "small", "big"),
    [
        ("session_ids", Strategy.NATIVE_BOUNDARY, Strategy.NATIVE_WINDOW),  # windows spill
        ("reset_balances", Strategy.NATIVE_WINDOW, Strategy.NATIVE_WINDOW),  # fastest, spills
        ("session_summaries", Strategy.NATIVE_BOUNDARY, Strategy.NATIVE_BOUNDARY),  # no window
    ],
)
def test_chosen_by_the_largest_group(name: str, small: Strategy, big: Strategy) -> None:
    algo = getattr(ALGOS, name)
    sizes = (None, FOLD_ROWS, FOLD_ROWS + 1) if name == "session_ids" else (None, FOLD_ROWS + 1)
    for rows in sizes:
        want = big if rows is not None and rows > FOLD_ROWS else small
        got, text = _chosen(_with(algo, rows))
        assert got == {want}, (rows, got)
        assert "plan chosen by size: " in text
        if rows is None:
            assert (
                f"group sizes not given (@dataflow(largest_group=...)): assumed below {FOLD_ROWS:,}"
                in text
            )
        else:
            assert f"largest group {rows:,} rows" in text
    if big is Strategy.NATIVE_WINDOW and small is not big:
        assert "window functions, which sort and spill, over the boundary-position fold" in text
    if name == "session_summaries":
        assert "its values read after the loop are a fold over the group either way" in text


def test_the_hint_is_checked() -> None:
    with pytest.raises(TypeError, match="largest_group"):
        Dataflow(ALGOS.session_ids.fn, None, largest_group=-1)
    with pytest.raises(TypeError, match="largest_group"):
        Dataflow(ALGOS.session_ids.fn, None, largest_group=2.5)  # type: ignore[arg-type]


def test_the_decorator_takes_an_int_literal(tmp_path: Any) -> None:
    """``uda-compile`` refuses a hint that is not an int literal (read from the source)."""
    src = tmp_path / "hinted.py"
    src.write_text(
        "from looplift import RowStream, dataflow\n\n"
        "N = 5\n\n"
        "@dataflow(largest_group=N)\n"
        "def f(rows: RowStream[int]) -> int:\n"
        "    n = 0\n"
        "    for _ in rows:\n"
        "        n += 1\n"
        "    return n\n"
    )
    found = check_decorators(parse_module(str(src)))
    assert [d.message for d in found] == ["`largest_group=N` is not an int literal"]
    src.write_text(src.read_text().replace("largest_group=N", "largest_group=50_000_000"))
    assert check_decorators(parse_module(str(src))) == []
