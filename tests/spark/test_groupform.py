"""The form of a plan's group values, chosen from Spark's statistics of the input when the
plan is built (``looplift.groupform``; the forms' results: ``test_pergroup.py``).

Real cached tables and ``ANALYZE TABLE``: the rows and distinct keys are Spark's own
numbers. The thresholds are lowered for small tables (``MIN_ROWS``), not the statistics.
"""

from __future__ import annotations

import pytest
from looplift import groupform
from looplift.groupform import CONF, few_large_groups, group_statistics

from tests.spark import pergroup_algos as algos
from tests.spark.harness import collect

pytestmark = pytest.mark.spark

ROWS = 20_000


@pytest.fixture(scope="module")
def tables(spark):  # noqa: ANN001, ANN201
    """Two cached views of ``ROWS`` rows (k, id, v): ``few`` with 10 keys, ``many`` with
    a key per 2 rows; both analyzed, and ``plain``, the first one not analyzed."""
    out = {}
    for view, keys, step in (("gf_few", 10, 1), ("gf_many", ROWS // 2, 1), ("gf_plain", 10, 3)):
        # (another plan for gf_plain: the same plan would share gf_few's cache, analyzed)
        df = spark.range(ROWS).selectExpr(f"id * {step} % {keys} AS k", "id", "CAST(id AS DOUBLE) / 7 AS v")
        df = df.cache()
        df.count()
        df.createOrReplaceTempView(view)
        if view != "gf_plain":
            spark.sql(f"ANALYZE TABLE {view} COMPUTE STATISTICS FOR COLUMNS k")
        out[view] = spark.table(view)
    yield out
    for df in out.values():
        df.unpersist()


@pytest.fixture
def small_tables(monkeypatch):  # noqa: ANN001, ANN201
    """Thresholds for tables of ``ROWS`` rows (the real ones start at 1M rows)."""
    monkeypatch.setattr(groupform, "MIN_ROWS", ROWS // 2)


def test_statistics_of_an_analyzed_cached_view(tables) -> None:  # noqa: ANN001
    st = group_statistics(tables["gf_few"], ["k"])
    assert st.rows == ROWS
    assert st.keys is not None and 9 <= st.keys <= 11  # HyperLogLog's estimate
    many = group_statistics(tables["gf_many"], ["k"]).keys
    assert many is not None and abs(many - ROWS // 2) < ROWS // 20
    # through a projection that keeps the column, not through one that computes it
    assert group_statistics(tables["gf_few"].select("v", "k"), ["k"]) == st
    assert group_statistics(tables["gf_few"].selectExpr("k + 1 AS k"), ["k"]).keys is None
    # a column never analyzed, and a view not analyzed: no key count
    assert group_statistics(tables["gf_few"], ["id"]).keys is None
    assert group_statistics(tables["gf_plain"], ["k"]).keys is None


def test_the_jars_statistics_are_the_walks(tables) -> None:  # noqa: ANN001
    """``looplift.kernels.Stats`` (one call of the JVM) reads what the Py4J walk reads."""
    from looplift.groupform import _jvm_statistics, _walked_statistics

    few = tables["gf_few"]
    frames = [few, tables["gf_many"], tables["gf_plain"], few.select("v", "k"),
              few.selectExpr("k + 1 AS k"), few.limit(7), few.where("v > 0"),
              few.join(tables["gf_many"].select("k", "v"), "k")]  # fmt: skip
    for df in frames:
        for cols in (["k"], ["id"], ["k", "v"], ["nope"]):
            jvm = _jvm_statistics(df, df._jdf, cols)
            assert jvm is not None  # the test session has the jar
            assert jvm == _walked_statistics(df._jdf, cols), (df, cols)
    assert _jvm_statistics(few, few._jdf, ["k"]).keys is not None


def test_few_large_groups_decides_by_the_statistics(tables, small_tables) -> None:  # noqa: ANN001
    assert few_large_groups(tables["gf_few"], [[0]])
    assert few_large_groups(tables["gf_few"], [["k"]])
    assert not few_large_groups(tables["gf_many"], [[0]])  # 2 rows a key
    assert not few_large_groups(tables["gf_plain"], [[0]])  # no key count: the window
    assert not few_large_groups(tables["gf_few"], [[0], [1]])  # every scope must have few
    assert not few_large_groups(tables["gf_few"].limit(100), [[0]])  # a limit: no statistics


def test_too_few_rows_keep_the_window(tables) -> None:  # noqa: ANN001
    assert not few_large_groups(tables["gf_few"], [[0]])  # 20k rows < the real 1M


def test_the_setting_overrides_and_is_checked(spark, tables) -> None:  # noqa: ANN001
    try:
        spark.conf.set(CONF, "join")
        assert few_large_groups(tables["gf_many"], [[0]])
        spark.conf.set(CONF, "window")
        assert not few_large_groups(tables["gf_few"], [[0]])
        spark.conf.set(CONF, "sometimes")
        with pytest.raises(ValueError, match="spark.looplift.groupValues is 'sometimes'"):
            few_large_groups(tables["gf_few"], [[0]])
    finally:
        spark.conf.unset(CONF)


def _physical(df) -> str:  # noqa: ANN001
    return df._jdf.queryExecution().executedPlan().toString()


def test_compiled_plan_takes_the_form_the_statistics_choose(tables, small_tables) -> None:  # noqa: ANN001
    few = algos.centered(tables["gf_few"])
    assert "BroadcastHashJoin" in _physical(few) and "Window" not in _physical(few)
    plain = algos.centered(tables["gf_plain"])
    assert "Window" in _physical(plain) and "Join" not in _physical(plain)
    for view, out in (("gf_few", few), ("gf_plain", plain)):
        want = sorted(algos.centered([tuple(r) for r in tables[view].collect()]))
        got = sorted(collect(out))
        assert [(k, i) for k, i, _ in got] == [(k, i) for k, i, _ in want]
        assert all(abs(g - w) <= 1e-9 * max(1.0, abs(w)) for (*_, g), (*_, w) in zip(got, want, strict=True))


@pytest.mark.parametrize(("row", "column"), [((None, 5, 1.0), "k"), ((1, 5, None), "v")])
def test_a_null_raises_in_the_joined_form(spark, row, column) -> None:  # noqa: ANN001
    """The joined form checks the nulls once, in the broadcast aggregate (the rows it
    joins back to are read unchecked): a null of any checked column still raises."""
    df = spark.createDataFrame([(1, 1, 2.0), (1, 2, 4.0), (2, 3, 1.0), (2, 4, 3.0), row],
                               "k bigint, id bigint, v double")  # fmt: skip
    try:
        spark.conf.set(CONF, "join")
        out = algos.centered(df)
        assert "BroadcastHashJoin" in _physical(out)
        with pytest.raises(Exception, match=f"column '{column}'.*Optional"):
            out.collect()
    finally:
        spark.conf.unset(CONF)
