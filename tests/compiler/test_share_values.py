"""``share_values`` (compiler/passes/share_values.py): a primitive computed again where an
equal one is bound in scope reads that binding, and nothing else is shared.

Every stage's IR is also evaluated against CPython by ``test_semantics.py``; here: what
is shared (a ``try``'s test and its statement), and what must not be (literals equal in
Python but not as operands, a value bound in a branch, after the branch).
"""

from __future__ import annotations

import re

from looplift import RowStream, dataflow
from looplift.compiler.pipeline import compile_dataflow

from tests.compiler.test_semantics import run_stages
from tests.helpers import CORPUS, import_path


def _ir_after(algo, stage: str) -> str:  # noqa: ANN001
    out: list[str] = []
    compile_dataflow(algo, dump_after=stage, dump=out.append, verify=True)
    return "\n".join(out)


def test_a_tries_calls_are_computed_once_per_path() -> None:
    """``n = int(float(s.strip().replace(",", "")))`` in a ``try``: the test evaluates the
    calls one by one, each behind the codes before it, and computed ``s.strip()`` six
    times, now once; the statement after the test computes it once more (its own path)."""
    algo = import_path(CORPUS / "valid" / "try_conversions.py").to_int
    before = _ir_after(algo, "let_normalize")
    after = _ir_after(algo, "share_values")
    assert len(re.findall(r"= str\.strip\(s\)", before)) == 7, before
    assert len(re.findall(r"= str\.strip\(s\)", after)) == 2, after
    assert len(re.findall(r"= str\.replace\(", after)) == 2, after


@dataflow
def literal_types(x: int) -> str:
    """``str(1)`` and ``str(True)``, ``x * 1`` and ``x * 1.0``: equal literals in Python,
    different operands."""
    return str(1) + str(True) + str(x * 1) + str(x * 1.0)


@dataflow
def branch_value(x: int) -> int:
    """``abs(x - 1)`` bound in a branch is not visible after it."""
    if x > 0:
        y = abs(x - 1)
    else:
        y = 0
    return y + abs(x - 1)


@dataflow(columns=("k", "a", "b"))
def loop_reads(rows: RowStream[int, str]):
    """The same call in a loop's body and after a branch inside it."""
    for k, s in rows:
        a = len(s.strip())
        if a > 1:
            b = len(s.strip()) * 2
        else:
            b = len(s.lower().strip())
        yield k, a, b


def test_literals_of_other_types_are_not_shared() -> None:
    for x in (0, 3, -7):
        run_stages(literal_types, (x,))
    after = _ir_after(literal_types, "share_values")
    assert after.count("str(") >= 4, after


def test_a_branchs_value_is_not_read_after_the_branch() -> None:
    for x in (-3, 0, 1, 5):
        run_stages(branch_value, (x,))
    after = _ir_after(branch_value, "share_values")
    assert len(re.findall(r"= abs\(", after)) == 2, after


def test_shared_in_a_loop_body() -> None:
    rows = [(1, " ab "), (2, "x"), (3, ""), (4, "\u3000Z\u3000")]
    run_stages(loop_reads, (rows,))
    after = _ir_after(loop_reads, "share_values")
    # the body's strip is read in the branch; the other branch strips another string
    assert len(re.findall(r"= str\.strip\(", after)) == 2, after
