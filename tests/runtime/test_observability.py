"""Observability (issue 26): looplift logs on the ``looplift`` logger (a child per
module), prints only where printing is the point (the CLI, ``explain``, a server's
``main``), leaves the process' Spark log level and warning filters alone outside
``local_session`` (the tests' and demos' helper), and quiets the pyspark warnings its
own calls cause around those calls only."""

from __future__ import annotations

import ast
import logging
import warnings

import pytest
from looplift import RowStream, dataflow
from looplift.api import Dataflow

from tests.helpers import ROOT

LIBRARY = ("compiler", "runtime", "states", "shells")
# (file, function) where a print is the output the caller asked for
PRINTS = {("compiler/cli.py", "*"), ("runtime/api.py", "explain"), ("runtime/connect.py", "main")}


def _calls(name: str) -> list[tuple[str, str, ast.Call, list[ast.AST]]]:
    """Every call of ``name`` (a bare name or an attribute) in the library's sources:
    (file, enclosing function, the call, its enclosing nodes)."""
    found = []
    for folder in LIBRARY:
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            tree = ast.parse(path.read_text(encoding="utf-8"))

            def visit(node: ast.AST, stack: list[ast.AST], rel: str = rel) -> None:
                if isinstance(node, ast.Call):
                    f = node.func
                    called = f.id if isinstance(f, ast.Name) else getattr(f, "attr", None)
                    if called == name:
                        fn = next((s.name for s in reversed(stack)
                                   if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)),
                                  "<module>")  # fmt: skip
                        found.append((rel, fn, node, list(stack)))
                for child in ast.iter_child_nodes(node):
                    visit(child, [*stack, node])

            visit(tree, [])
    return found


def test_no_print_in_library_code() -> None:
    stray = [f"{rel}:{c.lineno} in {fn}" for rel, fn, c, _ in _calls("print")
             if (rel, fn) not in PRINTS and (rel, "*") not in PRINTS]  # fmt: skip
    assert stray == []


def test_spark_log_level_only_in_local_session() -> None:
    where = {(rel, fn) for name in ("setLogLevel", "setLevel") for rel, fn, c, _ in _calls(name)
             if "Configurator" in ast.unparse(c.func) or name == "setLogLevel"}  # fmt: skip
    assert where == {("runtime/sessions.py", "local_session")}


def test_warning_filters_only_inside_catch_warnings() -> None:
    def guarded(stack: list[ast.AST]) -> bool:
        return any(isinstance(s, ast.With) and any("catch_warnings" in ast.unparse(i.context_expr)
                                                    for i in s.items) for s in stack)  # fmt: skip

    loose = [f"{rel}:{c.lineno}" for name in ("filterwarnings", "simplefilter")
             for rel, _fn, c, stack in _calls(name) if not guarded(stack)]  # fmt: skip
    assert loose == []


@dataflow
def total(rows: RowStream[int]) -> int:
    t = 0
    for (x,) in rows:
        t += x
    return t


def test_the_looplift_logger_and_compile_times(caplog: pytest.LogCaptureFixture) -> None:
    assert any(isinstance(h, logging.NullHandler) for h in logging.getLogger("looplift").handlers)

    with caplog.at_level(logging.INFO, logger="looplift"):
        Dataflow(total.fn).compile().backend  # noqa: B018 - the plan is built (and logged) on first use
    records = [(r.name, r.getMessage()) for r in caplog.records]
    names = {n for n, _ in records}
    assert names == {"looplift.compiler.pipeline"}, records
    messages = [m for _, m in records]
    assert messages[0].endswith(".total") and messages[0].startswith("compiling ")
    assert any(m.startswith("compiled ") and " s: aggregate, 0 Python islands" in m
               for m in messages)  # fmt: skip
    assert any(m.startswith("built the Spark plan of total in ") for m in messages)


@pytest.mark.spark
def test_arrow_udf_hint_warning_quieted_at_the_call(spark) -> None:  # noqa: ANN001
    from looplift.spark import _arrow_udf

    before = list(warnings.filters)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        _arrow_udf(lambda *cols: cols[0], "long", "SCALAR")
    assert not [w for w in seen if "type hints" in str(w.message)]
    assert warnings.filters == before  # nothing left behind in the process' filters

