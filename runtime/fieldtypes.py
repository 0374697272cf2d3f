"""The one field-type model: a RowStream field / scalar parameter type (``int``,
``Optional[float]``, ...) and its Spark SQL counterpart.

>>> FIELD_TYPES["int"].cast, base_type("Optional[str]"), is_optional("Optional[str]")
('BIGINT', 'str', True)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["FIELD_TYPES", "FieldType", "base_type", "is_optional", "spark_cast"]


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


@dataclass(frozen=True)
class FieldType:
    name: str  # the Python annotation: int, float, ...
    cast: str  # the Spark SQL type values are cast to (CAST(x AS BIGINT))
    accepts: frozenset[str]  # Spark types (simpleString) a column or argument may have
    zero: Any  # a value of the type (probing a plan's schema)
    check: Callable[[Any], bool] | None  # is a Python value of the type (None: unchecked)
    sql_zero: str | None  # a SQL literal of the cast type (an operand never reached)

    @property
    def spark(self) -> str:
        """The Spark simple type name (``bigint``)."""
        return self.cast.lower()


_INTS = frozenset({"bigint", "int", "smallint", "tinyint"})

FIELD_TYPES: dict[str, FieldType] = {
    t.name: t
    for t in (
        FieldType("int", "BIGINT", _INTS, 0, _is_int, "0L"),
        FieldType("float", "DOUBLE", _INTS | {"double", "float"}, 0.0,
                  lambda v: isinstance(v, (int, float)) and not isinstance(v, bool), "0D"),
        FieldType("str", "STRING", frozenset({"string"}), "", lambda v: isinstance(v, str), "''"),
        FieldType("bool", "BOOLEAN", frozenset({"boolean"}), False,
                  lambda v: isinstance(v, bool), "false"),
        # (no literal: `TIMESTAMP` is either kind, by spark.sql.timestampType)
        FieldType("datetime", "TIMESTAMP", frozenset({"timestamp", "timestamp_ntz"}), None, None,
                  None),
        FieldType("date", "DATE", frozenset({"date"}), None, None, "DATE'1970-01-01'"),
    )
}  # fmt: skip


def is_optional(t: str) -> bool:
    return t.startswith("Optional[")


def base_type(t: str) -> str:
    """``int`` of ``Optional[int]``."""
    return t[len("Optional[") : -1] if is_optional(t) else t


def spark_cast(t: str, default: str = "DOUBLE") -> str:
    """The Spark SQL type of a field type (``default`` for types outside the model)."""
    ft = FIELD_TYPES.get(base_type(t))
    return ft.cast if ft is not None else default
