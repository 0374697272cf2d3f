"""The job ``spark-submit`` runs on the standalone cluster: the built clickstream in Spark SQL.

    spark-submit --master spark://127.0.0.1:PORT --py-files OUT/clickstream.zip \\
        tests/cluster/job.py INPUT_PARQUET OUTPUT_DIR [--executors 2]

Registers the build package ``clickstream`` (shipped in the zip), reads the clicks
(``user_id, pagetype, ts`` bigints) as the temp view ``clicks`` and writes

* ``OUTPUT_DIR/clickstream/`` — ``SELECT * FROM clickstream(TABLE(clicks))`` (parquet),
* ``OUTPUT_DIR/avg_path/`` — ``SELECT user_id, avg_path(pagetype, ts) AS avg_clicks
  FROM clicks GROUP BY user_id`` (parquet),
* ``OUTPUT_DIR/run.json`` — the master URL, the application id, which executors
  completed how many tasks (from the driver's status store), and timings.

With ``--view CHECKPOINT`` it then keeps the clickstream as an incremental view in the
Spark-backed store (``store="spark"``) in ``CHECKPOINT``: the clicks are its first batch
(the bulk load), then one delta deletes the first 40 clicks and inserts 40 new ones.
``run.json`` gets the delta and the tasks each executor completed during the load and
during the apply; ``OUTPUT_DIR/view/`` the view's result (parquet). ``run.json``'s
``kernels``: looplift's JVM kernels (``looplift_strip`` ...) run on the executors.

It waits until ``--executors`` executors have registered before running anything,
and exits 3 if fewer than that many completed tasks. The job imports nothing from
the repository: only pyspark, looplift (installed where the executors' Python
runs) and the shipped package.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

TABLE_SQL = "SELECT * FROM clickstream(TABLE(clicks))"
AGG_SQL = "SELECT user_id, avg_path(pagetype, ts) AS avg_clicks FROM clicks GROUP BY user_id"


def session(app_name: str, executors: int, shuffle_partitions: int) -> Any:
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.appName(app_name)
        .config("spark.sql.shuffle.partitions", str(shuffle_partitions))
        .config("spark.default.parallelism", str(shuffle_partitions))
        # one core per executor: ask for exactly the cluster, and start no job before
        # every executor has registered
        .config("spark.cores.max", str(executors))
        .config("spark.executor.cores", "1")
        .config("spark.executor.memory", "768m")
        .config("spark.scheduler.minRegisteredResourcesRatio", "1.0")
        .config("spark.scheduler.maxRegisteredResourcesWaitingTime", "60s")
        # no locality wait: tasks spread over both executors instead of queueing
        # behind the one holding the map output
        .config("spark.locality.wait", "0")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.ansi.enabled", "true")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.sql.session.timeZone", "UTC")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("WARN")
    return spark


def executor_tasks(spark: Any) -> list[dict[str, Any]]:
    """Every executor (not the driver) the application's status store knows, with its tasks."""
    store = spark.sparkContext._jsc.sc().statusStore()
    seq = store.executorList(True)
    out = []
    for i in range(seq.size()):
        e = seq.apply(i)
        if e.id() == "driver":
            continue
        out.append(
            {
                "id": e.id(),
                "host_port": e.hostPort(),
                "completed_tasks": e.completedTasks(),
                "failed_tasks": e.failedTasks(),
                "total_tasks": e.totalTasks(),
            }
        )
    return sorted(out, key=lambda e: e["id"])


def wait_for_executors(spark: Any, n: int, timeout: float) -> int:
    deadline = time.monotonic() + timeout
    while True:
        have = len(executor_tasks(spark))
        if have >= n or time.monotonic() > deadline:
            return have
        time.sleep(0.25)


def tasks_by_executor(spark: Any) -> dict[str, int]:
    """Completed tasks per executor, once the status store has caught up with the jobs."""
    time.sleep(1.0)  # (the listener bus is asynchronous)
    return {e["id"]: e["completed_tasks"] for e in executor_tasks(spark)}


def run_view(spark: Any, clicks: Any, checkpoint: str, output: str) -> dict[str, Any]:
    """The clickstream as a view in the Spark store: the bulk load, then one delta."""
    from clickstream import ALGORITHMS
    from looplift.incremental import IncrementalView
    from pyspark.sql import functions as F

    # driver_keys=0: the apply runs as a Spark job however small the delta
    view = IncrementalView(ALGORITHMS["clickstream"], spark, checkpoint, store="spark", buckets=8,
                           driver_keys=0)  # fmt: skip
    before = tasks_by_executor(spark)
    t = time.perf_counter()
    view.apply(clicks.withColumn("_sign", F.lit(1))).count()
    load_s = time.perf_counter() - t
    loaded = tasks_by_executor(spark)
    first = [tuple(r) for r in clicks.orderBy("ts").limit(40).collect()]
    top = clicks.select(F.max("ts")).first()[0]
    users = sorted({r[0] for r in first})
    new = [(users[i % len(users)], [0, 2, 3, 1][i % 4], top + 1 + i) for i in range(40)]
    delta = spark.createDataFrame(
        [(*r, -1) for r in first] + [(*r, 1) for r in new],
        "user_id long, pagetype long, ts long, _sign int",
    )
    t = time.perf_counter()
    changes = view.apply(delta).collect()
    apply_s = time.perf_counter() - t
    applied = tasks_by_executor(spark)
    view.result().write.mode("overwrite").parquet(os.path.join(output, "view"))
    return {
        "store": view.store,
        "version": view.version,
        "deleted": first,
        "inserted": new,
        "changes": len(changes),
        "load_tasks": {e: loaded.get(e, 0) - before.get(e, 0) for e in loaded},
        "apply_tasks": {e: applied.get(e, 0) - loaded.get(e, 0) for e in applied},
        "load_s": round(load_s, 3),
        "apply_s": round(apply_s, 3),
    }


def run_kernels(spark: Any) -> dict[str, Any]:
    """looplift's JVM kernels on the executors: the session was made without the jar, so
    ``register`` added it (``ADD JAR``) and the executors fetch it."""
    from looplift import kernels

    rows = spark.range(0, 2000, 1, 4).selectExpr(
        "id", "looplift_strip(concat('\\u3000 x', id, '\\t\\u2029')) AS s",
        "looplift_lower_ascii(concat('AbC', id)) AS l",
        "looplift_regex_group(concat('k=', id, ';'), 'k=([0-9]+)(;)?', 1) AS g",
    ).collect()  # fmt: skip
    wrong = [r.id for r in rows if (r.s, r.l, r.g) != (f"x{r.id}", f"abc{r.id}", str(r.id))]
    return {"mode": kernels.mode(spark), "rows": len(rows), "wrong": wrong[:5]}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="looplift's clickstream on a Spark cluster")
    p.add_argument("input", help="parquet dir of clicks(user_id, pagetype, ts)")
    p.add_argument("output", help="dir for the results and run.json")
    p.add_argument("--executors", type=int, default=2, help="executors to wait for (and use)")
    p.add_argument("--shuffle-partitions", type=int, default=4)
    p.add_argument("--app-name", default="looplift-cluster-job")
    p.add_argument("--view", help="checkpoint dir of an incremental view (the Spark store)")
    args = p.parse_args(argv)

    started_at = time.time()  # the caller compares it with its own clock: JVM start-up
    t0 = time.perf_counter()
    timings: dict[str, float] = {}

    def lap(name: str, since: float) -> float:
        now = time.perf_counter()
        timings[name] = round(now - since, 3)
        return now

    spark = session(args.app_name, args.executors, args.shuffle_partitions)
    sc = spark.sparkContext
    registered = wait_for_executors(spark, args.executors, timeout=90)
    t = lap("session_and_executors", t0)
    if registered < args.executors:
        print(f"job: only {registered} of {args.executors} executors registered", file=sys.stderr)
        return 3

    import clickstream  # the build package, from --py-files
    import looplift
    from clickstream import register

    register(spark)  # looplift.register of every algorithm of the build

    t = lap("register", t)
    clicks = spark.read.parquet(args.input)
    clicks.createOrReplaceTempView("clicks")
    table, agg = looplift.sql(spark, TABLE_SQL), looplift.sql(spark, AGG_SQL)
    t = lap("plan", t)
    for name, df in (("clickstream", table), ("avg_path", agg)):
        df.write.mode("overwrite").parquet(os.path.join(args.output, name))
        t = lap(name, t)

    # the status store is fed by the listener bus asynchronously: let it catch up
    deadline = time.monotonic() + 5
    while True:
        executors = executor_tasks(spark)
        worked = [e for e in executors if e["completed_tasks"] > 0]
        if len(worked) >= args.executors or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    view_run = run_view(spark, clicks, args.view, args.output) if args.view else None
    kernel_run = run_kernels(spark)
    timings["job"] = round(time.perf_counter() - t0, 3)
    run = {
        "master": sc.master,
        "app_id": sc.applicationId,
        "app_name": sc.appName,
        "spark_version": spark.version,
        "python": sys.executable,
        "looplift_file": looplift.__file__,
        "clickstream_file": clickstream.__file__,
        "executor_count": sc._jsc.sc().getExecutorMemoryStatus().size() - 1,  # minus the driver
        "executors": executors,
        "executors_with_tasks": len(worked),
        "started_at": started_at,
        "timings": timings,
        "queries": {"clickstream": TABLE_SQL, "avg_path": AGG_SQL},
        "view": view_run,
        "kernels": kernel_run,
    }
    os.makedirs(args.output, exist_ok=True)
    with open(os.path.join(args.output, "run.json"), "w", encoding="utf-8") as f:
        json.dump(run, f, indent=2)
    print(json.dumps(run))
    spark.stop()
    if len(worked) < args.executors:
        print(
            f"job: only {len(worked)} of {args.executors} executors completed tasks",
            file=sys.stderr,
        )
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
