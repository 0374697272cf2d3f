"""Python islands on Spark against CPython (issue 25): each outlined form (a statement, a
returned value, the whole function; per row inside a row loop and a group loop) in the
DataFrame/Column call form, ``looplift.sql`` and plain ``spark.sql`` after
``looplift.register``; exceptions raised inside an island (class and message), None and
big ints crossing the boundary."""

from __future__ import annotations

from typing import Any

import looplift
import pytest

from tests.spark import island_algos as A
from tests.spark.harness import (
    FieldType,
    Outcome,
    attempt,
    collect,
    judge,
    kind_of,
    row_types,
    run_compiled,
    run_compiled_scalar,
    run_reference,
    to_df,
)

pytestmark = pytest.mark.spark

SCALARS: dict[str, tuple[list[tuple], list[tuple]]] = {
    # algorithm: (rows on which Python returns, rows on which it raises)
    # a big int out of an island: Python's value has no 64-bit column, so both raise
    "parse_int": (
        [(None,), (" 12 ",), ("x",), ("",), ("-7",), ("9223372036854775807",)],
        [("99999999999999999999",)],
    ),
    "initials": ([("ada lovelace",), ("",), ("  x  y z ",), ("é b",)], []),
    "collatz": ([(1,), (6,), (27,), (0,), (-5,), (837799,)], []),
    "digit_total": ([("123", 2), ("0", -1), (" 7 ", 0), ("\uff19\uff10", 1)], [("12x", 1), ("", 0)]),
    "power_mod": ([(2, 200), (3, 0), (12345, 77), (-3, 3)], [(0, -1)]),
    "digit_sum": ([("123",), ("",), ("0009",)], [("12x",)]),
    "top_word": ([("b a b",), ("X x y",), ("one",)], [("",), ("   ",)]),
    "safe_div": ([(7, 2), (7, 0), (0, 5), (100, 7)], []),
    "lead": ([(None,), ("",), ("  a",), ("   ",), ("b",)], []),
    "encoded_len": ([("abc",), ("é€",), ("",)], []),
    "bumped": ([(1,), (-5,), (2**62,)], [(2**63 - 1,)]),
}
TABLES: dict[str, tuple[list[list[tuple]], list[list[tuple]]]] = {
    "long_words": ([[(1, "a quick brown fox"), (2, ""), (3, "jumps  over lazy dogs")]], []),
    "group_parse": ([[("a", "1"), ("a", "x"), ("b", " 5"), ("b", "2"), ("c", "")]], []),
    "ordered_path": ([[("u", 2, "//b"), ("u", 1, "/a"), ("v", 5, "c"), ("u", 3, "")]], []),
    "digits_total": ([[("a", "12"), ("a", "0"), ("b", "")]], [[("a", "1"), ("b", "2x")]]),
    "skip_bad": ([[("a", "1"), ("a", "x"), ("b", " 5"), ("c", "")]], []),
    "drained": ([[("a", 3, 90), ("a", 1, 60), ("b", 1, -5), ("a", 2, 2**40), ("c", 1, 0)]], []),
    "rows_skip": ([[(1, "2"), (2, "y"), (3, "-4"), (4, "")]], []),
    "counted": ([[(1, 3), (2, 0), (-7, 2), (2**31, 3), (5, -1)]], [[(2**62, 3)]]),
    "ordered_halvings": ([[("a", 3, 90), ("a", 1, 60), ("b", 1, 500), ("a", 2, 2**40), ("c", 1, 0),
                           ("b", 2, -1000)]], []),
    "halvings": ([[(1, 1000), (2, 1), (3, -5), (4, 2**62), (5, 3)]], []),
    "split_words": ([[("a", "1 x 22"), ("a", ""), ("b", " é  -3 "), ("b", "² 4")]], []),
}


def _scalar(spark: Any, name: str, rows: list[tuple], form: str) -> Outcome:
    algo = getattr(A, name)
    if form == "df":
        return attempt(lambda: run_compiled_scalar(spark, algo, rows))
    fts = row_types(algo)
    cols = [f"c{i}" for i in range(len(fts))]
    df = to_df(spark, [(i, *r) for i, r in enumerate(rows)], [FieldType(int), *fts], ["_id", *cols],
               nullable=True)  # fmt: skip
    df.createOrReplaceTempView("island_in")
    q = f"SELECT _id, island_{name}({', '.join(cols)}) FROM island_in"
    run = spark.sql if form == "plain" else (lambda text: looplift.sql(spark, text))
    return attempt(lambda: [v for _, v in sorted(collect(run(q)), key=lambda r: r[0])])


def _table(spark: Any, name: str, rows: list[tuple], form: str) -> Outcome:
    algo = getattr(A, name)
    if form == "df":
        return attempt(lambda: run_compiled(spark, algo, rows))
    to_df(spark, rows, row_types(algo), nullable=True).createOrReplaceTempView("island_in")
    q = f"SELECT * FROM island_{name}(TABLE(island_in))"
    run = spark.sql if form == "plain" else (lambda text: looplift.sql(spark, text))
    return attempt(lambda: collect(run(q)))


@pytest.fixture(scope="module")
def registered(spark: Any) -> None:
    looplift.register(spark, **{f"island_{n}": getattr(A, n) for n in [*SCALARS, *TABLES]})


def _check(kind: str, name: str, rows: list, got: Outcome, form: str) -> str:
    algo = getattr(A, name)
    want = attempt(lambda: run_reference(algo, rows))
    verdict = judge(kind, want, got, f"{form} {name} {rows!r}", rows)
    islands = algo.compile().program.fn.islands  # (other constructs may be native by now)
    if want.raised and islands and type(want.error).__name__ != "Int64Overflow":
        # the island raised what Python raised: its class and its message
        assert str(want.error) in str(got.error), (want.error, got.error)
    return verdict


@pytest.mark.parametrize("form", ["df", "sql", "plain"])
@pytest.mark.parametrize("name", sorted(SCALARS))
def test_scalar(spark: Any, registered: None, name: str, form: str) -> None:
    good, bad = SCALARS[name]
    assert _check("scalar", name, good, _scalar(spark, name, good, form), form) == "same"
    for row in bad:
        verdict = _check("scalar", name, [row], _scalar(spark, name, [row], form), form)
        assert verdict == "both raised"


@pytest.mark.parametrize("form", ["df", "sql", "plain"])
@pytest.mark.parametrize("name", sorted(TABLES))
def test_table(spark: Any, registered: None, name: str, form: str) -> None:
    good, bad = TABLES[name]
    kind = kind_of(getattr(A, name))
    for rows in good:
        assert _check(kind, name, rows, _table(spark, name, rows, form), form) == "same"
    for rows in bad:
        assert _check(kind, name, rows, _table(spark, name, rows, form), form) == "both raised"


def test_a_rebound_field_is_no_output(spark: Any) -> None:
    """``n`` rebound inside a yielding ``while`` and read by nothing after it: the island
    returns only its rows (``tests/compiler/test_islands.py``), and the rows are CPython's."""
    rows = [("a", 6), ("a", 1), ("b", 27), ("b", -3), ("c", 2**40)]
    got = attempt(lambda: run_compiled(spark, A.rebound_field, rows))
    assert _check("table", "rebound_field", rows, got, "df") == "same"


def test_the_while_loops_are_islands() -> None:
    """(The other algorithms' constructs may get native lowerings; a `while` stays Python.)"""
    for name in ["collatz", "power_mod", "digit_sum", "safe_div", "lead", "ordered_path",
                 "digits_total"]:  # fmt: skip
        assert getattr(A, name).compile().program.fn.islands, name


@pytest.fixture(scope="module")
def built(spark: Any, tmp_path_factory: Any) -> Any:
    """``uda-compile island_algos.py -o OUT`` (its ``islands.py`` holds the islands),
    imported from OUT, its zip shipped to the workers as ``spark-submit --py-files`` does."""
    import importlib
    import sys

    from looplift.compiler.cli import main

    out = tmp_path_factory.mktemp("island_build")
    only = [x for n in BUILT for x in ("--only", n)]  # (`probed` needs its first rows)
    assert main([A.__file__, *only, "-o", str(out)]) == 0
    assert (out / "island_algos" / "islands.py").exists()
    spark.sparkContext.addPyFile(str(out / "island_algos.zip"))
    sys.path.insert(0, str(out))
    for m in [m for m in sys.modules if m.split(".")[0] == "island_algos"]:
        del sys.modules[m]
    try:
        yield importlib.import_module("island_algos")
    finally:
        sys.path.remove(str(out))
        for m in [m for m in sys.modules if m.split(".")[0] == "island_algos"]:
            del sys.modules[m]


BUILT = ["long_words", "group_parse", "ordered_path", "digits_total"]


@pytest.mark.parametrize("name", BUILT)
def test_built_package(spark: Any, built: Any, name: str) -> None:
    algo = getattr(A, name)
    (rows,) = TABLES[name][0]
    got = collect(built.run(spark, name, to_df(spark, rows, row_types(algo), nullable=True)))
    assert _check(kind_of(algo), name, rows, Outcome(value=got), "built") == "same"


# -- the reach programs of real UDF shapes (tests/corpus/reach/udf_island_*.py) ------------------

REACH: dict[str, list[tuple]] = {
    "udf_island_parser:parse_price": [("$1,234.50",), (None,), ("abc",), (" 7 ",), ("",)],
    "udf_island_parser:header_value": [("a=1; B = two", "b"), ("a=1;b", "b"), ("", "a"),
                                       ("x=1;x=2", "x")],
    "udf_island_parser:minutes": [("10:30",), ("7",), ("a:b",), ("1:2:3",), ("-1:05",)],
    "udf_island_words:title_case": [("hello WORLD",), ("",), ("  a  b ",)],
    "udf_island_words:acronym": [("portable network-graphics",), ("",), ("1st place",)],
    "udf_island_words:most_common_word": [("b a B",), ("",), ("x",)],
    "udf_island_helper:digit_root": [(0,), (9,), (99999,), (-38,), (9223372036854775807,)],
    "udf_island_helper:reduced": [(6, 4), (0, 5), (-3, 9), (5, 0)],
}  # fmt: skip
REACH_TABLES: dict[str, list[tuple]] = {
    "udf_island_tokens:tokens": [(1, "ab 12+x9 "), (2, ""), (3, "é² ٣4 ,,"), (4, "  ")],
    "udf_island_tokens:installments": [("a", 202601, 100, 3), ("b", 1, 5, 0), ("c", 7, -7, 2),
                                       ("d", 0, 2**62, 4)],
    "udf_island_tokens:collatz_steps": [("a", 6), ("a", 1), ("b", 27), ("c", -3), ("c", 0)],
    "udf_island_words:word_stats": [(1, "wonderful surprise wow!"), (2, ""),
                                    (3, "HELLO! tiny! extraordinary")],
    "udf_island_helper:group_roots": [("a", 5), ("a", 7), ("b", 1000), ("c", -4), ("c", 1)],
}  # fmt: skip


def _reach(key: str) -> Any:
    from tests.helpers import CORPUS, import_path

    module, name = key.split(":")
    return getattr(import_path(CORPUS / "reach" / f"{module}.py"), name)


@pytest.mark.parametrize("key", sorted(REACH))
def test_reach_scalar(spark: Any, key: str) -> None:
    algo = _reach(key)
    rows = REACH[key]
    want = attempt(lambda: run_reference(algo, rows))
    got = attempt(lambda: run_compiled_scalar(spark, algo, rows))
    assert judge("scalar", want, got, key, rows) == "same"


@pytest.mark.parametrize("key", sorted(REACH_TABLES))
def test_reach_table(spark: Any, key: str) -> None:
    algo = _reach(key)
    rows = REACH_TABLES[key]
    want = attempt(lambda: run_reference(algo, rows))
    got = attempt(lambda: run_compiled(spark, algo, rows))
    assert judge(kind_of(algo), want, got, key, rows) == "same"


def test_an_island_typed_by_the_first_rows(spark: Any) -> None:
    """Nothing says the island's type: the DataFrame call probes its input's first rows, as
    for a host function (a build has no rows and asks for an annotation: test_islands.py of
    tests/compiler)."""
    rows = [(1, 1), (2, -4), (3, 2**40)]
    want = attempt(lambda: run_reference(A.probed, rows))
    got = attempt(lambda: run_compiled(spark, A.probed, rows))
    assert judge("table", want, got, "probed", rows) == "same"


def test_incremental_view(spark: Any, tmp_path: Any) -> None:
    """An island per row inside a group's sum (``digits_total``), maintained under inserts
    and deletes; a batch on which the island raises is refused with Python's class."""
    from tests.spark.harness import assert_same

    algo = A.digits_total
    good = [("a", "12"), ("a", "0"), ("b", "7")]
    view = algo.incremental(spark, str(tmp_path / "digits_total"))
    try:
        view.apply_rows(good, [1] * len(good))
        assert_same("table", view.result_rows(), run_reference(algo, good), "view")
        version = view.version
        with pytest.raises(Exception) as info:  # noqa: PT011 - the class is checked below
            view.apply_rows([("b", "4x")], [1])
        assert "ValueError" in f"{type(info.value).__name__}: {info.value}", info.value
        assert "invalid literal for int() with base 10: 'x'" in str(info.value)
        assert view.version == version
        view.apply_rows(good[:1], [-1])
        assert_same("table", view.result_rows(), run_reference(algo, good[1:]), "view delete")
    finally:
        view.close()


def test_an_island_read_for_its_value_and_its_error_runs_once(spark: Any) -> None:
    """The SQL reads an island's result three times (its error, its placed message, its
    value); Spark runs identical Python calls once: one UDF in the plan."""
    from pyspark.sql import functions as F

    df = to_df(spark, [(6,), (27,)], [FieldType(int)], ["n"])
    q = df.select(A.collatz(F.col("n")).alias("c"))
    assert [r[0] for r in q.collect()] == [A.collatz(6), A.collatz(27)]
    plan = q._jdf.queryExecution().executedPlan().toString()
    (line,) = [x for x in plan.splitlines() if "ArrowEvalPython" in x]
    assert line.count("pythonUDF") == 1, plan


VISITS = [A.Visit("a", "home", 12345), A.Visit("a", "x", 7), A.Visit("b", "", 0),
          A.Visit("b", "pp", -99), A.Visit("é", "ü" * 3, 2**62)]  # fmt: skip


@pytest.mark.parametrize("name", ["row_fields", "group_row_fields"])
def test_an_island_reads_the_fields_of_a_named_row(spark: Any, name: str) -> None:
    """A ``while`` over ``v.n`` and ``v.page`` of a NamedTuple row: outlined with the
    fields as its inputs (it used to be refused: the row is no plain value)."""
    from tests.frames import create_frame

    algo = getattr(A, name)
    (island,) = algo.compile().program.fn.islands
    assert any("__" in i for i in island.inputs), island.inputs  # fields, not the row
    assert "v" not in island.inputs
    df = create_frame(spark, VISITS, "user string, page string, n bigint")
    assert sorted(map(tuple, algo(df).collect())) == sorted(algo(VISITS))


def test_an_island_yields_rows_of_named_fields(spark: Any) -> None:
    """A ``while`` that yields rows built from a named row's fields: the island returns
    its rows (the plan explodes them), and raises what Python raises inside it."""
    from tests.frames import create_frame

    algo = A.visit_steps
    (island,) = algo.compile().program.fn.islands
    assert island.yields and "v" not in island.inputs
    schema = "user string, page string, n bigint"
    rows = [*VISITS, A.Visit("c", "abc", 4)]
    assert sorted(map(tuple, algo(create_frame(spark, rows, schema)).collect())) == sorted(algo(rows))
    bad = [A.Visit("w", "x", 0)]
    with pytest.raises(ZeroDivisionError):
        list(algo(bad))
    with pytest.raises(Exception, match="ZeroDivisionError"):
        algo(create_frame(spark, bad, schema)).collect()
