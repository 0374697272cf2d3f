"""The fields of a yielded row (a tuple binder or one value) and their types."""

from __future__ import annotations

from typing import Any

from ..analysis import Analysis, Site
from ..ir.nodes import Apply, Expr, Prim, Var
from .container_loops import each_row_types
from .types import Typing, unify

__all__ = ["row_types", "tuple_items"]


def tuple_items(row: Expr, a: Analysis) -> list[Expr]:
    e = row
    while isinstance(e, Var):
        b = a.bound.get(e.name)
        if b is None or b.value is None:
            break
        if isinstance(b.value, Apply) and b.value.fn == Prim("tuple"):
            return list(b.value.args)
        if isinstance(b.value, Var):
            e = b.value
            continue
        break
    return [row]


def row_types(sites: list[Site], a: Analysis, ty: Typing, width: int) -> list[Any]:
    out: list[Any] = ["none"] * width
    for site in sites:
        each_types = each_row_types(site.args[0], a, ty)
        if each_types is not None:
            for i, t in enumerate(each_types[:width]):
                out[i] = unify(out[i], t)
            continue
        for i, x in enumerate(tuple_items(site.args[0], a)):
            out[i] = unify(out[i], ty.of(x))
    return out
