"""Types for IDEs and type checkers (issue 26): ``@dataflow`` keeps the decorated
function's parameters and result (``Dataflow[P, R]``), ``f(df)`` is a DataFrame, a
scalar called with a Column a Column, ``f.agg`` a Column; ``RowStream[int, str]`` is an
iterable of rows. mypy checks a snippet when it is installed."""

from __future__ import annotations

import importlib.util
import inspect
import shutil
import subprocess
import sys
import typing
from pathlib import Path

import pytest
from looplift import RowStream, dataflow
from looplift.api import Dataflow

from tests.helpers import ROOT


def test_dataflow_is_generic_in_params_and_result() -> None:
    p, r = Dataflow.__parameters__
    assert isinstance(p, typing.ParamSpec) and isinstance(r, typing.TypeVar)
    bare, configured = typing.get_overloads(dataflow)
    assert "columns" not in inspect.signature(bare).parameters
    assert {"columns", "strict"} <= set(inspect.signature(configured).parameters)
    calls = typing.get_overloads(Dataflow.__call__)
    assert [str(inspect.signature(c).return_annotation) for c in calls] == [
        "R", "DataFrame", "Column"]  # fmt: skip

    @dataflow
    def twice(x: int) -> int:
        return 2 * x

    assert typing.get_type_hints(twice.fn) == {"x": int, "return": int}
    assert twice.__wrapped__ is twice.fn and twice.__name__ == "twice"
    assert Dataflow[[int], int] is not None  # subscriptable at run time too
    assert RowStream[int, str].fields == (int, str)  # the run-time marker is unchanged


SNIPPET = '''
from looplift import RowStream, dataflow, group_by
from pyspark.sql import DataFrame


@dataflow
def double(x: int) -> int:
    return x * 2


@dataflow(columns=("k", "n"), strict=True)
def counts(rows: RowStream[int, int]):
    for k, g in group_by(0, rows):
        n = 0
        for _a, _b in g:
            n += 1
        yield k, n


def use(df: DataFrame) -> None:
    reveal_type(double)
    reveal_type(double(21))
    reveal_type(counts(df))
    reveal_type(double.agg)
    reveal_type(counts.explain)
    counts([(1, 2), (2, 3)])
    counts(iter([(5, 5)]))
    double("x")  # E: no overload
'''


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None, reason="mypy is not installed")
def test_mypy_sees_the_types(tmp_path: Path) -> None:
    # the package laid out as pyproject.toml maps it (an editable install hides it from mypy)
    pkg = tmp_path / "tree" / "looplift"
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "runtime", pkg, ignore=ignore)
    for sub in ("compiler", "states", "shells"):
        shutil.copytree(ROOT / sub, pkg / sub, ignore=ignore)
    (tmp_path / "snippet.py").write_text(SNIPPET)
    (tmp_path / "mypy.ini").write_text(
        "[mypy]\nfollow_imports = silent\nignore_missing_imports = True\n"
        "[mypy-looplift.compiler.*]\nfollow_imports = skip\n"
    )
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", "mypy.ini", "--no-incremental",
         "--cache-dir", str(tmp_path / "cache"), "snippet.py"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300,
        env={"MYPYPATH": str(tmp_path / "tree"), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    out = run.stdout
    revealed = [ln.split('Revealed type is "')[1].rstrip('"') for ln in out.splitlines()
                if "Revealed type" in ln]  # fmt: skip
    assert revealed == [
        "looplift.api.Dataflow[[x: int], int]",
        "int",
        "pyspark.sql.dataframe.DataFrame",
        "def (*columns: str | pyspark.sql.column.Column, **scalars: Any) -> "
        "pyspark.sql.column.Column",
        "def (*args: Any, file: Any =) -> str",
    ], out
    errors = [ln for ln in out.splitlines() if ": error:" in ln]
    assert len(errors) == 1, out
    assert "snippet.py:28: error: No overload variant" in errors[0]
