"""Chains of added columns merged into one ``selectExpr`` (``compiler/backend/lateral.py``)
mean what the steps meant: generated chains of ``selectExpr``, ``withColumn`` and
``withColumns`` over an entry projection, with names that collide (also in case) on
purpose, run on Spark as written and as merged, and compared."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from looplift.compiler.backend.lateral import merge_added_columns

NAMES = ["a", "A", "t", "u", "w", "x", "X"]


@st.composite
def chains(draw: st.DrawFn) -> list[str]:
    """Steps over ``ll.entry(df, ...)`` of three int columns; each reads only the columns of
    the frame before it (what the planner's steps do), the last assigned to ``out``."""
    cols = draw(st.lists(st.sampled_from(["a", "b", "c", "t"]), min_size=3, max_size=3, unique=True))
    lines = [f"x0 = ll.entry(df, 'rows', ['int', 'int', 'int'], names={cols!r})"]
    n = draw(st.integers(2, 5))

    def expr() -> str:
        x = draw(st.sampled_from(cols))
        y = draw(st.sampled_from(cols))
        k = draw(st.integers(1, 9))
        return draw(st.sampled_from([f"`{x}` + {k}", f"`{x}` * `{y}`", f"`{x}` - {k} * `{y}`"]))

    for i in range(1, n + 1):
        kind = draw(st.sampled_from(["select", "with", "with", "withs"]))
        src = f"x{i - 1}"
        if kind == "select":
            texts, out = [], []
            for c in draw(st.lists(st.sampled_from(cols), min_size=1, max_size=3, unique=True)):
                texts.append(f"`{c}`")
                out.append(c)
            for _ in range(draw(st.integers(0, 2))):
                name = draw(st.sampled_from(NAMES))
                if name.lower() in {o.lower() for o in out}:
                    continue
                texts.append(f"{expr()} AS `{name}`")
                out.append(name)
            lines.append(f"x{i} = {src}.selectExpr({', '.join(map(repr, texts))})")
            cols = out
        else:
            added = {}
            for _ in range(1 if kind == "with" else draw(st.integers(1, 3))):
                name = draw(st.sampled_from(NAMES))
                if name.lower() not in {a.lower() for a in added}:
                    added[name] = expr()
            if kind == "with":
                (name, sql), = added.items()
                lines.append(f"x{i} = {src}.withColumn({name!r}, E({sql!r}))")
            else:
                body = ", ".join(f"{k!r}: E({v!r})" for k, v in added.items())
                lines.append(f"x{i} = {src}.withColumns({{{body}}})")
            lower = {c.lower(): c for c in cols}
            for name in added:
                if name.lower() not in lower:
                    cols = [*cols, name]
    lines.append(f"out = x{n}")
    return lines


def run(spark, lines: list[str]) -> tuple[list[str], list[tuple]]:
    import looplift.spark as ll
    from pyspark.sql import functions as F

    df = spark.createDataFrame([(1, 2, 3), (4, -5, 6), (0, 7, -8)], "p long, q long, r long")
    scope = {"ll": ll, "F": F, "E": F.expr, "df": df}
    exec("\n".join(ln.strip() for ln in lines), scope)
    out = scope["out"]
    return out.columns, sorted(tuple(r) for r in out.collect())


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(chains())
@example(lines=[  # a column replaced by withColumn takes the new name's case
    "x0 = ll.entry(df, 'rows', ['int', 'int', 'int'], names=['a', 'b', 'c'])",
    "x1 = x0.withColumn('A', E('`a` + 1'))",
    "x2 = x1.withColumn('t', E('`a` + 1'))",
    "x3 = x2.withColumn('u', E('`a` + 1'))",
    "out = x3",
])
def test_merged_chains_mean_what_the_steps_meant(spark, lines):
    from pyspark.errors import AnalysisException

    steps = ["    " + ln for ln in lines]
    merged = merge_added_columns(steps)
    assume(merged != steps)  # the same steps: nothing to compare
    try:
        want = run(spark, steps)
    except AnalysisException:  # a generated chain Spark refuses (an ambiguous name)
        with pytest.raises(AnalysisException):
            run(spark, merged)
        return
    assert run(spark, merged) == want, "\n".join(merged)


def test_a_generated_chain_merges(spark):
    """The generator reaches the merge (the property above is not vacuous)."""
    lines = [
        "x0 = ll.entry(df, 'rows', ['int', 'int', 'int'], names=['a', 'b', 'c'])",
        "x1 = x0.withColumn('t', E('`a` + 1'))",
        "x2 = x1.withColumns({'A': E('`t` * `b`')})",
        "out = x2",
    ]
    merged = merge_added_columns(["    " + ln for ln in lines])
    assert len(merged) == 4  # the shadowing A (of a) is not merged
    lines[2] = "x2 = x1.withColumns({'u': E('`t` * `b`')})"
    merged = merge_added_columns(["    " + ln for ln in lines])
    assert len(merged) == 3
    assert run(spark, merged) == run(spark, ["    " + ln for ln in lines])


def test_a_session_without_lateral_aliases_gets_them_back(spark):
    """A compiled plan whose added columns read each other (a merged chain) runs in a
    session that turned lateral column aliases off (``prepare_session`` turns them on)."""
    from tests.helpers import SAMPLES, import_path

    average = import_path(SAMPLES / "average.py").average
    key = "spark.sql.lateralColumnAlias.enableImplicitResolution"
    rows = [(1, 4), (1, 6), (2, 3)]
    df = spark.createDataFrame(rows, "k long, value long")
    spark.conf.set(key, "false")
    try:
        got = sorted(tuple(r) for r in average(df).collect())
        assert spark.conf.get(key) == "true"
    finally:
        spark.conf.unset(key)
    assert got == sorted(average(rows))
