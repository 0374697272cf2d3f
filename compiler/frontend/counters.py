"""``collections.Counter``: built from rows, from a local list, or updated in a loop.

Transforms this::

    c = Counter(w for _u, w in g if w)      # over a stream
    for _u, w in g:                         # or updated in a loop
        c[w] += 1
        c.update((w, "x"))

into the loop it means (a dict of sums whose missing keys read 0, ``containers.py``)::

    c = Counter()
    for _u, w in g:
        if w:
            c[w] += 1

and ``c = Counter(words)`` of a local list into the list's counts
(``c_count(words)``: the ``(element, count)`` pairs in first-occurrence order).
After the loop: ``c[k]`` (0 when missing), ``len(c)``, ``k in c``, ``c.items()`` /
``.keys()`` / ``.values()``, and ``c.most_common(k)`` (``c_most_common``: by count,
descending, ties in the dict's insertion order, as CPython).

Insertion order: a Counter filled in an ordered loop (``group_by(..., order_by=)``) has
Python's; filled in an unordered loop, its keys are in ascending order, the order Python
gives when the rows arrive sorted by key (any order is one an unordered loop may see), so
``most_common`` breaks ties by the smaller key.
"""

from __future__ import annotations

import collections

import libcst as cst

from ..ir.nodes import Apply, Expr, Let, Lit, Prim, StateCall
from .container_reads import ContainerReadMixin, CView
from .env import Container, Env, Rows

__all__ = ["CounterMixin"]


class CounterMixin(ContainerReadMixin):
    """``Counter(...)``, ``c.update(...)`` and ``c.most_common(k)``."""

    def is_counter(self, func: cst.BaseExpression, env: Env) -> bool:
        """Does ``func`` name ``collections.Counter`` (``Counter``, ``collections.Counter``)?"""
        if isinstance(func, cst.Name) and func.value not in env.names:
            return self.global_obj(func.value) is collections.Counter
        return (
            isinstance(func, cst.Attribute)
            and isinstance(func.value, cst.Name)
            and func.value.value not in env.names
            and self.global_obj(func.value.value) is collections
            and func.attr.value == "Counter"
        )

    def counter_loop(self, s: cst.CSTNode, env: Env) -> list[cst.CSTNode] | None:
        """``c = Counter(f(x) for x in rows if p(x))`` as ``c = Counter()`` and the loop that
        counts (the comprehension's own nodes, so diagnostics point at the user's code), or
        None when ``s`` is not such an assignment."""
        if not (isinstance(s, cst.Assign) and len(s.targets) == 1
                and isinstance(s.targets[0].target, cst.Name)):  # fmt: skip
            return None
        value = s.value
        if not (isinstance(value, cst.Call) and self.is_counter(value.func, env)
                and len(value.args) == 1 and value.args[0].keyword is None
                and not value.args[0].star):  # fmt: skip
            return None
        arg = value.args[0].value
        if isinstance(arg, cst.Name) and isinstance(env.names.get(arg.value), Rows):
            return None  # rows are tuples: reported as a Counter of rows below
        if not isinstance(arg, (cst.GeneratorExp, cst.ListComp)):
            return None
        comp = arg.for_in
        if comp.inner_for_in is not None or comp.asynchronous:
            return None
        if not (isinstance(comp.iter, (cst.Name, cst.Call)) and self.try_stream(comp.iter, env)):  # type: ignore[attr-defined]
            return None
        name = s.targets[0].target.value
        key = cst.Subscript(cst.Name(name), [cst.SubscriptElement(cst.Index(arg.elt))])
        body: cst.BaseStatement = cst.SimpleStatementLine(
            [cst.AugAssign(key, cst.AddAssign(), cst.Integer("1"))]
        )
        for cond in reversed(comp.ifs):
            body = cst.If(test=cond.test, body=cst.IndentedBlock([body]))
        loop = cst.For(target=comp.target, iter=comp.iter, body=cst.IndentedBlock([body]))
        return [s.with_changes(value=value.with_changes(args=[])), loop]

    def counter_view(self, node: cst.Call, env: Env) -> CView | None:
        """``Counter(xs)`` of a local list (or any container value): its counts."""
        if not (self.is_counter(node.func, env) and len(node.args) == 1
                and node.args[0].keyword is None and not node.args[0].star):  # fmt: skip
            return None
        inner = self.cview(node.args[0].value, env)
        if inner is None:
            return None
        sp = self.span(node)
        e = Apply(Prim("c_count"), (inner.expr,), span=sp)
        return CView(Apply(Prim("c_keys"), (e,), span=sp), False, inner.order, inner.binding,
                     counts=e)

    def most_common_view(self, node: cst.Call, base: CView, env: Env) -> CView:
        """``c.most_common()`` / ``c.most_common(k)`` of a Counter's items."""
        pos = [a for a in node.args if a.keyword is None and not a.star]
        if len(pos) != len(node.args) or len(pos) > 1:
            raise self.error(node, "`most_common` takes one count", "write `c.most_common(3)`")
        k = self.expr(pos[0].value, env) if pos else Lit(None)  # type: ignore[attr-defined]
        e = Apply(Prim("c_most_common"), (base.expr, k), span=self.span(node))
        return CView(e, False, True, base.binding)

    def counter_update(self, node: cst.Call, b: Container, env: Env) -> Expr:
        """``c.update((a, b))`` / ``c.update([a])`` in the loop: one ``c[x] += 1`` per element."""
        arg = node.args[0].value if len(node.args) == 1 and not node.args[0].keyword else None
        if not isinstance(arg, (cst.Tuple, cst.List)) or not arg.elements or any(
            isinstance(e, cst.StarredElement) for e in arg.elements
        ):  # fmt: skip
            raise self.error(
                node,
                f"`{b.var}.update(...)` of this argument is not supported",
                f"count each element in the loop with `{b.var}[x] += 1`, or pass a tuple "
                f"`{b.var}.update((a, b))`",
            )
        self._mutating(b, node, env)  # type: ignore[attr-defined]
        self._mode(b, "sum", node)  # type: ignore[attr-defined]
        xs = self.exprs([e.value for e in arg.elements], env)  # type: ignore[attr-defined]
        sp = self.span(node)
        effs: list[Expr] = []
        for x in xs:
            if env.ordered:
                effs.append(self._ordered(b, "add", (x, Lit(1)), node, env, None))  # type: ignore[attr-defined]
            else:
                effs.append(Apply(StateCall(b.var, "add", span=sp), (x, Lit(1)), span=sp))
        out = effs[-1]
        for e in reversed(effs[:-1]):
            out = Let("_", e, out, span=sp)
        return out
