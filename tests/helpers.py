"""Test helpers: import modules by path, compile them, run golden files."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from looplift.compiler.cli import algorithms_of, load_module
from looplift.compiler.errors import CompilerError, Diagnostic
from looplift.compiler.pipeline import compile_dataflow

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
CORPUS = ROOT / "tests" / "corpus"
GOLDEN = ROOT / "tests" / "golden"
UPDATE = os.environ.get("LOOPLIFT_UPDATE_GOLDEN") == "1"

_EXPECT = re.compile(r"^#\s*expect:\s*(\d+):(\d+)\s+(\S+)", re.M)


def import_path(path: Path) -> Any:
    return load_module(str(path))


def compile_module(path: Path, **kw: Any) -> tuple[dict[str, Any], list[Diagnostic]]:
    """Compile every algorithm of a module; return the results and all diagnostics."""
    module = import_path(path)
    out, diags = {}, []
    for algo in algorithms_of(module):
        try:
            out[algo.name] = compile_dataflow(algo, verify=True, **kw)
        except CompilerError as e:
            diags.extend(e.diagnostics)
    unique = {(d.span.line, d.span.col, d.message): d for d in diags}
    return out, sorted(unique.values(), key=lambda d: (d.span.line, d.span.col))


def expectations(path: Path) -> list[tuple[int, int, str]]:
    """``# expect: LINE:COL keyword`` annotations of an invalid corpus file."""
    text = path.read_text(encoding="utf-8")
    return [(int(m[1]), int(m[2]), m[3].lower()) for m in _EXPECT.finditer(text)]


def check_golden(path: Path, actual: str) -> None:
    """Compare with (or, under LOOPLIFT_UPDATE_GOLDEN=1, write) a golden file."""
    actual = actual.rstrip() + "\n"
    if UPDATE or not path.exists():
        if not UPDATE:
            raise AssertionError(
                f"golden file {path} is missing; review and create it with "
                "LOOPLIFT_UPDATE_GOLDEN=1"
            )
        path.write_text(actual, encoding="utf-8")
        return
    expected = path.read_text(encoding="utf-8")
    assert actual == expected, f"{path.name} differs from the golden file:\n{actual}"
