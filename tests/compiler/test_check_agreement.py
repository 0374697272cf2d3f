"""``--check``, ``--explain`` and the build agree (issue 24, item 2).

Over every sample, every corpus program (valid, invalid and reach), the programs
``tests/spark/agreement_algos.py`` runs on Spark, and the reproducers below:

- ``uda-compile --check`` exits as ``uda-compile -o`` does (and as ``--explain`` does),
  and every failure is a placed diagnostic (``path:line:col: error:``) with a hint,
  never ``<unknown>`` or a traceback;
- where ``--explain`` says an algorithm runs fully native, its plan (or SQL function),
  generated afresh through the pipeline, calls no Python: no registered Python
  function, no Arrow or ordered reducer, no grouped map.

Everything runs in this process through the cli's ``main`` (no Spark), in about 30 s.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path
from typing import Any

import pytest
from looplift.compiler.backend import backend_for
from looplift.compiler.cli import algorithms_of, load_module, main
from looplift.compiler.pipeline import compile_dataflow

from tests.helpers import CORPUS, ROOT, SAMPLES

REPRODUCERS = {
    # each built without a diagnostic from --check before issue 24's fix
    "repro_percent.py": ('from looplift import dataflow\n\n\n@dataflow\ndef fmt(x: int) -> str:\n'
                         '    return "n=%d" % x\n', 0),  # fmt: skip
    "repro_json.py": ("import json\n\nfrom looplift import dataflow\n\n\n@dataflow\n"
                      "def js(s: str) -> int:\n    d = json.loads(s)\n    return len(d)\n", 1),  # fmt: skip
    "repro_tags.py": (
        "from looplift import RowStream, dataflow, group_by\n\n\n"
        '@dataflow(columns=("k", "tag"))\ndef tags(rows: RowStream[int, int]):\n'
        "    for k, g in group_by(0, rows, order_by=1):\n        n = 0\n"
        "        for _, v in g:\n            n += 1\n"
        '            yield k, str(k) + "_" + str(n)\n', 0),  # fmt: skip
    "repro_seen.py": (
        "from looplift import RowStream, dataflow, group_by\n\n\n"
        '@dataflow(columns=("k", "v"))\ndef seen_in_order(rows: RowStream[int, int, int]):\n'
        "    for k, g in group_by(0, rows, order_by=1):\n        seen = []\n"
        "        for _, t, v in g:\n            seen.append(v)\n"
        "        for i, v in enumerate(seen):\n            yield k, i * 100 + v\n", 0),  # fmt: skip
    # what the backend refuses is refused by --check too, at the construct
    "repro_percent_str.py": ('from looplift import dataflow\n\n\n@dataflow\n'
                             'def fmt(s: str) -> str:\n    return "n=%d" % s\n', 1),  # fmt: skip
    # a conversion with no native lowering is a Python island (issue 25): it builds
    "repro_percent_spec.py": ('from looplift import dataflow\n\n\n@dataflow\n'
                              'def fmt(x: int) -> str:\n    return "n=%5x" % x\n', 0),  # fmt: skip
    "repro_two_streams.py": (
        "from looplift import RowStream, dataflow\n\n\n@dataflow\n"
        "def two(a: RowStream[int], b: RowStream[int]) -> int:\n    t = 0\n"
        "    for (x,) in a:\n        t += x\n    for (y,) in b:\n        t += y\n    return t\n", 1),  # fmt: skip
}


def _programs() -> list[Path]:
    samples = [p for p in sorted(SAMPLES.glob("*.py")) if re.search(r"^@dataflow", p.read_text(), re.M)]
    corpus = [p for sub in ("valid", "invalid", "reach") for p in sorted((CORPUS / sub).glob("*.py"))]
    return [*samples, *corpus, ROOT / "tests" / "spark" / "agreement_algos.py"]


PROGRAMS = _programs()
_PYTHON_IN_PLAN = re.compile(
    r"ll\.(OrderedReducer|OrderedRows|ActionReducer)\(|applyInArrow|mapInArrow|\.udf\(|looplift_(prim|host)_"
)


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(list(argv))
    return rc, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def reproducers(tmp_path_factory: Any) -> Path:
    folder = tmp_path_factory.mktemp("agreement")
    for name, (source, _) in REPRODUCERS.items():
        (folder / name).write_text(source, encoding="utf-8")
    return folder


def _agree(path: Path, out: Path) -> tuple[int, str]:
    """``--check``, ``--explain`` and the build of ``path``: the same exit code, failures
    placed; returns the exit code and what ``--explain`` printed."""
    rc_check, _, err_check = _run("--check", str(path))
    rc_explain, explained, err_explain = _run("--explain", str(path))
    rc_build, _, err_build = _run(str(path), "-o", str(out))
    assert rc_check == rc_build == rc_explain, (
        f"{path.name}: --check exits {rc_check}, --explain {rc_explain}, the build {rc_build}\n"
        f"check:\n{err_check}\nbuild:\n{err_build}"
    )
    if rc_check:
        assert err_check == err_build == err_explain, f"{path.name}:\n{err_check}\n{err_build}"
        first = err_check.splitlines()[0]
        assert first.startswith(f"{path}:") and ": error: " in first, err_check
        assert "<unknown>" not in err_check and "Traceback" not in err_check, err_check
        assert "internal error" not in err_check, err_check
        assert err_check.count("  hint: ") == err_check.count(": error: "), err_check
    return rc_check, explained


def _native_means_no_python(path: Path, explained: str) -> int:
    """Each algorithm ``--explain`` calls fully native: its artifact, made afresh, runs no
    Python. Returns how many were checked."""
    native = {m[1] for m in re.finditer(r"^algorithm (\w+)\((?:(?!^algorithm ).)*?^  runs: fully "
                                        r"native", explained, re.M | re.S)}  # fmt: skip
    module = load_module(str(path))
    checked = 0
    for algo in algorithms_of(module):
        if algo.name not in native:
            continue
        made = backend_for(compile_dataflow(algo))
        text = getattr(made, "source", None) or made.create_sql()
        where = f"{path.name}:{algo.name} is explained as fully native"
        assert not made.pycalls, f"{where}, but its SQL calls {[c.ref for c in made.pycalls]}"
        assert not getattr(made, "python_ops", ()), f"{where}, but runs {made.python_ops}"
        assert not _PYTHON_IN_PLAN.search(text), f"{where}, but its plan has Python:\n{text}"
        checked += 1
    return checked


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_check_explain_and_build_agree(path: Path, tmp_path: Path) -> None:
    rc, explained = _agree(path, tmp_path / "out")
    if path.parent.name == "invalid":
        assert rc == 1
    else:
        assert rc == 0, f"{path.name} no longer builds"
        _native_means_no_python(path, explained)


@pytest.mark.parametrize("name", sorted(REPRODUCERS))
def test_reproducers(name: str, reproducers: Path, tmp_path: Path) -> None:
    path = reproducers / name
    rc, explained = _agree(path, tmp_path / "out")
    assert rc == REPRODUCERS[name][1]
    if rc == 0 and "python islands" not in explained:
        assert _native_means_no_python(path, explained) >= 1


def test_the_reproducers_say_why(reproducers: Path) -> None:
    """The refusals are at the construct, with a way out."""
    _, _, err = _run("--check", str(reproducers / "repro_json.py"))
    assert f"{reproducers / 'repro_json.py'}:8:9: error:" in err and "loads" in err
    assert "hint: " in err
    _, _, err = _run("--check", str(reproducers / "repro_percent_str.py"))
    assert ":6:12: error:" in err and "`%d` formats a number" in err and "hint: " in err
    _, _, err = _run("--check", "--strict", str(reproducers / "repro_percent_spec.py"))
    assert ":6:12: error: the `%` conversion `%5x` is not supported" in err


def test_explain_says_what_the_plan_calls() -> None:
    """``--explain`` of a plan with a Python call (a ``round`` of a float, a float
    formatted with ``%.2f``) names it, though the graph alone saw none."""
    _, out, _ = _run("--explain", str(SAMPLES / "stats.py"))
    assert "the Python function round" in out
    _, out, _ = _run("--explain", str(ROOT / "tests" / "spark" / "agreement_algos.py"),
                     "--only", "fmt_rows")  # fmt: skip
    assert "runs: native except the Python function format" in out
