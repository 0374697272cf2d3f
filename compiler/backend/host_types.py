"""Result types of host functions without a return annotation.

In this order: the annotation, a known library signature (:data:`KNOWN_HOSTS`), what the
function's source returns (:mod:`.host_reader`; an island that yields rows returns their
list), what a DataFrame call saw it return on its first rows (:mod:`.host_probe`); else
None, and the build asks for an annotation.
"""

from __future__ import annotations

import ast
from typing import Any

from ..primitives.typerules import numeric
from .host_annotations import known_type, return_annotation
from .host_probe import probed_host_type
from .host_reader import KNOWN_HOSTS, ItemOf, infer_host_return, reader_for
from .types import host_hook
from .typevocab import Type

__all__ = ["host_type", "island_rows_type"]


@host_hook("host_result")
def host_type(fn: Any, arg_types: list[Type]) -> tuple[Type, bool] | None:
    """(type, nullable) of a host function's result: its annotation, a known library
    signature, what its source returns, what a DataFrame call saw it return on its first
    rows; None when nothing says it (the build asks for an annotation)."""
    said, bare = return_annotation(fn)
    if said is not None and said[0] != "any":
        return said
    ref = f"{getattr(fn, '__module__', '')}:{getattr(fn, '__qualname__', '')}"
    if ref == "builtins:divmod":
        num = numeric(arg_types)
        return ("tuple", (num, num)), False
    if ref in KNOWN_HOSTS:
        return KNOWN_HOSTS[ref], False
    if said is not None:
        return "str", True  # an annotation looplift has no column type for: checked per value
    # no annotation, or a bare tuple / list / dict: what the source returns, else what a
    # DataFrame call saw it return on its first rows (else the build asks for one)
    if getattr(fn, "__looplift_island_rows__", None):
        return island_rows_type(fn, arg_types) or probed_host_type(ref, arg_types)
    got = infer_host_return(fn, arg_types, displays=bare in ("list", "dict"))
    return got or _island_passthrough(fn, arg_types) or probed_host_type(ref, arg_types)


def island_rows_type(fn: Any, arg_types: list[Type]) -> tuple[Type, bool] | None:
    """An island that yields rows returns their list (then its outputs, as
    :func:`_island_passthrough` types them): the rows' type joins the types of what its
    ``yield`` statements (``<list>.append(e)`` in its code; ``__looplift_island_rows__``
    names the list) yield."""
    name = fn.__looplift_island_rows__
    got = reader_for(fn, arg_types, 0)
    if got is None:
        return None
    reader, tree = got
    items: list[tuple[Type, bool] | None] = []
    for c in ast.walk(tree):
        if (isinstance(c, ast.Call) and isinstance(c.func, ast.Attribute)
                and isinstance(c.func.value, ast.Name) and c.func.value.id == name
                and len(c.args) == 1):  # fmt: skip
            t = reader.expr(c.args[0])
            if c.func.attr == "extend":
                t = reader.expr(ItemOf(c.args[0]))
            items.append(t)
    row = reader._either(items) if items else None
    if row is None or not known_type(row[0]):
        return None
    rows: Type = ("list", row[0])
    outs = getattr(fn, "__looplift_island_passthrough__", ())
    if not outs:
        return rows, False
    rest = _island_passthrough(fn, arg_types)
    if rest is None:
        return None
    more = rest[0][1] if len(outs) > 1 else (rest[0],)  # type: ignore[index]
    return ("tuple", (rows, *more)), True


def _island_passthrough(fn: Any, arg_types: list[Type]) -> tuple[Type, bool] | None:
    """A Python island (``frontend/islands.py``) that updates names it also reads returns
    them with the types they came in with (``out = ""`` before ``for w in s.split(): out +=
    w[0]``), or started from (that line taken into the island); a value of another type is
    an error at run time, never a silent conversion."""
    outs = getattr(fn, "__looplift_island_passthrough__", None)
    if not outs or any(i is None or (isinstance(i, int) and i >= len(arg_types)) for i in outs):
        return None
    # an input's index (-1: did it `continue`), or the type of the literal the output
    # started from inside the island (``s = 0`` taken in with the loop)
    types_ = [i if isinstance(i, str) else "bool" if i == -1 else arg_types[i] for i in outs]
    if not all(known_type(t) for t in types_):
        return None
    if len(types_) == 1:
        return types_[0], True
    return ("tuple", tuple(types_)), True
