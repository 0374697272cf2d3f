"""Incremental views survive SIGKILL (issue 5): nothing lost, nothing counted twice.

A child process (``restart_child.py``; the last one with a local Spark session, the
three that are killed apply Python rows without one, through the same transaction)
applies signed batches from a JSON file to two views, the clickstream (signed replay on stored states) and
``sessions`` (recompute of the affected users from their stored rows):

1. it is killed with SIGKILL between batches (while it waits for the next one);
2. a new child reopens the checkpoints and is killed inside a batch's transaction,
   after the first key's rows and states were written (``LOOPLIFT_CRASH_AT=apply:N``);
3. another one is killed after the batch's version was written, before COMMIT
   (``LOOPLIFT_CRASH_AT=commit:N``);
4. a last one reopens them, reads ``view.version`` and applies the remaining batches.

Each reopened view resumes at the batch after its last committed one; the final
results equal the reference on the net table; the changes emitted for committed
batches, summed, equal the final results, and no batch was applied twice.

The same runs for the Spark-backed store: the children without Spark apply in their
own process (the store's ``driver_keys`` path), the one killed inside an apply runs it
as a Spark job and is killed after the executors wrote the new files, before the
manifest; "before the commit" is after the manifest, before ``CURRENT`` is replaced.
"""

from __future__ import annotations

import json
import os
import random
import selectors
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import ROOT
from tests.incremental.common import add_changes, case_named, multiset
from tests.spark.harness import assert_same

pytestmark = [pytest.mark.spark, pytest.mark.slow]

VIEWS = {"clicks": "clickstream:clickstream", "sessions": "sessions:sessions"}
COLUMNS = {"clicks": [0, 1, 2], "sessions": [0, 2]}  # sessions: (user, ts)
N_BATCHES = 8
TIMEOUT = int(
    os.environ.get("LOOPLIFT_RESTART_TIMEOUT", "180")
)  # seconds for a child to say something (a Spark session starts first)


def make_batches(seed: int = 5, n: int = N_BATCHES) -> list[dict]:
    """Inserts of clicks (users 1..5, page types 0..4, times 0..120, duplicates) and
    deletes of live ones (some batches delete every click of a user)."""
    rnd = random.Random(seed)
    live: Counter = Counter()
    batches = []
    for b in range(n):
        rows, signs = [], []
        for _ in range(rnd.randint(5, 25)):
            r = (rnd.randint(1, 5), rnd.choice([0, 0, 1, 1, 2, 3, 4]), rnd.randint(0, 120))
            rows.append(r)
            signs.append(1)
        if rows and rnd.random() < 0.3:
            rows.append(rows[0])
            signs.append(1)
        elems = list(live.elements())
        if elems:
            if b % 3 == 2:
                user = rnd.choice(elems)[0]
                dels = [r for r in elems if r[0] == user]
            else:
                dels = rnd.sample(elems, min(len(elems), rnd.randint(1, 8)))
            rows += dels
            signs += [-1] * len(dels)
        for r, s in zip(rows, signs, strict=True):
            live[r] += s
        live = +live
        batches.append({"rows": [list(r) for r in rows], "signs": signs})
    return batches


class Child:
    """``restart_child`` in a subprocess; JSON lines from its stdout."""

    def __init__(
        self,
        spec: Path,
        root: Path | str,
        step: bool = False,
        crash: str = "",
        spark: bool = True,
        spark_store: bool = False,
        log_dir: Path | None = None,
    ) -> None:
        # (faulthandler: a child stuck past TIMEOUT gets SIGABRT and dumps its stacks)
        env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONFAULTHANDLER="1")
        env.pop("LOOPLIFT_CRASH_AT", None)
        if crash:
            env["LOOPLIFT_CRASH_AT"] = crash
        args = [sys.executable, "-m", "tests.incremental.restart_child", str(spec), str(root)]
        flags = [*(["--step"] if step else []), *([] if spark else ["--no-spark"])]
        flags += ["--spark-store"] if spark_store else []
        # the child's stderr (Spark's log) goes to a file the timeout message quotes
        # (``root`` may be an object store's URI: ``log_dir`` then)
        self.log = (log_dir or Path(root).parent) / f"child-{time.monotonic_ns()}.log"
        with self.log.open("w") as err:
            self.proc = subprocess.Popen(
                [*args, *flags],
                cwd=ROOT,
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=err,
            )
        self.buf = b""
        self.sel = selectors.DefaultSelector()
        self.sel.register(self.proc.stdout, selectors.EVENT_READ)  # type: ignore[arg-type]
        self.messages: list[dict] = []

    def read(self) -> dict | None:
        """The next JSON message, or None at end of output.

        Lines are split here from raw reads of the pipe: a buffered reader may hold a
        second line already read from the pipe while ``select`` waits for more.
        """
        deadline = time.monotonic() + TIMEOUT
        while True:
            while b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                if line.startswith(b"{"):
                    msg = json.loads(line)
                    self.messages.append(msg)
                    return msg
            if not self.sel.select(max(0.0, deadline - time.monotonic())):
                if self.proc.poll() is None:
                    os.kill(self.proc.pid, signal.SIGABRT)
                    time.sleep(2)
                self.kill()
                tail = self.log.read_text(errors="replace")[-3000:]
                raise AssertionError(
                    f"the child said nothing for {TIMEOUT} s: {self.messages}\n"
                    f"its stderr ends with:\n{tail}"
                )
            chunk = os.read(self.proc.stdout.fileno(), 1 << 16)  # type: ignore[union-attr]
            if not chunk:
                return None
            self.buf += chunk

    def read_until(self, pred: Any) -> dict:
        while (msg := self.read()) is not None:
            if pred(msg):
                return msg
        raise AssertionError(f"the child ended first: {self.messages}")

    def go(self) -> None:
        self.proc.stdin.write(b"go\n")  # type: ignore[union-attr]
        self.proc.stdin.flush()  # type: ignore[union-attr]

    def versions(self) -> dict[str, int]:
        return {
            m["view"]: m["version"] for m in self.messages if "view" in m and "applied" not in m
        }

    def applied(self) -> list[tuple[str, int]]:
        return [(m["view"], m["applied"]) for m in self.messages if "applied" in m]

    def kill(self) -> int:
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        return self.wait()

    def wait(self) -> int:
        rc = self.proc.wait(timeout=TIMEOUT)
        while self.read() is not None:  # what it said before it died
            pass
        self.sel.close()
        self.proc.stdout.close()  # type: ignore[union-attr]
        self.proc.stdin.close()  # type: ignore[union-attr]
        return rc


@pytest.mark.parametrize("store", ["local", "spark"])
def test_killed_and_resumed(tmp_path: Path, store: str) -> None:
    # the killed children apply Python rows without Spark (the same transaction or
    # commit), except the Spark store's child killed inside an apply, whose apply is a
    # Spark job
    on_spark = store == "spark"
    batches = make_batches()
    spec = tmp_path / "batches.json"
    spec.write_text(json.dumps({"views": VIEWS, "columns": COLUMNS, "batches": batches}))
    root = tmp_path / "views"
    committed: list[dict] = []  # the applies the children reported (each is committed)

    # 1. killed between batches: three batches, then SIGKILL while it waits
    a = Child(spec, root, step=True, spark=False, spark_store=on_spark)
    a.read_until(lambda m: m.get("view") == "sessions" and "applied" not in m)
    for i in range(3):
        a.go()
        a.read_until(lambda m, i=i: m.get("view") == "sessions" and m.get("applied") == i)
    assert a.kill() == -signal.SIGKILL
    assert a.versions() == {"clicks": 0, "sessions": 0}
    committed += [m for m in a.messages if "applied" in m]

    # 2. killed inside batch 4's apply (the 5th version): the local store after the
    # first key's rows and states were written; the Spark store (with Spark, the apply
    # a Spark job) after the executors wrote the new files, before the manifest
    b = Child(spec, root, crash="apply:5", spark=on_spark, spark_store=on_spark)
    assert b.wait() == -signal.SIGKILL
    assert b.versions() == {"clicks": 3, "sessions": 3}, b.messages
    assert b.applied() == [("clicks", 3), ("sessions", 3)], b.messages
    committed += [m for m in b.messages if "applied" in m]

    # 3. killed after batch 4's version was written, before COMMIT
    c = Child(spec, root, crash="commit:5", spark=False)
    assert c.wait() == -signal.SIGKILL
    assert c.versions() == {"clicks": 4, "sessions": 4}, c.messages  # batch 4 was rolled back
    assert c.applied() == [], c.messages
    committed += [m for m in c.messages if "applied" in m]

    # 4. resumes and finishes (in the driver process: a Spark session here would cost the
    # test a third of its time; the Spark store's jobs after a crash are b's, and
    # test_objstore's on S3)
    d = Child(spec, root, spark=False)
    if on_spark:  # the views found their store
        assert (root / "clicks" / "looplift-store" / "CURRENT").exists()
        assert not (root / "clicks" / "looplift-view.sqlite").exists()
    final = d.read_until(lambda m: "results" in m)
    assert d.wait() == 0
    assert d.versions() == {"clicks": 4, "sessions": 4}
    assert d.applied() == [(v, i) for i in range(4, N_BATCHES) for v in VIEWS]
    committed += [m for m in d.messages if "applied" in m]

    # every batch was applied once per view; nothing lost, nothing counted twice
    seen = Counter((m["view"], m["applied"]) for m in committed)
    assert seen == Counter({(v, i): 1 for v in VIEWS for i in range(N_BATCHES)}), seen
    live: Counter = Counter()
    for batch in batches:
        for r, s in zip(batch["rows"], batch["signs"], strict=True):
            live[tuple(r)] += s
    net = list((+live).elements())
    for name, ref in VIEWS.items():
        algo = case_named(ref.split(":")[1]).algo
        want = algo([tuple(r[c] for c in COLUMNS[name]) for r in net])
        got = [tuple(r) for r in final["results"][name]]
        assert_same("table", got, want, f"{name} after the restarts")
        summed = Counter()
        for m in sorted((m for m in committed if m["view"] == name), key=lambda m: m["applied"]):
            summed = add_changes(summed, m["changes"])
        assert summed == multiset(got), f"{name}: summed changes {summed} != {got}"
