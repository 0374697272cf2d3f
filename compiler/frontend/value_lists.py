"""Lists computed per row, iterated like a container's values: ``s.split()``,
``re.findall(p, s)``, ``range(a, b, step)``, ``itertools.combinations(xs, k)``,
``permutations(xs, k)`` and ``product(xs, ys)``.

Transforms this::

    for w in s.split():
        n += 1

into a fold over the array the call computes (``container_loops.py``), and
``[w.lower() for w in s.split(",") if w]`` into an ``each`` over it; in a table algorithm
a ``yield`` per element explodes the array into rows, in list order. The list's
elements come from the table of primitives (``str.split``, ``re.findall``, ``c_range``,
``c_combinations`` ...), whose entries say where the native lowering is exact; the
loops and comprehensions over them are Spark's higher-order functions.

A loop over such a list inside a loop over rows that only adds to a local of the outer
loop (``for w in s.split(): if w not in STOP: n += 1``) adds the sum of the inner loop
instead (:meth:`ValueListMixin.inner_sums`)::

    _sum_n = 0
    for w in s.split():
        if w not in STOP:
            _sum_n += 1
    n += _sum_n
"""

from __future__ import annotations

import itertools
import re

import libcst as cst

from ..ir.nodes import Apply, Expr, Lit, Prim
from .container_reads import ContainerReadMixin, CView
from .env import Carry, Env, Value
from .jumps import block
from .syntax import code_of, walk

__all__ = ["ValueListMixin"]

_SPLITS = ("split", "rsplit", "splitlines")
_COMBINATORICS = {
    itertools.combinations: "c_combinations",
    itertools.permutations: "c_permutations",
    itertools.product: "c_product",
}
_MAX_K = 4  # combinations of more elements: nested loops the plan spells out


class ValueListMixin(ContainerReadMixin):
    """Calls whose value is a list computed per row, as container views."""

    def iterated(self, node: cst.BaseExpression, env: Env) -> CView | None:
        """What a ``for`` or a comprehension iterates when it is no container: a per-row
        list (:meth:`value_list`), ``s.split()``, ``re.findall(...)``, or a local bound to
        a value (the typer checks that it is a list), and slices of those."""
        got = self.value_list(node, env, iterating=True)
        if got is not None:
            return got
        sp = self.span(node)
        if isinstance(node, cst.Name) and type(env.names.get(node.value)) is Value:
            return CView(self.expr(node, env), False, True, Value(node.value, sp))  # type: ignore[attr-defined]
        if (
            isinstance(node, cst.Subscript)
            and len(node.slice) == 1
            and isinstance(node.slice[0].slice, cst.Slice)
            and self.iterated(node.value, env) is not None
        ):  # `ws[1:]`: a slice of the list
            return CView(self.expr(node, env), False, True, Value(code_of(node), sp))  # type: ignore[attr-defined]
        return None

    def value_list(self, node: cst.BaseExpression, env: Env, iterating: bool = False) -> CView | None:
        """``node`` as a per-row list (a :class:`CView` in Python's order), or None.
        ``s.split()`` and ``re.findall(...)`` count only where iterated (``iterating``):
        elsewhere they are values of the string table (``s.split(",")[0]``)."""
        if not isinstance(node, cst.Call):
            return None
        func = node.func
        sp = self.span(node)
        src = Value(code_of(node), sp)
        if isinstance(func, cst.Attribute) and iterating:
            meth = func.attr.value
            recv = func.value
            if meth in _SPLITS and not self._is_container_name(recv, env):
                return CView(self.expr(node, env), False, True, src)  # type: ignore[attr-defined]
            if meth in ("findall", "split") and self._is_re(recv, env):
                return CView(self.expr(node, env), False, True, src)  # type: ignore[attr-defined]
        fn = self._callee(func, env)
        if fn is range:
            pos = [a.value for a in node.args if a.keyword is None and not a.star]
            if not 1 <= len(pos) == len(node.args) <= 3:
                return None
            args = tuple(self.expr(a, env) for a in pos)  # type: ignore[attr-defined]
            return CView(Apply(Prim("c_range"), args, span=sp), False, True, src)
        op = _COMBINATORICS.get(fn)  # type: ignore[call-overload]
        if op is not None:
            return self._combinatorics(node, op, env, src)
        return None

    def _combinatorics(self, node: cst.Call, op: str, env: Env, src: Value) -> CView | None:
        """``combinations(xs, k)`` / ``permutations(xs, k)`` of a constant ``k``, and
        ``product(xs, ys, ...)``: lists of tuples in itertools' order."""
        pos = [a.value for a in node.args if a.keyword is None and not a.star]
        if len(pos) != len(node.args):
            return None
        if op == "c_product":
            if not 1 <= len(pos) <= _MAX_K:
                return None
            views = [self.loop_view(p, env) or self.iterated(p, env) for p in pos]  # type: ignore[attr-defined]
        else:
            if len(pos) != 2:
                return None
            k = self.expr(pos[1], env)  # type: ignore[attr-defined]
            if not (isinstance(k, Lit) and type(k.value) is int and 1 <= k.value <= _MAX_K):
                raise self.error(
                    pos[1],
                    f"`{code_of(node.func)}` of a computed or large `r` is not supported",
                    f"give `r` as a constant from 1 to {_MAX_K}",
                )
            views = [self.loop_view(pos[0], env) or self.iterated(pos[0], env)]  # type: ignore[attr-defined]
        if any(v is None for v in views):
            return None
        for v in views:
            self._need_order(v, node)  # type: ignore[arg-type]
        args: tuple[Expr, ...] = tuple(v.expr for v in views if v is not None)
        if op != "c_product":
            args += (k,)
        return CView(Apply(Prim(op), args, span=self.span(node)), False, True, src)

    def _callee(self, func: cst.BaseExpression, env: Env) -> object:
        """The module-level object a call's function names (``range``, ``combinations``,
        ``itertools.combinations``), or None when a local shadows it."""
        if isinstance(func, cst.Name):
            if func.value in env.names or func.value in env.loop_locals:
                return None
            return self.global_obj(func.value)
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
            mod = func.value.value
            if mod in env.names or mod in env.loop_locals:
                return None
            if self.global_obj(mod) is itertools:
                return getattr(itertools, func.attr.value, None)
        return None

    def _is_re(self, recv: cst.BaseExpression, env: Env) -> bool:
        if not isinstance(recv, cst.Name) or recv.value in env.names:
            return False
        obj = self.global_obj(recv.value)
        return obj is re or isinstance(obj, re.Pattern)

    def _is_container_name(self, recv: cst.BaseExpression, env: Env) -> bool:
        from .env import Container

        return isinstance(recv, cst.Name) and isinstance(env.names.get(recv.value), Container)

    # -- adding to a local of the enclosing loop over rows ----------------------------------
    def inner_sums(self, s: cst.For, env: Env) -> list[cst.CSTNode] | None:
        """A loop over a per-row list whose body only adds to locals carried by the
        enclosing loop (``n += e``, ``n -= e``, not read otherwise): statements summing the
        body into fresh locals, then adding those to the carried ones. None otherwise."""
        body = list(s.body.body)
        carried: set[str] = set()
        for n in walk(cst.Module(body=body)):
            targets: list[cst.BaseExpression] = []
            if isinstance(n, cst.Assign):
                targets = [t.target for t in n.targets]
            elif isinstance(n, (cst.AugAssign, cst.AnnAssign)):
                targets = [n.target]
            for t in targets:
                for x in walk(t):
                    if isinstance(x, cst.Name) and isinstance(env.names.get(x.value), Carry):
                        carried.add(x.value)
        if not carried:
            return None
        adds: list[cst.AugAssign] = []
        for n in walk(cst.Module(body=body)):
            if isinstance(n, cst.AugAssign) and isinstance(n.target, cst.Name) and (
                n.target.value in carried
            ):
                if not isinstance(n.operator, (cst.AddAssign, cst.SubtractAssign)):
                    return None
                adds.append(n)
        names = {n.target.value for n in adds}  # type: ignore[union-attr]
        if names != carried:
            return None
        reads = [n for n in walk(cst.Module(body=body)) if isinstance(n, cst.Name) and n.value in carried]
        if len(reads) != len(adds):  # read elsewhere than as the target of its `+=`
            return None
        part = {c: self.hidden_name(f"sum_{c}", env) for c in sorted(carried)}

        class _Rename(cst.CSTTransformer):
            def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
                return updated.with_changes(value=part[updated.value]) if updated.value in part else updated

        renamed = [b.visit(_Rename()) for b in body]
        self.origin_tree(renamed, s)
        loop = self.origin(s.with_changes(body=block(renamed)), s)
        before = [self.origin(cst.Assign([cst.AssignTarget(cst.Name(p))], cst.Integer("0")), s)
                  for p in part.values()]  # fmt: skip
        after = [self.origin(cst.AugAssign(cst.Name(c), cst.AddAssign(), cst.Name(p)), s)
                 for c, p in part.items()]  # fmt: skip
        return [*before, loop, *after]
