"""looplift's JVM kernels (``looplift.kernels``, ``jvm/looplift/kernels``) against CPython,
and their SQL forms against the same strings (issue 27, item 4).

The test session has the jar (``local_session`` puts it on the classpath), so its plans
call the kernels as JVM expressions; a second session of the same SparkContext is given
the SQL forms, and the string algorithms run there too. The kernels' whitespace is
compared with CPython's ``str.isspace`` over every code point, and the committed jar with
one built from the sources (where a JDK is installed). A session made without the jar
(which gets it with ``ADD JAR``) is checked by tests/packaging/check_wheel.py, outside
``make test``'s time.
"""

from __future__ import annotations

import shutil
from typing import Any

import pytest
from hypothesis import strategies as st
from looplift import dataflow, kernels
from looplift.sqltext import sql_string
from looplift.strings import WHITESPACE

from tests.spark import regex_algos as R
from tests.spark import str_algos as A
from tests.spark.harness import batch_of, check_scalar_batch, drawn
from tests.spark.test_strings import STRIP_ENDS, TRICKY, WORDS, text

pytestmark = pytest.mark.spark

#: each kernel's CPython meaning (None: the kernel does not decide the string)
REFERENCE = {
    "looplift_strip": str.strip,
    "looplift_lstrip": str.lstrip,
    "looplift_rstrip": str.rstrip,
    "looplift_lower_ascii": lambda s: s.lower() if s.isascii() else None,
    "looplift_upper_ascii": lambda s: s.upper() if s.isascii() else None,
    "looplift_is_ascii": str.isascii,
}
EDGES = (
    ["", "\x00", "\x7f", "\x80", "ÀZ", "İ", "ß", "ſ", "K", "ǅ", "Σ", "aΣ", "\U0001f600A"]
    + STRIP_ENDS + WORDS + list(WHITESPACE)
    + [c + "Ab" + c for c in WHITESPACE] + [f" {c}x{c} " for c in WHITESPACE]
    + ["".join(WHITESPACE) + "x" + "".join(reversed(WHITESPACE))]
    # a non-ASCII character at each place of isAscii's 8-byte words, and none
    + ["a" * n + c + "b" * m for n in range(17) for m in (0, 8) for c in ("é", "\x7f", "")]
)  # fmt: skip


@pytest.mark.skipif(shutil.which("javac") is None, reason="building the jar needs a JDK")
def test_committed_jar_is_built_from_the_sources() -> None:
    from jvm import build_jar

    assert build_jar.main(["--check"]) == 0


def test_the_tables_agree(spark: Any) -> None:
    """The JVM's kernel names are the runtime's, and the kernels' whitespace is CPython's
    ``str.isspace()`` (every code point)."""
    jvm = spark._jvm.looplift.kernels
    assert sorted(jvm.Functions.table()) == sorted(k.signature for k in kernels.KERNELS.values())
    assert sorted([*REFERENCE, *REGEX_BUILTINS]) == sorted(kernels.KERNELS)
    assert [*jvm.PyStrings.spaces()] == [c for c in range(0x110000) if chr(c).isspace()]


def test_the_test_session_runs_them_in_the_jvm(spark: Any) -> None:
    """``local_session`` sessions call the kernels as JVM expressions, in the generated code."""
    from pyspark.sql import functions as F

    df = spark.createDataFrame([(" a ",)], "s string")
    out = df.select(A.strips(F.col("s")).alias("r"))  # (prepares the session)
    assert kernels.mode(spark) == "jvm"
    plan = out._jdf.queryExecution().executedPlan().toString()
    assert "static_invoke(looplift.kernels.PyStrings.strip(" in plan, plan


#: the kernels that are Spark's own functions, each row's match read once (``Regex.java``)
REGEX_BUILTINS = {"looplift_regex_like": "regexp_like", "looplift_regex_group": "regexp_extract"}


def _kernels_vs_python(spark: Any, strings: list[str | None]) -> None:
    """Every kernel and every SQL form on ``strings``, in one job, against CPython."""
    df = spark.createDataFrame([(i, s) for i, s in enumerate(strings)], "i int, s string")
    cols = [f"{name}(s) AS `k_{name}`" for name in REFERENCE]
    cols += [f"{kernels.SQL_FORMS[name]} AS `q_{name}`" for name in REFERENCE]
    rows = df.selectExpr("i", "s", *cols).collect()
    assert len(rows) == len(strings)
    for r in rows:
        for name, ref in REFERENCE.items():
            want = None if r.s is None else ref(r.s)
            assert r[f"k_{name}"] == want, (name, "JVM", r.s, r[f"k_{name}"], want)
            assert r[f"q_{name}"] == want, (name, "SQL", r.s, r[f"q_{name}"], want)


def test_kernels_and_sql_forms_agree_with_cpython(spark: Any) -> None:
    """Each kernel (JVM) and each SQL form on hand-picked strings (every whitespace
    character at each end, bytes other characters end in, case mappings that differ,
    non-ASCII strings for the ASCII-only kernels, None) and generated ones."""
    kernels.install(spark)
    chars = st.sampled_from(TRICKY + "".join(WHITESPACE) + "AZaz@[`{\x00\x7f\x80\xff")

    @batch_of(st.one_of(text, st.text(chars, max_size=10)), 400)
    def check(rows: list) -> None:
        _kernels_vs_python(spark, [None, *EDGES, *rows])

    check()


@dataflow
def plain(s: str) -> tuple:
    return s.strip(), s.lstrip(), s.rstrip(), s.lower(), s.upper()


def test_plans_in_a_session_with_the_sql_forms(spark: Any) -> None:
    """A session where neither the jar nor Java UDFs can be had gets the kernels' SQL
    forms; a plan that calls them outside lambdas agrees with CPython there too."""
    other = spark.newSession()
    kernels._MODE[other] = kernels._sql_kernels(other)  # as install() does then
    described = "".join(str(r[0]) for r in other.sql("DESCRIBE FUNCTION looplift_strip").collect())
    assert "looplift.kernels" not in described
    check_scalar_batch(other, plain, [(s,) for s in EDGES], max_raise_checks=0)
    check_scalar_batch(other, R.groups, [(s,) for s in MATCHED if s is not None], max_raise_checks=0)


def test_plans_in_a_session_with_java_udfs(spark: Any) -> None:
    """The Java UDFs (a Spark Connect server without the extension registers these) on
    the string algorithms, lambdas included."""
    other = spark.newSession()
    kernels._MODE[other] = kernels._java_udfs(other)  # as install() does on Spark Connect
    plan = other.sql("SELECT looplift_strip(' a ')")._jdf.queryExecution().analyzed().toString()
    assert "UDF:looplift_strip" in plan or "looplift_strip(" in plan, plan
    rows = [(s,) for s in EDGES]
    check_scalar_batch(other, A.strips, rows, max_raise_checks=0)
    check_scalar_batch(other, A.methods, [(s, "a") for s in EDGES[:60]], max_raise_checks=0)
    check_scalar_batch(other, R.groups, [(s,) for s in MATCHED if s is not None], max_raise_checks=0)


#: strings for the match cache: repeated, extending one another, equal but for one byte
MATCHED = ["", "a", "a", "ab", "ab", "abc", "ba", "aab", "aab", "ab\n", "é", "éa", "aé", "日a",
           "a1", "1a", "a\u0663", None, "a", "ab"]  # fmt: skip


def _regex_columns(patterns: list[tuple[str, int]]) -> tuple[list[str], list[tuple[str, str]]]:
    """Each kernel call on ``s`` and its Spark function's, per (Java) pattern and group."""
    cols, pairs = [], []
    for i, (p, groups) in enumerate(patterns):
        lit = sql_string(p)
        calls = [("like", f"(s, {lit})")] + [(f"group{k}", f"(s, {lit}, {k})") for k in range(groups + 1)]
        for what, args in calls:
            kernel = "looplift_regex_like" if what == "like" else "looplift_regex_group"
            cols += [f"{kernel}{args} AS `k{i}_{what}`", f"{REGEX_BUILTINS[kernel]}{args} AS `b{i}_{what}`"]
            pairs.append((f"k{i}_{what}", f"b{i}_{what}"))
    return cols, pairs


def _regex_kernels_vs_spark(session: Any, patterns: list[str], strings: list[str | None]) -> int:
    df = session.createDataFrame([(i, s) for i, s in enumerate(strings)], "i int, s string")
    pattern = session.sparkContext._jvm.java.util.regex.Pattern
    cols, pairs = _regex_columns([(p, pattern.compile(p).matcher("").groupCount()) for p in patterns])
    rows = df.selectExpr("i", "s", *cols).collect()
    assert len(rows) == len(strings)
    for r in rows:
        for k, b in pairs:
            assert r[k] == r[b], (k, repr(r.s), r[k], r[b])
    return len(pairs)


def test_regex_kernels_are_sparks_functions(spark: Any) -> None:
    """``looplift_regex_like`` / ``looplift_regex_group`` equal Spark's ``regexp_like`` /
    ``regexp_extract`` for every group of generated patterns (test_regex_native's grammar,
    translated to Java by the compiler) on generated strings, and on rows that repeat a
    string or extend the one before (each thread keeps a pattern's last match); as JVM
    expressions and as the Java UDFs."""
    from looplift.compiler.primitives.regex import java_pattern

    from tests.spark.test_regex_native import patterns, strings

    kernels.install(spark)
    udfs = spark.newSession()
    kernels._java_udfs(udfs)
    seen = {"pairs": 0}

    pats = drawn(patterns, 80, "regex kernels: patterns")
    texts = drawn(strings, 80, "regex kernels: strings")
    java = [j for p, fl in pats if (j := java_pattern(p, fl)) is not None]
    java += [r"(a)|b", r"(a*)(b)?", r"^(a)(\n)?$", r"(?:(a)|(b))+", r"\p{L}(\d)?"]
    assert len(java) >= 15, pats
    for session in (spark, udfs):
        seen["pairs"] += _regex_kernels_vs_spark(session, java, [*MATCHED, *texts, *MATCHED])
    assert seen["pairs"] >= 2 * 40, seen
    # patterns read from a column, changing from row to row (each thread's cache of them)
    rows = [(t, p) for t in [*MATCHED, *texts[:20]] for p in java[:6]]
    df = spark.createDataFrame(rows, "s string, p string")
    got = df.selectExpr("s", "p", "looplift_regex_like(s, p) AS k", "regexp_like(s, p) AS b",
                        "looplift_regex_group(s, p, 0) AS kg", "regexp_extract(s, p, 0) AS bg").collect()
    assert [r for r in got if (r.k, r.kg) != (r.b, r.bg)] == []


def test_regex_kernels_read_one_match_a_row(spark: Any) -> None:
    """A filter on a match and its groups run as one JVM call each, in the generated code
    (``static_invoke``), and the values are Spark's."""
    kernels.install(spark)
    df = spark.createDataFrame([(s,) for s in MATCHED], "s string")
    p = sql_string(r"(a)(b)?")
    out = df.where(f"looplift_regex_like(s, {p})").selectExpr(
        "s", f"looplift_regex_group(s, {p}, 1) AS g1", f"looplift_regex_group(s, {p}, 2) AS g2")
    plan = out._jdf.queryExecution().executedPlan().toString()
    assert "static_invoke(looplift.kernels.Regex.like(" in plan, plan
    assert "static_invoke(looplift.kernels.Regex.group(" in plan, plan
    want = df.where(f"regexp_like(s, {p})").selectExpr(
        "s", f"regexp_extract(s, {p}, 1) AS g1", f"regexp_extract(s, {p}, 2) AS g2")
    assert sorted(map(tuple, out.collect()), key=repr) == sorted(map(tuple, want.collect()), key=repr)
