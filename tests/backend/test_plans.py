"""What compiled plans look like (SPEC §7) and how the call forms behave."""

from __future__ import annotations

import re

import pytest
from looplift.physplan import mark_plan, physical_plan, python_operator_count
from looplift.spark import DataflowInputError
from pyspark.sql import functions as F

from tests.frames import create_frame
from tests.helpers import SAMPLES, import_path


@pytest.fixture(scope="module")
def samples():
    return {
        name: import_path(SAMPLES / f"{name}.py")
        for name in ("clickstream", "average", "pages", "mode")
    }


def clicks(spark):
    rows = [
        (1, 0, 10),
        (1, 5, 11),
        (1, 1, 12),
        (2, 0, 1),
        (2, 3, 2),
        (2, 4, 3),
        (2, 1, 9),
        (3, 2, 5),
    ]
    return create_frame(spark, rows, "user_id long, pagetype long, ts long"), rows


def test_clickstream_one_shuffle_native_fold(spark, samples) -> None:
    """SPEC §7: the IntervalSequence is read by one native aggregate() over each user's
    sorted events, in one ObjectHashAggregate after one shuffle; no Python."""
    df, rows = clicks(spark)
    out = samples["clickstream"].clickstream(df)
    assert out.columns == ["user_id", "avg_clicks"]
    assert sorted(tuple(r) for r in out.collect()) == sorted(
        samples["clickstream"].clickstream(rows)
    )
    plan = physical_plan(out)
    assert plan.count("Exchange") == 1, plan
    assert python_operator_count(out) == 0, plan
    assert "ObjectHashAggregate" in plan and "collect_list" in plan and "Join" not in plan
    assert "CASE WHEN" in plan  # the action choice is a native expression in the map phase


def test_user_state_one_shuffle_native_map_python_reduce(spark, samples) -> None:
    """A user-defined state keeps the Python reducer, its map part native."""
    df, rows = clicks(spark)
    out = samples["mode"].favourite_page(df)
    assert sorted(tuple(r) for r in out.collect()) == sorted(samples["mode"].favourite_page(rows))
    plan = physical_plan(out)
    assert python_operator_count(out) == 1, plan
    assert "ArrowAggregatePython" in plan or "MapInArrow" in plan, plan


def test_thesis_average_is_one_native_aggregate_without_joins(spark, samples) -> None:
    df = spark.createDataFrame([(1, 10), (2, 5), (1, -3)], "k long, v long")
    out = samples["average"].average(df)
    assert sorted(tuple(r) for r in out.collect()) == [(1, 3.5), (2, 5.0)]
    plan = physical_plan(out)
    assert python_operator_count(out) == 0 and "Join" not in plan, plan
    assert plan.count("HashAggregate") == 2  # partial + final of the one fused aggregate
    assert "sum(1)" in plan


def test_scalar_algorithm_is_one_native_expression(spark, samples) -> None:
    page_class = samples["pages"].page_class
    df = spark.range(-2, 12).select(F.col("id").alias("pagetype"))
    out = df.select(page_class(df.pagetype), page_class(F.col("pagetype") + 1).alias("next"))
    got = [tuple(r) for r in out.collect()]
    want = [(page_class(p), page_class(p + 1)) for p in range(-2, 12)]
    assert got == want
    plan = physical_plan(out)
    assert python_operator_count(out) == 0 and "CASE WHEN" in plan, plan


def test_aggregate_as_a_column_in_group_by(spark, samples) -> None:
    df, rows = clicks(spark)
    avg_path = samples["clickstream"].avg_path
    out = df.groupBy("user_id").agg(avg_path.agg("pagetype", "ts"))
    got = {r["user_id"]: r["avg_path"] for r in out.collect()}
    for uid in {r[0] for r in rows}:
        assert got[uid] == avg_path([(p, t) for u, p, t in rows if u == uid])
    mean = samples["average"].mean
    (row,) = df.agg(mean.agg("user_id", "ts")).collect()
    assert row[0] == pytest.approx(mean([(u, t) for u, _, t in rows]))


def test_null_in_a_non_optional_field_names_the_column(spark, samples) -> None:
    df = spark.createDataFrame([(1, None, 10)], "user_id long, pagetype long, ts long")
    with pytest.raises(Exception, match="column 'pagetype'.*Optional"):
        samples["clickstream"].clickstream(df).collect()


def test_input_that_does_not_fit_is_refused_before_running(spark, samples) -> None:
    cs = samples["clickstream"].clickstream
    with pytest.raises(DataflowInputError, match="3 fields.*2 columns"):
        cs(spark.createDataFrame([(1, 2)], "a long, b long"))
    with pytest.raises(DataflowInputError, match="column 'ts'.*string.*int"):
        cs(spark.createDataFrame([(1, 2, "x")], "a long, b long, ts string"))


def test_generated_plan_is_deterministic_and_readable(samples) -> None:
    from looplift.compiler.backend import backend_for
    from looplift.compiler.pipeline import compile_dataflow

    cs = samples["clickstream"].clickstream
    first = backend_for(compile_dataflow(cs)).source
    second = backend_for(compile_dataflow(cs)).source
    assert first == second
    assert first.startswith('"""looplift plan for `clickstream:clickstream`')
    joined = re.sub(r"['\"]\s*\n\s*['\"]", "", first)  # the SQL's string literals, joined
    assert "def plan(spark, clicks):" in first and "sort_array(collect_list(" in joined
    compile(first, "<plan>", "exec")
    mode = backend_for(compile_dataflow(samples["mode"].favourite_page)).source
    assert "ll.ActionReducer(" in mode  # a user-defined state: its Python reducer


def test_explain_marks_python_and_native(spark, samples, capsys) -> None:
    df, _ = clicks(spark)
    text = samples["mode"].favourite_page.explain(df)
    assert "map part (native" in text and ("ArrowAggregatePython" in text or "MapInArrow" in text)
    assert "[Python]" in text and "[native]" in text
    native = samples["clickstream"].clickstream.explain(df)
    assert "runs: fully native (no Python at run time)" in native and "[Python]" not in native
    assert mark_plan("+- Project [a]\n   +- ArrowEvalPython [f(a)]").count("[Python]") == 1
