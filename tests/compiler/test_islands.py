"""Python islands without Spark (issue 25): which unit each refusal outlines, what
``--explain`` says of it, and that ``strict=True`` / ``uda-compile --strict`` refuse exactly
the programs whose ``--explain`` lists islands."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from looplift.api import Dataflow
from looplift.compiler.cli import algorithms_of
from looplift.compiler.errors import CompilerError
from looplift.compiler.pipeline import compile_dataflow

from tests.helpers import CORPUS, SAMPLES, import_path
from tests.spark import island_algos as A

ALGOS = [getattr(A, n) for n in dir(A) if isinstance(getattr(A, n), Dataflow)]
assert len(ALGOS) >= 12


def _strict(algo: Dataflow) -> Dataflow:
    return Dataflow(algo.fn, algo.columns, strict=True)


@pytest.mark.parametrize(
    ("name", "kind", "inputs", "outputs", "absorbed"),
    [
        ("encoded_len", "whole function", ("s",), (), 0),
        # `steps = 0` feeds only the loop: taken in (one input fewer)
        ("collatz", "statement", ("n",), ("steps",), 1),
        ("bumped", "return value", ("n",), (), 0),
        ("lead", "statement", ("s",), ("k",), 1),
        ("probed", "expression", ("n",), (), 0),
        # `x = int(code)` and `s = 0` taken in; `k = base * 2` is read after the loop: native
        ("digit_total", "statement", ("code",), ("s",), 2),
        # rows yielded from a `while`: returned as a list (the count read after it too)
        ("counted", "statement", ("row__0", "row__1"), (), 1),
        ("halvings", "statement", ("i", "n"), ("steps",), 2),
        # a row's field rebound in the island, bound again by the next row: no output
        ("rebound_field", "statement", ("n", "user"), (), 1),
        # read only by the next iteration (`level += v`): an output
        ("ordered_halvings", "statement", ("k", "level", "t"), ("level",), 0),
    ],
)
def test_the_smallest_unit_is_outlined(name: str, kind: str, inputs: tuple, outputs: tuple,
                                       absorbed: int) -> None:  # fmt: skip
    """The smallest unit, with the simple assignments just before a statement whose values
    only it reads (they would cross the boundary otherwise)."""
    (island,) = getattr(A, name).compile().program.fn.islands
    assert (island.kind, island.inputs, island.outputs) == (kind, inputs, outputs)
    assert len(island.absorbed) == absorbed
    lines = Path(A.__file__).read_text().splitlines()
    assert all(lines[n - 1].strip().split()[1] in ("=", "+=") for n in island.absorbed)


def test_explain_names_each_island_with_its_line_why_and_cost() -> None:
    text = A.collatz.compile().explain()
    line = next(i for i, s in enumerate(Path(A.__file__).read_text().splitlines(), 1)
                if s.strip().startswith("while n > 1"))  # fmt: skip
    assert "python islands" in text
    assert (f"line {line}: statement with line {line - 1} (values only it reads) -> "
            f"_island_collatz_L{line}(n) -> steps") in text  # fmt: skip
    assert "why: `while` loops are not supported" in text
    assert "cost: one Arrow UDF per batch" in text
    assert f"runs: native except Python island _island_collatz_L{line} (line {line})" in text


def test_explain_reads_a_rows_fields_as_the_user_wrote_them() -> None:
    """A named row's fields are ``v.n`` in the plan's text and the island's call (not the
    positions the frontend numbers them by, nor the island's parameter names); a yielding
    island says it returns its rows."""
    text = A.row_fields.compile().explain()
    assert "(v.n, v.page) -> k;" in text and "yield (v.user, k)" in text
    assert "v[2]" not in text and "v__n" not in text
    text = A.counted.compile().explain()
    assert "(row[0], row[1]) -> its rows;" in text


def test_explain_lists_only_the_outputs_read_after_the_island() -> None:
    text = A.rebound_field.compile().explain()
    (line,) = [ln for ln in text.splitlines() if "_island_rebound_field_L" in ln and "->" in ln]
    assert line.rstrip().endswith("-> its rows; why: `while` loops are not supported; cost: "
                                  "one Arrow UDF per batch"), line  # fmt: skip
    assert "-> n" not in text and "its rows, n" not in text


def test_the_strategy_record_names_the_island() -> None:
    graph = A.collatz.compile().graph
    whys = [n.strategy.why for n in graph.nodes() if n.strategy.why]
    assert any(w.startswith("Python island (line ") and "`while`" in w for w in whys), whys


@pytest.mark.parametrize("algo", ALGOS, ids=lambda a: a.name)
def test_strict_refuses_exactly_what_explain_lists(algo: Dataflow) -> None:
    listed = "python islands" in algo.compile().explain()
    try:
        compile_dataflow(_strict(algo))
        refused = None
    except CompilerError as e:
        refused = e
    assert listed == (refused is not None), (algo.name, listed, refused)
    if refused is not None:
        assert all(d.span.line for d in refused.diagnostics)
        assert "strict=True" in str(refused)


def test_strict_accepts_native_programs() -> None:
    for path in sorted(SAMPLES.glob("*.py"))[:6]:
        for algo in algorithms_of(import_path(path)):
            compiled = compile_dataflow(_strict(algo))
            assert "python islands" not in compiled.explain()


def test_strict_errors_are_at_the_construct(tmp_path: Path) -> None:
    src = tmp_path / "strict_mod.py"
    src.write_text(
        "from looplift import dataflow\n\n\n"
        "@dataflow(strict=True)\n"
        "def f(n: int) -> int:\n"
        "    while n > 10:\n"
        "        n //= 2\n"
        "    return n\n"
    )
    (algo,) = algorithms_of(import_path(src))
    with pytest.raises(CompilerError) as err:
        compile_dataflow(algo)
    assert f"{src}:6:5: error: `while` loops are not supported" in str(err.value)


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "looplift", *args], capture_output=True,
                          text=True, timeout=120)  # fmt: skip


def test_uda_compile_strict() -> None:
    path = str(CORPUS / "valid" / "island_control_flow.py")
    r = _cli("--check", path)
    assert r.returncode == 0, r.stderr
    r = _cli("--explain", path)
    assert r.returncode == 0 and r.stdout.count("python islands") == 2, r.stdout
    r = _cli("--check", "--strict", path)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert "island_control_flow.py:10:5: error: `while` loops are not supported" in r.stderr
    assert "island_control_flow.py:18:5: error: `try`" in r.stderr


def test_what_has_no_meaning_in_parallel_stays_refused(tmp_path: Path) -> None:
    src = tmp_path / "unordered.py"
    src.write_text(
        "from looplift import RowStream, dataflow\n\n"
        "CACHE = {}\n\n\n"
        "@dataflow\n"
        "def last_parsed(rows: RowStream[str]) -> int:\n"
        "    last = 0\n"
        "    for (s,) in rows:\n"
        "        while s.startswith('0'):\n"
        "            s = s[1:]\n"
        "        last = int(s or '0')\n"
        "    return last\n\n\n"
        "@dataflow\n"
        "def remember(x: int) -> int:\n"
        "    global CACHE\n"
        "    CACHE[x] = x\n"
        "    return x\n"
    )
    module = import_path(src)
    with pytest.raises(CompilerError, match="order"):  # an order-dependent update
        compile_dataflow(module.last_parsed)
    with pytest.raises(CompilerError, match="global"):  # a write to a global
        compile_dataflow(module.remember)


def test_an_island_of_unknown_type_asks_for_an_annotation(tmp_path: Path) -> None:
    src = tmp_path / "untyped.py"
    src.write_text(
        "from looplift import dataflow\n\n\n"
        "def helper(f, x):\n"
        "    return f(x)\n\n\n"
        "@dataflow\n"
        "def f(n: int) -> int:\n"
        "    m = helper(lambda y: y, n)\n"
        "    return m + 1\n"
    )
    compiled = compile_dataflow(import_path(src).f)
    with pytest.raises(CompilerError, match="annotation") as err:
        _ = compiled.backend
    assert any(d.span.line for d in err.value.diagnostics)


def test_the_islands_are_shipped_and_built(tmp_path: Path) -> None:
    from looplift.compiler.cli import main

    out = tmp_path / "out"
    assert main([str(CORPUS / "valid" / "island_control_flow.py"), "-o", str(out)]) == 0
    text = (out / "island_control_flow" / "islands.py").read_text()
    assert "_island_digits_L10 = _define(" in text
    manifest = (out / "island_control_flow" / "manifest.json").read_text()
    assert "island_control_flow.islands:_island_digits_L10" in manifest
    assert "_looplift_islands_island_control_flow:" not in manifest  # no ref to the session's


def test_an_island_in_an_ordered_loop_body_runs_per_group() -> None:
    """A ``while`` over a value carried from row to row is not per row: ``--explain`` says
    it runs per group, in the ordered reducer's Python."""
    text = A.drained.compile().explain()
    assert "cost: runs per group, with the rest of the loop body, in the Python reducer" in text


def test_an_elif_outlined_as_statements_becomes_the_else_block(tmp_path: Path) -> None:
    """An ``elif`` whose test and body run as a yielding island (several statements
    where the ``elif`` was) compiles (the fuzzer's mutant s1-54 crashed the outliner),
    and the IR means what CPython means."""
    from looplift.compiler.ir.interp import evaluate

    src = tmp_path / "elif_island.py"
    src.write_text(
        "from looplift import RowStream, dataflow\n\n\n"
        "@dataflow\n"
        "def signs(rows: RowStream[int, int]):\n"
        "    for i, v in rows:\n"
        "        if v > 0:\n"
        "            yield i, 1, v\n"
        "        elif v < {}:\n"
        "            yield i, -1, -v\n"
        "        yield i, 0, abs(v)\n"
    )
    algo = import_path(src).signs
    compiled = compile_dataflow(algo)
    assert "line 9: statement" in compiled.explain()
    prog = compiled.program
    rows = [(1, 5), (2, 7)]
    assert list(evaluate(prog.fn, prog.refs, [rows])) == list(algo.fn(rows))
    for bad in ([(1, 0)], [(1, 3), (2, -4)]):
        with pytest.raises(TypeError, match="not supported between instances of 'int' and 'dict'"):
            list(algo.fn(bad))
        with pytest.raises(TypeError, match="not supported between instances of 'int' and 'dict'"):
            list(evaluate(prog.fn, prog.refs, [bad]))
