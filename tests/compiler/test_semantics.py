"""The IR after every stage means what the Python source means.

Every valid corpus program and sample is evaluated at the IR level after each
pass, on its examples, and must return what the plain CPython call returns.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from looplift.compiler import pipeline
from looplift.compiler.cli import algorithms_of
from looplift.compiler.ir.interp import evaluate
from looplift.compiler.program import Program

from tests.helpers import CORPUS, import_path

MODULES = sorted((CORPUS / "valid").glob("*.py"))


def same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12) or (a != a and b != b)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def canon(fn_returns: str, value: Any) -> Any:
    if fn_returns == "rows":
        return sorted(value, key=repr)
    return value


def run_stages(algo: Any, args: tuple) -> None:
    fn, refs, _ = pipeline.frontend(algo)
    expected = algo(*args)
    prog = Program(fn, refs, pipeline._loader(refs))
    stages = [("frontend", prog)]
    for step in pipeline.PIPELINE:
        prog = step(prog)
        stages.append((step.__name__, prog))
    for stage, p in stages:
        if stage == "frontend":
            continue  # calls are not inlined yet
        try:
            got = evaluate(p.fn, p.refs, list(args))
        except Exception as e:  # noqa: BLE001
            try:
                algo(*args)
            except type(e):
                continue  # Python raises the same kind of error
            raise
        assert same(canon(p.fn.returns, got), canon(p.fn.returns, expected)), (
            f"{algo.name} after {stage}: IR gives {got!r}, Python {expected!r}"
        )


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_ir_matches_python_on_examples(path: Path) -> None:
    module = import_path(path)
    examples = module.EXAMPLES
    for algo in algorithms_of(module):
        assert examples.get(algo.name), f"{path.name}: no EXAMPLES for {algo.name}"
        for args in examples[algo.name]:
            run_stages(algo, tuple(args))
