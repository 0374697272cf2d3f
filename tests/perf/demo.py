"""The demo: the compiled clickstream on a local Spark, next to a hand-written UDF.

    python -m tests.perf.demo            # what `make demo` runs

Generates 1M clicks of 10k users, compiles samples/clickstream.py's ``clickstream``
and runs it on a local SparkSession (local[2]), prints the first rows and the
time, then times a hand-written ``applyInPandas`` UDF on the same cached data,
prints the ratio and whether both agree, and finally ``clickstream.explain()``.
Takes about a minute on an idle 2-core machine (two on a busy one).
"""

from __future__ import annotations

import argparse
import sys
import time
import traceback
from typing import Any

from tests.perf import common
from tests.perf.clickstream import SCHEMA, pandas_group


def fail(what: str, exc: BaseException, show_traceback: bool) -> int:
    print(f"\ndemo: {what} failed: {common.first_line(exc, 400)}", file=sys.stderr)
    if show_traceback:
        traceback.print_exception(exc)
    else:
        print("demo: run with --traceback for the full error", file=sys.stderr)
    return 1


def timed(fn: Any, df: Any, repeats: int, warmup: bool = True) -> tuple[float, dict[Any, Any]]:
    """Median seconds of ``repeats`` runs of ``fn(df)``, each collecting the whole result
    (so every output column is evaluated), after an optional warm-up; and the result."""
    if warmup:
        common.run_once(fn, df)
    times, result = [], {}
    for _ in range(repeats):
        start = time.perf_counter()
        result = common.keyed_rows(tuple(r) for r in fn(df).collect())
        times.append(time.perf_counter() - start)
    return sorted(times)[len(times) // 2], result


def show(rows: list[Any]) -> None:
    print(f"  {'user_id':>8}  {'avg_clicks':>10}")
    print(f"  {'-' * 8}  {'-' * 10}")
    for uid, avg in rows:
        print(f"  {uid:>8}  {'None' if avg is None else f'{avg:.4f}':>10}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=1_000_000, help="clicks (default 1,000,000)")
    p.add_argument("--users", type=int, default=10_000, help="users (default 10,000)")
    p.add_argument("--repeats", type=int, default=1, help="timed runs after a warm-up")
    p.add_argument("--traceback", action="store_true", help="show full tracebacks on errors")
    args = p.parse_args(argv)

    start = time.perf_counter()
    try:
        sample = common.load_sample("clickstream")
        spark = common.session()
    except Exception as e:  # noqa: BLE001 - a readable message instead of a traceback wall
        return fail("starting Spark / importing samples/clickstream.py", e, args.traceback)
    print(f"Spark {spark.version}, {spark.sparkContext.master}: generating {args.rows:,} clicks "
          f"of {args.users:,} users ...", flush=True)  # fmt: skip
    df = common.gen_clicks(spark, args.rows, args.users)

    print("compiling and running clickstream(clicks) ...", flush=True)
    try:
        t_compiled, compiled_rows = timed(sample.clickstream, df, args.repeats)
    except Exception as e:  # noqa: BLE001
        return fail("the compiled clickstream(df)", e, args.traceback)
    print(f"\nclickstream(clicks): {len(compiled_rows):,} users, first 10 by user_id:")
    show(sorted(compiled_rows.items())[:10])
    print(f"\ncompiled clickstream:      {t_compiled:6.2f} s", flush=True)

    # No warm-up: the Python workers are warm from the compiled run, and one warm-up
    # would add half a minute for a UDF that takes that long per run.
    try:
        t_pandas, ref = timed(
            lambda d: d.groupBy("user_id").applyInPandas(pandas_group, SCHEMA),
            df,
            args.repeats,
            warmup=False,
        )
        problems = common.compare_keyed(ref, compiled_rows)
    except Exception as e:  # noqa: BLE001
        return fail("the hand-written applyInPandas UDF", e, args.traceback)
    print(f"hand-written applyInPandas: {t_pandas:6.2f} s")
    print(f"ratio compiled / applyInPandas: {t_compiled / t_pandas:.2f}")
    print(
        "results agree with the hand-written UDF"
        if not problems
        else "RESULTS DIFFER from the hand-written UDF: " + "; ".join(problems)
    )
    print("(times: collecting the whole result; the compiled run after one warm-up run; "
          "see tests/perf/README.md for the full benchmarks)\n", flush=True)  # fmt: skip

    try:
        sample.clickstream.explain()
    except Exception as e:  # noqa: BLE001 - the demo's results are already shown
        print(f"clickstream.explain() failed: {common.first_line(e, 400)}")
    print(f"\ndemo finished in {time.perf_counter() - start:.0f} s")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
