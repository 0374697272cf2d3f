"""The shared benchmark harness: a Spark session, data generators, timing and tables.

Every script in ``tests/perf`` measures *variants*: functions ``fn(df) -> DataFrame``
run on the same cached input. :func:`bench` warms each variant up once, then times
``repeats`` rounds, interleaved (round-robin, the starting variant rotating every
round), and prints the medians as a table with ratios to named baselines.

Timing forces every output column: the output is reduced with
``agg(count(lit(1)), sum(hash(*cols)))``. A bare ``count()`` would let Spark prune
a Python UDF whose result is not needed, and measure nothing (PERF-NOTES).

A variant that raises (today: the compiled ones, until the Spark backend lands)
is listed as ``n/a (error: ...)`` with the first line of the error, and the
rest of the table is still measured.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import math
import os
import re
import statistics
import sys
import time
import urllib.request
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"

#: ``spark.sql.shuffle.partitions`` of every benchmark (PERF-NOTES used 8).
SHUFFLE_PARTITIONS = 8
#: Partitions of the generated (cached) input tables.
INPUT_PARTITIONS = 8
#: Start of the generated timestamps (ms since the epoch, late 2023); only looks.
TS0 = 1_700_000_000_000


# -- session and modules ---------------------------------------------------------


def session(**conf: str) -> Any:
    """The benchmark SparkSession: ``local[2]``, 8 shuffle partitions, ANSI on, no UI."""
    from looplift.spark import local_session

    conf.setdefault("spark.ui.showConsoleProgress", "false")
    conf.setdefault("driver_memory", "6g")
    spark = local_session(
        master="local[2]",
        app_name="looplift-perf",
        shuffle_partitions=SHUFFLE_PARTITIONS,
        **conf,
    )
    _pickle_perf_modules_by_value()
    return spark


def _pickle_perf_modules_by_value() -> None:
    """Ship the hand-written UDFs of ``tests.perf`` to Spark's workers by value.

    Workers need not have the repository on their ``sys.path`` then.
    """
    from pyspark import cloudpickle

    for name, module in list(sys.modules.items()):
        if name.startswith("tests.perf.") and module is not None:
            try:
                cloudpickle.register_pickle_by_value(module)
            except ValueError:
                pass  # already registered


def load_sample(stem: str) -> Any:
    """Import ``samples/<stem>.py`` by path, as ``uda-compile`` does.

    The samples folder goes on ``sys.path`` (``average.py`` imports its siblings
    ``count`` and ``sum``); the module is registered under its plain stem.
    """
    if stem in sys.modules and getattr(sys.modules[stem], "__file__", None) == str(
        SAMPLES / f"{stem}.py"
    ):
        return sys.modules[stem]
    if str(SAMPLES) not in sys.path:
        sys.path.insert(0, str(SAMPLES))
    return load_path(SAMPLES / f"{stem}.py", stem)


def load_path(path: Path, name: str) -> Any:
    """Import the Python file ``path`` as module ``name``."""
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


# -- data ------------------------------------------------------------------------


def coprime_multiplier(n: int) -> int:
    """A multiplier ``a`` with gcd(a, n) = 1 near ``n / golden ratio``.

    ``(i * a) mod n`` is then a well-scrambled permutation of ``0 .. n-1``.
    """
    a = max(1, int(n * 0.6180339887498949))
    while math.gcd(a, n) != 1:
        a += 1
    return a


def gen_clicks(
    spark: Any,
    rows: int,
    users: int,
    *,
    seed: int = 42,
    partitions: int = INPUT_PARTITIONS,
    ts_range: int | None = None,
    skew: float = 0.0,
    view: str | None = "clicks",
) -> Any:
    """The table ``clicks(user_id bigint, pagetype bigint, ts bigint)``, cached and materialized.

    Built natively (``spark.range`` and hash expressions with a fixed seed, so the
    same arguments give the same rows on every run and partitioning):

    * ``user_id``: a hash of the row id mod ``users`` (about ``rows / users`` clicks each);
    * ``pagetype``: 0 (start page) with probability 0.1, 1 (end page) 0.1, else
      one of the "other" pages 2..9 — so intervals open and close often;
    * ``ts``: by default a scrambled permutation of ``0 .. rows-1`` (plus an
      offset), so timestamps are distinct (also per user) and the storage order
      says nothing about the time order. With ``ts_range`` it is instead a hash
      mod ``ts_range``: duplicates and ties between opens, closes and inserts at
      one timestamp, for correctness checks.

    With ``skew`` > 0, a fraction ``skew`` of the rows (chosen by another hash)
    belong to user -1 instead (the skew case of issue 11).

    Registered as the temp view ``view`` unless ``view`` is None.
    """
    from pyspark.sql import functions as F

    rid = F.col("id")
    h_page = F.pmod(F.xxhash64(rid, F.lit(seed + 1)), F.lit(100))
    pagetype = (
        F.when(h_page < 10, F.lit(0))
        .when(h_page < 20, F.lit(1))
        .otherwise(F.lit(2) + F.pmod(F.xxhash64(rid, F.lit(seed + 2)), F.lit(8)))
    )
    if ts_range is None:
        a = coprime_multiplier(rows)
        ts = F.pmod(rid * F.lit(a) + F.lit(seed), F.lit(rows)) + F.lit(TS0)
    else:
        ts = F.pmod(F.xxhash64(rid, F.lit(seed + 3)), F.lit(ts_range))
    uid = F.pmod(F.xxhash64(rid, F.lit(seed)), F.lit(users))
    if skew > 0:
        is_skew = F.pmod(F.xxhash64(rid, F.lit(seed + 4)), F.lit(1_000_000)) < int(skew * 1e6)
        uid = F.when(is_skew, F.lit(-1)).otherwise(uid)
    df = spark.range(0, rows, 1, partitions).select(
        uid.cast("bigint").alias("user_id"),
        pagetype.cast("bigint").alias("pagetype"),
        ts.cast("bigint").alias("ts"),
    )
    return cache(df, view)


def cache(df: Any, view: str | None = None) -> Any:
    """Cache ``df``, materialize every column, optionally register it as a temp view."""
    df = df.cache()
    consume(df)
    if view:
        df.createOrReplaceTempView(view)
    return df


def sql_on(df: Any, text: str, view: str = "perf_input") -> Any:
    """Run ``text`` with ``{clicks}`` (or ``{t}``) naming ``df``, registered as a temp view.

    Not ``spark.sql(text, clicks=df)``: in Spark 4.3 a DataFrame passed that way
    does not use the cached data (the plan recomputes it from ``spark.range``).
    """
    df.createOrReplaceTempView(view)
    return df.sparkSession.sql(text.replace("{clicks}", view).replace("{t}", view))


def consume(df: Any) -> tuple[int, int]:
    """Evaluate every column of ``df``: ``(row count, sum of the row hashes)``."""
    from pyspark.sql import functions as F

    cols = [F.col(f"`{c}`") for c in df.columns]
    row = df.agg(
        F.count(F.lit(1)).alias("n"), F.sum(F.hash(*cols).cast("bigint")).alias("h")
    ).collect()[0]
    return row["n"], row["h"]


# -- plans -----------------------------------------------------------------------

_NODE = re.compile(r"^[\s|:+\-]*(?:\*\(\d+\)\s*)?!?([A-Za-z]\w*)")
_PYTHON_NODE = re.compile(r"Python|ArrowEval|InArrow|InPandas|ArrowAggregate|PythonUDTF")
_JOIN_NODE = re.compile(r"Join$|^CartesianProduct$")


def physical_plan(df: Any) -> str:
    """The executed plan's text; for an adaptive plan after execution, the final plan only."""
    text = df._jdf.queryExecution().executedPlan().toString()
    if "== Final Plan ==" in text:
        text = text.split("== Final Plan ==", 1)[1].split("== Initial Plan ==", 1)[0]
    return text


def plan_nodes(df: Any) -> list[str]:
    """Names of the physical operators of ``df`` (``HashAggregate``, ``SortMergeJoin``, ...)."""
    names = []
    for line in physical_plan(df).splitlines():
        m = _NODE.match(line)
        if m and not line.lstrip().startswith("=="):
            names.append(m.group(1))
    return names


@dataclass
class PlanStats:
    python_ops: list[str]
    joins: list[str]
    reads_cache: bool = True

    def __str__(self) -> str:
        py = ", ".join(self.python_ops) or "-"
        jn = ", ".join(self.joins) or "-"
        return f"python ops {len(self.python_ops)} ({py}); joins {len(self.joins)} ({jn})"


def plan_stats(df: Any) -> PlanStats:
    """Python operators (``BatchEvalPython``, ``ArrowEvalPython``, ``FlatMapGroupsInArrow``,
    ``ArrowAggregatePython``, ...) and joins in the physical plan of ``df``."""
    nodes = plan_nodes(df)
    return PlanStats(
        python_ops=[n for n in nodes if _PYTHON_NODE.search(n)],
        joins=[n for n in nodes if _JOIN_NODE.search(n)],
        reads_cache="InMemoryTableScan" in nodes,
    )


# -- timing ----------------------------------------------------------------------


@dataclass
class Skip:
    """A variant that is listed but not run (e.g. ``Skip("too slow")``)."""

    reason: str


@dataclass
class Result:
    name: str
    times: list[float] = field(default_factory=list)
    build_times: list[float] = field(default_factory=list)
    error: str | None = None
    skipped: str | None = None
    plan: PlanStats | None = None
    note: str = ""

    @property
    def median(self) -> float | None:
        return statistics.median(self.times) if self.times and not self.error else None

    @property
    def status(self) -> str:
        if self.skipped is not None:
            return f"skipped ({self.skipped})"
        if self.error is not None:
            return f"n/a (error: {self.error})"
        return ""


def first_line(exc: BaseException, limit: int = 160) -> str:
    """``Type: first line of the message``, shortened; enough to recognize an error."""
    lines = [ln.strip() for ln in str(exc).strip().splitlines() if ln.strip()]
    text = f"{type(exc).__name__}: {lines[0] if lines else ''}".rstrip(": ")
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _expect_dataframe(out: Any) -> Any:
    from pyspark.sql import DataFrame

    if not isinstance(out, DataFrame):
        raise TypeError(f"returned {type(out).__name__}, not a DataFrame")
    return out


def _collect_garbage(spark: Any) -> None:
    gc.collect()
    try:
        spark._jvm.System.gc()
    except Exception:  # noqa: BLE001 - only a noise reduction
        pass


def run_once(fn: Callable[[Any], Any], df: Any) -> tuple[float, float, Any]:
    """Build the variant's DataFrame and evaluate every column.

    Returns ``(total seconds, seconds spent building the DataFrame, output df)``; the
    build part (Python and Py4J calls before Spark runs a job) is included in the total.
    """
    start = time.perf_counter()
    out = _expect_dataframe(fn(df))
    built = time.perf_counter()
    consume(out)
    return time.perf_counter() - start, built - start, out


def bench(
    variants: Mapping[str, Callable[[Any], Any] | Skip],
    df: Any,
    repeats: int = 3,
    *,
    baseline: str | None = None,
    also: Sequence[str] = (),
    pairs: Mapping[str, str] | None = None,
    plans: bool = False,
    notes: Mapping[str, str] | None = None,
    title: str | None = None,
    log: bool = True,
) -> dict[str, Result]:
    """Time every variant on the same cached ``df``, interleaved; print and return the results.

    Each variant is run once untimed first (JIT, Python worker start, compilation);
    a variant that raises there is reported as n/a and not timed. Then ``repeats``
    rounds run every remaining variant once each, the starting variant rotating.
    The table shows the median seconds and ratios to ``baseline`` and to each of
    ``also``; ``pairs`` maps a variant to its own baseline (a "vs pair" column).
    With ``plans``, the table also shows the Python operators and joins of each
    variant's physical plan. A variant whose plan does not read the cached input
    (no ``InMemoryTableScan``) gets a note saying so.
    """
    spark = df.sparkSession
    results = {name: Result(name) for name in variants}
    for name, note in (notes or {}).items():
        if name in results:
            results[name].note = note
    live: list[str] = []
    for name, fn in variants.items():
        res = results[name]
        if isinstance(fn, Skip):
            res.skipped = fn.reason
            continue
        try:
            seconds, _, out = run_once(fn, df)
            res.plan = plan_stats(out)
        except Exception as e:  # noqa: BLE001 - reported in the table
            res.error = first_line(e)
            if log:
                print(f"  warm-up  {name}: n/a ({res.error})", flush=True)
            continue
        if not res.plan.reads_cache:
            res.note = "; ".join(filter(None, [res.note, "does NOT read the cached input"]))
        live.append(name)
        if log:
            print(f"  warm-up  {name}: {seconds:.2f} s", flush=True)
    for r in range(repeats):
        order = live[r % len(live) :] + live[: r % len(live)] if live else []
        for name in order:
            _collect_garbage(spark)
            res = results[name]
            try:
                seconds, build, _ = run_once(variants[name], df)  # type: ignore[arg-type]
            except Exception as e:  # noqa: BLE001 - flaky failure: reported
                res.error = f"failed in round {r + 1}: {first_line(e)}"
                live.remove(name)
                continue
            res.times.append(seconds)
            res.build_times.append(build)
            if log:
                print(f"  round {r + 1}/{repeats}  {name}: {seconds:.2f} s", flush=True)
    if not df.is_cached or not df.storageLevel.useMemory:
        print("WARNING: the input DataFrame lost its cache during the run", flush=True)
    print_table(results, baseline=baseline, also=also, pairs=pairs, plans=plans, title=title)
    return results


def print_plans(variants: Mapping[str, Any], names: Iterable[str], df: Any) -> None:
    """Print the physical plan of each named variant (those that build without error)."""
    for name in names:
        fn = variants.get(name)
        if fn is None or isinstance(fn, Skip):
            continue
        print(f"physical plan of {name}:")
        try:
            print(physical_plan(_expect_dataframe(fn(df))).rstrip())
        except Exception as e:  # noqa: BLE001 - reported
            print(f"  n/a ({first_line(e)})")
        print(flush=True)


def ratio(results: Mapping[str, Result], name: str, base: str) -> float | None:
    """``median(name) / median(base)``, or None when either is unavailable."""
    a = results[name].median if name in results else None
    b = results[base].median if base in results else None
    return a / b if a is not None and b else None


def _fmt_ratio(x: float | None) -> str:
    return f"{x:.2f}" if x is not None else "n/a"


def print_table(
    results: Mapping[str, Result],
    *,
    baseline: str | None = None,
    also: Sequence[str] = (),
    pairs: Mapping[str, str] | None = None,
    plans: bool = False,
    title: str | None = None,
    file: Any = None,
) -> None:
    """Print the results as a Markdown table (pasteable into the README).

    ``build s`` is the median time of building the output DataFrame (part of the
    median): Python-side plan construction, before Spark runs anything.
    """
    file = file or sys.stdout
    bases = [b for b in [baseline, *also] if b]
    header = ["variant", "median s", "min-max s", "build s"]
    header += [f"x {b}" for b in bases]
    if pairs:
        header += ["vs pair"]
    if plans:
        header += ["python ops", "joins"]
    header += ["note"]
    rows = []
    for name, res in results.items():
        note = res.note
        if res.median is None:
            row = [name, "skipped" if res.skipped is not None else "n/a", "", ""]
            row += [""] * len(bases)
            if pairs:
                row.append("")
            note = "; ".join(filter(None, [res.status, note]))
        else:
            row = [name, f"{res.median:.2f}", f"{min(res.times):.2f}-{max(res.times):.2f}"]
            row.append(f"{statistics.median(res.build_times):.3f}")
            row += [_fmt_ratio(ratio(results, name, b)) for b in bases]
            if pairs:
                base = pairs.get(name)
                row.append(f"{_fmt_ratio(ratio(results, name, base))} x {base}" if base else "")
        if plans:
            if res.plan is None:
                row += ["", ""]
            else:
                row += [str(len(res.plan.python_ops)), str(len(res.plan.joins))]
        row.append(note)
        rows.append(row)
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]

    def line(cells: Iterable[str]) -> str:
        return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"

    print(file=file)
    if title:
        print(title, file=file)
        print(file=file)
    print(line(header), file=file)
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|", file=file)
    for row in rows:
        print(line(row), file=file)
    print(file=file, flush=True)


def check_targets(
    results: Mapping[str, Result],
    targets: Sequence[tuple[str, str, float]],
    file: Any = None,
) -> None:
    """Print ``variant <= limit x base`` lines with PASS / MISS / n/a."""
    file = file or sys.stdout
    print("targets:", file=file)
    for name, base, limit in targets:
        x = ratio(results, name, base)
        verdict = "n/a" if x is None else ("PASS" if x <= limit else "MISS")
        shown = "n/a" if x is None else f"{x:.2f}"
        print(f"  {name} <= {limit}x {base}: {shown} -> {verdict}", file=file)
    print(file=file, flush=True)


# -- correctness -----------------------------------------------------------------


def close_enough(a: Any, b: Any, rel: float = 1e-9) -> bool:
    """Equality for result values: None only equals None, floats to ``rel`` relative."""
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, float) or isinstance(b, float):
        if math.isnan(a) or math.isnan(b):
            return math.isnan(a) and math.isnan(b)
        return math.isclose(a, b, rel_tol=rel, abs_tol=0.0) or a == b
    return a == b


def compare_keyed(
    expected: Mapping[Any, Any], got: Mapping[Any, Any], rel: float = 1e-9
) -> list[str]:
    """Differences between two key -> value maps (empty when they agree)."""
    problems = []
    missing = expected.keys() - got.keys()
    extra = got.keys() - expected.keys()
    if missing:
        problems.append(f"{len(missing)} keys missing, e.g. {sorted(missing)[:3]}")
    if extra:
        problems.append(f"{len(extra)} unexpected keys, e.g. {sorted(extra)[:3]}")
    wrong = [k for k in expected.keys() & got.keys() if not close_enough(expected[k], got[k], rel)]
    if wrong:
        k = sorted(wrong)[0]
        problems.append(
            f"{len(wrong)} values differ, e.g. key {k}: expected {expected[k]!r}, got {got[k]!r}"
        )
    return problems


def keyed_rows(rows: Iterable[Sequence[Any]]) -> dict[Any, Any]:
    """``{first field: second field}`` of two-field rows; duplicate keys are an error."""
    out: dict[Any, Any] = {}
    for r in rows:
        if r[0] in out:
            raise AssertionError(f"duplicate key {r[0]!r} in the result")
        out[r[0]] = r[1]
    return out


# -- memory (skew cases) --------------------------------------------------------------------


#: Session settings for :func:`memory_table` (the UI's REST API and sampled peaks);
#: used only by the skew runs, every other benchmark keeps the UI off.
MEMORY_CONF = {
    "spark.ui.enabled": "true",
    "spark.executor.processTreeMetrics.enabled": "true",
    "spark.executor.metrics.pollingInterval": "100ms",
    "spark.executor.heartbeatInterval": "1s",
}


def with_job_group(name: str, fn: Any) -> Any:
    """``fn`` with its jobs in the Spark job group ``name`` (for :func:`memory_table`)."""

    def run(df: Any) -> Any:
        df.sparkSession.sparkContext.setJobGroup(name, name)
        return fn(df)

    return run


def _rest(spark: Any, path: str) -> Any:
    sc = spark.sparkContext
    url = f"{sc.uiWebUrl}/api/v1/applications/{sc.applicationId}{path}"
    with urllib.request.urlopen(url, timeout=30) as resp:  # noqa: S310 - local UI
        return json.load(resp)


def memory_of_group(spark: Any, group: str) -> dict[str, int]:
    """Peaks over every stage of the jobs of ``group`` (REST API of the UI).

    * ``task execution``: the largest ``peakExecutionMemory`` of one task (sorts,
      aggregation buffers, window buffers: Spark's execution memory);
    * ``JVM heap``, ``on-heap execution``, ``python RSS``: the stage's
      ``peakExecutorMetrics`` (sampled every ``spark.executor.metrics.pollingInterval``;
      JVM heap includes the cached input and everything else in the driver's JVM).
    """
    sc = spark.sparkContext
    tracker = sc.statusTracker()
    out = {"task execution": 0, "JVM heap": 0, "on-heap execution": 0, "python RSS": 0}
    for jid in tracker.getJobIdsForGroup(group):
        info = tracker.getJobInfo(jid)
        for sid in info.stageIds if info else []:
            try:
                stages = _rest(spark, f"/stages/{sid}?quantiles=1.0&withSummaries=true")
            except Exception:  # noqa: BLE001 - skipped stages are not in the store
                continue
            for st in stages:
                summary = st.get("taskMetricsDistributions") or {}
                peak_exec = summary.get("peakExecutionMemory") or [0]
                out["task execution"] = max(out["task execution"], int(max(peak_exec)))
                peak = st.get("peakExecutorMetrics") or {}
                out["JVM heap"] = max(out["JVM heap"], int(peak.get("JVMHeapMemory", 0)))
                out["on-heap execution"] = max(
                    out["on-heap execution"], int(peak.get("OnHeapExecutionMemory", 0))
                )
                rss = int(peak.get("ProcessTreePythonRSSMemory", 0))
                out["python RSS"] = max(out["python RSS"], rss)
    return out


def memory_table(spark: Any, names: list[str], title: str) -> None:
    """Print each variant's peak memory on the executor (local[2]: the driver is the executor)."""
    execs = _rest(spark, "/allexecutors")
    print(title)
    print()
    print(
        "| variant | max task peakExecutionMemory MB | JVM heap peak MB | "
        "on-heap execution peak MB | Python workers RSS peak MB |"
    )
    print("|---|---|---|---|---|")
    mb = 1024 * 1024
    for name in names:
        m = memory_of_group(spark, name)
        print(
            f"| {name} | {m['task execution'] / mb:.0f} | {m['JVM heap'] / mb:.0f} | "
            f"{m['on-heap execution'] / mb:.0f} | {m['python RSS'] / mb:.0f} |"
        )
    for ex in execs:
        peak = ex.get("peakMemoryMetrics") or {}
        print(
            f"\nexecutor {ex.get('id')} (local mode: the driver), whole run: JVM heap peak "
            f"{peak.get('JVMHeapMemory', 0) / mb:.0f} MB of max {ex.get('maxMemory', 0) / mb:.0f} MB "
            f"storage+execution; on-heap execution peak "
            f"{peak.get('OnHeapExecutionMemory', 0) / mb:.0f} MB; Python RSS peak "
            f"{peak.get('ProcessTreePythonRSSMemory', 0) / mb:.0f} MB"
        )
    print(flush=True)


# -- command line ----------------------------------------------------------------


def parse_args(
    description: str,
    *,
    rows: int = 2_000_000,
    users: int = 20_000,
    repeats: int = 3,
    users_help: str = "distinct users (groups)",
    extra: Callable[[argparse.ArgumentParser], None] | None = None,
    argv: Sequence[str] | None = None,
) -> argparse.Namespace:
    """``--rows``, ``--users``, ``--repeats`` (plus whatever ``extra`` adds)."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--rows", type=int, default=rows, help=f"input rows (default {rows:,})")
    p.add_argument("--users", type=int, default=users, help=f"{users_help} (default {users:,})")
    p.add_argument(
        "--repeats", type=int, default=repeats, help=f"timed rounds per variant (default {repeats})"
    )
    p.add_argument(
        "--show-plans",
        action="store_true",
        help="print the physical plans of the compiled variants",
    )
    p.add_argument(
        "--skip",
        action="append",
        default=[],
        metavar="TEXT",
        help="do not run variants whose name contains TEXT (repeatable; listed as skipped)",
    )
    if extra:
        extra(p)
    args = p.parse_args(argv)
    if args.rows < 1 or args.users < 1 or args.repeats < 1:
        p.error("--rows, --users and --repeats must be positive")
    return args


def apply_skips(variants: dict[str, Any], skips: Sequence[str]) -> dict[str, Any]:
    """``variants`` with those whose name contains one of ``skips`` replaced by :class:`Skip`."""
    return {
        name: Skip("--skip") if any(s.lower() in name.lower() for s in skips) else fn
        for name, fn in variants.items()
    }


def header(title: str, args: argparse.Namespace, spark: Any) -> None:
    """One line saying what is measured and where."""
    conf = spark.conf
    print(
        f"{title}: rows={args.rows:,} users={args.users:,} repeats={args.repeats} | "
        f"spark {spark.version} {spark.sparkContext.master} "
        f"shuffle.partitions={conf.get('spark.sql.shuffle.partitions')} "
        f"ansi={conf.get('spark.sql.ansi.enabled')} | cpus={os.cpu_count()}",
        flush=True,
    )
