"""A local list used as a value after the loop that fills it: ``lst.sort(key=...,
reverse=...)`` (from there on the name is the sorted list, in Python's order) and a list
passed to a host function (a Python list).

Transforms this::

    vals.sort(reverse=True)
    med = median(vals)

into::

    let vals_sorted = c_sorted(vals#value(), True) in
    let med = median(vals_sorted) in ...
"""

from __future__ import annotations

import libcst as cst

from ..ir.nodes import Apply, Builtin, Expr, Let, Lit, Prim, Var
from .container_reads import ContainerReadMixin, CView, ListValue
from .env import Container, Env

__all__ = ["ListValueMixin"]


class ListValueMixin(ContainerReadMixin):
    """``lst.sort(...)`` and lists passed to host functions."""

    def container_sort(self, node: cst.Call, env: Env, rest) -> Expr | None:  # noqa: ANN001
        """``lst.sort()`` / ``lst.sort(key=..., reverse=...)`` of a list accumulator after the
        loop that fills it: from here on ``lst`` is ``sorted(lst, ...)`` (in Python's order),
        or None when ``node`` is not such a call."""
        func = node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "sort"
                and isinstance(func.value, cst.Name)):  # fmt: skip
            return None
        b = env.names.get(func.value.value)
        src = b.source if isinstance(b, ListValue) and b.order and not b.items else b
        if not isinstance(src, Container) or src.ctype != "list":
            return None
        sp = self.span(node)
        if isinstance(b, ListValue):
            view = CView(Var(b.var, span=sp), False, True, src)
        else:
            view = self.container_view(func.value, env, node)
        kws = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        if len(kws) != len(node.args) or set(kws) - {"key", "reverse"}:
            raise self.error(node, "`sort` takes `key=` and `reverse=` only",
                             f"write `{src.var}.sort(key=lambda x: ..., reverse=True)`")  # fmt: skip
        rev = self.expr(kws["reverse"], env) if "reverse" in kws else Lit(False)
        if not isinstance(rev, Lit):
            raise self.error(kws["reverse"], "`reverse=` must be a constant", "write `reverse=True`")
        if "key" in kws:
            key = self.key_function(kws["key"], env)
            e = self._hoisted(Apply(Builtin("sort_by", (("reverse", bool(rev.value)),)),
                                    (view.expr, key), span=sp))  # fmt: skip
        else:
            e = Apply(Prim("c_sorted"), (view.expr, Lit(bool(rev.value))), span=sp)
        name = func.value.value
        var = self.fresh(f"{name}_sorted")
        env2 = env.copy()
        env2.names[name] = ListValue(var, self.span(func.value), depth=env.depth, items=False,
                                     order=True, source=src)  # fmt: skip
        return Let(var, e, rest(env2), span=sp)

    def host_args(self, call: cst.Call, env: Env) -> list[Expr]:
        """A host function's arguments; a local list accumulator among them is passed as
        its value, a Python list. Filled in an unordered loop, the host gets its elements in
        ascending order: the order Python gives when the rows arrive sorted by that element,
        which only one list of a scope may assume (two lists would pair elements of
        different rows)."""
        out = []
        for a in call.args:
            b = env.names.get(a.value.value) if isinstance(a.value, cst.Name) else None
            if not (isinstance(b, Container) and b.ctype == "list") or a.keyword or a.star:
                out.append(a.value)
                continue
            v = self.container_view(a.value, env, call)
            if not v.order:
                other = self.unordered_to_host.setdefault(b.depth, b.var)
                if other != b.var:
                    raise self.error(
                        a.value,
                        f"`{b.var}` and `{other}` are filled in an unordered loop and passed to "
                        "host functions: each would see its elements in a different row order",
                        f"pass `sorted({b.var})`, or fill them in an ordered loop "
                        "(`group_by(..., order_by=i)`)",
                    )
            out.append(v.expr)
        nodes = [x for x in out if isinstance(x, cst.BaseExpression)]
        done = iter(self.call_args(call.with_changes(args=[a for a in call.args if a.value in nodes]),
                                   env) if nodes else [])  # fmt: skip
        return [next(done) if isinstance(x, cst.BaseExpression) else x for x in out]
