"""Compiled algorithms in Spark SQL: :func:`register` and :func:`sql`.

``register(spark, *algorithms)`` makes algorithms callable by name:

- from :func:`sql` (the fast path), which parses the query with sqlglot,
  finds the calls and splices each compiled graph into the query between two
  projections, so Spark optimizes across the boundary: a scalar algorithm
  becomes its native expression, an aggregate native aggregate functions
  (plus, for action states, a native ``collect_list`` of the map phase and
  an Arrow function over each group's list, so it shares one Aggregate with
  the query's other aggregates), a table algorithm its generated plan over
  the ``TABLE(...)`` argument;
- from plain ``spark.sql``: scalar algorithms as SQL functions (inlined by
  Spark), aggregates as grouped Arrow UDAFs and table algorithms as Python
  UDTFs running the reference Python. Correct, but opaque to the optimizer.

The machinery is in :mod:`looplift.splice` (parse, checks, splice, registration).
"""

from __future__ import annotations

from typing import Any

from .splice.errors import LoopliftSQLError
from .splice.registration import _REGISTRY, register, registered
from .splice.splice import Splicer

__all__ = ["LoopliftSQLError", "register", "registered", "spliced_sql", "sql"]


def sql(spark: Any, query: str) -> Any:
    """Run a Spark SQL query in which registered algorithms are spliced in natively.

    Calls of registered algorithms may appear wherever their kind fits: scalar
    algorithms in expressions, aggregates where an aggregate function may go
    (with or without ``GROUP BY``, in ``HAVING`` and ``ORDER BY``), table
    algorithms in ``FROM`` as ``name(TABLE(t))`` or ``name(TABLE(SELECT ...))``.
    Scalar parameters take literals (or constant expressions).
    """
    splicer = Splicer(spark, _REGISTRY.get(spark, {}), query)
    try:
        return splicer.run()
    finally:
        splicer.drop_views()


def spliced_sql(spark: Any, query: str) -> str:
    """The Spark SQL :func:`sql` runs for ``query`` (for display: a table call's plan is a
    temporary view, dropped again)."""
    splicer = Splicer(spark, _REGISTRY.get(spark, {}), query)
    try:
        return splicer.spliced()[0]
    finally:
        splicer.drop_views()
