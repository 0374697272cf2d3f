"""Group values used per row (issue 27, item 2): compiled vs hand-written windows and joins.

    python -m tests.perf.pergroup --rows 1000000 --users 10000

On a cached table ``t(k bigint, id bigint, v double, w bigint)`` (its key analyzed:
``ANALYZE TABLE t COMPUTE STATISTICS FOR COLUMNS k``, unless ``--no-analyze``): per-group
centering (``v - mean(v)`` per key, ``centered`` of tests/spark/pergroup_algos.py, the
programs the differential tests check) and a share of the group total (``w / sum(w)`` per
key, ``share``). Each is compiled, as the plan chooses its form from Spark's statistics
(``looplift.groupform``), and in each form set by ``spark.looplift.groupValues`` (window
aggregates over the rows; an aggregate per key broadcast and joined back); and
hand-written as a window (``avg(v) OVER (PARTITION BY k)``), as an aggregate joined back
on the key (with and without a broadcast hint), and as ``groupBy(k).applyInPandas``.

The target (issue 27): each compiled variant at most 1.1x the fastest hand-written
native query of the same run. Every variant is checked against Python on a small
table first.
"""

from __future__ import annotations

import math
import sys
from typing import Any

from tests.perf import common

LIMIT = 1.1
WORKLOADS = ("centered", "share")


def gen_table(spark: Any, rows: int, keys: int, seed: int = 11, view: str | None = "t") -> Any:
    """``t(k, id, v, w)``: ``k`` a hash mod ``keys``, ``id`` the row id, ``v`` a double in
    [-500, 500), ``w`` a bigint in 1..1000 (so no group total is 0); cached."""
    from pyspark.sql import functions as F

    rid = F.col("id")
    h = F.xxhash64(rid, F.lit(seed + 1))
    df = spark.range(0, rows, 1, common.INPUT_PARTITIONS).select(
        F.pmod(F.xxhash64(rid, F.lit(seed)), F.lit(keys)).cast("bigint").alias("k"),
        rid.cast("bigint").alias("id"),
        (F.pmod(h, F.lit(1_000_000)).cast("double") / F.lit(1000.0) - F.lit(500.0)).alias("v"),
        (F.pmod(F.xxhash64(rid, F.lit(seed + 2)), F.lit(1000)) + F.lit(1))
        .cast("bigint")
        .alias("w"),
    )
    return common.cache(df, view)


def _centered_pandas(pdf: Any) -> Any:
    out = pdf[["k", "id"]].copy()
    out["centered"] = pdf["v"] - pdf["v"].mean()
    return out


def _share_pandas(pdf: Any) -> Any:
    out = pdf[["k", "id"]].copy()
    out["share"] = pdf["w"] / pdf["w"].sum()
    return out


def _form(form: str, fn: Any) -> Any:
    """``fn`` built with the group values' form set (``spark.looplift.groupValues``: the
    plan reads it when it is built, so the setting holds for the build only)."""
    from looplift.groupform import CONF

    def run(df: Any) -> Any:
        spark = df.sparkSession
        old = spark.conf.get(CONF, "auto")
        spark.conf.set(CONF, form)
        try:
            return fn(df)
        finally:
            spark.conf.set(CONF, old)

    return run


def analyze(spark: Any, view: str) -> None:
    """``ANALYZE TABLE`` the cached view's key: its distinct keys, which the compiled plan
    reads from Spark's statistics to choose its form."""
    spark.sql(f"ANALYZE TABLE {view} COMPUTE STATISTICS FOR COLUMNS k")


def make_variants(workload: str) -> tuple[dict[str, Any], Any]:
    """``(variants, Python reference over (k, id, v, w) rows)`` of one workload."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    path = common.ROOT / "tests" / "spark" / "pergroup_algos.py"
    algos = common.load_path(path, "perf_pergroup_algos")

    by_k = Window.partitionBy("k")
    if workload == "centered":
        centered = lambda df: algos.centered(df.select("k", "id", "v"))  # noqa: E731
        return {
            "compiled centered(df)": centered,
            "compiled, window form": _form("window", centered),
            "compiled, aggregate + join form": _form("join", centered),
            "native window": lambda df: df.select(
                "k", "id", (F.col("v") - F.avg("v").over(by_k)).alias("centered")),
            "native aggregate + join": lambda df: df.join(
                df.groupBy("k").agg(F.avg("v").alias("m")), "k").select(
                "k", "id", (F.col("v") - F.col("m")).alias("centered")),
            "native aggregate + broadcast join": lambda df: df.join(
                F.broadcast(df.groupBy("k").agg(F.avg("v").alias("m"))), "k").select(
                "k", "id", (F.col("v") - F.col("m")).alias("centered")),
            "applyInPandas": lambda df: df.select("k", "id", "v").groupBy("k").applyInPandas(
                _centered_pandas, "k long, id long, centered double"),
        }, lambda rows: algos.centered([(k, i, v) for k, i, v, _w in rows])  # fmt: skip
    share = lambda df: algos.share(df.select("k", "id", "w"))  # noqa: E731
    return {
        "compiled share(df)": share,
        "compiled, window form": _form("window", share),
        "compiled, aggregate + join form": _form("join", share),
        "native window": lambda df: df.select(
            "k", "id", (F.col("w") / F.sum("w").over(by_k)).alias("share")),
        "native aggregate + join": lambda df: df.join(
            df.groupBy("k").agg(F.sum("w").alias("s")), "k").select(
            "k", "id", (F.col("w") / F.col("s")).alias("share")),
        "native aggregate + broadcast join": lambda df: df.join(
            F.broadcast(df.groupBy("k").agg(F.sum("w").alias("s"))), "k").select(
            "k", "id", (F.col("w") / F.col("s")).alias("share")),
        "applyInPandas": lambda df: df.select("k", "id", "w").groupBy("k").applyInPandas(
            _share_pandas, "k long, id long, share double"),
    }, lambda rows: algos.share([(k, i, w) for k, i, _v, w in rows])  # fmt: skip


def _compare(want: dict[Any, Any], got: dict[Any, Any]) -> list[str]:
    """Differences of two (k, id) -> value maps; floats to 1e-9 relative or absolute (a
    centered value near 0 keeps the absolute error of the mean, not a relative one)."""
    if want.keys() != got.keys():
        return [f"{len(want.keys() ^ got.keys())} (k, id) rows missing or unexpected"]
    wrong = [key for key, x in want.items()
             if not math.isclose(x, got[key], rel_tol=1e-9, abs_tol=1e-9)]  # fmt: skip
    if wrong:
        key = min(wrong)
        return [f"{len(wrong)} values differ, e.g. {key}: expected {want[key]!r}, got {got[key]!r}"]
    return []


def check(variants: dict[str, Any], ref: Any, df: Any) -> set[str]:
    """Compare every variant with the Python reference on ``df``; names that disagree."""
    rows = [tuple(r) for r in df.collect()]
    want = {(k, i): x for k, i, x in ref(rows)}
    print(f"correctness vs the Python reference ({len(rows):,} rows):")
    wrong = set()
    for name, fn in variants.items():
        if isinstance(fn, common.Skip):
            continue
        try:
            got = {(k, i): x for k, i, x in (tuple(r) for r in fn(df).collect())}
        except Exception as e:  # noqa: BLE001 - reported
            print(f"  {name:<30} n/a ({common.first_line(e, 100)})")
            continue
        problems = _compare(want, got)
        if problems:
            wrong.add(name)
        print(f"  {name:<30} " + ("DISAGREES: " + "; ".join(problems) if problems else "agrees"))
    print(flush=True)
    return wrong


def print_targets(results: dict[str, common.Result], compiled: str) -> None:
    natives = [n for n in results if n.startswith("native") and results[n].median is not None]
    if not natives or results[compiled].median is None:
        print(f"  {compiled}: n/a")
        return
    fastest = min(natives, key=lambda n: results[n].median)
    x = common.ratio(results, compiled, fastest)
    res = results[compiled]
    print(f"target: {compiled} <= {LIMIT}x the fastest native ({fastest}): {x:.2f}x -> "
          f"{'PASS' if x is not None and x <= LIMIT else 'MISS'}"
          + (f"  [{res.plan}]" if res.plan else ""))  # fmt: skip
    print(flush=True)


def main(argv: list[str] | None = None) -> int:
    def extra(p: Any) -> None:
        p.add_argument("--check-rows", type=int, default=3_000, help="rows of the check table")
        p.add_argument("--no-check", action="store_true", help="skip the correctness check")
        p.add_argument("--workload", choices=(*WORKLOADS, "both"), default="both")
        p.add_argument("--no-analyze", action="store_true",
                       help="no ANALYZE TABLE of the input: the compiled plan has no key count "
                       "and keeps the window form")  # fmt: skip
        p.add_argument(
            "--cpu",
            action="store_true",
            help="also compare the JVM's CPU seconds (steadier on a loaded machine)",
        )

    args = common.parse_args(
        __doc__.splitlines()[0],
        rows=1_000_000,
        users=10_000,
        repeats=3,
        users_help="distinct keys k",
        extra=extra,
        argv=argv,
    )
    spark = common.session()
    common.header("pergroup", args, spark)
    df = None
    bad = False
    for workload in WORKLOADS if args.workload == "both" else (args.workload,):
        variants, ref = make_variants(workload)
        variants = common.apply_skips(variants, args.skip)
        wrong: set[str] = set()
        if not args.no_check:
            small = gen_table(spark, args.check_rows, max(1, args.check_rows // 30), view=None)
            wrong = check(variants, ref, small)
            small.unpersist()
            bad = bad or bool(wrong)
        if df is None:
            df = gen_table(spark, args.rows, args.users)
            if not args.no_analyze:
                analyze(spark, "t")
        compiled = next(n for n in variants if n.startswith("compiled"))
        results = common.bench(
            variants,
            df,
            args.repeats,
            baseline=compiled,
            plans=True,
            notes={name: "WRONG RESULT in the check" for name in wrong},
            title=f"{workload}, {args.rows:,} rows / {args.users:,} keys, medians of "
            f"{args.repeats} interleaved runs",
        )
        print_targets(results, compiled)
        if args.cpu:
            from tests.perf.ranked import cpu_table

            cpu_table(variants, df, args.repeats, wrong)
        if args.show_plans:
            common.print_plans(variants, [compiled], df)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
