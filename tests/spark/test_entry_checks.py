"""The entry's null checks against Spark's optimizer.

A null in a field that is not ``Optional`` raises, naming the column, whatever the plan
does with the field. Two optimizer moves could drop such a row silently before its check
runs, and each case here is one of them:

- a null-rejecting predicate of the plan (``if v > 0: yield ...`` is ``WHERE v > 0``, from
  which Spark would infer ``isnotnull(v)`` were the entry's ``v`` nullable) runs first in
  a filter Spark merges with the checks: the row is dropped before its check raises;
- a field the plan never reads is pruned from every projection above the scan.

The entry's filter is the one place the checks run; a nondeterministic ``ELSE`` keeps
Spark from merging the plan's predicates into it or pushing them below it.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import SAMPLES, import_path

COHORTS = import_path(SAMPLES / "cohorts.py")
MODULE = """
from looplift import RowStream, dataflow


@dataflow(columns=("k", "v"))
def positive(rows: RowStream[int, int, int]):
    for k, v, _w in rows:
        if v > 0:
            yield k, v
"""
ROWS = [(1, 3, 3), (1, 3, 4), (2, 3, 4), (3, 4, 4), (1, 3, 4)]
SCHEMA = "user_id bigint, signup bigint, month bigint"


def frame(spark: Any, rows: list[tuple[Any, ...]]) -> Any:
    return spark.createDataFrame(rows, SCHEMA)


def test_without_nulls_the_plan_equals_python(spark: Any) -> None:
    got = sorted(tuple(r) for r in COHORTS.cohort_activity(frame(spark, ROWS)).collect())
    assert got == sorted(COHORTS.cohort_activity(ROWS))


@pytest.mark.parametrize(
    ("row", "column"),
    [
        ((4, 3, None), "month"),  # read by a null-rejecting comparison
        ((4, None, 5), "signup"),  # the group key, and read by the comparison
        ((None, 3, 5), "user_id"),  # never read
    ],
)
def test_a_null_raises_naming_its_column(spark: Any, row: tuple[Any, ...], column: str) -> None:
    out = COHORTS.cohort_activity(frame(spark, [*ROWS, row]))
    with pytest.raises(Exception, match=f"column '{column}'.*Optional"):
        out.collect()


@pytest.fixture(scope="module")
def positive(tmp_path_factory: pytest.TempPathFactory) -> Any:
    path = Path(tmp_path_factory.mktemp("entry")) / "entry_checks.py"
    path.write_text(textwrap.dedent(MODULE), encoding="utf-8")
    return import_path(path).positive


def test_a_null_under_a_null_rejecting_filter_raises(spark: Any, positive: Any) -> None:
    rows = [(1, 2, 3), (2, None, 3), (3, -1, 3)]
    df = spark.createDataFrame(rows, "a bigint, b bigint, c bigint")
    out = positive(df)
    plan = out._jdf.queryExecution().optimizedPlan().toString()
    # the plan's predicate stays above the checks (Spark infers no `isnotnull(b)`: the
    # entry's `b` is not nullable after them)
    assert plan.index(") > 0)") < plan.index("Filter CASE WHEN isnull("), plan
    with pytest.raises(Exception, match="column 'b'.*Optional"):
        out.collect()
    ok = [r for r in rows if r[1] is not None]
    got = sorted(tuple(r) for r in positive(spark.createDataFrame(ok, df.schema)).collect())
    assert got == sorted(positive(ok))


def test_optional_fields_need_no_filter(spark: Any) -> None:
    """A frame whose columns cannot be null (or whose fields are Optional) gets no checks,
    so nothing stands between the plan's predicates and the scan."""
    df = frame(spark, ROWS)
    strict = df.sparkSession.createDataFrame(df.rdd, df.schema.fromJson({
        "type": "struct",
        "fields": [{"name": f.name, "type": "long", "nullable": False, "metadata": {}}
                   for f in df.schema.fields],
    }))  # fmt: skip
    plan = COHORTS.cohort_activity(strict)._jdf.queryExecution().optimizedPlan().toString()
    assert "raise_error" not in plan and "spark_partition_id" not in plan, plan
