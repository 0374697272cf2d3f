"""Named rows: a ``typing.NamedTuple`` (or a ``@dataclass``) as the row type of a
``RowStream`` (SPEC §2 "Parameters").

``RowStream[Click]`` is a stream of ``Click`` rows whose fields bind to DataFrame and
SQL columns by name. The compiler and the runtime read a row class the same way:

>>> from typing import NamedTuple, Optional
>>> class Click(NamedTuple):
...     user_id: int
...     page: Optional[str]
>>> row_fields(Click)
(('user_id', 'int'), ('page', 'Optional[str]'))
>>> field_index(Click._fields, "page")
1
"""

from __future__ import annotations

import dataclasses
import datetime
import types
import typing
from collections.abc import Sequence
from typing import Any

__all__ = ["is_row_class", "row_class", "field_names", "row_fields", "type_text", "field_index", "as_row",
           "bind_columns"]  # fmt: skip

_SCALARS = {int: "int", float: "float", str: "str", bool: "bool",
            datetime.datetime: "datetime", datetime.date: "date"}  # fmt: skip


def is_row_class(obj: Any) -> bool:
    """A NamedTuple class or a dataclass: a row type with named fields."""
    if not isinstance(obj, type):
        return False
    if issubclass(obj, tuple) and isinstance(getattr(obj, "_fields", None), tuple):
        return True
    return dataclasses.is_dataclass(obj)


def row_class(fields: Sequence[Any] | None) -> type | None:
    """The row class of ``RowStream[Click]``'s fields (``(Click,)``), else None."""
    if fields is not None and len(fields) == 1 and is_row_class(fields[0]):
        return fields[0]
    return None


def field_names(cls: type) -> tuple[str, ...]:
    if dataclasses.is_dataclass(cls):
        return tuple(f.name for f in dataclasses.fields(cls))
    return tuple(cls._fields)  # type: ignore[attr-defined]


def row_fields(cls: type) -> tuple[tuple[str, str | None], ...]:
    """(name, field type text) of each field in order; the type is None where it is not a
    field type (``int``, ``float``, ``str``, ``bool``, ``datetime.datetime``,
    ``datetime.date``, ``Optional[...]`` of those)."""
    try:
        hints = typing.get_type_hints(cls)
    except Exception:  # noqa: BLE001 - some annotation does not resolve: field by field
        hints = _field_hints(cls)
    return tuple((n, type_text(hints.get(n))) for n in field_names(cls))


def _field_hints(cls: type) -> dict[str, Any]:
    """Each field's annotation evaluated on its own (strings, as under ``from __future__
    import annotations``, in the class's module with ``typing``'s names); a field whose
    annotation does not resolve is left out (not a field type)."""
    import sys

    module = vars(sys.modules[cls.__module__]) if cls.__module__ in sys.modules else {}
    names = {**vars(typing), "datetime": datetime, **module}
    out = {}
    for klass in reversed(cls.__mro__):
        for n, ann in getattr(klass, "__annotations__", {}).items():
            if isinstance(ann, typing.ForwardRef):
                ann = ann.__forward_arg__
            try:
                out[n] = eval(ann, names) if isinstance(ann, str) else ann  # noqa: S307 - the user's annotation
            except Exception:  # noqa: BLE001, S112 - unresolvable: not a field type
                continue
    return out


def type_text(t: Any) -> str | None:
    """``int``, ``Optional[str]``, ... of a type annotation's value, None if unsupported."""
    if t in _SCALARS:
        return _SCALARS[t]
    origin = typing.get_origin(t)
    if origin is typing.Union or origin is types.UnionType:
        args = [a for a in typing.get_args(t) if a is not type(None)]
        if len(args) == 1 and len(typing.get_args(t)) == 2 and args[0] in _SCALARS:
            return f"Optional[{_SCALARS[args[0]]}]"
    return None


def field_index(names: Sequence[str], key: Any) -> Any:
    """A field given by name → its index (an int, or a negated int, as it is)."""
    if isinstance(key, str):
        try:
            return list(names).index(key)
        except ValueError:
            raise KeyError(f"row has no field {key!r}; its fields are {', '.join(names)}") from None
    return key


def as_row(cls: type, value: Any) -> Any:
    """A row of ``cls`` from a plain tuple (or the row itself)."""
    if isinstance(value, cls):
        return value
    return cls(*value)


def bind_columns(columns: Sequence[str], fields: Sequence[str], name: str) -> list[str]:
    """The column bound to each field, by name: an exact match first, then the one column
    equal to it ignoring case (Spark's default resolution); a missing or ambiguous field
    raises naming it and the available columns."""
    from .spark import DataflowInputError

    out = []
    for f in fields:
        if f in columns:
            out.append(f)
            continue
        near = [c for c in columns if c.lower() == f.lower()]
        if len(near) == 1:
            out.append(near[0])
            continue
        have = ", ".join(columns) or "none"
        if near:
            raise DataflowInputError(
                f"field {f!r} of `{name}` matches several columns ignoring case "
                f"({', '.join(near)}); rename all but one"
            )
        raise DataflowInputError(
            f"`{name}` needs a column {f!r} (field {f!r}) but the input has none; "
            f"its columns are: {have}"
        )
    return out
