"""Every @dataflow algorithm of samples/ and tests/corpus/valid/, called from SQL, against
its CPython reference (SPEC §5 "Spark SQL").

The differential harness of ``tests/spark`` runs unchanged; only the one place where
it calls the compiled algorithm is swapped for a SQL query through ``looplift.sql``:

- table: ``SELECT * FROM f(TABLE(v), <scalar literals>)``;
- aggregate: ``SELECT f(c0, ..., <scalar literals>) AS f FROM v`` (a global aggregate,
  one row also for no rows), and grouped: ``SELECT g, f(...) FROM v GROUP BY g``
  against the reference per group;
- scalar: ``SELECT _id, f(c0, ...) AS result FROM v``.

Plain ``spark.sql`` (the registered SQL function / UDAF / UDTF) runs the same way for the
samples. Hypothesis-generated data (``LOOPLIFT_SQL_EXAMPLES`` per algorithm, default 2,
seeded per algorithm), the modules' own examples first; the inputs on which Python
returns run in one query per algorithm (their frames unioned, each query analyzed
against its own input before the view is replaced).
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from typing import Any

import looplift
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from looplift.sqltext import quote_ident, sql_literal

from tests.frames import create_frame
from tests.helpers import SAMPLES
from tests.spark import harness
from tests.spark.harness import (
    Case,
    assert_same,
    attempt,
    check_scalar_batch,
    coerce_value,
    collect,
    column_names,
    expect_same_or_both_raise,
    reference_ok,
    row_types,
    run_reference,
    scalar_types,
    split_args,
    table_inputs,
    to_df,
)
from tests.spark.test_differential import CASES, _check_table, _run_generated

pytestmark = pytest.mark.spark

EXAMPLES = int(os.environ.get("LOOPLIFT_SQL_EXAMPLES", "2"))
VIEW = "looplift_test_input"


def _sql_name(algo: Any) -> str:
    return "t_" + re.sub(r"\W", "_", f"{algo.__module__}_{algo.name}")


_REGISTERED: set[int] = set()


def _ensure(spark: Any, algo: Any) -> str:
    name = _sql_name(algo)
    if id(algo) not in _REGISTERED:
        looplift.register(spark, **{name: algo})
        _REGISTERED.add(id(algo))
    return name


class SqlRunner:
    """Stands in for the harness' compiled calls: the same call, through SQL."""

    def __init__(self, spark: Any, plain: bool = False) -> None:
        self.spark, self.plain = spark, plain

    def run(self, query: str) -> Any:
        return self.spark.sql(query) if self.plain else looplift.sql(self.spark, query)

    def call(self, algo: Any, *args: Any) -> Any:
        name = _ensure(self.spark, algo)
        params = harness.params_of(algo)
        df = next(a for a in args if hasattr(a, "createOrReplaceTempView"))
        df.createOrReplaceTempView(VIEW)
        lits = [sql_literal(a) for a, p in zip(args, params, strict=True) if not p.is_rows]
        if harness.kind_of(algo) == "table":
            table = f"TABLE({VIEW})"
            call_args = [table if p.is_rows else lits.pop(0) for p in params]
            return self.run(f"SELECT * FROM {name}({', '.join(call_args)})")
        cols = [quote_ident(c) for c in df.columns]
        call_args = []
        for p in params:
            call_args.extend(cols if p.is_rows else [lits.pop(0)])
        q = f"SELECT {name}({', '.join(call_args)}) AS {quote_ident(algo.name)} FROM {VIEW}"
        return self.run(q)

    def scalar(self, spark: Any, algo: Any, arg_rows: Any) -> list[Any]:
        name = _ensure(spark, algo)
        fts = row_types(algo)
        from pyspark.sql import types as T

        schema = T.StructType(
            [T.StructField("_id", T.LongType(), False), *harness.spark_schema(fts).fields]
        )
        data = [
            (i, *harness.to_spark_value(tuple(r)))
            for i, r in enumerate(harness.coerce_rows(arg_rows, fts))
        ]
        create_frame(spark, data, schema).createOrReplaceTempView(VIEW)
        cols = ", ".join(column_names(len(fts)))
        out = self.run(f"SELECT _id, {name}({cols}) AS result FROM {VIEW}")
        got = sorted(collect(out), key=lambda r: r[0])
        assert [r[0] for r in got] == list(range(len(arg_rows))), "rows lost or duplicated"
        return [r[1] for r in got]


@pytest.fixture
def via_sql(spark: Any, monkeypatch: pytest.MonkeyPatch) -> SqlRunner:
    runner = SqlRunner(spark)
    monkeypatch.setattr(harness, "call_algorithm", runner.call)
    monkeypatch.setattr(harness, "run_compiled_scalar", runner.scalar)
    return runner


@pytest.fixture
def via_plain_sql(spark: Any, monkeypatch: pytest.MonkeyPatch) -> SqlRunner:
    runner = SqlRunner(spark, plain=True)
    monkeypatch.setattr(harness, "call_algorithm", runner.call)
    monkeypatch.setattr(harness, "run_compiled_scalar", runner.scalar)
    return runner


def _examples(spark: Any, case: Case) -> None:
    algo = case.algo
    if case.kind == "scalar":
        if case.examples:
            check_scalar_batch(spark, algo, [tuple(a) for a in case.examples], max_raise_checks=1)
        return
    for args in case.examples[:3]:
        rows, scalars = split_args(algo, args)
        expect_same_or_both_raise(spark, algo, rows, scalars)


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_sql_matches_python(spark: Any, via_sql: SqlRunner, case: Case) -> None:
    """Aggregates take their own path in SQL (aggregate expressions, collect_list, the
    reference) and get the full budget (the corpus' small ones their examples and the
    empty input: ``test_grouped_aggregate_matches_python`` runs the same aggregate
    expression on generated rows); table and scalar calls splice the plans and SQL
    functions tests/spark checks in depth, so the corpus' get one generated input (the
    empty one) and the samples' their examples and generated inputs with rows."""
    if case.kind == "aggregate":
        n = EXAMPLES if case.path.parent == SAMPLES else 1
        _run_generated(spark, case, n, "sql", batched=True, with_examples=True)
    elif case.path.parent == SAMPLES:
        n = max(1, EXAMPLES - 1)
        _run_generated(spark, case, n, "sql", again=True, batched=True, with_examples=True)
    else:
        _run_generated(spark, case, 1, "sql")


SAMPLE_CASES = [c for c in CASES if c.path.parent == SAMPLES]


@pytest.mark.parametrize("case", SAMPLE_CASES, ids=repr)
def test_plain_spark_sql_matches_python(spark: Any, via_plain_sql: SqlRunner, case: Case) -> None:
    """After register(), plain spark.sql runs the registered function / UDAF / UDTF.

    The UDTF and UDAF run the reference Python itself: what is checked per sample is the
    registration and its values' way in and out. The one generated input of a table
    call would be the empty input, the same for every UDTF: ``test_plain_udtf_over_no_rows``
    checks it once (a sample without examples still runs it).

    A global aggregate over no rows is left out: Spark gives no row for a Python UDAF
    there (``test_plain_udaf_over_no_rows``); ``looplift.sql`` gives the value."""
    if case.kind != "aggregate":
        _examples(spark, case)
        if case.kind == "scalar" or not case.examples:
            _run_generated(spark, case, 1, "plain")
        return
    for args in case.examples[:3]:
        rows, scalars = split_args(case.algo, args)
        if rows:
            expect_same_or_both_raise(spark, case.algo, rows, scalars)
    config = settings(max_examples=1, deadline=None, derandomize=True, database=None,
                      phases=[Phase.generate], suppress_health_check=list(HealthCheck))  # fmt: skip

    def body(inputs: tuple) -> None:
        _check_table(spark, case, *inputs, {"raise checks": 1})

    body._hypothesis_internal_add_digest = f"{case.id}/plain".encode()  # type: ignore[attr-defined]
    config(given(table_inputs(case.algo, case.pools).filter(lambda x: x[0]))(body))()


def test_plain_udtf_over_no_rows(spark: Any, via_plain_sql: SqlRunner) -> None:
    """A registered table algorithm (a Python UDTF) over no rows gives what the
    reference yields on no rows: nothing, per user or for ``group_by((), rows)``."""
    from tests.spark import order_algos

    for algo in (case_named_sample("clickstream"), order_algos.whole_group):
        assert expect_same_or_both_raise(spark, algo, []) == "same"


def case_named_sample(name: str) -> Any:
    return next(c.algo for c in SAMPLE_CASES if c.algo.name == name)


def test_plain_udaf_over_no_rows(spark: Any) -> None:
    """The documented difference: plain spark.sql's UDAF gives no row for a global
    aggregate over no rows (Spark's behaviour for Python UDAFs); looplift.sql gives the
    algorithm's value on no rows, as Python does."""
    from samples.count import count

    name = _ensure(spark, count)
    spark.createDataFrame([], "c0 bigint, c1 bigint").createOrReplaceTempView(VIEW)
    query = f"SELECT {name}(c0, c1) FROM {VIEW}"
    assert spark.sql(query).collect() == []
    assert [tuple(r) for r in looplift.sql(spark, query).collect()] == [(count([]),)]


AGGREGATES = [c for c in CASES if c.kind == "aggregate"]


@pytest.mark.parametrize("case", AGGREGATES, ids=repr)
def test_grouped_aggregate_matches_python(spark: Any, case: Case) -> None:
    """``SELECT g, f(...) FROM v GROUP BY g`` equals the reference on each group's rows."""
    algo = case.algo
    name = _ensure(spark, algo)
    fts = row_types(algo)

    def body(inputs: tuple) -> None:
        rows, scalars = inputs
        scalars = tuple(
            coerce_value(v, ft) for v, ft in zip(scalars, scalar_types(algo), strict=True)
        )
        groups: dict[int, list] = defaultdict(list)
        for i, r in enumerate(rows):
            groups[i % 3].append(r)
        if not all(reference_ok(algo, g, scalars) for g in groups.values()):
            return
        want = sorted(
            ((g, run_reference(algo, rs, scalars)) for g, rs in groups.items()), key=lambda x: x[0]
        )
        df = to_df(spark, [(*r, i % 3) for i, r in enumerate(rows)],
                   (*fts, harness.FieldType(int)), [*column_names(len(fts)), "g"])  # fmt: skip
        df.createOrReplaceTempView(VIEW)
        lits = iter(sql_literal(v) for v in scalars)
        args = []
        for p in harness.params_of(algo):
            args.extend(column_names(len(fts)) if p.is_rows else [next(lits)])
        q = f"SELECT g, {name}({', '.join(args)}) AS v FROM {VIEW} GROUP BY g ORDER BY g"
        got = attempt(lambda: collect(looplift.sql(spark, q)))
        if got.raised:
            raise AssertionError(f"{q}\nraised {got.error}\nreference {want!r}") from got.error
        assert_same("table", got.value, want, f"{q}\nrows={rows!r}")

    # inputs with rows only: over no rows there is no group, whatever the aggregate (the
    # empty input is checked by test_sql_matches_python, as a global aggregate)
    config = settings(max_examples=max(1, EXAMPLES - 1), deadline=None, derandomize=True,
                      database=None, phases=[Phase.explicit, Phase.generate],
                      suppress_health_check=list(HealthCheck))  # fmt: skip
    body._hypothesis_internal_add_digest = f"{case.id}/grouped".encode()  # type: ignore[attr-defined]
    config(given(table_inputs(algo, case.pools).filter(lambda x: x[0]))(body))()


def test_cases_cover_every_kind() -> None:
    kinds = {c.kind for c in CASES}
    assert kinds == {"scalar", "aggregate", "table"}
    assert len(AGGREGATES) >= 10 and len(SAMPLE_CASES) >= 20
    _ = attempt  # noqa: F841
