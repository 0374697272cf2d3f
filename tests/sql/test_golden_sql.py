"""Snapshots of the SQL ``looplift.sql`` runs for each sample algorithm: the query a
user writes (``SELECT f(cols) FROM t``, ``SELECT * FROM f(TABLE(t))``) after splicing.

Regenerate (after a backend change) and review the diff with::

    LOOPLIFT_UPDATE_GOLDEN=1 .venv/bin/pytest -q -p no:cacheprovider tests/sql/test_golden_sql.py
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import looplift
import pytest
from looplift.fieldtypes import FIELD_TYPES, base_type, is_optional, spark_cast
from looplift.sqlapi import spliced_sql
from looplift.sqltext import quote_ident, sql_literal

from tests.helpers import check_golden
from tests.spark.harness import split_args
from tests.spark.test_differential import CASES

pytestmark = pytest.mark.spark

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "sql"
VIEW = "looplift_golden_input"
SAMPLE_CASES = [c for c in CASES if c.path.parent.name == "samples"]


def _query(spark: Any, case: Any) -> str:
    algo = case.algo
    alg = algo.algorithm()
    name = f"g_{case.path.stem}_{alg.name}"
    looplift.register(spark, **{name: algo})
    if alg.kind == "scalar":
        types = [t[0] if t else "any" for _, _, t in alg.params]
    else:
        types = list(alg.fields)
    columns = [f"c{i}" for i in range(len(types))]
    from pyspark.sql import types as T

    schema = T.StructType([  # only the Optional fields are nullable
        T.StructField(c, T._parse_datatype_string(spark_cast(t).lower()), is_optional(t))
        for c, t in zip(columns, types, strict=True)
    ])  # fmt: skip
    spark.createDataFrame([], schema).createOrReplaceTempView(VIEW)
    if alg.kind == "scalar":
        return f"SELECT {name}({', '.join(columns)}) AS result FROM {VIEW}"
    if case.examples:  # the first example's scalar arguments, or zeros
        scalars = list(split_args(algo, case.examples[0])[1])
    else:
        scalars = [FIELD_TYPES[base_type(t)].zero for _, t in alg.scalar_params]
    lits = iter(sql_literal(v) for v in scalars)
    if alg.kind == "table":
        args = [f"TABLE({VIEW})" if k == "rows" else next(lits) for _, k, _ in alg.params]
        return f"SELECT * FROM {name}({', '.join(args)})"
    args = []
    for _, k, _ in alg.params:
        args.extend([quote_ident(c) for c in columns] if k == "rows" else [next(lits)])
    return f"SELECT {name}({', '.join(args)}) AS result FROM {VIEW}"


@pytest.mark.parametrize("case", SAMPLE_CASES, ids=repr)
def test_spliced_sql(spark: Any, case: Any) -> None:
    query = _query(spark, case)
    text = spliced_sql(spark, query)
    # a table call's plan is a temporary view with a fresh name
    text = re.sub(r"__looplift_(\w+?)_\d+_[0-9a-f]{8}", r"<plan of \1>", text)
    check_golden(GOLDEN / f"{case.path.stem}.{case.algo.name}.sql", f"-- {query}\n{text}")
