"""The backend's limits are compiler diagnostics at the user's line (no Spark needed)."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest
from looplift.compiler.backend import BackendError, backend_for
from looplift.compiler.backend.plan import Planner
from looplift.compiler.dataflow.payloads import Op
from looplift.compiler.errors import CompilerError
from looplift.compiler.pipeline import compile_dataflow

from tests.helpers import SAMPLES, import_path


def _module(tmp_path: Path, body: str):
    path = tmp_path / "limits_mod.py"
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return import_path(path), path


def test_two_row_streams_is_a_diagnostic_at_the_def(tmp_path: Path) -> None:
    mod, path = _module(tmp_path, """\
        from looplift import RowStream, dataflow


        @dataflow
        def two(a: RowStream[int], b: RowStream[int]) -> int:
            t = 0
            for (x,) in a:
                t += x
            for (y,) in b:
                t += y
            return t
        """)  # fmt: skip
    with pytest.raises(BackendError) as e:
        backend_for(compile_dataflow(mod.two))
    assert isinstance(e.value, CompilerError)
    (d,) = e.value.diagnostics
    assert d.span.path == str(path) and d.span.line == 5
    assert "`two` cannot be built for Spark: `two` takes 2 RowStreams" in d.message
    assert f"{path}:5:" in str(e.value)


def test_cross_product_is_reported_at_the_inner_loop(tmp_path: Path) -> None:
    mod, path = _module(tmp_path, """\
        from looplift import RowStream, dataflow


        @dataflow
        def pairs(a: RowStream[int]):
            for (x,) in a:
                for (y,) in a:
                    yield x, y
        """)  # fmt: skip
    try:
        compiled = compile_dataflow(mod.pairs)
    except CompilerError:
        pytest.skip("refused before the backend")
    with pytest.raises(BackendError, match="cross product") as e:
        backend_for(compiled)
    assert e.value.diagnostics[0].span.line in (6, 7)


@dataclass(frozen=True)
class Teleport(Op):
    KIND = "teleport"


def test_an_operator_without_a_rule_is_named_with_its_span() -> None:
    mod = import_path(SAMPLES / "count.py")
    compiled = compile_dataflow(mod.count)
    planner = Planner(compiled.program, compiled.graph)
    span = compiled.program.fn.span
    with pytest.raises(BackendError, match="no translation rule for Teleport") as e:
        planner.visit(Teleport(span))
    assert e.value.diagnostics[0].span == span


def test_backend_doctests() -> None:
    import doctest

    from looplift import kernels
    from looplift.compiler.backend import frame, host_reader, layout, naming, strfast

    for module in (frame, host_reader, layout, naming, strfast, kernels):
        result = doctest.testmod(module)
        assert result.attempted and not result.failed, module.__name__
