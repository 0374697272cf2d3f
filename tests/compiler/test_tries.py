"""``try``/``except`` without Spark: which shapes compile natively, which keep their
diagnostic, and the handler codes the table's partiality gives (``frontend/tries.py``,
``backend/trysql.py``). Spark runs them against CPython in ``tests/spark/test_tries.py``."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from looplift.compiler.backend import backend_for
from looplift.compiler.errors import CompilerError
from looplift.compiler.ir.prims import PRIMS
from looplift.compiler.pipeline import compile_dataflow
from looplift.compiler.primitives.partiality import handler_code

from tests.helpers import import_path

HEADER = "import math\nfrom looplift import dataflow\n\n\ndef host(s):\n    return s\n\n\n"


def _diagnostics(tmp_path: Path, body: str, strict: bool = False) -> list[str]:
    path = tmp_path / "m.py"
    path.write_text(HEADER + textwrap.dedent(body), encoding="utf-8")
    algo = import_path(path).f
    if strict:  # the shapes tries.py refuses are Python islands otherwise (issue 25)
        from looplift.api import Dataflow

        algo = Dataflow(algo.fn, algo.columns, strict=True)
    try:
        compiled = compile_dataflow(algo)
        backend_for(compiled)
    except CompilerError as e:
        return [d.message for d in e.diagnostics]
    assert "runs: fully native" in compiled.explain()
    return []


NATIVE = {
    "bare except, return": """
        @dataflow
        def f(s: str) -> int:
            try:
                return int(s)
            except:
                return 0
    """,
    "as e unused, else": """
        @dataflow
        def f(x: float) -> float:
            try:
                v = math.sqrt(x)
            except ValueError as e:
                v = 0.0
            else:
                v = v + 1.0
            return v
    """,
    "several statements and handlers": """
        @dataflow
        def f(s: str) -> float:
            try:
                a = int(s[0])
                b = a / int(s[1:])
            except (IndexError, ZeroDivisionError):
                b = -1.0
            except BaseException:
                b = -2.0
            return b
    """,
}

REFUSED = {
    "a host function": """
        @dataflow
        def f(s: str) -> str:
            try:
                v = host(s)
            except ValueError:
                v = ""
            return v
    """,
    "the exception used": """
        @dataflow
        def f(s: str) -> str:
            try:
                v = int(s)
            except ValueError as e:
                v = len(str(e))
            return v
    """,
    "finally": """
        @dataflow
        def f(s: str) -> int:
            try:
                v = int(s)
            except ValueError:
                v = 0
            finally:
                w = 1
            return v + w
    """,
    "no native test of the clause": """
        @dataflow
        def f(s: str, c: str) -> str:
            try:
                v = s.center(9, c)
            except TypeError:
                v = s
            return v
    """,
}


@pytest.mark.parametrize("name", sorted(NATIVE))
def test_native(tmp_path: Path, name: str) -> None:
    assert _diagnostics(tmp_path, NATIVE[name]) == []


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refused_with_a_diagnostic(tmp_path: Path, name: str) -> None:
    got = _diagnostics(tmp_path, REFUSED[name], strict=True)
    assert any("try" in m for m in got), got


def test_handler_codes_follow_the_class_hierarchy() -> None:
    code = handler_code([["ValueError"], ["LookupError"], ["ArithmeticError"]])
    assert [code(c) for c in ("ValueError", "StatisticsError", "IndexError", "KeyError")] == [
        1, 1, 2, 2,
    ]  # fmt: skip
    assert [code(c) for c in ("ZeroDivisionError", "OverflowError", "TypeError")] == [3, 3, -1]
    assert handler_code([["BaseException"]])("AttributeError") == 1


def test_reference_of_the_test_is_cpython() -> None:
    rc = PRIMS["raise_code"].impl
    assert rc("nth|ValueError|LookupError", "ab", 5) == 2
    assert rc("int|ValueError", "x") == 1
    assert rc("int|ValueError", None) == -1  # TypeError: no handler
    assert rc("truediv|ArithmeticError", 1.0, 2.0) == 0


def test_python_code_of_the_test() -> None:
    """An ordered loop's Python body renders the test as ``ll.try_code`` (pycode.py)."""
    from looplift.compiler.backend.pycode import PyEmitter  # noqa: F401 - the renderer exists
    from looplift.spark import try_code

    assert try_code(lambda: int("x"), [["TypeError"], ["ValueError"]]) == 2
    assert try_code(lambda: [][1], [["ValueError"]]) == -1
    assert try_code(lambda: 1 / 2, [["ZeroDivisionError"]]) == 0
