"""Streaming benchmark: ``average.stream`` native vs the per-key Python form (issue 13).

    python -m tests.perf.stream [--sizes 1000000,5000000] [--keys 10000]
                                [--repeats 3] [--files 8] [--per-trigger 2] [--quick]

For each size N, the input is a directory of parquet files of signed rows
``(k bigint, v bigint, _sign int)`` of the thesis ``average`` (samples/average.py),
written once by Spark from ``spark.range`` and hashes (deterministic): N inserts
(``k`` a hash mod ``--keys``, ``v`` in [-500, 500)) and, in the last file, deletes of
``--delete-fraction`` of them (deletes of live rows). Each run is a new streaming
query on a new checkpoint, ``trigger(availableNow=True)``, ``--per-trigger`` files per
micro-batch, into the ``noop`` sink:

- ``native``: ``average.stream(sdf)`` (Spark's streaming aggregation over the signed
  values, update mode; no Python operator in its plan, checked);
- ``python``: ``average.stream(sdf, changes=True)`` (``applyInPandasWithState`` per key,
  the reference code replayed; append mode).

Both keep their state in RocksDB. The runs of one size are interleaved (the order
rotates every round), the JVM garbage-collects before each; the table gives the
median wall time from ``start()`` to the end of ``awaitTermination``, the throughput
(input rows / s) and the ratio. With ``--check`` (default on for the smallest size)
each form's final result (native: upserts by ``_key``; python: summed changes) is
compared with the batch plan of ``average`` on the net rows.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from typing import Any

from tests.perf import common

QUICK_SIZES = (50_000, 200_000)
SCHEMA = "k bigint, v bigint, _sign int"


def write_input(spark: Any, path: str, rows: int, keys: int, files: int, deletes: float) -> int:
    """The signed rows of one size as ``files`` parquet files (the deletes last); returns
    the number of input rows."""
    from pyspark.sql import functions as F

    base = spark.range(rows).select(
        (F.abs(F.xxhash64("id", F.lit(1))) % keys).alias("k"),
        (F.abs(F.xxhash64("id", F.lit(2))) % 1000 - 500).alias("v"),
        F.col("id"),
    )
    inserts = base.select("k", "v", F.lit(1).cast("int").alias("_sign"))
    inserts.repartition(max(1, files - 1)).write.mode("overwrite").parquet(path)
    n_del = int(rows * deletes)
    dels = base.where(F.col("id") < n_del).select("k", "v", F.lit(-1).cast("int").alias("_sign"))
    tmp = path + ".deletes"
    dels.coalesce(1).write.mode("overwrite").parquet(tmp)
    later = time.time() + 5  # the file source orders files by modification time
    for name in os.listdir(tmp):
        if name.endswith(".parquet"):
            dst = os.path.join(path, "zz-deletes-" + name)
            shutil.move(os.path.join(tmp, name), dst)
            os.utime(dst, (later, later))
    shutil.rmtree(tmp)
    for name in os.listdir(path):  # (the source lists every file, the marker ones too)
        if not name.endswith(".parquet"):
            os.remove(os.path.join(path, name))
    return rows + n_del


def run(spark: Any, algo: Any, src: str, ckpt: str, per_trigger: int, native: bool,
        sink: Any = None) -> tuple[float, Any]:  # fmt: skip
    """One availableNow query from a fresh checkpoint; (seconds, the stopped query)."""
    sdf = spark.readStream.schema(SCHEMA).option("maxFilesPerTrigger", per_trigger).parquet(src)
    out = algo.stream(sdf, "_sign", changes=not native)
    w = out.writeStream
    w = w.foreachBatch(sink) if sink is not None else w.format("noop")
    if not native:
        w = w.outputMode("append")
    start = time.perf_counter()
    q = w.option("checkpointLocation", ckpt).trigger(availableNow=True).start()
    q.awaitTermination()
    took = time.perf_counter() - start
    if q.exception() is not None:
        raise RuntimeError(f"{'native' if native else 'python'}: {q.exception()}")
    return took, q


def check(spark: Any, algo: Any, src: str, root: str, per_trigger: int) -> list[str]:
    """Each form's final result vs the batch plan of ``average`` on the net rows."""
    from pyspark.sql import functions as F

    from tests.spark.harness import assert_same, collect

    net = (spark.read.schema(SCHEMA).parquet(src).groupBy("k", "v")
           .agg(F.sum("_sign").alias("n")).where("n > 0")
           .select("k", "v", F.expr("explode(array_repeat(1, CAST(n AS INT)))")).select("k", "v"))  # fmt: skip
    want = collect(algo(net))
    problems = []
    table: dict[Any, tuple] = {}

    def upsert(df: Any, _batch: int) -> None:
        for *row, key, live in collect(df):
            if live == 0:
                table.pop(key, None)
            else:
                table[key] = tuple(row)

    changes: Counter = Counter()

    def add(df: Any, _batch: int) -> None:
        for *row, sign in collect(df):
            changes[tuple(row)] += sign

    for native, sink in ((True, upsert), (False, add)):
        name = "native" if native else "python"
        _, q = run(spark, algo, src, os.path.join(root, f"check-{name}"), per_trigger, native, sink)
        if native:
            plan = str(q._jsq.explainInternal(True))
            if "Python" in plan or "StateStoreSave" not in plan:
                problems.append("native: a Python operator (or no state store) in the plan")
        got = list(table.values()) if native else list((+changes).elements())
        try:
            assert_same("table", got, want, name)
        except AssertionError as e:
            problems.append(f"{name}: {str(e).splitlines()[0]}")
    return problems


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="1000000,5000000", help="input rows (inserts) per size")
    p.add_argument("--keys", type=int, default=1_000, help="distinct keys")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--files", type=int, default=8, help="parquet files per size (deletes: one)")
    p.add_argument("--per-trigger", type=int, default=2, help="files per micro-batch")
    p.add_argument("--delete-fraction", type=float, default=0.1)
    p.add_argument("--skip-python-above", type=int, default=0,
                   help="do not run the python form above this size (0: always run it)")  # fmt: skip
    p.add_argument("--no-check", action="store_true")
    p.add_argument("--quick", action="store_true", help=f"sizes {QUICK_SIZES}, 2 repeats")
    args = p.parse_args(argv)
    args.sizes = list(QUICK_SIZES) if args.quick else [int(x) for x in args.sizes.split(",")]
    if args.quick:
        args.repeats = min(args.repeats, 2)
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    spark = common.session()
    algo = common.load_sample("average").average
    root = tempfile.mkdtemp(prefix="looplift-perf-stream-")
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}; "
          f"keys {args.keys}, {args.files} files, {args.per_trigger} per trigger, "
          f"deletes {args.delete_fraction:.0%}, repeats {args.repeats}")  # fmt: skip
    rows_out = []
    failed = False
    try:
        for i, size in enumerate(args.sizes):
            src = os.path.join(root, f"src-{size}")
            n = write_input(spark, src, size, args.keys, args.files, args.delete_fraction)
            if i == 0 and not args.no_check:
                problems = check(spark, algo, src, root, args.per_trigger)
                for pr in problems:
                    print(f"CHECK FAILED {pr}")
                failed |= bool(problems)
                print(f"check at {size}: {'ok' if not problems else 'FAILED'}", flush=True)
            forms = [True]
            if not args.skip_python_above or size <= args.skip_python_above:
                forms.append(False)
            times: dict[bool, list[float]] = {f: [] for f in forms}
            for f in forms:  # warm-up, untimed
                took, _ = run(spark, algo, src, os.path.join(root, f"warm-{size}-{f}"),
                              args.per_trigger, f)  # fmt: skip
                print(f"  {size:,} {'native' if f else 'python'} warm-up: {took:.2f} s", flush=True)
            for r in range(args.repeats):
                order = forms[r % len(forms):] + forms[: r % len(forms)]
                for f in order:
                    common._collect_garbage(spark)
                    ckpt = os.path.join(root, f"run-{size}-{f}-{r}")
                    took, _ = run(spark, algo, src, ckpt, args.per_trigger, f)
                    times[f].append(took)
                    print(f"  {size:,} {'native' if f else 'python'} round {r + 1}: {took:.2f} s",
                          flush=True)  # fmt: skip
                    shutil.rmtree(ckpt, ignore_errors=True)
            med = {f: statistics.median(t) for f, t in times.items()}
            for f in forms:
                ratio = f"{med[False] / med[f]:.1f}x" if False in med else "n/a"
                rows_out.append((size, n, "native" if f else "python", med[f],
                                 min(times[f]), max(times[f]), n / med[f], ratio))  # fmt: skip
            print(f"size {size} done (load {os.getloadavg()[0]:.2f})", flush=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print()
    print("| inserts | input rows | form | median s | min-max s | rows/s | python / this |")
    print("|---|---|---|---|---|---|---|")
    for size, n, form, m, lo, hi, rate, ratio in rows_out:
        print(f"| {size:,} | {n:,} | {form} | {m:.2f} | {lo:.2f}-{hi:.2f} | {rate:,.0f} | {ratio} |")
    print(f"\nload after: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
