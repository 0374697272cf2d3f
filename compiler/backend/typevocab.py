"""The vocabulary of the typer: looplift's types as values, their Spark and Python
spellings, and :class:`Typing`, what a typing says of each binder.

Types are small values: ``"int"``, ``"float"``, ``"str"``, ``"bool"``,
``"datetime"``, ``"date"``, ``"none"``, ``"any"``; ``("tuple", (t1, ...))``,
``("list", t)`` and ``("dict", k, v)``. Nullability is tracked beside the type: a
value may be None when it comes from an ``Optional`` field, a reader that can return
None, or an ``if`` with a None branch. Their join is :func:`..primitives.typerules.unify`.

The typer (:mod:`.types`) and the modules whose rules it reads (the forms' type rules
in :mod:`.container_loops`, the container readers in :mod:`.containers`, the host
functions' in :mod:`.host_types`) share this module; none of them imports the typer
for it.

>>> spark_type(("list", ("tuple", ("str", "int"))))
'array<struct<_1: string, _2: bigint>>'
>>> py_type(int)
('int', False)
"""

from __future__ import annotations

import datetime
import inspect
import typing
from dataclasses import dataclass, field
from typing import Any

from ...fieldtypes import FIELD_TYPES
from ..ir.nodes import Expr, Lit, Var

__all__ = ["Type", "Typing", "lit_type", "py_type", "spark_type"]

Type = Any


def spark_type(t: Type) -> str:
    """Spark DDL type of a looplift type (``any`` values travel as double)."""
    if isinstance(t, tuple):
        if t[0] == "list":
            return f"array<{spark_type(t[1])}>"
        if t[0] == "match":
            return "array<string>"  # a match object: its groups
        if t[0] == "dict":
            return f"map<{spark_type(t[1])}, {spark_type(t[2])}>"
        inner = ", ".join(f"_{i + 1}: {spark_type(x)}" for i, x in enumerate(t[1]))
        return f"struct<{inner}>"
    if t == "timedelta":
        return "interval day to second"
    # the runtime's field-type model; values of no known type travel as double
    return FIELD_TYPES[t].spark if t in FIELD_TYPES else "double"


def py_type(annotation: Any) -> tuple[Type, bool]:
    """(type, nullable) from a Python annotation (reader or host function returns)."""
    if annotation is inspect.Signature.empty or annotation is None:
        return ("any", True) if annotation is inspect.Signature.empty else ("none", True)
    if isinstance(annotation, str):
        text = annotation.replace(" ", "")
        nullable = "None" in text or "Optional" in text
        if text.startswith(("list[", "tuple[")):
            return ("any", True)
        for name in ("bool", "int", "float", "str"):
            if text.split("|")[0].removeprefix("Optional[").rstrip("]") == name:
                return name, nullable
        return "any", True
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        rest = [a for a in args if a is not type(None)]
        t, _ = py_type(rest[0]) if len(rest) == 1 else ("any", True)
        return t, True
    if origin is list:
        return ("list", py_type(args[0])[0] if args else "any"), False
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:  # tuple[int, ...]: no fixed width
            return "any", True
        return ("tuple", tuple(py_type(x)[0] for x in args)), False
    if origin is dict:
        kv = [py_type(x)[0] for x in args] if len(args) == 2 else ["any", "any"]
        return ("dict", kv[0], kv[1]), False
    table = {
        bool: "bool",
        int: "int",
        float: "float",
        str: "str",
        datetime.datetime: "datetime",
        datetime.date: "date",
    }
    return table.get(annotation, "any"), False


def lit_type(v: Any) -> Type:
    """The type of a literal value."""
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "float"
    if isinstance(v, str):
        return "str"
    if isinstance(v, datetime.datetime):
        return "datetime"
    if isinstance(v, datetime.date):
        return "date"
    return "any"


@dataclass
class Typing:
    """The type of every binder, and the binders whose value may be None."""

    types: dict[str, Type] = field(default_factory=dict)
    nullable: set[str] = field(default_factory=set)
    # binders holding lists none of whose elements is None (``s.split()``, ``range(n)``): a
    # loop over another list may meet None elements (``[None, "a"]`` from Optional values)
    solid: set[str] = field(default_factory=set)

    def of(self, e: Expr) -> Type:
        if isinstance(e, Var):
            return self.types.get(e.name, "any")
        if isinstance(e, Lit):
            return lit_type(e.value)
        return "any"

    def may_be_null(self, e: Expr) -> bool:
        if isinstance(e, Var):
            return e.name in self.nullable
        return isinstance(e, Lit) and e.value is None
