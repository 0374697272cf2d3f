"""Small DataFrames for tests, built without Spark's Python workers.

``spark.createDataFrame(list_of_tuples, schema)`` in classic PySpark parallelizes the
rows and re-pickles them through a ``map`` over the RDD, so every task of every query
reading the frame starts (or waits for) a Python worker: about a third of a small
query's time, and much more when the two test processes compete for the two cores.
Built from an Arrow table, the rows reach the JVM as Arrow batches and no Python worker
runs. Values and schema (nullability included) come out the same; anything Arrow
cannot hold exactly (a lone surrogate in a string, an int beyond the column's type,
nested types) falls back to ``createDataFrame`` on the list, which also raises what
Spark raises for bad values.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["create_frame"]


def _arrow_type(dtype: Any) -> Any:
    import pyarrow as pa
    from pyspark.sql import types as T

    return {
        T.LongType: pa.int64(),
        T.IntegerType: pa.int32(),
        T.DoubleType: pa.float64(),
        T.StringType: pa.string(),
        T.BooleanType: pa.bool_(),
        T.TimestampType: pa.timestamp("us", tz="UTC"),
        T.DateType: pa.date32(),
    }.get(type(dtype))


def create_frame(spark: Any, data: Sequence[Sequence[Any]], schema: Any) -> Any:
    """``spark.createDataFrame(data, schema)`` for a ``StructType`` or DDL schema, through
    Arrow where it holds the values exactly."""
    import pyarrow as pa
    from pyspark.sql import types as T

    data = list(data)
    if type(spark).__module__.startswith("pyspark.sql.connect"):
        return spark.createDataFrame(data, schema)
    if isinstance(schema, str):  # a DDL string: every column nullable, as Spark makes it
        schema = T.StructType.fromDDL(schema)
    fields = schema.fields
    types = [_arrow_type(f.dataType) for f in fields]
    if any(t is None for t in types) or any(len(r) != len(fields) for r in data):
        return spark.createDataFrame(data, schema)
    columns = []
    for i, (f, t) in enumerate(zip(fields, types, strict=True)):
        values = [r[i] for r in data]
        if not f.nullable and any(v is None for v in values):
            return spark.createDataFrame(data, schema)  # Spark's own error
        if t == pa.bool_() and any(v is not None and type(v) is not bool for v in values):
            return spark.createDataFrame(data, schema)
        if t in (pa.int64(), pa.int32()) and any(type(v) is bool for v in values):
            return spark.createDataFrame(data, schema)
        try:
            columns.append(pa.array(values, type=t, from_pandas=False))
        except (pa.ArrowException, UnicodeError, TypeError, ValueError, OverflowError):
            return spark.createDataFrame(data, schema)
    table = pa.Table.from_arrays(columns, names=[f.name for f in fields])
    return spark.createDataFrame(table, schema=schema)
