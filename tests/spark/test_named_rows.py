"""Named rows on Spark (issue 26 item 1): ``RowStream[Click]`` binds DataFrame columns by
name. Each algorithm of ``named_algos.py`` runs on hypothesis rows whose DataFrame has an
extra column and its columns in a drawn order, against the same function run as plain
CPython on the rows as ``Click`` tuples; the inputs of one algorithm run as one Spark
action. Errors: a missing column, a column of the wrong type and a null in a field that
is not Optional each name the column (and the field)."""

from __future__ import annotations

import datetime
from functools import reduce
from typing import Any

import looplift
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from looplift.spark import DataflowInputError

from tests.frames import create_frame
from tests.spark import named_algos as A
from tests.spark.harness import assert_same, collect, kind_of, result_of

pytestmark = pytest.mark.spark

SETTINGS = settings(max_examples=2, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))  # fmt: skip

CLICK_TYPES = {"user_id": "bigint", "page": "bigint", "ts": "bigint", "extra_col": "string"}
CLICK = st.tuples(st.integers(0, 3), st.integers(-3, 9), st.integers(0, 6))
INPUTS = st.lists(st.lists(CLICK, max_size=14), min_size=3, max_size=3)
ORDERS = st.permutations(list(CLICK_TYPES))


def click_frame(spark: Any, rows: list[tuple], order: list[str]) -> Any:
    """The Click rows (user_id, page, ts) as a DataFrame with columns in ``order`` (and a
    string column the algorithms do not read)."""
    data = []
    for i, (uid, page, ts) in enumerate(rows):
        at = {"user_id": uid, "page": page, "ts": ts, "extra_col": f"x{i}"}
        data.append(tuple(at[c] for c in order))
    ddl = ", ".join(f"{c} {CLICK_TYPES[c]}" for c in order)
    return create_frame(spark, data, ddl)


def expect_same(spark: Any, algo: Any, frames: list[Any], inputs: list[list[tuple]],
                row_class: type = A.Click, columns: list[str] | None = None) -> None:  # fmt: skip
    """Each frame's compiled result (one Spark action for all) equals the reference on
    its rows as ``row_class`` tuples."""
    from pyspark.sql import functions as F

    outs = [algo(df) for df in frames]
    if columns is not None:
        assert [list(o.columns) for o in outs] == [columns] * len(outs)
    width = len(outs[0].columns)
    tagged = [o.toDF(*[f"c{j}" for j in range(width)]).withColumn("_input", F.lit(i))
              for i, o in enumerate(outs)]  # fmt: skip
    got: list[list[tuple]] = [[] for _ in frames]
    for row in collect(reduce(lambda a, b: a.union(b), tagged)):
        got[row[-1]].append(tuple(row[:-1]))
    kind = kind_of(algo)
    for rows, collected in zip(inputs, got, strict=True):
        want = algo([row_class(*r) for r in rows])
        assert_same(kind, result_of(algo, collected), want, f"{algo.name} on {rows!r}")


CLICK_ALGOS = [A.per_user, A.per_user_lambda, A.first_page_desc, A.unpacked, A.filtered,
               A.mean_page, A.per_user_mean, A.per_user_latest, A.projected,
               A.shortcuts]  # fmt: skip


@pytest.mark.parametrize("algo", CLICK_ALGOS, ids=lambda a: a.name)
def test_same_as_cpython_columns_by_name(spark: Any, algo: Any) -> None:
    @SETTINGS
    @given(INPUTS, st.lists(ORDERS, min_size=3, max_size=3))
    def check(inputs: list[list[tuple]], orders: list[list[str]]) -> None:
        frames = [click_frame(spark, r, o) for r, o in zip(inputs, orders, strict=True)]
        expect_same(spark, algo, frames, inputs)

    check()


def test_issue_example(spark: Any) -> None:
    """The issue's example: columns (ts, extra_col, page, user_id) in, the NamedTuple's
    fields out."""
    rows = [(1, 2, 10), (1, 3, 5), (2, 7, 1), (2, 4, 1), (3, 0, 0)]
    df = click_frame(spark, rows, ["ts", "extra_col", "page", "user_id"])
    out = A.per_user(df)
    assert out.columns == ["user_id", "clicks", "last_page"]
    want = A.per_user([A.Click(*r) for r in rows])
    assert sorted(collect(out)) == sorted(tuple(r) for r in want)
    assert want == A.per_user(rows)  # plain tuples become Click rows in the reference
    assert A.per_user_lambda(df).columns == ["user_id", "clicks", "last_page"]


SALE = st.tuples(
    st.sampled_from(["a", "b", "é"]),
    st.sampled_from([datetime.date(2026, 1, 1), datetime.date(2026, 1, 2)]),
    st.none() | st.integers(-(10**6), 10**6).map(lambda q: q / 4),  # exact sums in any order
    st.none() | st.text(max_size=3),
)


def test_optional_fields_with_nulls_and_a_tuple_key_by_names(spark: Any) -> None:
    ddl = "note string, amount double, junk bigint, day date, shop string"

    @SETTINGS
    @given(st.lists(st.lists(SALE, max_size=10), min_size=3, max_size=3))
    def check(inputs: list[list[tuple]]) -> None:
        frames = []
        for rows in inputs:
            data = [(note, amount, 7, day, shop) for shop, day, amount, note in rows]
            frames.append(create_frame(spark, data, ddl))
        expect_same(spark, A.daily, frames, inputs, A.Sale, ["shop", "day", "total", "notes"])

    check()


def test_dataclass_rows(spark: Any) -> None:
    inputs = [[(1, 2), (1, 3), (2, 5)], [(4, -1)], []]
    frames = [create_frame(spark, [(p, u, "z") for u, p in rows], "page bigint, user_id bigint, z string")
              for rows in inputs]  # fmt: skip
    expect_same(spark, A.visits, frames, inputs, A.Visit)


def test_case_insensitive_match_when_no_exact_one(spark: Any) -> None:
    df = create_frame(spark, [(1, 2, 3)], "USER_ID bigint, Page bigint, ts bigint")
    assert collect(A.filtered(df)) == [(1, 32)]


def test_agg_column_binds_the_fields_by_name(spark: Any) -> None:
    """``f.agg()`` of an aggregate over named rows: the columns of the fields' names."""
    rows = [(1, 2, 10), (1, 3, 5), (2, 7, 1)]
    df = click_frame(spark, rows, ["ts", "extra_col", "page", "user_id"])
    got = sorted(tuple(r) for r in df.groupBy("user_id").agg(A.mean_page.agg()).collect())
    want = sorted((u, A.mean_page([r for r in rows if r[0] == u])) for u in {1, 2})
    assert got == want


# -- errors naming the column --------------------------------------------------------------


def test_missing_column_is_named_with_the_available_ones(spark: Any) -> None:
    df = create_frame(spark, [(1, 2)], "user_id bigint, page bigint")
    with pytest.raises(DataflowInputError) as err:
        A.per_user(df)
    text = str(err.value)
    assert "'ts'" in text and "user_id, page" in text, text


def test_wrong_column_type_names_column_and_field(spark: Any) -> None:
    df = create_frame(spark, [(1, "home", 3)], "user_id bigint, page string, ts bigint")
    with pytest.raises(DataflowInputError) as err:
        A.per_user(df)
    text = str(err.value)
    assert "column 'page' (field 'page' of `clicks`) is string" in text, text


def test_null_in_a_field_that_is_not_optional_names_the_column(spark: Any) -> None:
    df = create_frame(spark, [(1, None, 3)], "user_id bigint, page bigint, ts bigint")
    with pytest.raises(Exception) as err:  # noqa: PT011 - Spark's error class, our message
        collect(A.per_user(df))
    assert "column 'page' (field 'page' of `clicks`, int) is null" in str(err.value)


# -- SQL ------------------------------------------------------------------------------------


def test_sql_table_argument_binds_by_name(spark: Any) -> None:
    rows = [(1, 2, 10), (1, 3, 5), (2, 7, 1)]
    click_frame(spark, rows, ["ts", "extra_col", "page", "user_id"]).createOrReplaceTempView(
        "named_clicks"
    )
    looplift.register(spark, A.per_user)
    want = sorted(tuple(r) for r in A.per_user(rows))
    got = looplift.sql(spark, "SELECT * FROM per_user(TABLE(named_clicks))")
    assert got.columns == ["user_id", "clicks", "last_page"]
    assert sorted(tuple(r) for r in got.collect()) == want
    q = "SELECT * FROM per_user(TABLE(SELECT 0 AS junk, ts, user_id, page FROM named_clicks))"
    assert sorted(tuple(r) for r in looplift.sql(spark, q).collect()) == want
    # plain spark.sql: the registered Python UDTF binds the TABLE's columns by name too
    plain = spark.sql("SELECT * FROM per_user(TABLE(named_clicks))")
    assert sorted(tuple(r) for r in plain.collect()) == want



def test_registered_reference_keeps_its_row_class_when_shipped(spark: Any) -> None:
    """Spark's workers get the reference function pickled by value when its module is not
    importable there; its globals then hold only what its code reads, not a row class
    named in a string annotation. ``register`` resolves the class first, so the copy the
    worker gets still reads ``RowStream[Click]`` rows by name (plain ``spark.sql`` failed
    with "row has no field 'user_id'" in a fresh session)."""
    import pickle

    from pyspark import cloudpickle

    rows = [(1, 2, 10), (1, 3, 5), (2, 7, 1)]
    A.per_user.__dict__.pop("_call_shape", None)  # as in a fresh session
    looplift.register(spark, A.per_user)
    cloudpickle.register_pickle_by_value(A)
    try:
        shipped = pickle.loads(cloudpickle.dumps(A.per_user))
    finally:
        cloudpickle.unregister_pickle_by_value(A)
    assert "Click" not in shipped.fn.__globals__
    assert sorted(shipped(rows)) == sorted(A.per_user(rows))


# -- incremental ----------------------------------------------------------------------------


def test_incremental_view_binds_a_delta_by_name(spark: Any, tmp_path: Any) -> None:
    """A local view over named rows: a delta's data columns are bound by name, and the
    reference replays the rows as Click tuples."""
    rows = [(1, 2, 10), (1, 3, 5), (2, 7, 1)]
    view = A.per_user.incremental(spark, str(tmp_path / "view"), store="local")
    try:
        delta = create_frame(
            spark,
            [(ts, 1, page, "x", uid) for uid, page, ts in rows],
            "ts bigint, _sign int, page bigint, extra_col string, user_id bigint",
        )
        view.apply(delta)
        assert sorted(view.result_rows()) == sorted(A.per_user(rows))
        view.apply_rows([rows[0]], [-1])
        assert sorted(view.result_rows()) == sorted(A.per_user(rows[1:]))
    finally:
        view.close()


# -- builds ---------------------------------------------------------------------------------


def test_built_plan_binds_by_name(spark: Any, tmp_path: Any) -> None:
    """``uda-compile -o``: the generated plan module binds the fields by name too."""
    import importlib
    import sys
    from pathlib import Path

    from looplift.compiler.cli import main

    src = Path(A.__file__)
    assert main([str(src), "-o", str(tmp_path)]) == 0
    sys.path.insert(0, str(tmp_path))
    sys.modules.pop("named_algos", None)  # the build step imported the source by that name
    try:
        built = importlib.import_module("named_algos")
        assert built.__file__.startswith(str(tmp_path))
        rows = [(1, 2, 10), (1, 3, 5), (2, 7, 1)]
        df = click_frame(spark, rows, ["extra_col", "ts", "user_id", "page"])
        got = built.run(spark, "per_user", df)
        assert got.columns == ["user_id", "clicks", "last_page"]
        assert sorted(tuple(r) for r in got.collect()) == sorted(A.per_user(rows))
        assert built.ALGORITHMS["per_user"].row_fields == ("user_id", "page", "ts")
    finally:
        sys.path.remove(str(tmp_path))
        for m in [m for m in sys.modules if m.split(".")[0] == "named_algos"]:
            del sys.modules[m]
