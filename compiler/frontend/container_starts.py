"""Containers that start with elements: ``seen = {"EUR"}``, ``counts = {"a": 0, "b": 0}``,
``acc = [0]``.

The state (``states/containers.py``) holds what the loops add; the starting elements are
evaluated where Python builds the literal and merged in by every read of the container
(``container_reads.py``): a list's come first (``c_concat``), a set's join the others
(``c_union``), a dict of sums adds them to its sums (``c_merge_sums``: its keys first, in
the literal's order, as Python's dict). Updates that would take a starting element away
(``discard``, ``pop``, ``d[k] = v`` in an ordered loop) and dicts of maxima are diagnosed.
"""

from __future__ import annotations

import libcst as cst

from ..ir.nodes import Apply, Expr, Lit, Prim
from .base import Context
from .env import Env
from .syntax import code_of

__all__ = ["ContainerStartMixin"]

_NOKEY = object()


class ContainerStartMixin(Context):
    """The starting elements of a container literal."""

    def container_init(
        self, target: cst.Name, value: cst.BaseExpression, kind: str, env: Env
    ) -> Expr | None:
        """The starting elements of ``{"EUR"}`` / ``{"a": 0, "b": 0}`` / ``[0]`` as a list (a
        dict's as its ``(key, value)`` items), or None when the container starts empty."""
        sp = self.span(value)
        if isinstance(value, (cst.List, cst.Set)) and value.elements:
            if any(isinstance(e, cst.StarredElement) for e in value.elements):
                raise self.error(value, "starred elements in a starting container are not "
                                 "supported", "list the elements explicitly")  # fmt: skip
            elems = self.exprs([e.value for e in value.elements], env)
            return Apply(Prim("c_list"), tuple(elems), span=sp)
        if isinstance(value, cst.Dict) and value.elements:
            keys = []
            for el in value.elements:
                k = el.key if isinstance(el, cst.DictElement) else None
                lit = self.constant_key(k) if k is not None else _NOKEY
                if lit is _NOKEY or lit in keys:
                    raise self.error(
                        k or el,
                        f"`{target.value}` starts with a key that is not a distinct constant",
                        f"start with distinct constant keys (`{target.value} = {{\"a\": 0}}`), "
                        "or start empty and add the keys in the loop",
                    )
                keys.append(lit)
            vals = self.exprs([el.value for el in value.elements], env)  # type: ignore[union-attr]
            items = tuple(Apply(Prim("tuple"), (Lit(k), v), span=sp) for k, v in zip(keys, vals, strict=True))
            return Apply(Prim("c_list"), items, span=sp)
        if isinstance(value, cst.Call) and value.args:
            raise self.error(
                value,
                f"`{target.value}` starts as a copy of another value",
                f"start with a literal (`{target.value} = [x]`, `{{\"a\": 0}}`) or empty",
            )
        return None

    def constant_key(self, node: cst.BaseExpression) -> object:
        """A dict key written as a constant (a str, int or bool literal), else ``_NOKEY``."""
        import ast

        try:
            v = ast.literal_eval(code_of(node))
        except (ValueError, SyntaxError):
            return _NOKEY
        return v if isinstance(v, (str, int, bool)) else _NOKEY
