"""Golden files per pass: ``tests/golden/<stage>/<case>.py`` → ``<case>.txt``.

The text is the IR (or the facts, for analysis passes; the graph for
``graph``) after that stage for every algorithm of the module; ``*_invalid``
cases must raise and their text is the rendered diagnostics.

Backend snapshots, for every sample in ``samples/`` (no Spark needed):
``tests/golden/plans/<module>.<algorithm>.py`` the generated plan module (tables and
aggregates), ``tests/golden/scalar/<module>.<algorithm>.sql`` the SQL function of a
scalar algorithm, ``tests/golden/explain/<module>.txt`` the ``--explain`` output.

Regenerate every golden file (IR stages and backend snapshots) with one command::

    LOOPLIFT_UPDATE_GOLDEN=1 .venv/bin/pytest -q -p no:cacheprovider tests/compiler/test_golden.py

and review the diff.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from looplift.compiler.cli import algorithms_of, load_module
from looplift.compiler.errors import CompilerError, render
from looplift.compiler.pipeline import compile_dataflow

from tests.helpers import GOLDEN, SAMPLES, check_golden, import_path

SNAPSHOTS = ("plans", "scalar", "explain")  # backend snapshot folders, not IR stages
CASES = sorted(p for p in GOLDEN.glob("*/*.py") if p.parent.name not in SNAPSHOTS)


@pytest.mark.parametrize("path", CASES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_golden(path: Path) -> None:
    stage = path.parent.name
    module = load_module(str(path), name=f"golden_{stage}_{path.stem}")
    chunks, diags = [], []
    for algo in algorithms_of(module):
        dumps: list[str] = []
        try:
            compile_dataflow(algo, dump_after=stage, dump=dumps.append, verify=True)
        except CompilerError as e:
            diags.extend(e.diagnostics)
            continue
        chunks.extend(dumps)
    if path.stem.endswith("_invalid"):
        assert diags, f"{path.name} must not compile"
        text = render(diags).replace(str(path), path.name)
    else:
        assert not diags, render(diags)
        text = "\n\n".join(chunks)
    check_golden(path.with_suffix(".txt"), text)


SAMPLE_FILES = sorted(SAMPLES.glob("*.py"))


@pytest.mark.parametrize("path", SAMPLE_FILES, ids=lambda p: p.stem)
def test_backend_snapshots(path: Path) -> None:
    """The generated plan / scalar SQL of every algorithm of a sample, and its --explain."""
    from looplift.compiler.backend import backend_for
    from looplift.compiler.backend.scalar import ScalarFunction

    module = import_path(path)
    explains = []
    for algo in algorithms_of(module):
        compiled = compile_dataflow(algo, verify=True)
        explains.append(compiled.explain())
        out = backend_for(compiled)
        if isinstance(out, ScalarFunction):
            check_golden(GOLDEN / "scalar" / f"{path.stem}.{algo.name}.sql", out.create_sql())
        else:
            long = [line for line in out.source.splitlines() if len(line) > 120]
            assert not long, f"lines over 120 characters in the plan of {algo.name}: {long}"
            ns: dict = {}
            exec(compile(out.source, f"{algo.name}.py", "exec"), ns)  # noqa: S102 - valid Python
            assert ns["PYCALLS"] == [
                [c.name, c.kind, c.ref, list(c.arg_types), c.return_type]
                for c in sorted(out.pycalls, key=lambda c: c.name)
            ]
            assert ns["COLUMNS"] == list(out.columns) and ns["NAME"] == algo.name
            check_golden(GOLDEN / "plans" / f"{path.stem}.{algo.name}.py", out.source)
    check_golden(GOLDEN / "explain" / f"{path.stem}.txt", "\n\n".join(explains))
