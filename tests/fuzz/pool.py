"""Run mutants through ``uda-compile --check`` in a pool of long-lived workers, and judge them.

Starting one Python per mutant costs ~1.5 s; a worker (``python -m tests.fuzz.pool``) imports the
compiler once and runs ``compiler.cli.main(["--check", path])`` for each mutant it is sent, with
stdout and stderr captured: the same code path as ``python -m looplift --check``. The parent
sends one mutant at a time to each worker and waits at most :data:`TIMEOUT` seconds; a worker
that hangs is killed and restarted, one that dies (an interpreter crash) is restarted too, and
either counts as a failure of that mutant.

A run passes when it exits 0, or exits 1 with at least one ``path:line:col: error:``
diagnostic and no "Traceback" nor "internal error" in its output (:func:`judge`).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import selectors
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from tests.fuzz.mutate import ROOT, Mutant, mutant

TIMEOUT = 20.0
RECYCLE = 400  # mutants per worker before it is restarted (keeps sys.modules and caches small)
DIAGNOSTIC = re.compile(r"^\S.*:\d+:\d+: error: ", re.M)
# Where mutants import their siblings from (samples/average.py imports samples/count.py).
IMPORT_PATH = (str(ROOT / "samples"), str(ROOT / "tests/corpus/valid"), str(ROOT))

__all__ = ["Outcome", "judge", "run_mutants", "write_failure"]


def judge(rc: int | None, output: str) -> str | None:
    """Why a ``--check`` run fails, or None when it passes."""
    if rc is None:
        return output.splitlines()[0] if output else "no answer"
    if "Traceback" in output:
        return "traceback"
    if "internal error" in output:
        return "internal error"
    if rc == 0:
        return None
    if rc != 1:
        return f"exit code {rc}"
    if not DIAGNOSTIC.search(output):
        return "exit 1 without a path:line:col diagnostic"
    return None


@dataclass(frozen=True)
class Outcome:
    mutant: Mutant
    rc: int | None
    output: str
    seconds: float

    @property
    def failure(self) -> str | None:
        return judge(self.rc, self.output)

    def report(self) -> str:
        return (f"mutant {self.mutant.id} ({', '.join(self.mutant.mutations)}) of "
                f"{self.mutant.origin.relative_to(ROOT)}: {self.failure}\n"
                f"{self.mutant.diff()}--- output (exit {self.rc}) ---\n{self.output}")  # fmt: skip


def write_failure(outcome: Outcome, folder: Path) -> Path:
    """The failing mutant as ``folder/<id>.py`` (replayable) and its report as ``<id>.txt``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"mut_{outcome.mutant.id.replace('-', '_')}.py"
    path.write_text(outcome.mutant.source, encoding="utf-8")
    replay = f"PYTHONPATH={os.pathsep.join(IMPORT_PATH)} python -m looplift --check {path}"
    path.with_suffix(".txt").write_text(f"{outcome.report()}\nreplay: {replay}\n", encoding="utf-8")
    return path


# -- the parent --------------------------------------------------------------------------------


class _Worker:
    def __init__(self, folder: Path) -> None:
        self.log = tempfile.TemporaryFile(mode="w+", encoding="utf-8")
        env = {**os.environ, "LOOPLIFT_VERIFY": "1", "LOOPLIFT_DEBUG": "1", "PYTHONPATH": str(ROOT)}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.fuzz.pool", str(folder)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, text=True,
            cwd=ROOT, env=env, bufsize=1,
        )  # fmt: skip
        self.done = 0
        self.job: tuple[int, int, float] | None = None

    def send(self, seed: int, index: int) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"seed": seed, "index": index}) + "\n")
        self.proc.stdin.flush()
        self.job = (seed, index, time.monotonic())

    def stop(self) -> str:
        """Kill the worker; what it wrote on stderr."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.log.seek(0)
        text = self.log.read()
        self.log.close()
        return text


def run_mutants(seed: int, indices: Iterable[int], workers: int = 2) -> Iterator[Outcome]:
    """The outcome of each mutant ``mutant(seed, i)`` (in completion order), on ``workers``
    worker processes; the workers make the mutants too (libcst is the slower half)."""
    todo = iter(indices)
    with tempfile.TemporaryDirectory(prefix="looplift-mutants-") as tmp:
        folder = Path(tmp)
        pool = [_Worker(folder) for _ in range(workers)]
        sel = selectors.DefaultSelector()
        for w in pool:
            sel.register(w.proc.stdout, selectors.EVENT_READ, w)  # type: ignore[arg-type]
        exhausted = False
        try:
            while True:
                for w in pool:
                    if w.job is None and not exhausted:
                        i = next(todo, None)
                        if i is None:
                            exhausted = True
                        else:
                            w.send(seed, i)
                busy = [w for w in pool if w.job is not None]
                if not busy:
                    return
                now = time.monotonic()
                wait = min(w.job[2] + TIMEOUT - now for w in busy)  # type: ignore[index]
                events = sel.select(timeout=max(0.0, wait))
                ready = {key.data for key, _ in events}
                for w in busy:
                    _, index, start = w.job  # type: ignore[misc]
                    if w in ready:
                        line = w.proc.stdout.readline()  # type: ignore[union-attr]
                        if line:
                            msg = json.loads(line)
                            w.job = None
                            w.done += 1
                            m = Mutant(msg["id"], ROOT / msg["origin"], tuple(msg["mutations"]),
                                       msg["source"])  # fmt: skip
                            yield Outcome(m, msg["rc"], msg["output"], msg["seconds"])
                            if w.done < RECYCLE:
                                continue
                            why = None
                        else:
                            why = "worker died"
                    elif time.monotonic() - start >= TIMEOUT:
                        why = f"timeout after {TIMEOUT:.0f} s"
                    else:
                        continue
                    sel.unregister(w.proc.stdout)  # type: ignore[arg-type]
                    err = w.stop()
                    if why is not None:
                        m = mutant(seed, index)
                        yield Outcome(m, None, f"{why}\n{err}", time.monotonic() - start)
                    fresh = _Worker(folder)
                    sel.register(fresh.proc.stdout, selectors.EVENT_READ, fresh)  # type: ignore[arg-type]
                    pool[pool.index(w)] = fresh
        finally:
            for w in pool:
                w.stop()


# -- the worker --------------------------------------------------------------------------------


def _check(path: Path) -> tuple[int, str]:
    """``uda-compile --check path`` in this process: exit code and everything it printed."""
    from looplift.compiler.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        try:
            rc = main(["--check", str(path)])
        except SystemExit as e:
            rc = e.code if isinstance(e.code, int) else 1
            if e.code is not None and not isinstance(e.code, int):
                print(e.code, file=sys.stderr)
        except BaseException:  # noqa: BLE001 - exactly what the fuzzer looks for
            traceback.print_exc()
            rc = 2
    return rc, out.getvalue()


def _serve(folder: Path) -> None:
    sys.path[:0] = [p for p in IMPORT_PATH if p not in sys.path]
    proto = sys.stdout
    for line in sys.stdin:
        job = json.loads(line)
        m = mutant(job["seed"], job["index"])
        name = f"mut_{m.id.replace('-', '_')}"
        path = folder / f"{name}.py"
        path.write_text(m.source, encoding="utf-8")
        start = time.monotonic()
        rc, output = _check(path)
        seconds = time.monotonic() - start
        sys.modules.pop(name, None)
        path.unlink()
        answer = {"id": m.id, "origin": str(m.origin.relative_to(ROOT)),
                  "mutations": m.mutations, "source": m.source, "rc": rc, "output": output,
                  "seconds": seconds}  # fmt: skip
        proto.write(json.dumps(answer) + "\n")
        proto.flush()


if __name__ == "__main__":
    _serve(Path(sys.argv[1]))
