"""Partial aggregation under skew (issue 28 item 3): one key with 10% of the rows.

    python -m tests.perf.skew --rows 5000000 --users 50000

On one cached table ``t(ku, ks, c, v)``: ``ku`` a uniform key (a hash mod U), ``ks`` the
same key except that 10% of the rows (``--skew``) belong to key -1; ``c`` a category in
0..9, ``v`` a value in 0..999,999. Three programs (tests/perf/skew_algos.py): a
``TopK(3)`` per key, a ``Distinct`` count per key and a dict of sums per (key, category),
each compiled with partial aggregation (the default) and without
(``Planner.partial_aggregation = False``: every row goes to its key's task through a
``repartition`` by key), on the uniform key and on the skewed one: 12 variants, all on
the same cached DataFrame, interleaved.

The target (issue 28): with partial aggregation, each program's skewed run at most 1.3x
its uniform run. Every variant is checked against the programs run as plain Python on a
small table (uniform and skewed) first.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any

from tests.perf import common

LIMIT = 1.3
PROGRAMS = ("top3", "distinct_count", "keyed_sums")


def gen_table(spark: Any, rows: int, keys: int, skew: float = 0.1, seed: int = 7,
              view: str | None = "t") -> Any:  # fmt: skip
    """``t(ku, ks, c, v)`` (module docstring), cached."""
    from pyspark.sql import functions as F

    rid = F.col("id")
    ku = F.pmod(F.xxhash64(rid, F.lit(seed)), F.lit(keys))
    hot = F.pmod(F.xxhash64(rid, F.lit(seed + 1)), F.lit(1_000_000)) < int(skew * 1e6)
    df = spark.range(0, rows, 1, common.INPUT_PARTITIONS).select(
        ku.cast("bigint").alias("ku"),
        F.when(hot, F.lit(-1)).otherwise(ku).cast("bigint").alias("ks"),
        F.pmod(F.xxhash64(rid, F.lit(seed + 2)), F.lit(10)).cast("bigint").alias("c"),
        F.pmod(F.xxhash64(rid, F.lit(seed + 3)), F.lit(1_000_000)).cast("bigint").alias("v"),
    )
    return common.cache(df, view)


@contextlib.contextmanager
def _no_partial() -> Any:
    from looplift.compiler.backend.plan import Planner

    Planner.partial_aggregation = False
    try:
        yield
    finally:
        Planner.partial_aggregation = True


def make_variants() -> dict[str, Any]:
    """``{"<program> <partial|no partial> <uniform|skewed>": fn(df)}``."""
    from pyspark.sql import functions as F

    path = common.ROOT / "tests" / "perf" / "skew_algos.py"
    on = common.load_path(path, "perf_skew_partial")
    off = common.load_path(path, "perf_skew_whole")  # its own compiled plans
    with _no_partial():
        for name in PROGRAMS:
            getattr(off, name).backend()  # compiled now, without partial aggregation
    variants = {}
    for name in PROGRAMS:
        for form, mod in (("partial", on), ("no partial", off)):
            for data, key in (("uniform", "ku"), ("skewed", "ks")):
                algo = getattr(mod, name)
                variants[f"{name} {form} {data}"] = (
                    lambda df, algo=algo, key=key: algo(df.select(F.col(key).alias("k"), "c", "v")))  # fmt: skip
    return variants


def check(variants: dict[str, Any], df: Any) -> set[str]:
    """Every variant against the program run as plain Python on ``df``'s rows."""
    algos = common.load_path(common.ROOT / "tests" / "perf" / "skew_algos.py", "perf_skew_ref")
    rows = [tuple(r) for r in df.collect()]
    print(f"correctness vs the Python reference ({len(rows):,} rows):")
    wrong = set()
    for name, fn in variants.items():
        if isinstance(fn, common.Skip):
            continue
        prog = name.split()[0]
        key = 1 if name.endswith("skewed") else 0
        want = sorted(map(repr, getattr(algos, prog)([(r[key], r[2], r[3]) for r in rows])))
        try:
            got = sorted(repr(tuple(r)) for r in fn(df).collect())
        except Exception as e:  # noqa: BLE001 - reported
            print(f"  {name:<36} n/a ({common.first_line(e, 100)})")
            wrong.add(name)
            continue
        ok = got == want
        if not ok:
            wrong.add(name)
        print(
            f"  {name:<36} "
            + ("agrees" if ok else f"DISAGREES ({len(got)} rows, {len(want)} expected)")
        )
    print(flush=True)
    return wrong


def print_targets(results: dict[str, common.Result]) -> bool:
    """Skewed / uniform with and without partial aggregation; True when all targets hold."""
    ok = True
    for name in PROGRAMS:
        for form in ("partial", "no partial"):
            x = common.ratio(results, f"{name} {form} skewed", f"{name} {form} uniform")
            target = form == "partial"
            verdict = ("PASS" if x is not None and x <= LIMIT else "MISS") if target else ""
            ok = ok and (not target or verdict == "PASS")
            text = f"{x:.2f}x" if x is not None else "n/a"
            print(f"{name} {form}: skewed / uniform = {text}"
                  + (f"  (target <= {LIMIT}: {verdict})" if target else ""))  # fmt: skip
        x = common.ratio(results, f"{name} partial skewed", f"{name} no partial skewed")
        if x is not None:
            print(f"{name} skewed: partial / no partial = {x:.2f}x")
    print(flush=True)
    return ok


def main(argv: list[str] | None = None) -> int:
    def extra(p: Any) -> None:
        p.add_argument("--skew", type=float, default=0.1, help="fraction of rows on key -1")
        p.add_argument("--check-rows", type=int, default=20_000, help="rows of the check tables")
        p.add_argument("--no-check", action="store_true", help="skip the correctness check")

    args = common.parse_args(
        __doc__.splitlines()[0],
        rows=5_000_000,
        users=50_000,
        repeats=3,
        users_help="distinct keys",
        extra=extra,
        argv=argv,
    )
    spark = common.session()
    common.header("skew", args, spark)
    variants = common.apply_skips(make_variants(), args.skip)
    bad = False
    if not args.no_check:
        small = gen_table(spark, args.check_rows, max(1, args.check_rows // 100), args.skew,
                          view=None)  # fmt: skip
        bad = bool(check(variants, small))
        small.unpersist()
    df = gen_table(spark, args.rows, args.users, args.skew)
    if args.show_plans:
        common.print_plans(variants, [n for n in variants if "skewed" in n], df)
    results = common.bench(variants, df, args.repeats, plans=True,
                           title=f"skew: {args.rows:,} rows, {args.users:,} keys, "
                                 f"key -1 holds {args.skew:.0%}")  # fmt: skip
    ok = print_targets(results)
    return 1 if bad else (0 if ok else 2)


if __name__ == "__main__":
    sys.exit(main())
