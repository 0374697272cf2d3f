"""Scalar algorithm: compiled ``page_class`` vs native CASE WHEN and Python UDFs (issue 3).

    python -m tests.perf.scalars --rows 5000000

``page_class`` of samples/pages.py (if/elif/else with a chained comparison) applied
as ``df.select(page_class(col))`` to a cached table ``pages(pagetype bigint)`` with
values -5..14 (every branch taken). Compared with the same expression written with
``F.when`` (the target: compiled <= 1.05x native), a row-at-a-time Python UDF
(``useArrow=False``), an Arrow-optimized Python UDF (``useArrow=True``), a vectorized
``pandas_udf``, and Spark's experimental transpiler
(``spark.sql.experimental.optimizer.transpilePyUDFs``, ANSI on), which takes only
pickled single-expression UDFs: it gets the conditional-expression form below.
Whether the transpiler also takes the if/elif body is probed and printed.

Every variant is checked against the Python ``page_class`` on the values -10..20
before timing.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

import numpy as np
import pandas as pd

from tests.perf import common

COMPILED = "compiled page_class(col)"
COMPILED_SQL = "compiled, registered SQL function"
NATIVE = "native F.when"
ROW_UDF = "Python UDF (useArrow=False)"
ARROW_UDF = "Python UDF (useArrow=True)"
PANDAS_UDF = "pandas_udf (np.select)"
TRANSPILED = "transpiled UDF (one expression)"

LIMIT = 1.05
TRANSPILE_CONF = "spark.sql.experimental.optimizer.transpilePyUDFs"


# The Python bodies of the UDFs (the transpiler reads the source of the one it lowers).


def page_class_py(pagetype: int) -> int:
    """The sample's body, as a user would paste it into a UDF."""
    if pagetype == 0:
        return 0
    elif pagetype == 1:
        return 1
    elif 2 <= pagetype <= 9:
        return 2
    else:
        return 3


def page_class_expr(pagetype: int) -> int:
    return 0 if pagetype == 0 else (1 if pagetype == 1 else (2 if pagetype >= 2 and pagetype <= 9 else 3))  # fmt: skip


def page_class_vec(pagetype: pd.Series) -> pd.Series:
    p = pagetype.to_numpy()
    return pd.Series(np.select([p == 0, p == 1, (p >= 2) & (p <= 9)], [0, 1, 2], 3))


def gen_pages(spark: Any, rows: int, seed: int = 3, view: str | None = "pages") -> Any:
    """``pages(pagetype bigint)`` with values -5..14, cached."""
    from pyspark.sql import functions as F

    df = spark.range(0, rows, 1, common.INPUT_PARTITIONS).select(
        (F.pmod(F.xxhash64(F.col("id"), F.lit(seed)), F.lit(20)) - F.lit(5))
        .cast("bigint")
        .alias("pagetype")
    )
    return common.cache(df, view)


def native(p: Any) -> Any:
    from pyspark.sql import functions as F

    return (
        F.when(p == 0, F.lit(0))
        .when(p == 1, F.lit(1))
        .when((p >= 2) & (p <= 9), F.lit(2))
        .otherwise(F.lit(3))
        .cast("bigint")
    )


def make_variants(spark: Any) -> tuple[dict[str, Any], list[str]]:
    """The variants, and notes about the transpiler."""
    from pyspark.sql import functions as F
    from pyspark.sql.functions import pandas_udf, udf

    pages = common.load_sample("pages")
    notes = []
    spark.conf.set(TRANSPILE_CONF, "false")
    row_udf = udf(page_class_py, "bigint", useArrow=False)
    arrow_udf = udf(page_class_py, "bigint", useArrow=True)
    vec_udf = pandas_udf(page_class_vec, "bigint")

    # The transpiler runs when the UDF is built, and only with the conf and ANSI on.
    spark.conf.set(TRANSPILE_CONF, "true")
    transpiled: dict[str, Any] = {}
    for label, body in (("one expression", page_class_expr), ("if/elif body", page_class_py)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            transpiled[label] = udf(body, "bigint", useArrow=False)
        refusal = next((str(w.message) for w in caught if "transpil" in str(w.message)), None)
        probe = spark.range(1).select(transpiled[label](F.col("id")))
        stats = common.plan_stats(probe)
        verdict = (
            "lowered to a native expression"
            if not stats.python_ops
            else f"refused, runs as Python ({', '.join(stats.python_ops)})"
        )
        notes.append(f"transpiler, {label}: {verdict}" + (f": {refusal}" if refusal else ""))

    col = F.col("pagetype")

    registered = []

    def compiled_sql(df: Any) -> Any:
        # SPEC §5: after looplift.register, a scalar is a SQL function of plain spark.sql.
        import looplift

        if not registered:
            looplift.register(spark, pages.page_class)
            registered.append(True)
        return common.sql_on(df, "SELECT page_class(pagetype) AS c FROM {t}")

    variants = {
        NATIVE: lambda df: df.select(native(col).alias("c")),
        COMPILED: lambda df: df.select(pages.page_class(col).alias("c")),
        COMPILED_SQL: compiled_sql,
        ROW_UDF: lambda df: df.select(row_udf(col).alias("c")),
        ARROW_UDF: lambda df: df.select(arrow_udf(col).alias("c")),
        PANDAS_UDF: lambda df: df.select(vec_udf(col).alias("c")),
        TRANSPILED: lambda df: df.select(transpiled["one expression"](col).alias("c")),
    }
    return variants, notes


def check(variants: dict[str, Any], df: Any) -> set[str]:
    """Each variant on the values of ``df`` vs the Python ``page_class``; names that disagree."""
    pages = common.load_sample("pages")
    values = [r[0] for r in df.collect()]
    expected = {v: pages.page_class(v) for v in values}
    print(f"correctness vs the Python page_class (values {min(values)}..{max(values)}):")
    wrong = set()
    for name, fn in variants.items():
        if isinstance(fn, common.Skip):
            continue
        try:
            got = {v: r[0] for v, r in zip(values, fn(df).collect(), strict=True)}
        except Exception as e:  # noqa: BLE001 - reported
            print(f"  {name:<32} n/a ({common.first_line(e, 100)})")
            continue
        problems = common.compare_keyed(expected, got)
        if problems:
            wrong.add(name)
        print(f"  {name:<32} " + ("DISAGREES: " + "; ".join(problems) if problems else "agrees"))
    print(flush=True)
    return wrong


def main(argv: list[str] | None = None) -> int:
    def extra(p: Any) -> None:
        p.add_argument("--no-check", action="store_true", help="skip the correctness check")

    args = common.parse_args(
        __doc__.splitlines()[0],
        rows=5_000_000,
        users=1,
        repeats=5,
        users_help="unused",
        extra=extra,
        argv=argv,
    )
    spark = common.session()
    common.header("scalars", args, spark)
    variants, notes = make_variants(spark)
    variants = common.apply_skips(variants, args.skip)
    for line in notes:
        print(line)
    print()
    wrong: set[str] = set()
    if not args.no_check:
        small = common.cache(spark.range(-10, 21, 1, 1).selectExpr("id AS pagetype"))
        wrong = check(variants, small)
        small.unpersist()
    df = gen_pages(spark, args.rows)
    results = common.bench(
        variants,
        df,
        args.repeats,
        baseline=NATIVE,
        plans=True,
        notes={name: "WRONG RESULT in the check" for name in wrong},
        title=f"scalar page_class, {args.rows:,} rows, medians of {args.repeats} interleaved runs",
    )
    common.check_targets(results, [(COMPILED, NATIVE, LIMIT), (COMPILED_SQL, NATIVE, LIMIT)])
    if args.show_plans:
        common.print_plans(variants, [NATIVE, COMPILED, COMPILED_SQL, TRANSPILED], df)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
