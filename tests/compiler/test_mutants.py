"""Mutated programs never crash ``uda-compile --check`` (the fuzzer is in ``tests/fuzz``).

A mutant passes when ``--check`` exits 0, or exits 1 with a ``path:line:col: error:``
diagnostic and no traceback. 300 mutants run by default on two long-lived workers; the slow test
runs ``LOOPLIFT_MUTANTS`` more (300 other seeds unless set; the acceptance run is 5000).
Each failure is printed with its diff and output and written under ``build/mutants``
(``python -m tests.fuzz`` replays and extends the search).
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fuzz.mutate import MUTATORS, ROOT, mutant
from tests.fuzz.pool import IMPORT_PATH, Outcome, judge, run_mutants, write_failure

FAILURES = ROOT / "build" / "mutants"


@functools.cache
def _outcomes(seed: int, n: int) -> tuple[Outcome, ...]:
    return tuple(sorted(run_mutants(seed, range(n)), key=lambda o: int(o.mutant.id.split("-")[1])))


def _run(seed: int, n: int) -> None:
    outcomes = _outcomes(seed, n)
    assert len(outcomes) == n
    failed = [o for o in outcomes if o.failure]
    for o in failed:
        write_failure(o, FAILURES)
    assert not failed, f"{len(failed)} of {n} mutants crash --check:\n\n" + "\n\n".join(
        o.report() for o in failed[:10]
    )
    assert {o.rc for o in outcomes} == {0, 1}, "mutants both compile and are diagnosed"


def test_300_mutants_never_crash_the_compiler() -> None:
    _run(0, 300)


@pytest.mark.slow
def test_more_mutants_never_crash_the_compiler() -> None:
    _run(1, int(os.environ.get("LOOPLIFT_MUTANTS", "150")))


def test_mutants_are_deterministic_and_use_every_mutator() -> None:
    first = _outcomes(0, 300)
    assert [mutant(0, i) for i in (0, 1, 2)] == [o.mutant for o in first[:3]]
    assert len({o.mutant.source for o in first}) > 250
    used = {name for o in first for name in o.mutant.mutations}
    assert used == {name for name, _ in MUTATORS}


def test_the_real_entry_point_agrees_with_the_pool(tmp_path: Path) -> None:
    """A few mutants through ``python -m looplift --check``, a child process each."""
    env = {**os.environ, "LOOPLIFT_VERIFY": "1", "LOOPLIFT_DEBUG": "1",
           "PYTHONPATH": os.pathsep.join(IMPORT_PATH)}  # fmt: skip
    for pooled in _outcomes(0, 300)[:3]:
        m = pooled.mutant
        path = tmp_path / f"mut_{m.id.replace('-', '_')}.py"
        path.write_text(m.source, encoding="utf-8")
        r = subprocess.run([sys.executable, "-m", "looplift", "--check", str(path)],
                           capture_output=True, text=True, timeout=60, env=env)  # fmt: skip
        output = r.stdout + r.stderr
        assert judge(r.returncode, output) is None, f"{m.diff()}\n{output}"
        assert r.returncode == pooled.rc, f"{m.diff()}\n{output}\n{pooled.output}"


@pytest.mark.parametrize(
    ("rc", "output", "verdict"),
    [
        (0, "x.py: 1 algorithm OK", None),
        (1, "/t/x.py:3:5: error: `while` is not supported\n1 error", None),
        (1, "uda-compile: no @dataflow functions", "exit 1 without a path:line:col diagnostic"),
        (1, "x.py:1:1: error: a\nTraceback (most recent call last):", "traceback"),
        (1, "x.py:4:1: error: internal error, please report", "internal error"),
        (2, "", "exit code 2"),
        (None, "timeout after 20 s", "timeout after 20 s"),
    ],
)
def test_judge(rc: int | None, output: str, verdict: str | None) -> None:
    assert judge(rc, output) == verdict
