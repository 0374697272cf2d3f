"""A stand-in Spark backend for checking the harness itself (not looplift).

It meets the API contract of SPEC §5 the slow way: a table or aggregate
algorithm collects its DataFrame, runs the CPython reference and hands the
result back as a DataFrame (or one that fails when collected, where Python
raised); a scalar algorithm becomes a plain Python UDF around the reference.
A null in a non-Optional field fails with the column's name.

``tests/spark/test_harness.py`` uses it on a few algorithms. To dry-run the
whole differential suite through it::

    .venv/bin/python -m pytest -p tests.spark.fake_backend tests/spark/test_differential.py

Everything then passes or the harness is wrong; with the real backend in
place this plugin must not be loaded.
"""

from __future__ import annotations

import datetime
from typing import Any

from looplift import Dataflow

from tests.spark import harness
from tests.spark.harness import (
    FieldType,
    check_int64,
    collect,
    field_type,
    kind_of,
    row_types,
    run_reference,
    to_spark_value,
)


def infer_type(values: list[Any]) -> Any:
    """The Spark type of a column of Python values (None, bool, int, float, str,
    datetime, date, list, tuple); int and float mixed give a double."""
    from pyspark.sql import types as T

    present = [v for v in values if v is not None]
    if not present:
        return T.StringType()
    if all(isinstance(v, bool) for v in present):
        return T.BooleanType()
    if all(isinstance(v, int) and not isinstance(v, bool) for v in present):
        return T.LongType()
    if all(isinstance(v, int | float) and not isinstance(v, bool) for v in present):
        return T.DoubleType()
    if all(isinstance(v, str) for v in present):
        return T.StringType()
    if all(isinstance(v, datetime.datetime) for v in present):
        return T.TimestampType()
    if all(isinstance(v, datetime.date) for v in present):
        return T.DateType()
    if all(isinstance(v, list) for v in present):
        return T.ArrayType(infer_type([x for v in present for x in v]))
    if all(isinstance(v, tuple) for v in present):
        width = max(len(v) for v in present)
        return T.StructType(
            [
                T.StructField(f"_{i + 1}", infer_type([v[i] for v in present if len(v) > i]))
                for i in range(width)
            ]
        )
    raise TypeError(f"fake backend: mixed column {present[:5]!r}")


def conform(v: Any, dtype: Any) -> Any:
    from pyspark.sql import types as T

    if v is None:
        return None
    if isinstance(dtype, T.DoubleType):
        return float(v)
    if isinstance(dtype, T.ArrayType):
        return [conform(x, dtype.elementType) for x in v]
    if isinstance(dtype, T.StructType):
        return tuple(conform(x, f.dataType) for x, f in zip(v, dtype.fields, strict=True))
    return to_spark_value(v)


def _frame(spark: Any, names: list[str], rows: list[tuple]) -> Any:
    from pyspark.sql import types as T

    dtypes = [infer_type([r[i] for r in rows]) for i in range(len(names))]
    schema = T.StructType([T.StructField(n, t) for n, t in zip(names, dtypes, strict=True)])
    data = [tuple(conform(v, t) for v, t in zip(r, dtypes, strict=True)) for r in rows]
    return spark.createDataFrame(data, schema)


def _failing(spark: Any, names: list[str], message: str) -> Any:
    """A DataFrame that raises when collected (lazily, like a real plan)."""
    from pyspark.sql import functions as F

    return spark.range(1).select(*[F.raise_error(F.lit(message)).alias(n) for n in names])


def _nulls(df: Any, fts: tuple[FieldType, ...], rows: list[tuple]) -> str | None:
    for i, (name, ft) in enumerate(zip(df.columns, fts, strict=True)):
        if not ft.optional and any(r[i] is None for r in rows):
            return f"null in column {name!r}, which is not Optional"
    return None


def fake_call(algo: Dataflow, *args: Any) -> Any:
    from pyspark.sql import DataFrame

    kind = kind_of(algo)
    if kind == "scalar":
        return _fake_scalar(algo, args)
    df = next(a for a in args if isinstance(a, DataFrame))
    scalars = [a for a in args if not isinstance(a, DataFrame)]
    spark = df.sparkSession
    rows = collect(df)
    try:
        problem = _nulls(df, row_types(algo), rows)
        if problem:
            raise ValueError(problem)
        result = run_reference(algo, rows, scalars)
    except Exception as e:  # noqa: BLE001 - becomes a failing plan
        names = [algo.name] if kind == "aggregate" else list(algo.columns or ["_1"])
        return _failing(spark, names, f"{type(e).__name__}: {e}")
    if kind == "aggregate":
        return _frame(spark, [algo.name], [(result,)])
    width = len(result[0]) if result else _yield_width(algo)
    names = list(algo.columns) if algo.columns else [f"_{i}" for i in range(1, width + 1)]
    return _frame(spark, names, result)


def _yield_width(algo: Dataflow) -> int:
    """The width of the first ``yield`` in the source (for an empty unnamed table)."""
    import ast
    import inspect
    import textwrap

    tree = ast.parse(textwrap.dedent(inspect.getsource(algo.fn)))
    for node in ast.walk(tree):
        if isinstance(node, ast.Yield):
            return len(node.value.elts) if isinstance(node.value, ast.Tuple) else 1
    return 1


def _return_type(algo: Dataflow) -> Any:
    import typing

    from pyspark.sql import types as T

    ann = algo.signature.return_annotation
    if isinstance(ann, str):
        ann = eval(ann, dict(algo.fn.__globals__))  # noqa: S307
    if typing.get_origin(ann) is tuple:
        return T.StructType(
            [
                T.StructField(f"_{i + 1}", harness.spark_type(field_type(a, algo.fn)))
                for i, a in enumerate(typing.get_args(ann))
            ]
        )
    return harness.spark_type(field_type(ann, algo.fn))


def _fake_scalar(algo: Dataflow, cols: tuple) -> Any:
    import sys

    from pyspark import cloudpickle
    from pyspark.sql import functions as F

    rtype = _return_type(algo)
    fn = algo.fn
    # the worker cannot import corpus modules or the tests package by name
    for name in (fn.__module__, __name__, harness.__name__):
        cloudpickle.register_pickle_by_value(sys.modules[name])

    def apply(*a: Any) -> Any:
        return conform(check_int64(fn(*a)), rtype)

    return F.udf(apply, rtype)(*cols)


def pytest_configure(config: Any) -> None:
    """``-p tests.spark.fake_backend``: route every compiled call to the fake."""
    harness.call_algorithm = fake_call
