"""uda-compile as a user runs it: explain, check, graph, dump-after, exit codes."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import ROOT, SAMPLES

CLI = [sys.executable, "-m", "looplift"]


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "LOOPLIFT_VERIFY": "1"}
    return subprocess.run([*CLI, *args], capture_output=True, text=True, cwd=cwd, env=env)


def test_explain_clickstream_shows_scope_fused_operator_and_parts() -> None:
    r = run("--explain", "samples/clickstream.py")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    click = out[out.index("algorithm clickstream(") :]
    assert click.count("group_by(0) of clicks") == 1
    assert "scope key [clicks[0]]" in click
    ops = [ln for ln in click.splitlines() if ln.startswith("    ") and "readers)" in ln]
    assert len(ops) == 1 and "IntervalSequence (native sequence readers)" in ops[0], ops
    assert "actions open, close, insert" in click
    assert "map part (native" in click and "reduce part (native)" in click
    assert "when category == 0: avg_path.seq.open(ts)" in click
    assert "runs: fully native (no Python at run time)" in click


def test_explain_average_shows_fusable_additive_states_with_projections() -> None:
    r = run("--explain", "samples/average.py", "--only", "average")
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert "Count (additive reducer), scope key [rows[0]]" in out
    assert "Sum (additive reducer), scope key [rows[0]]" in out
    assert "fusable with sum.acc" in out and "fusable with count.acc" in out
    assert "projection add(): n += 1" in out and "projection add(x): total += x" in out
    assert "runs: fully native (no Python at run time)" in out


def test_check_ok_and_python_dash_m_share_the_entry_point() -> None:
    r = run("--check", "samples/clickstream.py")
    assert r.returncode == 0 and "2 algorithms OK" in r.stdout
    exe = shutil.which("uda-compile", path=str(Path(sys.executable).parent))
    assert exe, "the uda-compile console script is installed next to python"
    r2 = subprocess.run([exe, "--check", "samples/clickstream.py"], capture_output=True,
                        text=True, cwd=ROOT)  # fmt: skip
    assert r2.returncode == 0 and r2.stdout == r.stdout


def test_errors_exit_1_with_positions_and_no_traceback(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from looplift import RowStream, dataflow\n\n\n"
        "@dataflow\n"
        "def f(xs: RowStream[int]) -> int:\n"
        "    n = 0\n"
        "    while n < 3:\n"
        "        n += 1\n"
        "    for (x,) in xs:\n"
        "        last = x\n"
        "    return last\n"
    )
    r = run("--check", str(bad))
    assert r.returncode == 1
    assert "Traceback" not in r.stderr
    assert f"{bad}:7:5: error: `while` loops are not supported" in r.stderr
    assert f"{bad}:11:12: error: `last` is assigned inside the loop" in r.stderr
    assert "        while n < 3:\n        ^" in r.stderr
    assert "hint:" in r.stderr and r.stderr.rstrip().endswith("2 errors")


def test_syntax_and_import_errors_are_diagnostics(tmp_path: Path) -> None:
    bad = tmp_path / "syn.py"
    bad.write_text("def f(:\n    pass\n")
    r = run("--check", str(bad))
    assert r.returncode == 1 and "syntax error" in r.stderr and "Traceback" not in r.stderr
    boom = tmp_path / "boom.py"
    boom.write_text("import no_such_module_here\n")
    r = run("--check", str(boom))
    assert r.returncode == 1 and "ModuleNotFoundError" in r.stderr and "Traceback" not in r.stderr
    r = run("--check", str(tmp_path / "missing.py"))
    assert r.returncode == 1 and "no such file" in r.stderr


def test_graph_dot_and_dump_after(tmp_path: Path) -> None:
    out = tmp_path / "g.dot"
    r = run("samples/clickstream.py", "--graph", str(out))
    assert r.returncode == 0, r.stderr
    dot = out.read_text()
    assert dot.startswith("digraph") and "IntervalSequence" in dot and "cluster_" in dot
    r = run("samples/clickstream.py", "--only", "avg_path", "--dump-after=let_normalize")
    assert "# avg_path after let_normalize" in r.stdout and "seq#open(ts)" in r.stdout


def test_graph_svg(tmp_path: Path) -> None:
    out = tmp_path / "g.svg"
    r = run("samples/clickstream.py", "--graph", str(out))
    assert r.returncode == 0, r.stderr
    assert "<svg" in out.read_text()


def test_graph_svg_without_a_system_graphviz(tmp_path: Path) -> None:
    """With no `dot` on PATH, the Graphviz port installed with the package draws."""
    empty = tmp_path / "bin"
    empty.mkdir()
    out = tmp_path / "g.svg"
    env = {**os.environ, "PATH": str(empty)}
    r = subprocess.run([*CLI, "samples/clickstream.py", "--graph", str(out)],
                       capture_output=True, text=True, cwd=ROOT, env=env)  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "graphviz-pure" in out.read_text()  # the port's generator comment
    assert "<svg" in out.read_text()


def test_version() -> None:
    r = run("--version")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("uda-compile 0.1.0 (pyspark 4."), r.stdout


def test_compiling_a_sample_is_fast_and_never_starts_spark() -> None:
    """Under a second of CPU time (the process' own, so that the other test worker's
    load does not count), and no pyspark import."""
    code = (
        "import sys, time\n"
        "from looplift.compiler.cli import main\n"
        "t = time.process_time(); rc = main(['--check', 'samples/clickstream.py'])\n"
        "assert rc == 0\n"
        "assert 'pyspark' not in sys.modules, 'compiling imported pyspark'\n"
        "print(time.process_time() - t)\n"
    )
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert float(r.stdout.strip().splitlines()[-1]) < 1.0
    assert time.perf_counter() - t0 < 30


def test_every_sample_explains(monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    """In this process (a subprocess per sample cost 17 s; the tests above run the
    command itself), with the graph's invariants verified."""
    from looplift.compiler.cli import main

    monkeypatch.setenv("LOOPLIFT_VERIFY", "1")
    for path in sorted(SAMPLES.glob("*.py")):
        if "@dataflow\n" not in path.read_text() and "@dataflow(" not in path.read_text():
            continue
        code = main(["--explain", str(path)])
        out = capsys.readouterr()
        assert code == 0, f"{path.name}: {out.err}"
        assert "algorithm " in out.out, path.name


# -- crash classes found by the mutation fuzzer (tests/fuzz, tests/compiler/test_mutants.py) --

_HEAD = "from looplift import RowStream, State, action, dataflow, group_by\n"
_TABLE = "def f(xs: RowStream[int, int]):\n    for k, g in group_by(0, xs):\n        yield k, 1\n"
_MISUSED = {
    "dataflow_twice": ("@dataflow\n@dataflow\n" + _TABLE, "3:2", "applied twice"),
    "dataflow_on_class": ("@dataflow\nclass C:\n    pass\n@dataflow\ndef g(x: int) -> int:\n"
                          "    return x\n", "2:2", "not the class"),  # fmt: skip
    "dataflow_on_method": ("class S(State):\n    def __init__(self):\n        self.n = 0\n"
                           "    @dataflow\n    def add(self, x):\n        self.n += x\n"
                           + "@dataflow\n" + _TABLE, "5:6", "on the method `S.add`"),  # fmt: skip
    "other_decorator": ("import functools\n@dataflow\n@functools.cache\n" + _TABLE, "4:2",
                        "not supported"),  # fmt: skip
    "positional_argument": ("@dataflow(1)\n" + _TABLE, "2:11", "only `columns=`"),
    "column_not_string": ('@dataflow(columns=(1.5, "b"))\n' + _TABLE, "2:20", "string literal"),
    "column_twice": ('@dataflow(columns=("a", "a"))\n' + _TABLE, "2:25", "named twice"),
    "columns_not_strings": ("COLS = (1, 2)\n@dataflow(columns=COLS)\n" + _TABLE, "4:5",
                            "not all strings"),  # fmt: skip
    "columns_not_a_sequence": ("@dataflow(columns=RowStream)\n" + _TABLE, "2:2",
                               "tuple of column names"),  # fmt: skip
    "no_dataflow": (_TABLE, "1:1", "no @dataflow functions"),
    "module_name_error": ("@dataflow\n" + _TABLE + "X = undefined_thing + 1\n", "6:5", "NameError"),
    "python_syntax_error": ("nonlocal q\n@dataflow\n" + _TABLE, "2:1", "syntax error"),
    "state_init_signature": (
        "class S(State):\n    def __init__(*, self):\n        self.n = 0\n"
        "    @action\n    def add(self, x):\n        self.n += x\n"
        "@dataflow\ndef h(xs: RowStream[int]) -> int:\n    s = S()\n    for (x,) in xs:\n"
        "        s.add(x)\n    return 0\n", "10:9", "signature"),  # fmt: skip
    "undo_twice": (
        "class S(State):\n    def __init__(self):\n        self.n = []\n"
        "    @action\n    def add(self, x):\n        self.n.append(x)\n"
        "    @add.undo\n    @add.undo\n    def add(self, x):\n        self.n.remove(x)\n"
        "@dataflow\ndef h(x: int) -> int:\n    return x\n", "8:6", "applied twice"),  # fmt: skip
}


@pytest.mark.parametrize("case", sorted(_MISUSED))
def test_misuse_is_a_diagnostic_not_a_crash(case: str, tmp_path: Path, capsys) -> None:  # noqa: ANN001
    from looplift.compiler.cli import main

    body, where, word = _MISUSED[case]
    path = tmp_path / f"misuse_{case}.py"
    path.write_text(_HEAD + body)
    assert main(["--check", str(path)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err
    first = err.splitlines()[0]
    assert first.startswith(f"{path}:{where}: error: ") and word in first, err
    assert "hint: " in err


_ACCEPTED = {
    # the yields of sibling loops are a union of rows, not a join (graph invariant was too strict)
    "sibling_loops_yield": (
        '@dataflow(columns=("k", "n"))\ndef f(xs: RowStream[int, int]):\n'
        "    for k, g in group_by(0, xs):\n        yield k, 1\n"
        "    for k, g in group_by(1, xs):\n        yield k, 2\n"
    ),
    # a constant `if` condition is bound to a name, like any guard
    "constant_condition": (
        '@dataflow(columns=("k", "n"))\ndef f(xs: RowStream[int, int]):\n'
        "    for k, g in group_by(0, xs, order_by=1):\n        total = 0\n"
        "        for _k, v in g:\n            if 1:\n                total += v\n"
        "            yield k, total\n"
    ),
}


@pytest.mark.parametrize("case", sorted(_ACCEPTED))
def test_fuzzer_found_valid_programs_compile(case: str, tmp_path: Path, monkeypatch, capsys) -> None:  # noqa: ANN001
    from looplift.compiler.cli import main

    monkeypatch.setenv("LOOPLIFT_VERIFY", "1")
    path = tmp_path / f"accepted_{case}.py"
    path.write_text(_HEAD + _ACCEPTED[case])
    assert main(["--check", str(path)]) == 0, capsys.readouterr().err


def test_a_compiler_bug_is_reported_at_the_def_as_an_internal_error(
    tmp_path: Path, monkeypatch, capsys  # noqa: ANN001
) -> None:
    """The last resort only: the fuzzer counts "internal error" as a failure."""
    from looplift.compiler import cli, pipeline

    def broken(*_args, **_kwargs):  # noqa: ANN002, ANN003, ANN202
        raise KeyError("boom")

    path = tmp_path / "internal_bug.py"
    path.write_text(_HEAD + "\n\n@dataflow\n" + _TABLE)
    monkeypatch.setattr(pipeline, "compile_dataflow", broken)
    monkeypatch.delenv("LOOPLIFT_DEBUG", raising=False)
    assert cli.main(["--check", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{path}:5:1: error: internal error, please report: compiling `f` "
                          "failed with KeyError: 'boom'")  # fmt: skip
    assert "LOOPLIFT_DEBUG=1" in err and "Traceback" not in err
    monkeypatch.setenv("LOOPLIFT_DEBUG", "1")
    with pytest.raises(KeyError):
        cli.main(["--check", str(path)])
