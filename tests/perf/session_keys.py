"""Session windows as group keys (issue 28): compiled vs Spark's ``session_window`` and
hand-written window plans.

    python -m tests.perf.session_keys --rows 1000000 --users 10000

On a cached table ``clicks(user_id bigint, ts timestamp)`` (about one click per user per
30 minutes on average, so sessions of a few clicks), the clicks per user and session of
``samples/eventtime.py``'s ``sessions_per_user`` (``group_by(lambda c: (c[0],
session(c[1], gap=GAP)), clicks)``), computed

- compiled (``lag`` and a running ``max`` over the user's clicks in time order, then a
  ``groupBy`` of the session start);
- with Spark's ``groupBy("user_id", session_window("ts", "30 minutes"))``, which is not
  exact (Spark keeps a click exactly 30 minutes after the previous in the session;
  Python starts the next one), and with a gap one microsecond shorter, which is;
- hand-written as the compiled plan (``lag`` + running ``max``), and as the textbook
  window plan: ``lag``, a running ``sum`` of new-session flags as a session id, then a
  ``groupBy(user_id, id)`` with ``min(ts)``.

Every variant is first checked against Python on a small table whose times are whole
minutes (equal times, and clicks exactly 30 minutes apart: a new session in Python);
a variant that disagrees is marked in the table. The target: the compiled plan at most
1.1x the fastest native variant that agrees with Python.
"""

from __future__ import annotations

import sys
from collections import Counter
from typing import Any

from tests.perf import common

LIMIT = 1.1
GAP_MS = 30 * 60 * 1000


def gen_table(spark: Any, rows: int, users: int, *, minutes: int | None = None,
              view: str | None = "clicks") -> Any:
    """``clicks(user_id, ts)``: ``user_id`` a hash mod ``users``; ``ts`` a permutation of
    the row ids scaled so a user's clicks are about 30 minutes apart on average, or with
    ``minutes`` a hash mod ``minutes`` in whole minutes (ties, exact gaps); cached."""
    from pyspark.sql import functions as F

    rid = F.col("id")
    if minutes is None:
        step = max(1, GAP_MS // users)
        a = common.coprime_multiplier(rows)
        ms = F.pmod(rid * F.lit(a) + F.lit(7), F.lit(rows)) * F.lit(step) + F.lit(common.TS0)
    else:
        ms = F.pmod(F.xxhash64(rid, F.lit(3)), F.lit(minutes)) * F.lit(60_000) + F.lit(common.TS0)
    df = spark.range(0, rows, 1, common.INPUT_PARTITIONS).select(
        F.pmod(F.xxhash64(rid, F.lit(1)), F.lit(users)).cast("bigint").alias("user_id"),
        F.timestamp_millis(ms).alias("ts"),
    )
    return common.cache(df, view)


def make_variants() -> tuple[dict[str, Any], Any]:
    """``(variants, the Python reference over (user_id, ts) rows)``."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    m = common.load_sample("eventtime")
    by_user = Window.partitionBy("user_id").orderBy("ts")
    new = F.coalesce(
        F.unix_micros("ts") - F.unix_micros(F.lag("ts").over(by_user)) >= F.lit(GAP_MS * 1000),
        F.lit(True),
    )

    def running_max(df: Any) -> Any:
        s = df.withColumn("s", F.when(new, F.col("ts")))
        s = s.withColumn("s", F.max("s").over(by_user.rangeBetween(Window.unboundedPreceding, 0)))
        return s.groupBy("user_id", "s").agg(F.count(F.lit(1)).alias("clicks")).select(
            "user_id", F.col("s").alias("start"), "clicks")

    def session_ids(df: Any) -> Any:
        s = df.withColumn("new", new.cast("int"))
        s = s.withColumn("sid", F.sum("new").over(by_user.rowsBetween(Window.unboundedPreceding, 0)))
        return s.groupBy("user_id", "sid").agg(F.min("ts").alias("start"), F.count(F.lit(1)).alias("clicks")
                                               ).select("user_id", "start", "clicks")  # fmt: skip

    def spark_session_window(gap: str) -> Any:
        def run(df: Any) -> Any:
            g = df.groupBy("user_id", F.session_window("ts", gap))
            return g.agg(F.count(F.lit(1)).alias("clicks")).select(
                "user_id", F.col("session_window.start").alias("start"), "clicks")

        return run

    return {
        "compiled sessions_per_user(df)": lambda df: m.sessions_per_user(df),
        "native session_window": spark_session_window("30 minutes"),
        # Spark merges windows that touch (a click exactly a gap after the last stays in
        # the session); a gap 1 microsecond shorter is exact for microsecond timestamps
        "native session_window (gap - 1 us)": spark_session_window("29 minutes 59 seconds 999999 microseconds"),
        "native lag + running max": running_max,
        "native lag + session ids": session_ids,
    }, m.sessions_per_user


def check(variants: dict[str, Any], ref: Any, df: Any) -> set[str]:
    """Compare every variant with the Python reference on ``df``; the names that disagree."""
    rows = [tuple(r) for r in df.collect()]
    want = Counter(ref(rows))
    print(f"correctness vs the Python reference ({len(rows):,} rows, {len(want):,} sessions):")
    wrong = set()
    for name, fn in variants.items():
        if isinstance(fn, common.Skip):
            continue
        got = Counter(tuple(r) for r in fn(df).collect())
        if got != want:
            wrong.add(name)
            extra, missing = got - want, want - got
            print(f"  {name:<32} DISAGREES: {sum(extra.values())} rows not in Python's, "
                  f"{sum(missing.values())} missing, e.g. {next(iter(extra or missing))}")  # fmt: skip
        else:
            print(f"  {name:<32} agrees")
    print(flush=True)
    return wrong


def main(argv: list[str] | None = None) -> int:
    def extra(p: Any) -> None:
        p.add_argument("--check-rows", type=int, default=3_000, help="rows of the check table")
        p.add_argument("--no-check", action="store_true", help="skip the correctness check")

    args = common.parse_args(__doc__.splitlines()[0], rows=1_000_000, users=10_000, repeats=3,
                             extra=extra, argv=argv)  # fmt: skip
    spark = common.session()
    common.header("session_keys", args, spark)
    variants, ref = make_variants()
    variants = common.apply_skips(variants, args.skip)
    wrong: set[str] = set()
    if not args.no_check:
        small = gen_table(spark, args.check_rows, max(1, args.check_rows // 40), minutes=600, view=None)
        wrong = check(variants, ref, small)
        small.unpersist()
    df = gen_table(spark, args.rows, args.users)
    compiled = "compiled sessions_per_user(df)"
    results = common.bench(
        variants, df, args.repeats, baseline=compiled, plans=True,
        notes={name: "WRONG RESULT in the check" for name in wrong},
        title=f"sessions per user, {args.rows:,} rows / {args.users:,} users, medians of "
              f"{args.repeats} interleaved runs",
    )  # fmt: skip
    natives = [n for n in results if n.startswith("native") and n not in wrong
               and results[n].median is not None]  # fmt: skip
    if natives and results[compiled].median is not None:
        fastest = min(natives, key=lambda n: results[n].median)  # type: ignore[arg-type,return-value]
        x = common.ratio(results, compiled, fastest)
        print(f"target: compiled <= {LIMIT}x the fastest exact native ({fastest}): {x:.2f}x -> "
              f"{'PASS' if x is not None and x <= LIMIT else 'MISS'}")  # fmt: skip
    if args.show_plans:
        common.print_plans(variants, [compiled], df)
    return 1 if compiled in wrong else 0


if __name__ == "__main__":
    sys.exit(main())
