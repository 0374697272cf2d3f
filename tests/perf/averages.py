"""Additive aggregates: compiled looplift vs Spark's native avg/sum/count/var_pop (issue 3).

    python -m tests.perf.averages --rows 10000000 --users 10000

On a cached table ``t(k bigint, v bigint)``: the thesis' ``average`` (per key) and
``mean`` (global) of samples/average.py, ``sum`` of samples/sum.py, ``count`` of
samples/count.py, and a ``Variance`` aggregate (tests/perf/algos.py), each
compiled and next to the same computation written with Spark's own aggregates.
Additive states should compile to native aggregates: the target is at most
1.05x the native variant, with zero Python operators and zero joins in the
physical plan.

Before timing, every variant is compared with the Python reference (the
algorithm called on the collected rows of a small table).
"""

from __future__ import annotations

import sys
from typing import Any

from tests.perf import common

#: Target: a compiled aggregate at most this many times its native counterpart.
LIMIT = 1.05


def gen_table(spark: Any, rows: int, keys: int, seed: int = 5, view: str | None = "t") -> Any:
    """``t(k bigint, v bigint)``: ``k`` a hash mod ``keys``, ``v`` in -1000..1000; cached."""
    from pyspark.sql import functions as F

    rid = F.col("id")
    df = spark.range(0, rows, 1, common.INPUT_PARTITIONS).select(
        F.pmod(F.xxhash64(rid, F.lit(seed)), F.lit(keys)).cast("bigint").alias("k"),
        (F.pmod(F.xxhash64(rid, F.lit(seed + 1)), F.lit(2001)) - F.lit(1000))
        .cast("bigint")
        .alias("v"),
    )
    return common.cache(df, view)


def make_variants(spark: Any) -> tuple[dict[str, Any], dict[str, str], dict[str, Any]]:
    """``(variants, pairs compiled -> native, Python references)``."""
    from pyspark.sql import functions as F

    average = common.load_sample("average")
    sum_ = common.load_sample("sum")
    count = common.load_sample("count")
    algos = common.load_path(common.ROOT / "tests" / "perf" / "algos.py", "perf_algos")

    def by_key(rows: list[tuple[int, int]], f: Any) -> list[tuple[Any, Any]]:
        groups: dict[int, list[tuple[int, int]]] = {}
        for r in rows:
            groups.setdefault(r[0], []).append(r)
        return [(k, f(g)) for k, g in groups.items()]

    variants: dict[str, Any] = {}
    pairs: dict[str, str] = {}
    refs: dict[str, Any] = {}

    def pair(compiled: str, fn: Any, native: str, native_fn: Any, ref: Any) -> None:
        variants[native] = native_fn
        variants[compiled] = fn
        pairs[compiled] = native
        refs[compiled] = refs[native] = ref

    pair(
        "compiled average(df)",
        lambda df: average.average(df),
        "native avg by key",
        lambda df: df.groupBy("k").agg(F.avg("v").alias("avg")),
        average.average,
    )
    pair(
        "compiled mean(df)",
        lambda df: average.mean(df),
        "native avg",
        lambda df: df.agg(F.avg("v").alias("avg")),
        average.mean,
    )
    pair(
        "compiled sum(df)",
        lambda df: sum_.sum(df),
        "native sum",
        lambda df: df.agg(F.sum("v").alias("sum")),
        sum_.sum,
    )
    pair(
        "compiled sum.agg by key",
        lambda df: df.groupBy("k").agg(sum_.sum.agg("k", "v").alias("sum")),
        "native sum by key",
        lambda df: df.groupBy("k").agg(F.sum("v").alias("sum")),
        lambda rows: by_key(rows, sum_.sum),
    )
    pair(
        "compiled count(df)",
        lambda df: count.count(df),
        "native count",
        lambda df: df.agg(F.count(F.lit(1)).alias("count")),
        count.count,
    )
    pair(
        "compiled variance_by_key(df)",
        lambda df: algos.variance_by_key(df),
        "native var_pop by key",
        lambda df: df.groupBy("k").agg(F.var_pop("v").alias("var")),
        algos.variance_by_key,
    )
    pair(
        "compiled variance(df)",
        lambda df: algos.variance(df),
        "native var_pop",
        lambda df: df.agg(F.var_pop("v").alias("var")),
        algos.variance,
    )
    return variants, pairs, refs


def _as_result(value: Any) -> dict[Any, Any]:
    """A reference result as a key -> value map (``None`` is the key of a scalar)."""
    if isinstance(value, list):
        return common.keyed_rows(value)
    return {None: value}


def _collect(out: Any) -> dict[Any, Any]:
    rows = [tuple(r) for r in out.collect()]
    if len(out.columns) == 1:
        if len(rows) != 1:
            raise AssertionError(f"expected one row, got {len(rows)}")
        return {None: rows[0][0]}
    return common.keyed_rows(r[:2] for r in rows)


def check(variants: dict[str, Any], refs: dict[str, Any], df: Any) -> set[str]:
    """Compare every variant with its Python reference on ``df``; names that disagree."""
    rows = [tuple(r) for r in df.collect()]
    print(f"correctness vs the Python reference ({len(rows):,} rows):")
    wrong = set()
    for name, fn in variants.items():
        if isinstance(fn, common.Skip):
            continue
        try:
            got = _collect(fn(df))
        except Exception as e:  # noqa: BLE001 - reported
            print(f"  {name:<30} n/a ({common.first_line(e, 100)})")
            continue
        problems = common.compare_keyed(_as_result(refs[name](rows)), got)
        if problems:
            wrong.add(name)
        print(f"  {name:<30} " + ("DISAGREES: " + "; ".join(problems) if problems else "agrees"))
    print(flush=True)
    return wrong


def print_targets(results: dict[str, common.Result], pairs: dict[str, str]) -> None:
    print(f"targets: compiled <= {LIMIT}x native, 0 Python operators, 0 joins")
    for compiled, native in pairs.items():
        res = results[compiled]
        x = common.ratio(results, compiled, native)
        if x is None or res.plan is None:
            print(f"  {compiled} vs {native}: n/a -> n/a")
            continue
        py, jn = len(res.plan.python_ops), len(res.plan.joins)
        ok = x <= LIMIT and py == 0 and jn == 0
        print(
            f"  {compiled} vs {native}: {x:.2f}x, python ops {py}, joins {jn} -> "
            f"{'PASS' if ok else 'MISS'}" + ("" if py == 0 and jn == 0 else f"  [{res.plan}]")
        )
    print(flush=True)


def main(argv: list[str] | None = None) -> int:
    def extra(p: Any) -> None:
        p.add_argument("--check-rows", type=int, default=5_000, help="rows of the check table")
        p.add_argument("--no-check", action="store_true", help="skip the correctness check")

    args = common.parse_args(
        __doc__.splitlines()[0],
        rows=10_000_000,
        users=10_000,
        repeats=5,
        users_help="distinct keys k",
        extra=extra,
        argv=argv,
    )
    spark = common.session()
    common.header("averages", args, spark)
    variants, pairs, refs = make_variants(spark)
    variants = common.apply_skips(variants, args.skip)
    wrong: set[str] = set()
    if not args.no_check:
        small = gen_table(spark, args.check_rows, max(1, args.check_rows // 50), seed=9, view=None)
        wrong = check(variants, refs, small)
        small.unpersist()
    df = gen_table(spark, args.rows, args.users)
    results = common.bench(
        variants,
        df,
        args.repeats,
        pairs=pairs,
        plans=True,
        notes={name: "WRONG RESULT in the check" for name in wrong},
        title=f"additive aggregates, {args.rows:,} rows / {args.users:,} keys, medians of "
        f"{args.repeats} interleaved runs",
    )
    print_targets(results, pairs)
    if args.show_plans:
        common.print_plans(variants, pairs, df)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
