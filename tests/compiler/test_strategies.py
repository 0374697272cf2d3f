"""Strategies decided once (issue 24, item 2): ``--explain`` says, for every state operator,
the strategy ``passes/choose_strategy.py`` recorded on the graph, and the plan was
generated with that strategy.

Over every sample, every valid and reach corpus program, and the algorithms of the Spark
tests (agreement, guarded, containers, order, strings, traps, values, host results,
silent answers). No Spark: the plans are generated, not run.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from looplift.compiler.backend import PlanModule, backend_for
from looplift.compiler.cli import algorithms_of, load_module
from looplift.compiler.dataflow.payloads import NodeKind
from looplift.compiler.dataflow.strategy import Strategy
from looplift.compiler.errors import CompilerError
from looplift.compiler.pipeline import compile_dataflow

from tests.helpers import CORPUS, ROOT, SAMPLES

_SPARK_ALGOS = ("agreement", "guarded", "container", "order", "str", "trap", "value", "hostret",
                "silent")  # fmt: skip


def _programs() -> list[Path]:
    samples = [
        p for p in sorted(SAMPLES.glob("*.py")) if re.search(r"^@dataflow", p.read_text(), re.M)
    ]
    corpus = [p for sub in ("valid", "reach") for p in sorted((CORPUS / sub).glob("*.py"))]
    spark = [ROOT / "tests" / "spark" / f"{name}_algos.py" for name in _SPARK_ALGOS]
    return [*samples, *corpus, *(p for p in spark if p.exists())]


#: an operator line of ``--explain``: ``    name: classes (strategy), scope key ...``
_OPERATOR = re.compile(r"^    (\S+): .*\(([^()]*)\), scope key ", re.M)


def explained_strategies(text: str) -> dict[str, Strategy]:
    """The strategy ``--explain`` gives each state operator."""
    return {m[1]: Strategy(m[2]) for m in _OPERATOR.finditer(text)}


@pytest.mark.parametrize("path", _programs(), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_explain_record_and_plan_agree(path: Path) -> None:
    module = load_module(str(path), name=f"strategies_{path.parent.name}_{path.stem}")
    for algo in algorithms_of(module):
        try:
            compiled = compile_dataflow(algo)
        except CompilerError:
            continue  # refused before the graph: nothing was decided
        where = f"{path.name}:{algo.name}"
        recorded = {n.op.operator.name: n.strategy.strategy
                    for n in compiled.graph.of_kind(NodeKind.STATE)}  # fmt: skip
        assert all(n.strategy is not None for n in compiled.graph.nodes()), where
        explained = explained_strategies(compiled.explain())
        assert explained == recorded, f"{where}: --explain says {explained}, recorded {recorded}"
        try:
            made = backend_for(compiled)
        except CompilerError:
            continue  # --check refuses it too (test_check_agreement.py)
        if not isinstance(made, PlanModule):
            assert not recorded, where  # a scalar has no state operator
            continue
        for op, strategy in made.strategies:
            assert strategy is recorded[op], (
                f"{where}: {op} recorded {recorded[op].name}, plan made with {strategy.name}"
            )


def test_every_strategy_is_exercised() -> None:
    """The programs above reach every state strategy (else the agreement says little)."""
    seen: set[Strategy] = set()
    for path in _programs():
        module = load_module(str(path), name=f"strategies_all_{path.parent.name}_{path.stem}")
        for algo in algorithms_of(module):
            try:
                compiled = compile_dataflow(algo)
            except CompilerError:
                continue
            seen |= {n.strategy.strategy for n in compiled.graph.nodes()}
    state = {s for s in Strategy if s.is_state}
    assert state - seen <= {Strategy.FRESH_READERS}, state - seen


def test_every_state_strategy_has_a_planner() -> None:
    from looplift.compiler.backend.strategies import planner_class

    for s in Strategy:
        if s.is_state:
            assert planner_class(s).__module__.startswith("looplift.compiler.backend.strategies.")


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports (at any level, under ``TYPE_CHECKING`` too), absolute."""
    package = "looplift." + ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            mod = ".".join(x for x in (base, node.module) if x)
            out |= {mod} | {f"{mod}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
    return out


def test_strategy_planners_do_not_import_the_planner() -> None:
    """The planners of the strategies and what they are written against never import the
    plan builder (not even for a type hint), and the graph is built without the backend."""
    backend = ROOT / "compiler" / "backend"
    lower = [*sorted((backend / "strategies").glob("*.py")), backend / "context.py",
             backend / "frames.py", backend / "outputs.py", backend / "module.py", backend / "loops.py"]  # fmt: skip
    for path in lower:
        assert "looplift.compiler.backend.plan" not in _imports(path), path.name
    for path in sorted((ROOT / "compiler" / "dataflow").glob("*.py")):
        assert not any(m.startswith("looplift.compiler.backend") for m in _imports(path)), path.name
