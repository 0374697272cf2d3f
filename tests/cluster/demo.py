"""`make demo-cluster`: the built clickstream on a real Spark standalone cluster.

    python -m tests.cluster.demo [--rows 200000] [--users 2000] [--build build]

Builds ``samples/clickstream.py`` with ``uda-compile -o build``, generates clicks
as parquet, starts a master and two workers on 127.0.0.1 (one core each),
``spark-submit``s ``tests/cluster/job.py`` with ``--py-files build/clickstream.zip``
(``looplift.sql``: the table form and the aggregate form), prints the first rows,
row counts, which executors ran how many tasks, and the timings, checks the
results against the plain-Python reference, and stops the cluster (also on
errors and Ctrl-C). Takes about 1.5 minutes on an idle 2-core machine.
"""

from __future__ import annotations

import argparse
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tests.cluster import standalone, workload


def rel(path: str | Path) -> str:
    """``path`` relative to the repository when inside it."""
    path = Path(path)
    try:
        return str(path.resolve().relative_to(workload.ROOT))
    except ValueError:
        return str(path)


def show(title: str, rows: list[tuple[Any, ...]], columns: tuple[str, str], n: int = 8) -> None:
    print(f"\n{title}: {len(rows):,} rows, first {min(n, len(rows))} by user_id")
    print(f"  {columns[0]:>8}  {columns[1]:>10}")
    print(f"  {'-' * 8}  {'-' * 10}")
    for uid, avg in rows[:n]:
        print(f"  {uid:>8}  {'NULL' if avg is None else f'{avg:.4f}':>10}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=200_000, help="clicks (default 200,000)")
    p.add_argument("--users", type=int, default=2_000, help="users (default 2,000)")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--build", default="build", help="build dir (default build/ of the repo)")
    p.add_argument("--keep", action="store_true", help="keep the tmp dir (data, logs, output)")
    p.add_argument("--full-jit", action="store_true",
                   help="driver and executors with Spark's default JIT (by default they run "
                        "-XX:TieredStopAtLevel=1, which starts faster; at 200k rows the job "
                        "takes ~35 s instead of ~60 s on a busy 2-core machine)")  # fmt: skip
    p.add_argument("--no-check", action="store_true", help="skip the CPython reference check")
    args = p.parse_args(argv)
    build_dir = workload.ROOT / args.build  # an absolute --build stays as it is

    # `kill` of the demo stops the cluster too (the finally below)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    tmp = Path(tempfile.mkdtemp(prefix="looplift-cluster-"))
    cluster: standalone.Cluster | None = None
    t_all = time.perf_counter()
    try:
        print("looplift demo-cluster: samples/clickstream.py on a Spark standalone cluster\n")
        t = time.perf_counter()
        zip_path = workload.build(build_dir)
        print(f"build    uda-compile samples/clickstream.py -o {rel(build_dir)}: {rel(zip_path)} "
              f"({time.perf_counter() - t:.1f} s)", flush=True)  # fmt: skip

        t = time.perf_counter()
        clicks = workload.gen_clicks(args.rows, args.users, seed=args.seed)
        workload.write_clicks(clicks, tmp / "clicks", files=4)
        print(f"data     {len(clicks):,} clicks of {args.users:,} users (seed {args.seed}) "
              f"-> {tmp / 'clicks'} ({time.perf_counter() - t:.1f} s)", flush=True)  # fmt: skip

        t = time.perf_counter()
        cluster = standalone.start(tmp / "cluster", workers=2, cores=1, memory="1g")
        t_start = time.perf_counter() - t
        workers = cluster.status()["workers"]
        print(f"cluster  master {cluster.master_url} (web UI {cluster.master_web}), "
              f"{len(workers)} workers ALIVE ({t_start:.1f} s)")  # fmt: skip
        for d in cluster.workers:
            w = next(w for w in workers if w["webuiaddress"].endswith(f":{d.web_port}"))
            print(f"         {d.name} {w['host']}:{w['port']}, {w['cores']} core, "
                  f"{w['memory']} MiB, pid {d.pid}, web UI {w['webuiaddress']}")  # fmt: skip
        print(f"         logs in {tmp / 'cluster' / 'logs'}", flush=True)

        print(f"\nsubmit   spark-submit --master {cluster.master_url} --py-files {rel(zip_path)} "
              f"tests/cluster/job.py {tmp / 'clicks'} {tmp / 'out'}"
              + ("" if args.full_jit else "\n         (driver and executor JVMs: -XX:TieredStopAtLevel=1)"),
              flush=True)  # fmt: skip
        done = workload.submit(cluster, zip_path, tmp / "clicks", tmp / "out", executors=2,
                               app_name="looplift-demo-cluster", view=tmp / "view",
                               conf=None if args.full_jit else workload.QUICK_JVM)  # fmt: skip
        run = done.run
        print(f"         application {run['app_id']} on {run['master']}, Spark "
              f"{run['spark_version']}, {run['executor_count']} executors:")  # fmt: skip
        for e in run["executors"]:
            print(f"           executor {e['id']} at {e['host_port']}: "
                  f"{e['completed_tasks']} tasks completed, {e['failed_tasks']} failed")  # fmt: skip

        table = workload.read_results(tmp / "out", "clickstream")
        agg = workload.read_results(tmp / "out", "avg_path")
        show(f"looplift.sql: {run['queries']['clickstream']}", table, ("user_id", "avg_clicks"))
        show(f"looplift.sql: {run['queries']['avg_path']}", agg, ("user_id", "avg_clicks"))

        view = run["view"]
        print(f"\nincremental view (store={view['store']!r}, {tmp / 'view'}): bulk load of the "
              f"clicks {view['load_s']:.1f} s, tasks per executor {view['load_tasks']}; apply of "
              f"{len(view['deleted'])} deletes + {len(view['inserted'])} inserts "
              f"{view['apply_s']:.1f} s, tasks per executor {view['apply_tasks']}, "
              f"{view['changes']} changed rows, version {view['version']}")  # fmt: skip

        tm = run["timings"]
        print("\ntimings")
        print(f"  cluster start (master + 2 workers ALIVE)  {t_start:6.1f} s")
        print(f"  spark-submit, end to end                  {done.seconds:6.1f} s")
        print(f"    session + 2 executors registered        {tm['session_and_executors']:6.1f} s")
        print(f"    register(spark)                         {tm['register']:6.1f} s")
        print(f"    looplift.sql planning (both queries)    {tm['plan']:6.1f} s")
        print(f"    clickstream(TABLE(clicks)) -> parquet   {tm['clickstream']:6.1f} s")
        print(f"    avg_path(...) GROUP BY -> parquet       {tm['avg_path']:6.1f} s")

        ok = True
        if not args.no_check:
            t = time.perf_counter()
            table_ref, agg_ref = workload.reference(clicks)
            diffs = workload.compare(table, table_ref) + workload.compare(agg, agg_ref)
            ok = not diffs and run["executors_with_tasks"] >= 2
            print(f"\ncheck    equal to the CPython reference: {'yes' if not diffs else 'NO'}; "
                  f"executors with tasks: {run['executors_with_tasks']} "
                  f"({time.perf_counter() - t:.1f} s)")  # fmt: skip
            for d in diffs:
                print(f"         {d}")
        return 0 if ok else 1
    except (RuntimeError, standalone.ClusterError, OSError) as e:
        print(f"\ndemo-cluster failed: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\ndemo-cluster: interrupted", file=sys.stderr)
        return 130
    finally:
        if cluster is not None:
            standalone.stop(cluster)
            left = [p for d in cluster.daemons for p in standalone.group_alive(d.pid)]
            print(f"\ncluster  stopped (pids {', '.join(map(str, cluster.pids))}); "
                  f"{'nothing left running' if not left else f'STILL RUNNING: {left}'}")  # fmt: skip
        if args.keep:
            print(f"kept     {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
        print(f"total    {time.perf_counter() - t_all:.1f} s")


if __name__ == "__main__":
    sys.exit(main())
