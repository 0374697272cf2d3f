"""Regular expressions: compiled ``re`` vs hand-written ``regexp_*`` vs pandas UDFs (issue 27).

    python -m tests.perf.regex --rows 1000000

Two programs of samples/regex_text.py, both compiled fully natively:

* ``parse_log`` (a table algorithm): ``LINE.match(line)``, skip lines that do not
  match, yield five groups. Hand-written: ``WHERE line RLIKE p`` and one
  ``regexp_extract`` per group. pandas: ``Series.str.extract`` (Python's ``re``) in a
  ``pandas_udf`` returning the groups as a struct, then the same filter.
* ``clean_text`` (a scalar): three ``re.sub``. Hand-written: three nested
  ``regexp_replace``. pandas: three ``Series.str.replace(regex=True)``. The dates'
  ``\\d`` is Python's, every script's digits: the exact Java class is ~65 ranges (Java
  tests them one by one, behind an ASCII guard); the hand-written Java ``\\d`` is ASCII
  only and differs from CPython on other digits. ``clean_text_ascii`` (``re.ASCII``) is
  the like-for-like comparison.

The input ``logs(line_no bigint, line string, text string)`` is generated natively
(about 10% of the lines do not parse) and cached. Every variant is checked against
CPython (the sample functions run in Python) on 2,000 generated rows plus hand-picked
ones before timing. Targets (issue 27): compiled <= 1.3x hand-written, pandas UDF >= 3x
compiled.

Measured before issue 27's items 2 and 5 (2026-11-26, 1,000,000 rows, 3 rounds): text
``clean_text_ascii`` 1.14x hand-written, ``clean_text`` (Unicode ``\\d``) 1.88x, log
``parse_log`` 3.0x. The causes, since removed: (1) a Unicode class of ~65 ranges is 5x
slower in java.util.regex than Java's ASCII ``\\d`` (now: its ASCII clip behind an ASCII
test of the text); (2) the match object as ``CASE WHEN regexp_like(s, p) THEN
array(regexp_extract ...) END`` filtered on ``m IS NOT NULL`` (now: ``WHERE
regexp_like`` then one ``regexp_extract`` per group read). After (2026-11-27, 500,000
rows, load ~30): 1.16x (log), 1.07-1.59x (text), 1.02-1.30x (text, ASCII); see
docs/performance.md.
"""

from __future__ import annotations

import sys
from typing import Any

import pandas as pd

from tests.perf import common

LOG_COMPILED = "log: compiled parse_log"
LOG_NATIVE = "log: hand-written regexp_extract"
LOG_PANDAS = "log: pandas_udf (str.extract)"
TEXT_COMPILED = "text: compiled clean_text"
TEXT_NATIVE = "text: hand-written regexp_replace"
TEXT_ASCII = "text: compiled clean_text_ascii"
TEXT_PANDAS = "text: pandas_udf (str.replace)"
LOG_ARROW = "log: arrow_udf (re.match per value)"
TEXT_ARROW = "text: arrow_udf (re.sub per value)"

LIMIT = 1.3
# where a hand-written expression is known to differ from CPython: reported, not failed
KNOWN = {TEXT_NATIVE: "Java's \\d is ASCII only: other scripts' digits differ from CPython",
         LOG_NATIVE: "Java's . also stops at \\r, \\x85, \\u2028 and \\u2029"}
PANDAS_FACTOR = 3.0

# The hand-written Java regexes (what one writes for Spark: Java's \d is ASCII)
JAVA_LINE = r"^(\d{4}-\d\d-\d\d) (\d\d):\d\d:\d\d \[(ERROR|WARN|INFO|DEBUG)\] ([\w.]+): (.*)"
LOG_COLUMNS = ("line_no", "day", "hour", "level", "logger", "message")

CURATED_LINES = [
    "2024-03-07 13:05:59 [ERROR] db.pool: timeout after 30s",
    "2024-03-07 13:06:00 [INFO] web: ",
    "2024-03-07 13:06:00 [INFO] web:",
    "2024-03-07 13:06:00 [TRACE] web: x",
    "",
    "garbage",
    "2024-03-07 13:06:00 [WARN] a.b: line\nnext",
    "2024-03-07 13:06:00 [WARN] a.b: tail\r",
    "٢٠٢٤-03-07 13:06:00 [WARN] a.b: arabic digits",
    "2024-03-07 13:06:00 [DEBUG] é.b: non-ASCII logger",
]
CURATED_TEXTS = ["", "<p>Paid  on\t3/14/2024</p>", "a\r\nb", "<<x>>", "12/1/20245", "\u00a0 x",
                 "1/2/2024 and 10/11/1999", "<b>é</b>\n\n", "٣/١/٢٠٢٤"]  # fmt: skip


def gen_logs(spark: Any, rows: int, seed: int = 7, view: str | None = "logs") -> Any:
    """``logs(line_no, line, text)``: log lines (one in ten malformed) and HTML-ish text."""
    from pyspark.sql import functions as F

    rid = F.col("id")

    def h(k: int, n: int) -> Any:
        return F.pmod(F.xxhash64(rid, F.lit(seed + k)), F.lit(n))

    def pick(k: int, words: list[str]) -> Any:
        return F.element_at(F.array(*[F.lit(w) for w in words]), (h(k, len(words)) + 1).cast("int"))

    two = lambda k, n: F.lpad(h(k, n).cast("string"), 2, "0")  # noqa: E731
    level = pick(1, ["ERROR", "WARN", "INFO", "INFO", "INFO", "DEBUG", "TRACE"])
    logger = pick(2, ["db.pool", "web", "auth.session", "cache", "api.v2.orders"])
    message = pick(3, ["timeout after 30s", "user 42 logged in", "", "GET /x?id=7 200",
                       "retry 3/5 in 2s", "cache miss for key k:19"])  # fmt: skip
    line = F.concat(F.lit("2024-"), two(4, 12), F.lit("-"), two(5, 28), F.lit(" "), two(6, 24),
                    F.lit(":"), two(7, 60), F.lit(":"), two(8, 60), F.lit(" ["), level,
                    F.lit("] "), logger, F.lit(": "), message)  # fmt: skip
    line = F.when(h(9, 20) == 0, F.lit("--- rotated ---")).otherwise(line)
    text = F.concat(pick(10, ["<p>", "", "<div class='x'>", "  "]),
                    pick(11, ["Paid on ", "Due  ", "Shipped\t\t", "Note:\r\n"]),
                    h(12, 12).cast("string"), F.lit("/"), h(13, 28).cast("string"), F.lit("/"),
                    (F.lit(2000) + h(14, 30)).cast("string"),
                    pick(15, ["</p>", "", " <br/> thanks", "   "]))  # fmt: skip
    df = spark.range(0, rows, 1, common.INPUT_PARTITIONS).select(
        rid.alias("line_no"), line.alias("line"), text.alias("text")
    )
    return common.cache(df, view)


def native_log(df: Any) -> Any:
    from pyspark.sql import functions as F

    line = F.col("line")
    groups = [F.regexp_extract(line, JAVA_LINE, k).alias(c)
              for k, c in enumerate(LOG_COLUMNS[1:], 1)]  # fmt: skip
    return df.where(line.rlike(JAVA_LINE)).select("line_no", *groups)


def native_text(df: Any) -> Any:
    from pyspark.sql import functions as F

    s = F.regexp_replace(F.col("text"), F.lit("<[^>]+>"), F.lit(" "))
    s = F.regexp_replace(s, F.lit("[ \\t\\r\\n]+"), F.lit(" "))
    s = F.regexp_replace(s, F.lit("(\\d{1,2})/(\\d{1,2})/(\\d{4})"), F.lit("$3-$1-$2"))
    return df.select("line_no", s.alias("c"))


def make_variants(spark: Any) -> dict[str, Any]:
    from pyspark.sql import functions as F
    from pyspark.sql.functions import pandas_udf

    sample = common.load_sample("regex_text")
    pattern = "(?a)^" + sample.LINE.pattern  # str.extract searches: anchored as LINE.match

    @pandas_udf("day string, hour string, level string, logger string, message string")
    def extract(lines: pd.Series) -> pd.DataFrame:
        out = lines.str.extract(pattern)  # NaN where the line does not match
        out.columns = ["day", "hour", "level", "logger", "message"]
        return out

    @pandas_udf("string")
    def clean(texts: pd.Series) -> pd.Series:
        s = texts.str.replace(r"<[^>]+>", " ", regex=True)
        s = s.str.replace(r"[ \t\r\n]+", " ", regex=True)
        return s.str.replace(r"(\d{1,2})/(\d{1,2})/(\d{4})", r"\3-\1-\2", regex=True)

    def pandas_log(df: Any) -> Any:
        parsed = df.select("line_no", extract(F.col("line")).alias("m"))
        return parsed.where(F.col("m.day").isNotNull()).select("line_no", "m.*")

    import re

    import pyarrow as pa
    from pyspark.sql.functions import ArrowUDFType, arrow_udf

    line_re = re.compile(sample.LINE.pattern, re.ASCII)
    fields = pa.struct([(c, pa.string()) for c in LOG_COLUMNS[1:]])
    tag, space = re.compile(r"<[^>]+>"), re.compile(r"[ \t\r\n]+")
    date = re.compile(r"(\d{1,2})/(\d{1,2})/(\d{4})")

    def extract_arrow(lines: pa.Array) -> pa.Array:
        ms = [line_re.match(v) for v in lines.to_pylist()]
        rows = [dict(zip(LOG_COLUMNS[1:], m.groups(), strict=True)) if m else None for m in ms]
        return pa.array(rows, fields)

    def clean_arrow(texts: pa.Array) -> pa.Array:
        out = [date.sub(r"\3-\1-\2", space.sub(" ", tag.sub(" ", t))) for t in texts.to_pylist()]
        return pa.array(out, pa.string())

    extract_udf = arrow_udf(extract_arrow, ", ".join(f"{c} string" for c in LOG_COLUMNS[1:]),
                            functionType=ArrowUDFType.SCALAR)  # fmt: skip
    clean_udf = arrow_udf(clean_arrow, "string", functionType=ArrowUDFType.SCALAR)

    def arrow_log(df: Any) -> Any:
        parsed = df.select("line_no", extract_udf(F.col("line")).alias("m"))
        return parsed.where(F.col("m").isNotNull()).select("line_no", "m.*")

    return {
        LOG_NATIVE: native_log,
        LOG_COMPILED: lambda df: sample.parse_log(df.select("line_no", "line")),
        LOG_PANDAS: pandas_log,
        LOG_ARROW: arrow_log,
        TEXT_NATIVE: native_text,
        TEXT_COMPILED: lambda df: df.select("line_no", sample.clean_text(F.col("text")).alias("c")),
        TEXT_ASCII: lambda df: df.select("line_no", sample.clean_text_ascii(F.col("text")).alias("c")),
        TEXT_PANDAS: lambda df: df.select("line_no", clean(F.col("text")).alias("c")),
        TEXT_ARROW: lambda df: df.select("line_no", clean_udf(F.col("text")).alias("c")),
    }


def check(variants: dict[str, Any], df: Any) -> set[str]:
    """Each variant vs the sample functions run by CPython; names that disagree."""
    sample = common.load_sample("regex_text")
    rows = [(r[0], r[1], r[2]) for r in df.collect()]
    want_log = {r[0]: tuple(r[1:]) for r in sample.parse_log([(n, line) for n, line, _ in rows])}
    want_text = {n: sample.clean_text(t) for n, _, t in rows}
    want_ascii = {n: sample.clean_text_ascii(t) for n, _, t in rows}
    print(f"correctness vs CPython ({len(rows)} rows):")
    wrong = set()
    for name, fn in variants.items():
        if isinstance(fn, common.Skip):
            continue
        try:
            want = want_log if name.startswith("log") else want_ascii if name == TEXT_ASCII else want_text
            got = {r[0]: tuple(r[1:]) if name.startswith("log") else r[1] for r in fn(df).collect()}
            problems = common.compare_keyed(want, got)
        except Exception as e:  # noqa: BLE001 - reported
            print(f"  {name:<36} n/a ({common.first_line(e, 100)})")
            continue
        if problems and name in KNOWN:
            print(f"  {name:<36} differs as known ({KNOWN[name]}): " + "; ".join(problems))
            continue
        if problems:
            wrong.add(name)
        print(f"  {name:<36} " + ("DISAGREES: " + "; ".join(problems) if problems else "agrees"))
    print(flush=True)
    return wrong


def main(argv: list[str] | None = None) -> int:
    def extra(p: Any) -> None:
        p.add_argument("--no-check", action="store_true", help="skip the correctness check")

    args = common.parse_args(
        __doc__.splitlines()[0], rows=1_000_000, users=1, repeats=5, users_help="unused",
        extra=extra, argv=argv,
    )  # fmt: skip
    spark = common.session()
    common.header("regex", args, spark)
    variants = common.apply_skips(make_variants(spark), args.skip)
    wrong: set[str] = set()
    if not args.no_check:
        small = gen_logs(spark, 2_000, seed=11, view=None)
        extra_rows = [(10_000 + i, line, text) for i, (line, text) in
                      enumerate(zip(CURATED_LINES, CURATED_TEXTS + [""] * len(CURATED_LINES), strict=False))]  # fmt: skip
        small = common.cache(small.union(spark.createDataFrame(extra_rows, small.schema)))
        wrong = check(variants, small)
        small.unpersist()
    df = gen_logs(spark, args.rows)
    notes = {name: "WRONG RESULT in the check" for name in wrong}
    title = f"{{}}, {args.rows:,} rows, medians of {args.repeats} interleaved runs"
    results = {}
    for prefix, base, what in (("log", LOG_NATIVE, "log parser"), ("text", TEXT_NATIVE, "text cleaning")):
        chosen = {k: v for k, v in variants.items() if k.startswith(prefix)}
        results.update(common.bench(chosen, df, args.repeats, baseline=base, plans=True,
                                    notes=notes, title=title.format(what)))  # fmt: skip
    common.check_targets(results, [(LOG_COMPILED, LOG_NATIVE, LIMIT), (TEXT_COMPILED, TEXT_NATIVE, LIMIT),
                                   (TEXT_ASCII, TEXT_NATIVE, LIMIT)])  # fmt: skip
    for compiled, pandas in ((LOG_COMPILED, LOG_PANDAS), (TEXT_COMPILED, TEXT_PANDAS)):
        x = common.ratio(results, pandas, compiled)
        verdict = "n/a" if x is None else ("PASS" if x >= PANDAS_FACTOR else "MISS")
        shown = "n/a" if x is None else f"{x:.2f}"
        print(f"  {pandas} >= {PANDAS_FACTOR}x {compiled}: {shown} -> {verdict}")
    if args.show_plans:
        common.print_plans(variants, [LOG_NATIVE, LOG_COMPILED, TEXT_NATIVE, TEXT_COMPILED], df)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
