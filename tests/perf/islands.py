"""Python islands (issue 25): compiled programs whose non-native parts run as vectorized
Python, against the same logic hand-written as pandas and Arrow UDFs.

    python -m tests.perf.islands --rows 1000000 --users 10000 [--workload "group block"]

Three programs of ``tests/perf/island_algos.py``, each on its own cached table:

* **parser** — ``kv_value(line, "b")``, a scalar text parser with a scanning ``while``
  loop (a Python island for the loop, the rest native), vs a ``pandas_udf`` mapping the
  same Python function over each batch and an Arrow-optimized Python UDF;
* **group block** — ``user_scores(events)``, a group loop whose per-row block (a
  ``while`` loop over an event code's digits) is an island inside otherwise native sums,
  vs a ``pandas_udf`` for the block plus Spark's own ``groupBy().agg``, and
  ``applyInPandas`` running the whole loop per user;
* **whole function** — ``duration_s(text)``, a bare ``try``/``except`` around a character
  loop and a dict lookup (the whole function one island), vs a ``pandas_udf`` and an
  Arrow UDF of the same function.

Target (issue 25): each compiled program at most 1.0x its fastest hand-written UDF. Every
variant is first compared with the Python function on a small table.
"""

from __future__ import annotations

import sys
from typing import Any

import pandas as pd

from tests.perf import common

LIMIT = 1.0
ALGOS = common.ROOT / "tests" / "perf" / "island_algos.py"


def gen_lines(spark: Any, rows: int, seed: int = 11) -> Any:
    """``lines(line string)``: ``"a=<n>; b=<n>; c=x"`` with keys dropped, cased and spaced
    differently per row, so every branch of the parser runs."""
    from pyspark.sql import functions as F

    h = F.xxhash64(F.col("id"), F.lit(seed))
    n = F.pmod(h, F.lit(1000))
    variant = F.pmod(F.shiftright(h, 10), F.lit(4))
    line = (
        F.when(variant == 0, F.concat(F.lit("a="), n.cast("string"), F.lit("; b="), n.cast("string")))
        .when(variant == 1, F.concat(F.lit(" B = "), n.cast("string"), F.lit(";c=x")))
        .when(variant == 2, F.concat(F.lit("a=1;c="), n.cast("string")))
        .otherwise(F.concat(F.lit("c=x; d=2; b="), n.cast("string"), F.lit(" ")))
    )
    return common.cache(spark.range(0, rows, 1, common.INPUT_PARTITIONS).select(line.alias("line")))


def gen_events(spark: Any, rows: int, users: int, seed: int = 12) -> Any:
    """``events(user_id bigint, code string)``: codes of 1-12 digits."""
    from pyspark.sql import functions as F

    h = F.xxhash64(F.col("id"), F.lit(seed))
    df = spark.range(0, rows, 1, common.INPUT_PARTITIONS).select(
        F.pmod(h, F.lit(users)).cast("bigint").alias("user_id"),
        F.pmod(F.shiftright(h, 8), F.lit(10**12)).cast("string").alias("code"),
    )
    return common.cache(df)


def gen_durations(spark: Any, rows: int, seed: int = 13) -> Any:
    """``durations(text string)``: ``"<h>h<m>m<s>s"`` and parts of it; one in 16 malformed."""
    from pyspark.sql import functions as F

    h = F.xxhash64(F.col("id"), F.lit(seed))
    hh, mm, ss = (F.pmod(F.shiftright(h, k), F.lit(60)).cast("string") for k in (0, 8, 16))
    kind = F.pmod(F.shiftright(h, 24), F.lit(16))
    text = (
        F.when(kind == 0, F.concat(hh, F.lit("x")))
        .when(kind < 6, F.concat(hh, F.lit("h"), mm, F.lit("m"), ss, F.lit("s")))
        .when(kind < 11, F.concat(mm, F.lit("M"), ss, F.lit("s ")))
        .otherwise(F.concat(ss, F.lit("s")))
    )
    return common.cache(spark.range(0, rows, 1, common.INPUT_PARTITIONS).select(text.alias("text")))


def variants_of(spark: Any, algos: Any) -> dict[str, dict[str, Any]]:
    """Per workload: its variants by name, the compiled one first."""
    from pyspark.sql import functions as F
    from pyspark.sql.functions import pandas_udf, udf

    kv_py, duration_py, digits_py = algos.kv_value.fn, algos.duration_s.fn, algos.digit_sum_py

    @pandas_udf("string")
    def kv_pandas(lines: pd.Series) -> pd.Series:
        return lines.map(lambda s: kv_py(s, "b"))

    kv_arrow = udf(lambda s: kv_py(s, "b"), "string", useArrow=True)

    @pandas_udf("bigint")
    def digits_pandas(codes: pd.Series) -> pd.Series:
        return codes.map(digits_py)

    def scores_in_pandas(pdf: pd.DataFrame) -> pd.DataFrame:
        total, n = 0, 0
        for code in pdf["code"]:
            total += digits_py(code)
            n += 1
        return pd.DataFrame({"user_id": [pdf["user_id"].iloc[0]], "score": [total], "events": [n]})

    @pandas_udf("bigint")
    def duration_pandas(texts: pd.Series) -> pd.Series:
        return texts.map(duration_py).astype("Int64")

    duration_arrow = udf(duration_py, "bigint", useArrow=True)
    line, code, text = F.col("line"), F.col("code"), F.col("text")
    return {
        "parser": {
            "compiled kv_value(line, 'b')": lambda df: df.select(algos.kv_value(line, "b").alias("v")),
            "pandas_udf": lambda df: df.select(kv_pandas(line).alias("v")),
            "Arrow UDF": lambda df: df.select(kv_arrow(line).alias("v")),
        },
        "group block": {
            "compiled user_scores(df)": lambda df: algos.user_scores(df),
            "pandas_udf + native groupBy": lambda df: df.groupBy("user_id").agg(
                F.sum(digits_pandas(code)).alias("score"), F.count("*").alias("events")),
            "applyInPandas loop": lambda df: df.groupBy("user_id").applyInPandas(
                scores_in_pandas, "user_id bigint, score bigint, events bigint"),
        },
        "whole function": {
            "compiled duration_s(text)": lambda df: df.select(algos.duration_s(text).alias("d")),
            "pandas_udf": lambda df: df.select(duration_pandas(text).alias("d")),
            "Arrow UDF": lambda df: df.select(duration_arrow(text).alias("d")),
        },
    }


def check(variants: dict[str, Any], df: Any, expected: list[Any], keyed: bool) -> set[str]:
    """Each variant's rows on ``df`` against the Python results; names that disagree."""
    wrong = set()
    for name, fn in variants.items():
        try:
            rows = fn(df).collect()
        except Exception as e:  # noqa: BLE001 - reported
            print(f"  {name:<34} n/a ({common.first_line(e, 100)})")
            wrong.add(name)
            continue
        got = sorted(map(tuple, rows)) if keyed else [r[0] for r in rows]
        ok = got == expected
        if not ok:
            wrong.add(name)
        print(f"  {name:<34} " + ("agrees" if ok else "DISAGREES"))
    return wrong


def main(argv: list[str] | None = None) -> int:
    def extra(p: Any) -> None:
        p.add_argument("--workload", action="append", default=[],
                       choices=["parser", "group block", "whole function"],
                       help="run only this workload (repeatable; default all)")  # fmt: skip

    args = common.parse_args(__doc__.splitlines()[0], rows=1_000_000, users=10_000, repeats=5,
                             extra=extra, argv=argv)  # fmt: skip
    spark = common.session()
    common.header("islands", args, spark)
    algos = common.load_path(ALGOS, "perf_island_algos")
    by_workload = variants_of(spark, algos)
    for name in by_workload:
        by_workload[name] = common.apply_skips(by_workload[name], args.skip)
    tables = {
        "parser": lambda n: gen_lines(spark, n),
        "group block": lambda n: gen_events(spark, n, max(1, min(args.users, n // 10))),
        "whole function": lambda n: gen_durations(spark, n),
    }
    if args.workload:
        tables = {k: v for k, v in tables.items() if k in args.workload}
    print("correctness vs the Python functions (2,000 rows):")
    wrong: dict[str, set[str]] = {}
    for name, make in tables.items():
        small = make(2000)
        rows = [tuple(r) for r in small.collect()]
        if name == "parser":
            want, keyed = [algos.kv_value(r[0], "b") for r in rows], False
        elif name == "group block":
            want, keyed = sorted(algos.user_scores(rows)), True
        else:
            want, keyed = [algos.duration_s(r[0]) for r in rows], False
        live = {k: v for k, v in by_workload[name].items() if not isinstance(v, common.Skip)}
        wrong[name] = check(live, small, want, keyed)
        small.unpersist()
    print(flush=True)
    failed = False
    for name, make in tables.items():
        df = make(args.rows)
        variants = by_workload[name]
        compiled = next(iter(variants))
        hand = [k for k in variants if k != compiled]
        results = common.bench(
            variants, df, args.repeats, baseline=hand[0], also=hand[1:], plans=True,
            notes={n: "WRONG RESULT in the check" for n in wrong[name]},
            title=f"islands/{name}, {args.rows:,} rows, medians of {args.repeats} interleaved runs",
        )  # fmt: skip
        # against the fastest hand-written variant: the largest of the ratios
        best = max((common.ratio(results, compiled, h) for h in hand
                    if common.ratio(results, compiled, h) is not None), default=None)  # fmt: skip
        verdict = "n/a" if best is None else ("PASS" if best <= LIMIT else "MISS")
        print(f"target: {compiled} <= {LIMIT}x the fastest hand-written UDF: "
              f"{'n/a' if best is None else f'{best:.2f}'} -> {verdict}\n", flush=True)  # fmt: skip
        failed |= verdict != "PASS" or bool(wrong[name])
        df.unpersist()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
