"""Lists computed per row, iterated like a container's values: ``s.split()``,
``re.findall(p, s)``, ``range(a, b, step)``, ``itertools.combinations(xs, k)``,
``permutations(xs, k)``, ``product(xs, ys)`` and ``hop(ts, size=..., slide=...)``.

Transforms this::

    for w in s.split():
        n += 1

into a fold over the array the call computes (``container_loops.py``), and
``[w.lower() for w in s.split(",") if w]`` into an ``each`` over it; in a table algorithm
a ``yield`` per element explodes the array into rows, in list order. The list's
elements come from the table of primitives (``str.split``, ``re.findall``, ``c_range``,
``c_combinations`` ...), whose entries say where the native lowering is exact; the
loops and comprehensions over them are Spark's higher-order functions.

A loop over such a list inside a loop over rows that only reduces locals of the outer
loop (``for w in s.split(): if w not in STOP: n += 1``; ``m = max(m, e)``) reduces the
inner loop first (:meth:`ValueListMixin.inner_sums`)::

    _sum_n = 0
    for w in s.split():
        if w not in STOP:
            _sum_n += 1
    n += _sum_n

and inside a loop over rows in order it may update them in any way, through copies
(:meth:`ValueListMixin.inner_copies`). ``s.split()`` and ``re.findall`` are lists only
where iterated (``for``, comprehensions, ``sorted``/``set``/``enumerate``/``zip`` ...):
elsewhere they keep their string lowering (``s.split(",")[0]``).
"""

from __future__ import annotations

import itertools
import re

import libcst as cst
from looplift import windows

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
        if fn is windows.hop:  # the window starts of a time (frontend/windows.py)
            return CView(self.expr(node, env), False, True, src)  # type: ignore[attr-defined]
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
            if self.global_obj(mod) is windows:  # `W.hop(...)` of `from looplift import windows as W`
                return getattr(windows, func.attr.value, None)
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
    def inner_copies(self, s: cst.For, carried: list[str], env: Env) -> list[cst.CSTNode]:
        """A loop over a per-row list inside a loop over rows in order, updating locals
        that loop carries in any way: the list's loop folds over copies of them, which
        are copied back after it (the enclosing loop is an ordered fold already)::

            _in_last = last
            for w in t.split():
                if w != _in_last: ...
                _in_last = w
            last = _in_last
        """
        return _copies(self, s, carried, env)

    def inner_sums(self, s: cst.For, env: Env) -> list[cst.CSTNode] | None:
        """A loop over a per-row list whose body only reduces locals carried by the
        enclosing loop (``n += e``, ``n -= e``, ``m = max(m, e)``, ``m = min(m, e)``; not
        read otherwise): statements reducing the body into fresh locals, then the carried
        ones by those (a max only when the list gave one). None otherwise."""
        body = list(s.body.body)
        module = cst.Module(body=body)
        carried: set[str] = set()
        for n in walk(module):
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
        kind: dict[str, str] = {}  # carried name -> "sum" | "max" | "min"
        uses = 0  # the carried names' occurrences the reductions account for
        for n in walk(module):
            if isinstance(n, cst.AugAssign) and isinstance(n.target, cst.Name) and (
                n.target.value in carried
            ):
                if not isinstance(n.operator, (cst.AddAssign, cst.SubtractAssign)):
                    return None
                if kind.setdefault(n.target.value, "sum") != "sum":
                    return None
                uses += 1
            elif isinstance(n, cst.Assign) and any(
                isinstance(t.target, cst.Name) and t.target.value in carried for t in n.targets
            ):
                f = _extreme(n)
                if f is None or kind.setdefault(f[0], f[1]) != f[1]:
                    return None
                uses += 2
        if set(kind) != carried:
            return None
        reads = [n for n in walk(module) if isinstance(n, cst.Name) and n.value in carried]
        if len(reads) != uses:  # read elsewhere than in its own reduction
            return None
        part = {c: self.hidden_name(f"{kind[c]}_{c}", env) for c in sorted(carried)}
        seen = {c: self.hidden_name(f"seen_{c}", env) for c in carried if kind[c] != "sum"}
        renamed = [b.visit(_Reduce(part, seen)) for b in body]
        self.origin_tree(renamed, s)
        loop = self.origin(s.with_changes(body=block(renamed)), s)
        before: list[cst.CSTNode] = [_assign(p, cst.Integer("0")) for p in part.values()]
        before += [_assign(v, cst.Name("False")) for v in seen.values()]
        after: list[cst.CSTNode] = []
        for c, p in part.items():
            if kind[c] == "sum":
                after.append(cst.AugAssign(cst.Name(c), cst.AddAssign(), cst.Name(p)))
            else:
                upd = _assign(c, _call(kind[c], cst.Name(c), cst.Name(p)))
                after.append(cst.If(test=cst.Name(seen[c]), body=block([upd])))
        out = [*before, loop, *after]
        self.origin_tree(out, s)
        return [self.origin(x, s) for x in out]


def _copies(self: ValueListMixin, s: cst.For, carried: list[str], env: Env) -> list[cst.CSTNode]:
    """The loop updating copies of ``carried``, between copying them in and out."""
    copy = {c: self.hidden_name(f"in_{c}", env) for c in carried}

    class _Rename(cst.CSTTransformer):
        def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
            return updated.with_changes(value=copy[updated.value]) if updated.value in copy else updated

    body = [b.visit(_Rename()) for b in s.body.body]
    loop = s.with_changes(body=block(body))
    out = [*(_assign(v, cst.Name(c)) for c, v in copy.items()), loop,
           *(_assign(c, cst.Name(v)) for c, v in copy.items())]  # fmt: skip
    self.origin_tree(out, s)
    return [self.origin(x, s) for x in out]


def _assign(name: str, value: cst.BaseExpression) -> cst.Assign:
    return cst.Assign([cst.AssignTarget(cst.Name(name))], value)


def _call(fn: str, *args: cst.BaseExpression) -> cst.Call:
    return cst.Call(cst.Name(fn), [cst.Arg(a) for a in args])


def _extreme(n: cst.Assign) -> tuple[str, str] | None:
    """(name, "max"/"min") of ``name = max(name, e)`` (either order), else None."""
    if len(n.targets) != 1 or not isinstance(n.targets[0].target, cst.Name):
        return None
    name = n.targets[0].target.value
    v = n.value
    if not (isinstance(v, cst.Call) and isinstance(v.func, cst.Name)
            and v.func.value in ("max", "min") and len(v.args) == 2
            and all(a.keyword is None and not a.star for a in v.args)):  # fmt: skip
        return None
    if sum(isinstance(a.value, cst.Name) and a.value.value == name for a in v.args) != 1:
        return None
    return name, v.func.value


class _Reduce(cst.CSTTransformer):
    """The body reducing into fresh locals: ``n += e`` → ``_sum_n += e``; ``m = max(m, e)``
    → ``if _seen_m: _max_m = max(_max_m, e)`` else ``_max_m = e; _seen_m = True``."""

    def __init__(self, part: dict[str, str], seen: dict[str, str]):
        self.part, self.seen = part, seen

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine,
                                  updated: cst.SimpleStatementLine) -> cst.BaseStatement:  # fmt: skip
        if len(updated.body) != 1 or not isinstance(updated.body[0], cst.Assign):
            return updated
        got = _extreme(updated.body[0])
        if got is None or got[0] not in self.seen:
            return updated
        name, fn = got
        v = updated.body[0].value
        assert isinstance(v, cst.Call)
        e = next(a.value for a in v.args if not (isinstance(a.value, cst.Name) and a.value.value == name))
        p, seen = self.part[name], self.seen[name]
        return cst.If(test=cst.Name(seen), body=block([_assign(p, _call(fn, cst.Name(p), e))]),
                      orelse=cst.Else(block([_assign(p, e), _assign(seen, cst.Name("True"))])))  # fmt: skip

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.Name:
        if updated.value in self.part and updated.value not in self.seen:
            return updated.with_changes(value=self.part[updated.value])
        return updated
