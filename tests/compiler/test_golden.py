"""Golden files per pass: ``tests/golden/<stage>/<case>.py`` → ``<case>.txt``.

The text is the IR (or the facts, for analysis passes; the graph for
``graph``) after that stage for every algorithm of the module; ``*_invalid``
cases must raise and their text is the rendered diagnostics. Regenerate with
``LOOPLIFT_UPDATE_GOLDEN=1`` and review the diff.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from looplift.compiler.cli import algorithms_of, load_module
from looplift.compiler.errors import CompilerError, render
from looplift.compiler.pipeline import compile_dataflow

from tests.helpers import GOLDEN, check_golden

CASES = sorted(GOLDEN.glob("*/*.py"))


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
