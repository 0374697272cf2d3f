"""The one delta normalizer: signed rows, as :meth:`IncrementalView.apply` and
:func:`looplift.streaming.keyed_stream` receive them, checked and brought to the values the
reference sees (the same checks and coercions for a view's batch and a stream's group).

A delta row carries a sign: a ``_sign`` column (+1 insert, −1 delete) or Delta Lake's
change data feed ``_change_type``.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from .fieldtypes import FIELD_TYPES, base_type, is_optional

__all__ = ["CDF", "SIGN", "DeltaError", "DeltaRows", "py_row", "row_hash", "row_hashable",
           "sign_columns", "typed_columns"]

SIGN = "_sign"
CDF = {"insert": 1, "delete": -1, "update_preimage": -1, "update_postimage": 1}
_CDF_META = ("_commit_version", "_commit_timestamp")


class DeltaError(ValueError):
    """A batch that cannot be applied (nothing was applied)."""


def sign_columns(columns: list[str], sign: str = SIGN, row_fields: Sequence[str] = (),
                 name: str = "") -> tuple[str, bool, list[str]]:  # fmt: skip
    """(the sign column, whether it is Delta Lake's ``_change_type``, the data columns);
    ``row_fields``: a named row type's fields, whose data columns are those of their names
    (:func:`looplift.rowtypes.bind_columns`)."""
    if sign in columns and sign != "_change_type":
        return sign, False, _bound([c for c in columns if c != sign], row_fields, name)
    if "_change_type" in columns:
        return "_change_type", True, _bound([c for c in columns
                                             if c not in ("_change_type", *_CDF_META)],
                                            row_fields, name)  # fmt: skip
    raise DeltaError(
        f"a delta needs a `{sign}` column (+1 insert, -1 delete) or Delta Lake's "
        "`_change_type`; got columns " + ", ".join(columns)
    )


def _bound(data: list[str], row_fields: Sequence[str], name: str) -> list[str]:
    if not row_fields:
        return data
    from .rowtypes import bind_columns

    return bind_columns(data, row_fields, name)


def native_sign(df: Any, sign_col: str, cdf: bool) -> Any:
    """The sign of each row as a Spark column of +1 / −1 (``_sign``, or Delta Lake's
    ``_change_type``); any other value raises when the query runs."""
    from pyspark.sql import functions as F

    from .sqltext import quote_ident, sql_string

    s = F.col(quote_ident(sign_col))
    if cdf:
        bad = sql_string(f"looplift: unknown _change_type (expected {', '.join(CDF)})")
        out = F.expr(f"raise_error({bad})").cast("int")
        for kind, v in CDF.items():
            out = F.when(s == F.lit(kind), F.lit(v)).otherwise(out)
        return out
    bad = sql_string(f"looplift: `{sign_col}` must be +1 or -1")
    return F.when(s == 1, F.lit(1)).when(s == -1, F.lit(-1)).otherwise(
        F.expr(f"raise_error({bad})").cast("int"))  # fmt: skip


def typed_columns(df: Any, columns: list[str], fields: tuple[str, ...], name: str) -> list[Any]:
    """The data columns of a delta DataFrame, checked against the RowStream's field types
    (before running) and cast to them (:func:`typed_sql` as columns)."""
    from pyspark.sql import functions as F

    return [F.expr(e).alias(c) for e, c in zip(typed_sql(df, columns, fields, name), columns,
                                                strict=True)]  # fmt: skip


def row_hashable(fields: tuple[str, ...]) -> bool:
    """Whether rows of these field types have a :func:`row_hash` (every field is one of
    the field-type model's scalars)."""
    return all(base_type(t) in FIELD_TYPES for t in fields)


def row_hash(names: list[str], fields: tuple[str, ...]) -> Any:
    """A row's 64-bit identity as a Spark column over the typed columns ``names``
    (:func:`typed_columns`): :func:`row_hash_sql`."""
    from pyspark.sql import functions as F

    from .sqltext import quote_ident

    return F.expr(row_hash_sql([quote_ident(n) for n in names], fields))


def row_hash_sql(values: list[str], fields: tuple[str, ...]) -> str:
    """A row's 64-bit identity in SQL: ``xxhash64`` of its typed values (``values``: SQL
    expressions of the field types, e.g. :func:`typed_sql`'s), the same on every
    executor and the driver.

    Two rows that Python's ``==`` counts as one get the same hash: ``-0.0`` hashes as
    ``0.0`` (and every NaN as one NaN, as ``xxhash64`` does). A null is hashed as a flag
    next to the value, since ``xxhash64`` skips nulls (``(None, 1)`` and ``(1, None)``
    would collide). Distinct rows of one key collide with probability about
    ``n**2 / 2**65`` for ``n`` rows.
    """
    parts = []
    for c, t in zip(values, fields, strict=True):
        if base_type(t) == "float":
            c = f"CASE WHEN {c} = 0 THEN CAST(0.0 AS DOUBLE) ELSE {c} END"
        if is_optional(t):
            parts.append(f"({c}) IS NULL")
        parts.append(c)
    return f"xxhash64({', '.join(parts)})" if parts else "CAST(0 AS BIGINT)"


def typed_sql(df: Any, columns: list[str], fields: tuple[str, ...], name: str) -> list[str]:
    """:func:`typed_columns` as SQL expressions (not aliased): a delta's query is built
    in one ``selectExpr``."""
    from .spark import check_fields
    from .sqltext import quote_ident

    by_name = {f.name: f for f in df.schema.fields}
    check_fields([by_name[c] for c in columns], name, list(fields))  # the schema only
    out = []
    for c, t in zip(columns, fields, strict=True):
        ft, q = FIELD_TYPES.get(base_type(t)), quote_ident(c)
        out.append(f"CAST({q} AS {ft.cast})" if ft is not None else q)
    return out


def py_row(values: tuple, fields: tuple[str, ...]) -> tuple:
    """A row's values as the reference sees them (and as the live rows are keyed)."""
    return tuple(py_value(v, base_type(t)) for v, t in zip(values, fields, strict=True))


def py_value(v: Any, base: str) -> Any:
    """One value of a field of base type ``base`` as the reference sees it."""
    if isinstance(v, datetime.datetime) and v.tzinfo is not None:
        v = v.astimezone(datetime.UTC).replace(tzinfo=None)  # naive UTC, the reference's
    if base == "float" and isinstance(v, int) and not isinstance(v, bool):
        v = float(v)
    elif base == "float" and v == 0.0:
        v = 0.0  # -0.0 == 0.0: one row (rows are stored by their pickled bytes)
    elif base == "int" and isinstance(v, float) and v.is_integer():
        v = int(v)  # a nullable int column comes to pandas as float64
    return v


#: base types whose values need no coercion when they already have this exact type
_EXACT = {"int": int, "str": str, "bool": bool}


@dataclass(frozen=True)
class DeltaRows:
    """Checks and coercions of one algorithm's delta rows.

    ``where`` names the input in messages ("delta", "stream"); ``columns`` are the data
    columns (or field names, for Python rows); ``sign`` the sign column's name.
    """

    name: str  # the algorithm
    fields: tuple[str, ...]
    columns: tuple[str, ...]
    where: str = "delta"
    sign: str = SIGN
    cdf: bool = False

    def sign_of(self, value: Any, row: Any = None) -> int:
        """+1 / −1 of a sign column's value (``_sign``, or a ``_change_type`` name)."""
        if self.cdf and isinstance(value, str):
            if value not in CDF:
                raise DeltaError(f"unknown _change_type {value!r} (expected {', '.join(CDF)})")
            return CDF[value]
        if value in (1, -1) and not isinstance(value, bool):
            return int(value)
        if self.cdf:
            raise DeltaError(f"unknown _change_type (expected {', '.join(CDF)})")
        at = f" (row {row!r})" if row is not None else ""
        raise DeltaError(f"`{self.sign}` must be +1 or -1, got {value!r}{at}")

    def row(self, values: Iterable[Any]) -> tuple:
        """One row's values, checked (arity, nulls) and coerced (:func:`py_row`)."""
        values = tuple(values) if isinstance(values, (tuple, list)) else values
        if not isinstance(values, tuple) or len(values) != len(self.fields):
            raise DeltaError(
                f"`{self.name}` takes rows of {len(self.fields)} fields "
                f"({', '.join(self.fields)}); got {values!r}"
            )
        for i, x in enumerate(values):
            if x is None and not is_optional(self.fields[i]):
                raise DeltaError(
                    f"column {self.columns[i]!r} (field {i}) is null in the {self.where}"
                )
        return py_row(values, self.fields)

    def rows_of_columns(self, columns: list[list[Any]]) -> list[tuple]:
        """:meth:`row` of every row of ``columns`` (one list per field), column by column:
        the same checks and values, without a Python call per value where the column
        already has the field's exact type (an Arrow column of a cast DataFrame)."""
        if len(columns) != len(self.fields):
            raise DeltaError(f"`{self.name}` takes rows of {len(self.fields)} fields")
        out = []
        for i, (col, t) in enumerate(zip(columns, self.fields, strict=True)):
            optional, base = is_optional(t), base_type(t)
            if not optional and None in col:
                raise DeltaError(
                    f"column {self.columns[i]!r} (field {i}) is null in the {self.where}"
                )
            exact = _EXACT.get(base)
            if exact is not None and all(type(v) is exact or v is None for v in col):
                out.append(col)
            else:
                out.append([py_value(v, base) for v in col])
        return list(zip(*out, strict=True))

    def signs_of(self, values: list[Any]) -> list[int]:
        """:meth:`sign_of` of every value (a fast path for a column of +1 / −1 ints)."""
        if all(type(v) is int and (v == 1 or v == -1) for v in values):
            return values
        return [self.sign_of(v) for v in values]

    def signed(self, rows: Iterable[Any], signs: Iterable[Any]) -> tuple[list[tuple], list[int]]:
        """Rows and signs, each checked: the batch as the reference receives it."""
        rows, signs = list(rows), list(signs)
        if len(rows) != len(signs):
            raise DeltaError(f"{len(rows)} rows but {len(signs)} signs")
        out_rows, out_signs = [], []
        for r, s in zip(rows, signs, strict=True):
            out_rows.append(self.row(r))
            out_signs.append(self.sign_of(s, r))
        return out_rows, out_signs
