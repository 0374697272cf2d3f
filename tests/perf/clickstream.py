"""Clickstream benchmark: compiled looplift vs hand-written Spark (issue 3, SPEC §2).

    python -m tests.perf.clickstream --rows 2000000 --users 20000

Per user, the average size of the closed intervals of an IntervalSequence
(states/interval.py): start pages (0) open an interval, end pages (1) close it,
every other click is an item. Sorting a user's events by (ts, code) with code
open 0 < close 1 < insert 2 and walking them gives exactly those semantics: an
open starts a new interval (an unclosed previous one is dropped), the first
close after it closes it, inserts in between count, inserts anywhere else don't.

``window SQL`` is the fastest window formulation found and ``native SQL fold`` the
fastest native fold (see ``ALTERNATIVES``; ``--alternatives`` times the others).

Every hand-written variant is first checked against the Python reference (the
sample's ``clickstream`` called on the collected rows) on two small tables: the
benchmark's own kind of data, and one with few timestamps per user (duplicate
events, ties between opens, closes and inserts). Then all variants are timed on
the same cached table.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa

from tests.perf import common

# Variant names (the keys of the table).
COMPILED = "compiled clickstream(df)"
COMPILED_AGG = "compiled avg_path.agg"
COMPILED_SQL = "compiled looplift.sql"
PANDAS_LOOP = "applyInPandas loop"
ARROW_LOOP = "applyInArrow loop"
PANDAS_UDAF = "pandas UDAF in SQL"
ARROW_UDAF = "Arrow UDAF + native map"
WINDOW_SQL = "window SQL"
HOF_SQL = "native SQL fold (collect_list+HOFs)"
SELF_JOIN = "self-join SQL (thesis)"
FLOOR = "floor count(*)"

COMPILED_VARIANTS = (COMPILED, COMPILED_AGG, COMPILED_SQL)

# Issue 11's targets (issue 3's were 0.5x applyInArrow, 0.65x window SQL, 2.2x floor).
TARGETS = [(COMPILED, HOF_SQL, 1.0), (COMPILED, ARROW_LOOP, 0.35), (COMPILED, WINDOW_SQL, 0.5)]

SCHEMA = "user_id bigint, avg_clicks double"

OPEN, CLOSE, INSERT = 0, 1, 2


# -- the Python walk shared by the hand-written UDFs --------------------------------


def walk(codes: list[int]) -> float | None:
    """Average closed-interval size of one user's event codes, sorted by (ts, code)."""
    is_open = False
    n = total = closed = 0
    for c in codes:
        if c == 2:
            if is_open:
                n += 1
        elif c == 0:
            is_open = True
            n = 0
        elif is_open:
            total += n
            closed += 1
            is_open = False
    return total / closed if closed else None


def codes_of(pagetype: np.ndarray) -> np.ndarray:
    """Action codes: 0 open (start page), 1 close (end page), 2 insert (anything else)."""
    return np.where(pagetype == 0, OPEN, np.where(pagetype == 1, CLOSE, INSERT))


def sorted_codes(pagetype: np.ndarray, ts: np.ndarray) -> list[int]:
    code = codes_of(pagetype)
    return code[np.lexsort((code, ts))].tolist()


# -- hand-written variants ------------------------------------------------------------


def pandas_group(pdf: pd.DataFrame) -> pd.DataFrame:
    """applyInPandas: sort the user's clicks by time and walk them row by row."""
    pdf = pdf.assign(code=codes_of(pdf["pagetype"].to_numpy()))
    pdf = pdf.sort_values(["ts", "code"])
    is_open = False
    n = total = closed = 0
    for row in pdf.itertuples(index=False):
        if row.code == INSERT:
            if is_open:
                n += 1
        elif row.code == OPEN:
            is_open = True
            n = 0
        elif is_open:
            total += n
            closed += 1
            is_open = False
    avg = total / closed if closed else None
    return pd.DataFrame({"user_id": [pdf["user_id"].iloc[0]], "avg_clicks": [avg]})


def arrow_group(table: pa.Table) -> pa.Table:
    """applyInArrow: numpy sort of the user's events, then the Python walk."""
    uid = table.column("user_id")[0].as_py()
    avg = walk(
        sorted_codes(
            table.column("pagetype").to_numpy(),
            table.column("ts").to_numpy(),
        )
    )
    return pa.table(
        {"user_id": pa.array([uid], pa.int64()), "avg_clicks": pa.array([avg], pa.float64())}
    )


def pandas_udaf(pagetype: pd.Series, ts: pd.Series) -> float:
    """Grouped-aggregate pandas UDF over (pagetype, ts)."""
    return walk(sorted_codes(pagetype.to_numpy(), ts.to_numpy()))


def arrow_udaf_packed(packed: pa.Array) -> float:
    """Grouped-aggregate Arrow UDF over ``ts * 4 + code`` (the map phase ran in SQL)."""
    keys = np.sort(packed.to_numpy(zero_copy_only=False))
    return walk((keys & 3).tolist())


CODE_SQL = "CASE WHEN pagetype = 0 THEN 0 WHEN pagetype = 1 THEN 1 ELSE 2 END"

PANDAS_UDAF_SQL = """
SELECT user_id, perf_avg_path_pandas(pagetype, ts) AS avg_clicks
FROM {clicks} GROUP BY user_id
"""

ARROW_UDAF_SQL = f"""
SELECT user_id, perf_avg_path_packed(ts * 4 + {CODE_SQL}) AS avg_clicks
FROM {{clicks}} GROUP BY user_id
"""

# Issue 3's window SQL (an alternative now).
# One sort by (user, ts, code), packed as key = ts * 4 + code, and one pass of windows
# over it (one Window operator: same partition and order), then one aggregate.
#   ins     inserts up to and including the row (at an open or close: strictly before it,
#           since inserts at the same ts sort after opens and closes);
#   prev_b  the latest open/close strictly before the row;
#   next_b  the next open/close after the row (LEAD ... IGNORE NULLS).
# A close whose prev_b is an open closes that interval; an open whose next_b is a close
# is the lower bound of a closed interval. The sizes summed per user are
# sum(ins at closing closes) - sum(ins at closed opens); the average divides by the
# number of closing closes. (Two stacked running windows instead of LEAD, or a MIN over
# an UNBOUNDED FOLLOWING frame, measured slower.)
WINDOW_LEAD_TEXT = f"""
WITH ev AS (
  SELECT user_id, ts * 4 + {CODE_SQL} AS key FROM {{clicks}}
),
w AS (
  SELECT user_id, key,
    SUM(IF(key & 3 = 2, 1, 0)) OVER (PARTITION BY user_id ORDER BY key
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS ins,
    MAX(IF(key & 3 < 2, key, NULL)) OVER (PARTITION BY user_id ORDER BY key
        ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS prev_b,
    LEAD(IF(key & 3 < 2, key, NULL), 1) IGNORE NULLS
        OVER (PARTITION BY user_id ORDER BY key) AS next_b
  FROM ev
)
SELECT user_id,
  SUM(CASE WHEN key & 3 = 1 AND prev_b & 3 = 0 THEN ins
           WHEN key & 3 = 0 AND next_b & 3 = 1 THEN -ins
           ELSE 0 END)
  / NULLIF(COUNT_IF(key & 3 = 1 AND prev_b & 3 = 0), 0) AS avg_clicks
FROM w GROUP BY user_id
"""

# Issue 3's native fold (an alternative now): per user, the sorted packed keys folded by
# a SQL lambda with a struct accumulator.
HOF_STRUCT_TEXT = f"""
SELECT user_id,
  aggregate(
    sort_array(collect_list(ts * 4 + {CODE_SQL})),
    named_struct('open', false, 'n', 0L, 'total', 0L, 'closed', 0L),
    (acc, k) -> CASE
      WHEN k & 3 = 2 THEN IF(acc.open,
          named_struct('open', true, 'n', acc.n + 1, 'total', acc.total, 'closed', acc.closed),
          acc)
      WHEN k & 3 = 0 THEN
          named_struct('open', true, 'n', 0L, 'total', acc.total, 'closed', acc.closed)
      WHEN acc.open THEN
          named_struct('open', false, 'n', 0L, 'total', acc.total + acc.n,
                       'closed', acc.closed + 1)
      ELSE acc END,
    acc -> IF(acc.closed = 0, NULL, acc.total / acc.closed)) AS avg_clicks
FROM {{clicks}} GROUP BY user_id
"""

# -- the fastest window SQL and native fold -------------------------------------------
# WINDOW_SQL_TEXT and HOF_SQL_TEXT below were the fastest of the formulations in
# ALTERNATIVES (timed with --alternatives; medians in the README): ROW_NUMBER + LAG on
# the boundaries beat the issue-3 window query (running SUM + MAX + LEAD IGNORE NULLS)
# and running SUM + last_value IGNORE NULLS by about 20 %; the boundary-position fold beat
# the struct-accumulator aggregate by 3-9 % (array_sort instead of sort_array: noise).

# Windows, boundaries only: ROW_NUMBER over all events, then only the opens and closes
# (a fifth of the rows) go through LAG; an open directly followed by a close is a closed
# interval, and since nothing else lies between them, its size is the difference of
# the row numbers minus one. The filter keeps the sort order: one sort, two windows.
# It also keeps each user's first row, so that every user appears in the result (an
# insert there precedes every boundary and so pairs with none).
WINDOW_SQL_TEXT = f"""
WITH r AS (
  SELECT user_id, key, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY key) AS rn
  FROM (SELECT user_id, ts * 4 + {CODE_SQL} AS key FROM {{clicks}})
),
b AS (
  SELECT user_id, key, rn,
    LAG(key) OVER (PARTITION BY user_id ORDER BY key) AS pkey,
    LAG(rn) OVER (PARTITION BY user_id ORDER BY key) AS prn
  FROM r WHERE key & 3 < 2 OR rn = 1
)
SELECT user_id,
  AVG(IF(key & 3 = 1 AND pkey & 3 = 0, rn - prn - 1, NULL)) AS avg_clicks
FROM b GROUP BY user_id
"""

# Windows with last_value IGNORE NULLS: at every close, the running insert count at the
# latest boundary before it and whether that boundary was an open.
WINDOW_LAST_VALUE_TEXT = f"""
WITH r AS (
  SELECT user_id, key,
    SUM(IF(key & 3 = 2, 1, 0)) OVER (PARTITION BY user_id ORDER BY key
        ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS ins,
    last_value(IF(key & 3 < 2, key, NULL)) IGNORE NULLS OVER (PARTITION BY user_id
        ORDER BY key ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS pkey
  FROM (SELECT user_id, ts * 4 + {CODE_SQL} AS key FROM {{clicks}})
),
o AS (
  SELECT user_id, key, ins, pkey,
    last_value(IF(key & 3 = 0, ins, NULL)) IGNORE NULLS OVER (PARTITION BY user_id
        ORDER BY key ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS open_ins
  FROM r
)
SELECT user_id,
  AVG(IF(key & 3 = 1 AND pkey & 3 = 0, ins - open_ins, NULL)) AS avg_clicks
FROM o GROUP BY user_id
"""

# Native fold over the boundaries only: the positions of the opens and closes in the
# sorted keys (transform + filter, no accumulator struct), then every open directly
# followed by a close gives a closed interval of (close index - open index - 1) inserts.
HOF_SQL_TEXT = f"""
SELECT user_id,
  aggregate(sizes, 0L, (a, x) -> a + x) / NULLIF(size(sizes), 0) AS avg_clicks
FROM (
  SELECT user_id, filter(transform(bs, (b, j) -> IF(b & 1 = 0 AND get(bs, j + 1) & 1 = 1,
      (get(bs, j + 1) >> 1) - (b >> 1) - 1, NULL)), x -> x IS NOT NULL) AS sizes
  FROM (
    SELECT user_id, filter(transform(keys, (k, i) -> IF(k & 3 < 2, i * 2L + (k & 3), -1L)),
        x -> x >= 0) AS bs
    FROM (
      SELECT user_id, sort_array(collect_list(ts * 4 + {CODE_SQL})) AS keys
      FROM {{clicks}} GROUP BY user_id
    )
  )
)
"""

# The accumulator fold with array_sort instead of sort_array.
HOF_ARRAY_SORT_TEXT = HOF_STRUCT_TEXT.replace("sort_array(", "array_sort(")

ALTERNATIVES = {
    "window SQL: running SUM + MAX + LEAD IGNORE NULLS (issue 3)": WINDOW_LEAD_TEXT,
    "window SQL: running SUM + last_value IGNORE NULLS": WINDOW_LAST_VALUE_TEXT,
    "native fold: aggregate, struct accumulator (issue 3)": HOF_STRUCT_TEXT,
    "native fold: aggregate, struct accumulator, array_sort": HOF_ARRAY_SORT_TEXT,
}


# The thesis' relational formulation: intervals from self joins of the click table
# (opens with the next open, with the closes, then with the inserts).
SELF_JOIN_SQL_TEXT = """
WITH o AS (SELECT DISTINCT user_id, ts FROM {clicks} WHERE pagetype = 0),
c AS (SELECT DISTINCT user_id, ts FROM {clicks} WHERE pagetype = 1),
i AS (SELECT user_id, ts FROM {clicks} WHERE pagetype <> 0 AND pagetype <> 1),
nxt AS (
  SELECT o1.user_id, o1.ts AS lo, MIN(o2.ts) AS next_lo
  FROM o o1 LEFT JOIN o o2 ON o2.user_id = o1.user_id AND o2.ts > o1.ts
  GROUP BY o1.user_id, o1.ts
),
iv AS (
  SELECT n.user_id, n.lo, MIN(c.ts) AS hi
  FROM nxt n JOIN c ON c.user_id = n.user_id AND c.ts >= n.lo
    AND (n.next_lo IS NULL OR c.ts < n.next_lo)
  GROUP BY n.user_id, n.lo
),
sz AS (
  SELECT iv.user_id, iv.lo, COUNT(i.ts) AS size
  FROM iv LEFT JOIN i ON i.user_id = iv.user_id AND i.ts >= iv.lo AND i.ts < iv.hi
  GROUP BY iv.user_id, iv.lo
)
SELECT u.user_id, AVG(sz.size) AS avg_clicks
FROM (SELECT DISTINCT user_id FROM {clicks}) u LEFT JOIN sz ON sz.user_id = u.user_id
GROUP BY u.user_id
"""

FLOOR_SQL = "SELECT user_id, count(*) AS n FROM {clicks} GROUP BY user_id"


def make_variants(
    spark: Any, rows: int, selfjoin_max_rows: int = 200_000, alternatives: bool = False
) -> dict[str, Any]:
    """Every variant as ``fn(df) -> DataFrame``; the UDFs are built and registered once.

    With ``alternatives``, also the other window and fold formulations (``ALTERNATIVES``).
    """
    from pyspark.sql.functions import arrow_udf, pandas_udf

    sample = common.load_sample("clickstream")
    spark.udf.register("perf_avg_path_pandas", pandas_udf(pandas_udaf, "double"))
    spark.udf.register("perf_avg_path_packed", arrow_udf(arrow_udaf_packed, "double"))
    registered = []

    def compiled(df: Any) -> Any:
        return sample.clickstream(df)

    def compiled_agg(df: Any) -> Any:
        return df.groupBy("user_id").agg(sample.avg_path.agg("pagetype", "ts").alias("avg_clicks"))

    def compiled_sql(df: Any) -> Any:
        import looplift

        if not registered:
            looplift.register(spark, sample)
            registered.append(True)
        df.createOrReplaceTempView("perf_clicks")
        return looplift.sql(
            spark,
            "SELECT user_id, avg_path(pagetype, ts) AS avg_clicks "
            "FROM perf_clicks GROUP BY user_id",
        )

    def sql(text: str) -> Any:
        return lambda df: common.sql_on(df, text)

    variants = {
        COMPILED: compiled,
        COMPILED_AGG: compiled_agg,
        COMPILED_SQL: compiled_sql,
        PANDAS_LOOP: lambda df: df.groupBy("user_id").applyInPandas(pandas_group, SCHEMA),
        ARROW_LOOP: lambda df: df.groupBy("user_id").applyInArrow(arrow_group, SCHEMA),
        PANDAS_UDAF: sql(PANDAS_UDAF_SQL),
        ARROW_UDAF: sql(ARROW_UDAF_SQL),
        WINDOW_SQL: sql(WINDOW_SQL_TEXT),
        HOF_SQL: sql(HOF_SQL_TEXT),
        SELF_JOIN: (
            sql(SELF_JOIN_SQL_TEXT)
            if rows <= selfjoin_max_rows
            else common.Skip(f"too slow; runs with --rows <= {selfjoin_max_rows:,}")
        ),
        FLOOR: sql(FLOOR_SQL),
    }
    if alternatives:
        variants.update({name: sql(text) for name, text in ALTERNATIVES.items()})
    return variants


# -- correctness ------------------------------------------------------------------------


def check(spark: Any, variants: dict[str, Any], datasets: list[tuple[str, Any]]) -> set[str]:
    """Compare every variant with the Python reference on each dataset; names that disagree."""
    sample = common.load_sample("clickstream")
    wrong: set[str] = set()
    status: dict[str, list[str]] = {name: [] for name in variants}
    for label, df in datasets:
        rows = [tuple(r) for r in df.collect()]
        expected = common.keyed_rows(sample.clickstream(rows))
        closed = sum(v is not None for v in expected.values())
        print(
            f"  {label}: {len(rows):,} rows, {len(expected):,} users "
            f"({closed:,} with a closed interval)",
            flush=True,
        )
        for name, fn in variants.items():
            if name == FLOOR:
                continue
            if isinstance(fn, common.Skip):
                status[name].append(f"{label}: skipped")
                continue
            try:
                out = fn(df)
                got = common.keyed_rows(tuple(r) for r in out.select(out.columns[:2]).collect())
            except Exception as e:  # noqa: BLE001 - reported
                status[name].append(f"{label}: n/a ({common.first_line(e, 100)})")
                continue
            problems = common.compare_keyed(expected, got)
            if problems:
                wrong.add(name)
                status[name].append(f"{label}: DISAGREES: " + "; ".join(problems))
            else:
                status[name].append(f"{label}: agrees")
    print("correctness vs the Python reference (samples/clickstream.py on the collected rows):")
    for name, lines in status.items():
        if name == FLOOR:
            print(f"  {name:<36} not comparable (counts clicks by design)")
            continue
        print(f"  {name:<36} " + " | ".join(lines))
    print(flush=True)
    return wrong


def main(argv: list[str] | None = None) -> int:
    def extra(p: Any) -> None:
        p.add_argument(
            "--selfjoin-max-rows",
            type=int,
            default=200_000,
            help="run the thesis self-join SQL only up to this many rows (default 200,000)",
        )
        p.add_argument("--check-rows", type=int, default=20_000, help="rows of the check tables")
        p.add_argument("--no-check", action="store_true", help="skip the correctness check")
        p.add_argument(
            "--skew",
            type=float,
            default=0.0,
            help="fraction of all clicks that belong to one user (e.g. 0.1); also reports memory",
        )
        p.add_argument(
            "--alternatives",
            action="store_true",
            help="also time the other window SQL and native fold formulations",
        )

    args = common.parse_args(__doc__.splitlines()[0], extra=extra, argv=argv)
    if not 0.0 <= args.skew < 1.0:
        print("--skew must be in [0, 1)", file=sys.stderr)
        return 2
    spark = common.session(**(common.MEMORY_CONF if args.skew > 0 else {}))
    common.header("clickstream", args, spark)
    variants = common.apply_skips(
        make_variants(spark, args.rows, args.selfjoin_max_rows, args.alternatives), args.skip
    )

    wrong: set[str] = set()
    if not args.no_check:
        small = [
            (
                "distinct ts",
                common.gen_clicks(spark, args.check_rows, max(1, args.check_rows // 100), seed=7),
            ),
            (
                "ties+duplicates",
                common.gen_clicks(
                    spark, args.check_rows, max(1, args.check_rows // 40), seed=11, ts_range=30
                ),
            ),
        ]
        # The same variants, but with the self join (the check tables are small).
        check_variants = common.apply_skips(
            make_variants(spark, args.check_rows, args.check_rows, args.alternatives), args.skip
        )
        wrong = check(spark, check_variants, small)
        for _, df in small:
            df.unpersist()

    df = common.gen_clicks(spark, args.rows, args.users, skew=args.skew)
    if args.skew > 0:
        print(f"skew: user -1 has {args.skew:.0%} of the clicks", flush=True)
        variants = {
            n: fn if isinstance(fn, common.Skip) else common.with_job_group(n, fn)
            for n, fn in variants.items()
        }
    notes = {name: "WRONG RESULT in the check" for name in wrong}
    results = common.bench(
        variants,
        df,
        args.repeats,
        baseline=ARROW_LOOP,
        also=[HOF_SQL, WINDOW_SQL, FLOOR],
        plans=True,
        notes=notes,
        title=f"clickstream, {args.rows:,} clicks / {args.users:,} users, medians of "
        f"{args.repeats} interleaved runs",
    )
    common.check_targets(results, TARGETS)
    if args.skew > 0:
        live = [n for n, r in results.items() if r.times]
        common.memory_table(spark, live, "clickstream: peak memory")
    if args.show_plans:
        common.print_plans(variants, COMPILED_VARIANTS, df)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
