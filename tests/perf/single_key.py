"""One scope key holding every event (issue 27): does each plan complete, in what time
and at what peak memory, with ``local_session``'s default memory (a 4 GB driver, which
is the one executor of ``local[2]``)?

    python -m tests.perf.single_key --rows 20000000                  # every variant
    python -m tests.perf.single_key --rows 20000000 --variant ids    # one, in this process

Each variant runs in its own Python process (and JVM), so one that runs out of memory
does not take the others down: the table says ``failed`` with the error's first line.
The input is built natively and cached first (``sessions.gen_events`` with one user,
``common.gen_clicks`` with one user); one run = building the DataFrame and consuming
every column (``common.consume``). Peak memory comes from Spark's REST API
(``common.memory_of_group``, the UI on for this script only).

Variants: the compiled session ids and summaries (the boundary-position fold: the
key's rows collected in one task), the same compiled with the fold switched off (ids:
the window chain, which sorts and spills; summaries: the ``aggregate()`` fold), the
hand-written window SQL of the summaries, and the compiled clickstream (a native
``aggregate()`` fold over the key's collected rows) with its hand-written window SQL.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from typing import Any

from tests.perf import common

VARIANTS = ("ids", "ids-window", "summaries", "summaries-aggregate", "summaries-window-sql",
            "clickstream", "clickstream-window-sql")  # fmt: skip
GAP = 1800
SHUFFLE_PARTITIONS = 8


def _variant(spark: Any, name: str, rows: int) -> tuple[Any, Any]:
    """(input DataFrame, fn(df) -> DataFrame) of variant ``name``."""
    from tests.perf import clickstream, sessions

    if name.startswith("clickstream"):
        df = common.gen_clicks(spark, rows, 1)
        if name == "clickstream":
            sample = common.load_sample("clickstream")
            return df, sample.clickstream
        return df, lambda d: common.sql_on(d, clickstream.WINDOW_SQL_TEXT)
    df = sessions.gen_events(spark, rows, 1, gap=GAP)
    algos = common.load_path(common.ROOT / "tests" / "perf" / "algos.py", "perf_algos")
    if name == "ids":
        return df, lambda d: algos.session_ids(d, GAP)
    if name == "summaries":
        return df, lambda d: algos.session_summaries(d, GAP)
    if name == "ids-window":
        off = sessions.without_boundary_fold("session_ids")
        return df, lambda d: off(d, GAP)
    if name == "summaries-aggregate":
        off = sessions.without_boundary_fold("session_summaries")
        return df, lambda d: off(d, GAP)
    text = sessions.WINDOW_SUMMARIES.replace("{gap}", str(GAP))
    return df, lambda d: common.sql_on(d, text)


def run_one(name: str, rows: int) -> dict[str, Any]:
    """Run variant ``name`` once in this process; its outcome as a dict."""
    from looplift.spark import local_session

    spark = local_session(master="local[2]", app_name="looplift-single-key",
                          shuffle_partitions=SHUFFLE_PARTITIONS, **common.MEMORY_CONF)  # fmt: skip
    common._pickle_perf_modules_by_value()  # noqa: SLF001 - as common.session does
    df, fn = _variant(spark, name, rows)
    spark.sparkContext.setJobGroup(name, name)
    start = time.perf_counter()
    out: dict[str, Any] = {"variant": name, "rows": rows}
    try:
        common.consume(fn(df))
        out["status"] = "completed"
    except Exception as e:  # noqa: BLE001 - reported
        out["status"] = "failed: " + common.first_line(e, 160)
    out["seconds"] = round(time.perf_counter() - start, 1)
    try:
        out["memory_mb"] = {
            k: v // (1024 * 1024) for k, v in common.memory_of_group(spark, name).items()
        }
    except Exception as e:  # noqa: BLE001 - the JVM may be gone after an OutOfMemoryError
        out["memory_mb"] = {"error": common.first_line(e, 80)}
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=20_000_000)
    p.add_argument("--variant", choices=VARIANTS, action="append",
                   help="run these variants (repeatable); default every one, each in its own process")  # fmt: skip
    p.add_argument("--inline", action="store_true", help="run in this process (one variant)")
    p.add_argument("--timeout", type=int, default=1800, help="seconds per variant")
    args = p.parse_args(argv)
    names = args.variant or list(VARIANTS)
    if args.inline:
        print("RESULT " + json.dumps(run_one(names[0], args.rows)), flush=True)
        return 0
    results = []
    for name in names:
        cmd = [sys.executable, "-m", "tests.perf.single_key", "--rows", str(args.rows),
               "--variant", name, "--inline"]  # fmt: skip
        start = time.perf_counter()
        try:
            proc = subprocess.run(
                cmd, capture_output=True, text=True, timeout=args.timeout, check=False
            )
            lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
            if lines:
                res = json.loads(lines[-1][len("RESULT ") :])
            else:
                tail = [ln for ln in proc.stderr.splitlines() if "Error" in ln or "error" in ln][
                    -1:
                ]
                res = {"variant": name, "status": f"failed (exit {proc.returncode}): {tail}",
                       "seconds": round(time.perf_counter() - start, 1), "memory_mb": {}}  # fmt: skip
        except subprocess.TimeoutExpired:
            res = {"variant": name, "status": f"did not finish in {args.timeout} s",
                   "seconds": args.timeout, "memory_mb": {}}  # fmt: skip
        print(json.dumps(res), flush=True)
        results.append(res)
    print(f"\none key, {args.rows:,} events; local_session defaults (4 GB driver), local[2]\n")
    print("| variant | outcome | s | max task peakExecutionMemory MB | JVM heap peak MB | on-heap execution peak MB |")  # fmt: skip
    print("|---|---|---|---|---|---|")
    for r in results:
        m = r.get("memory_mb", {})
        print(f"| {r['variant']} | {r['status']} | {r['seconds']} | {m.get('task execution', '')} | "
              f"{m.get('JVM heap', '')} | {m.get('on-heap execution', '')} |")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
