"""State size of event-time streams as the watermark moves (issue 28, item 2).

Clicks of 50 users over many windows arrive in 20 files (one micro-batch each, roughly in
time order, shuffled within 25 minutes); the query runs with a 10-minute watermark in
append mode. Printed per micro-batch: the state store's rows (``numRowsTotal``) and
memory (``memoryUsedBytes``) of the stream's state operator, against the keys (windows
per user) seen so far. Bounded state: the rows stay near the open windows' keys while
the keys seen grow with the input.

    .venv/bin/python tests/perf/eventtime_state.py [clicks]
"""

from __future__ import annotations

import datetime
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "samples")]

import eventtime as et_samples  # noqa: E402
import windows as samples  # noqa: E402
from looplift.spark import local_session  # noqa: E402
from looplift.windows import tumble  # noqa: E402

from tests.incremental.eventtime_common import EventRun  # noqa: E402


def clicks(n: int, span: datetime.timedelta, seed: int = 1) -> list[list[tuple]]:
    rnd = random.Random(seed)
    t0 = datetime.datetime(2024, 5, 1)
    rows = [(rnd.randint(1, 50), t0 + span * rnd.random()) for _ in range(n)]
    rows = [(u, t.replace(microsecond=0)) for u, t in rows]
    rows.sort(key=lambda r: r[1] + datetime.timedelta(minutes=rnd.randint(0, 25)))
    k = 20
    return [rows[i * n // k : (i + 1) * n // k] for i in range(k)]


def measure(spark, algo, files, key) -> None:  # noqa: ANN001
    run = EventRun(spark, algo, Path(tempfile.mkdtemp()))
    run.add(files)
    t = time.perf_counter()
    q = run.run("append")
    took = time.perf_counter() - t
    flat = [r for rows in files for r in rows]  # in arrival order (a file per batch)
    print(f"{algo.name}: {len(flat)} clicks in {len(files)} files, {took:.1f} s")
    print("  batch  input  keys seen  state rows  state memory (bytes)")
    done = 0
    for p in q.recentProgress:
        done += p["numInputRows"]
        seen = len({key(r) for r in flat[:done]})
        ops = p["stateOperators"]
        print(
            f"  {p['batchId']:5d}  {p['numInputRows']:5d}  {seen:9d}  "
            f"{sum(o['numRowsTotal'] for o in ops):10d}  "
            f"{sum(o['memoryUsedBytes'] for o in ops):12d}"
        )
    print(
        f"  rows appended: {sum(len(b) for b in run.batches)}, late rows dropped (Spark's "
        f"count): {run.dropped()}"
    )


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 4000
    spark = local_session(app_name="eventtime-state")
    measure(
        spark,
        samples.clicks_per_window,
        clicks(n, datetime.timedelta(hours=8)),
        lambda r: (r[0], tumble(r[1], minutes=5)),
    )
    measure(
        spark,
        et_samples.daily_sessions,
        clicks(n // 4, datetime.timedelta(days=6)),
        lambda r: (r[0], tumble(r[1], days=1)),
    )


if __name__ == "__main__":
    main()
