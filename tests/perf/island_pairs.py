"""Python islands (issue 25) vs the same logic hand-written as Arrow / pandas UDFs.

    python -m tests.perf.island_pairs --rows 1000000

Three outlined programs of ``tests/spark/island_algos.py`` on a cached table
``t(k string, s string, text string)``:

- ``initials(text)``: a word loop (a statement island) and a native ``.upper()``, against a
  hand-written ``arrow_udf`` doing the whole function;
- ``parse_int(s)``: a bare ``except:`` parser (the whole function is one island), against
  an ``arrow_udf`` with the same body;
- ``group_parse``: a group loop whose per-row ``try`` is an island and whose sum is
  native, against ``groupBy("k").applyInPandas`` of the same loop.

The target (issue 25, item 5): each compiled variant at most as slow as its hand-written
UDF (ratio <= 1.0). Every variant is checked against Python on 2,000 rows first.
"""

from __future__ import annotations

import sys
from typing import Any

from tests.perf import common

LIMIT = 1.0
PAIRS = {
    "compiled initials(col)": "arrow_udf initials",
    "compiled parse_int(col)": "arrow_udf parse_int",
    "compiled group_parse(df)": "applyInPandas group_parse",
}


def _initials_py(s: str) -> str:
    out = ""
    for w in s.split():
        out += w[0]
    return out.upper()


def _parse_int_py(s: Any) -> Any:
    try:
        return int(s.strip())
    except:  # noqa: E722 - the user's code, as written
        return None


def gen_input(spark: Any, rows: int, keys: int) -> Any:
    """``t(k, s, text)``: 1 in 8 ``s`` is not a number, ``text`` has 1 to 8 words."""
    from pyspark.sql import functions as F

    h = F.xxhash64(F.col("id"), F.lit(7))
    words = F.array_join(
        F.slice(F.split(F.lit("alpha beta gamma delta epsilon zeta eta theta"), " "),
                F.lit(1), (F.pmod(h, F.lit(8)) + 1).cast("int")),  # fmt: skip
        " ",
    )
    num = F.when(F.pmod(h, F.lit(8)) == 0, F.lit("x1")).otherwise(
        F.concat(F.lit(" "), F.pmod(h, F.lit(100000)).cast("string"))
    )
    df = spark.range(0, rows, 1, common.INPUT_PARTITIONS).select(
        F.pmod(F.col("id"), F.lit(keys)).cast("string").alias("k"), num.alias("s"),
        words.alias("text"),
    )  # fmt: skip
    return common.cache(df, "island_perf")


def make_variants() -> dict[str, Any]:
    import pyarrow as pa
    from pyspark.sql import functions as F
    from pyspark.sql.functions import ArrowUDFType, arrow_udf

    from tests.spark import island_algos as A

    def initials_arrow(texts: pa.Array) -> pa.Array:
        return pa.array([None if t is None else _initials_py(t) for t in texts.to_pylist()],
                        pa.string())  # fmt: skip

    def parse_arrow(ss: pa.Array) -> pa.Array:
        return pa.array([_parse_int_py(s) for s in ss.to_pylist()], pa.int64())

    initials_udf = arrow_udf(initials_arrow, "string", functionType=ArrowUDFType.SCALAR)
    parse_udf = arrow_udf(parse_arrow, "bigint", functionType=ArrowUDFType.SCALAR)

    def group_pandas(pdf: Any) -> Any:
        import pandas as pd

        total = 0
        for v in pdf["s"]:
            try:
                x = int(v)
            except:  # noqa: E722 - the user's code, as written
                x = 0
            total += x
        return pd.DataFrame({"k": [pdf["k"].iloc[0]], "total": [total]})

    return {
        "compiled initials(col)": lambda df: df.select(A.initials(df.text).alias("v")),
        "arrow_udf initials": lambda df: df.select(initials_udf(F.col("text")).alias("v")),
        "compiled parse_int(col)": lambda df: df.select(A.parse_int(df.s).alias("v")),
        "arrow_udf parse_int": lambda df: df.select(parse_udf(F.col("s")).alias("v")),
        "compiled group_parse(df)": lambda df: A.group_parse(df.select("k", "s")),
        "applyInPandas group_parse": lambda df: df.select("k", "s")
        .groupBy("k")
        .applyInPandas(group_pandas, "k string, total bigint"),
    }


def check(variants: dict[str, Any], df: Any) -> set[str]:
    from tests.spark import island_algos as A

    rows = [tuple(r) for r in df.collect()]
    want = {
        "initials": sorted((_initials_py(t),) for _, _, t in rows),
        "parse_int": sorted(((_parse_int_py(s),) for _, s, _ in rows), key=repr),
        "group_parse": sorted(A.group_parse([(k, s) for k, s, _ in rows])),
    }
    wrong = set()
    for name, fn in variants.items():
        got = [tuple(r) for r in fn(df).collect()]
        key = name.split()[-1].split("(")[0]
        ok = sorted(got, key=repr) == sorted(want[key], key=repr)
        print(f"  {name:<30} {'agrees' if ok else 'DISAGREES'}")
        if not ok:
            wrong.add(name)
    print(flush=True)
    return wrong


def main(argv: list[str] | None = None) -> int:
    args = common.parse_args(__doc__.splitlines()[0], rows=1_000_000, users=10_000, repeats=3,
                             users_help="distinct keys (groups)", argv=argv)  # fmt: skip
    spark = common.session()
    common.header("islands", args, spark)
    variants = common.apply_skips(make_variants(), args.skip)
    small = gen_input(spark, 2000, 50)
    wrong = check({n: f for n, f in variants.items() if not isinstance(f, common.Skip)}, small)
    small.unpersist()
    df = gen_input(spark, args.rows, args.users)
    results = common.bench(
        variants, df, args.repeats, pairs=PAIRS, plans=True,
        notes={name: "WRONG RESULT in the check" for name in wrong},
        title=f"Python islands vs hand-written UDFs, {args.rows:,} rows, medians of "
        f"{args.repeats} interleaved runs",
    )  # fmt: skip
    common.check_targets(results, [(c, h, LIMIT) for c, h in PAIRS.items()])
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
