"""Reading local containers after the loop that fills them: ``len``, ``sum``, ``min``/``max``,
``x in c``, ``d[k]``, ``d.get(k, default)``, ``.items()`` / ``.keys()`` / ``.values()``,
``sorted(..., reverse=...)``, ``reversed``, slices and indexing.

A container's value is an ordered list (see ``containers.py``); a :class:`CView` is
an expression over it plus what the elements are and whether their order is
the one Python would see (it is not for a list filled in an unordered loop until
it is sorted).
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from ..ir.nodes import Apply, Builtin, Expr, Lambda, Let, Lit, Prim, StateCall, Var
from .base import Context
from .env import Container, Env, Value
from .syntax import code_of, if_expr, is_name, walk

__all__ = ["ContainerReadMixin", "CView", "ListValue"]


@dataclass(frozen=True)
class ListValue(Value):
    """A local bound to a container expression (``top = sorted(vals)[:3]``)."""

    items: bool = False
    order: bool = False
    source: Container | None = None
    counter: bool = False  # a Counter of a list's elements: a missing key reads 0


@dataclass(frozen=True)
class CView:
    """A container-valued expression: its IR (an ordered list), what its elements are,
    and whether their order is Python's (after ``sorted``) or unknown (rows' order)."""

    expr: Expr
    items: bool  # elements are (key, value) pairs of a dict
    order: bool  # element order is the one Python would see
    binding: Container
    # a ``Counter(...)`` of a container's values: ``expr`` its keys (what iterating it
    # gives), ``counts`` its (key, count) items
    counts: Expr | None = None


class ContainerReadMixin(Context):
    """Container-valued expressions and the values read from them."""

    # -- reading ----------------------------------------------------------------------
    def container_view(
        self, node: cst.BaseExpression, env: Env, at: cst.CSTNode | None = None
    ) -> CView:
        """The value of a container name, read where order does not matter: after the loop
        that fills it (or anywhere in an ordered loop)."""
        assert isinstance(node, cst.Name)
        b = env.names[node.value]
        assert isinstance(b, Container)
        ordered = bool(self.ordered_containers.get(b.var))
        filling = env.depth > b.depth and self._filled_in_open_loop(b.var, b.depth)
        if filling and env.ordered:  # read before the loop's first update of it: row order
            ordered = True
        if filling and not env.ordered:
            raise self.error(
                at or node,
                f"`{b.var}` is read inside the loop that fills it; in an unordered loop what it "
                "holds at a given row depends on the order rows arrive",
                f"read it after the loop (`len({b.var})` counts what it holds), or iterate the "
                "rows in order with `group_by(..., order_by=i)`",
            )
        value = Apply(StateCall(b.var, "value", span=self.span(node)), (), span=self.span(node))
        if b.init is not None:  # the starting elements and what the loops added
            merge = {"list": "c_concat", "set": "c_union", "dict": "c_merge_sums"}[b.ctype]
            value = Apply(Prim(merge), (Var(b.init), value), span=self.span(node))
        # filled in row order: a list's / dict's order is Python's (a set's never is)
        return CView(value, b.ctype == "dict", ordered and b.ctype != "set", b)

    def _filled_in_open_loop(self, name: str, depth: int) -> bool:
        """Is ``name`` updated in one of the loops being translated inside its scope
        (``depth``: where it was created), so read while it is being filled?"""
        for loop in self.open_loops[depth:]:
            for n in walk(loop.body):
                targets = []
                if isinstance(n, cst.Assign):
                    targets = [t.target for t in n.targets]
                elif isinstance(n, cst.AugAssign):
                    targets = [n.target]
                if any(isinstance(t, cst.Subscript) and is_name(t.value, name) for t in targets):
                    return True
                if (
                    isinstance(n, cst.Call)
                    and isinstance(n.func, cst.Attribute)
                    and is_name(n.func.value, name)
                    and n.func.attr.value in ("append", "add", "setdefault", "pop", "discard")
                ):
                    return True
        return False

    def cview(self, node: cst.BaseExpression, env: Env) -> CView | None:
        """``node`` as a container-valued expression, or None when it is not one:
        a container name, ``d.items()`` / ``.keys()`` / ``.values()``, ``sorted(...)``,
        ``reversed(...)``, ``list(...)``, and slices of those."""
        sp = self.span(node)
        if isinstance(node, cst.Name):
            lv = env.names.get(node.value)
            if isinstance(lv, ListValue) and lv.source is not None:
                if lv.counter:  # iterating a Counter gives its keys
                    return CView(Apply(Prim("c_keys"), (Var(lv.var, span=sp),), span=sp), False,
                                 lv.order, lv.source, counts=Var(lv.var, span=sp))  # fmt: skip
                return CView(Var(lv.var, span=sp), lv.items, lv.order, lv.source)
            if isinstance(env.names.get(node.value), Container):
                v = self.container_view(node, env)
                if v.items:  # iterating a dict gives its keys
                    return CView(
                        Apply(Prim("c_keys"), (v.expr,), span=sp), False, v.order, v.binding
                    )
                return v
            return None
        host = self.host_list(node, env)
        if host is not None:
            return host
        per_row = self.value_list(node, env)
        if per_row is not None:  # `s.split()`, `range(n)`, `combinations(xs, 2)` ...
            return per_row
        if isinstance(node, cst.Call) and (counted := self.counter_view(node, env)) is not None:
            return counted  # Counter(xs) of a local list
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            base = node.func.value
            meth = node.func.attr.value
            lv = env.names.get(base.value) if isinstance(base, cst.Name) else None
            if meth == "most_common":  # of a Counter: a dict accumulator or Counter(xs)
                if isinstance(lv, Container) and lv.var in self.counter_names:
                    return self.most_common_view(node, self.container_view(base, env, node), env)  # type: ignore[attr-defined]
                counted = self.cview(base, env) if isinstance(base, (cst.Name, cst.Call)) else None
                if counted is not None and counted.counts is not None:
                    items = CView(counted.counts, True, counted.order, counted.binding)
                    return self.most_common_view(node, items, env)  # type: ignore[attr-defined]
                return None
            counted = None
            if meth in ("items", "keys", "values") and (
                (isinstance(lv, ListValue) and lv.counter) or isinstance(base, cst.Call)
            ):  # of a Counter(xs)
                counted = self.cview(base, env)
            if counted is not None and counted.counts is not None:
                if node.args:
                    raise self.error(node, f"`{meth}()` takes no arguments", f"write `.{meth}()`")
                if meth == "items":
                    return CView(counted.counts, True, counted.order, counted.binding)
                op = "c_keys" if meth == "keys" else "c_values"
                return CView(Apply(Prim(op), (counted.counts,), span=sp), False, counted.order,
                             counted.binding)  # fmt: skip
            if (
                isinstance(base, cst.Name)
                and isinstance(env.names.get(base.value), Container)
                and meth in ("items", "keys", "values")
            ):
                v = self.container_view(base, env, node)
                if not v.items:
                    raise self.error(
                        node, f"`{base.value}` is not a dict", f"iterate `{base.value}` itself"
                    )
                if node.args:
                    raise self.error(node, f"`{meth}()` takes no arguments", f"write `.{meth}()`")
                if meth == "items":
                    return CView(v.expr, True, v.order, v.binding)
                op = "c_keys" if meth == "keys" else "c_values"
                return CView(Apply(Prim(op), (v.expr,), span=sp), False, v.order, v.binding)
            return None
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
            fname = node.func.value
            if fname not in ("sorted", "reversed", "list", "tuple", "set") or fname in env.names:
                return None
            pos = [a for a in node.args if a.keyword is None]
            if len(pos) != 1 or pos[0].star:
                return None
            inner = self.cview(pos[0].value, env) or self.iterated(pos[0].value, env)
            if inner is None:  # `sorted(s.split())`: they iterate their argument
                return None
            kws = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
            if fname in ("list", "tuple"):
                return inner
            if fname == "set":  # distinct elements, in no order Python defines
                e = Apply(Prim("c_distinct"), (inner.expr,), span=sp)
                return CView(e, inner.items, False, inner.binding)
            if fname == "reversed":
                self._need_order(inner, node)
                return CView(Apply(Prim("c_reversed"), (inner.expr,), span=sp), inner.items, True,
                             inner.binding)  # fmt: skip
            bad = set(kws) - {"reverse", "key"}
            if bad:
                raise self.error(
                    node,
                    f"sorted(..., {bad.pop()}=...) on a container is not supported",
                    "sort with `key=lambda x: ...` and `reverse=True`",
                )
            rev = self.expr(kws["reverse"], env) if "reverse" in kws else Lit(False)
            if not isinstance(rev, Lit):
                raise self.error(
                    kws["reverse"], "`reverse=` must be a constant", "write `reverse=True`"
                )
            if "key" in kws:
                key = self.key_function(kws["key"], env)
                e = Apply(
                    Builtin("sort_by", (("reverse", bool(rev.value)),)), (inner.expr, key), span=sp
                )
                return CView(self._hoisted(e), inner.items, True, inner.binding)
            return CView(Apply(Prim("c_sorted"), (inner.expr, Lit(bool(rev.value))), span=sp),
                         inner.items, True, inner.binding)  # fmt: skip
        if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
            return self._comprehension(node, env)
        if isinstance(node, cst.Subscript) and len(node.slice) == 1:
            sl = node.slice[0].slice
            if isinstance(sl, cst.Slice):
                inner = self.cview(node.value, env)
                if inner is None:
                    return None
                if sl.step is not None:
                    raise self.error(sl, "slices with a step are not supported", "write `x[a:b]`")
                self._need_order(inner, node)
                lo = self.expr(sl.lower, env) if sl.lower is not None else Lit(None)
                hi = self.expr(sl.upper, env) if sl.upper is not None else Lit(None)
                return CView(Apply(Prim("c_slice"), (inner.expr, lo, hi), span=sp), inner.items,
                             True, inner.binding)  # fmt: skip
        return None

    def value_list(self, node: cst.BaseExpression, env: Env, iterating: bool = False) -> CView | None:
        """A list computed per row (``value_lists.py`` fills this in)."""
        return None

    def iterated(self, node: cst.BaseExpression, env: Env) -> CView | None:
        """A per-row list where it is iterated (``value_lists.py`` fills this in)."""
        return None

    def key_function(self, node: cst.BaseExpression, env: Env) -> Lambda:
        """``key=lambda x: expr`` (or ``key=d.get`` of a dict) as an IR lambda of one parameter."""
        if (
            isinstance(node, cst.Attribute)
            and node.attr.value == "get"
            and isinstance(node.value, cst.Name)
            and isinstance(env.names.get(node.value.value), Container)
        ):
            p = self.fresh("key")
            view = self.container_view(node.value, env, node)
            return Lambda(
                (p,), Apply(Prim("c_get"), (view.expr, Var(p), Lit(None))), span=self.span(node)
            )
        node = self.as_lambda(node)
        ps = node.params if isinstance(node, cst.Lambda) else None
        if ps is None or len(ps.params) != 1 or ps.kwonly_params or ps.posonly_params or (
            isinstance(ps.star_arg, cst.Param) or ps.star_kwarg is not None
        ):  # fmt: skip
            raise self.error(
                node,
                f"`key={code_of(node)}` is not supported",
                "write the key as `key=lambda x: ...` of one parameter",
            )
        p = node.params.params[0].name.value
        inner = env.copy()
        inner.names[p] = Value(p, self.span(node.params.params[0]), depth=env.depth + 1)
        body = self.expr(node.body, inner)
        return Lambda((p,), body, span=self.span(node))

    def _comprehension(
        self, node: cst.ListComp | cst.SetComp | cst.GeneratorExp, env: Env
    ) -> CView | None:
        """``[f(x) for x in view if p(x)]``: the values of an ``each`` over the view."""
        comp = node.for_in
        if comp.inner_for_in is not None or comp.asynchronous:
            return None
        inner_view = self.loop_view(comp.iter, env) or self.iterated(comp.iter, env)  # type: ignore[attr-defined]
        if inner_view is None:
            return None
        sp = self.span(node)
        elem = self.fresh("elem")
        inner = env.copy()
        inner.depth = env.depth + 1
        lets = self._bind_target(comp.target, Var(elem), inner)  # type: ignore[attr-defined]
        value = self.expr(node.elt, inner)
        body: Expr = Apply(Prim("c_row"), (value,), span=sp)
        for cond in reversed([self.expr(c.test, inner) for c in comp.ifs]):
            empty = Apply(Prim("c_empty"), (), span=sp)
            body = Apply(Builtin("if"), (cond, Lambda((), body), Lambda((), empty)), span=sp)
        body = Apply(Prim("c_concat"), (body,), span=sp)
        for name, val in reversed(lets):
            body = Let(name, val, body)
        e = self._hoisted(Apply(Builtin("each"), (inner_view.expr, Lambda((elem,), body)), span=sp))
        if isinstance(node, cst.SetComp):
            return CView(Apply(Prim("c_distinct"), (e,), span=sp), False, False, inner_view.binding)
        return CView(e, False, inner_view.order, inner_view.binding)

    def comprehension_value(
        self, node: cst.ListComp | cst.SetComp | cst.GeneratorExp, env: Env
    ) -> Expr:
        from .reject import rule_for

        v = self.cview(node, env)
        if v is None and rule_for(node, None) is not None:
            raise self.reject(node)  # reported by the rejection visitor already
        if v is None:
            what = {cst.ListComp: "list comprehensions", cst.SetComp: "set comprehensions",
                    cst.GeneratorExp: "generator expressions"}[type(node)]  # fmt: skip
            raise self.error(
                node,
                f"{what} are only supported over a local container's values",
                "loop over the rows with `for` and accumulate (`x += ...`, a dict, a list)",
            )
        return v.expr

    def _hoisted(self, e: Expr) -> Expr:
        """``e`` with the container reads inside its lambdas bound before it."""
        hoisted: list[tuple[str, Expr]] = []
        e = self._hoist_reads(e, hoisted)  # type: ignore[attr-defined]
        for name, val in reversed(hoisted):
            e = Let(name, val, e, span=e.span)
        return e

    def _need_order(self, v: CView, node: cst.CSTNode) -> None:
        if not v.order:
            raise self.error(
                node,
                f"`{code_of(node)}` depends on the order the rows were added to "
                f"`{v.binding.var}`, which an unordered loop does not define",
                f"sort it first (`sorted({v.binding.var})`) or fill it in an ordered loop "
                "(`group_by(..., order_by=i)`)",
            )

    def container_call(self, node: cst.Call, env: Env) -> Expr | None:
        """``len`` / ``sum`` / ``min`` / ``max`` / ``any`` / ``all`` of a container expression."""
        func = node.func
        if not isinstance(func, cst.Name) or func.value in env.names:
            return None
        fname = func.value
        if fname not in ("len", "sum", "min", "max"):
            return None
        pos = [a for a in node.args if a.keyword is None and not a.star]
        keyed = [a.value for a in node.args if a.keyword is not None and a.keyword.value == "key"]
        if fname in ("min", "max") and keyed and len(pos) == 1 and len(node.args) == 2:
            v = self.cview(pos[0].value, env)
            if v is None:
                return None
            # max(d, key=d.get) / max(d.items(), key=lambda kv: kv[1]): the first extreme
            key = self.key_function(keyed[0], env)
            srt = Apply(
                Builtin("sort_by", (("reverse", fname == "max"),)),
                (v.expr, key),
                span=self.span(node),
            )
            return self._hoisted(Apply(Prim("c_first"), (srt,), span=self.span(node)))
        if len(pos) != 1 or len(node.args) != 1:
            if (
                fname in ("min", "max")
                and any(a.keyword is not None and a.keyword.value == "default" for a in node.args)
                and len(pos) == 1
            ):
                v = self.cview(pos[0].value, env)
                if v is None:
                    return None
                dflt = next(
                    a.value for a in node.args if a.keyword and a.keyword.value == "default"
                )
                return Apply(
                    Prim(f"c_{fname}"), (v.expr, self.expr(dflt, env)), span=self.span(node)
                )
            return None
        v = self.cview(pos[0].value, env)
        if v is None:
            return None
        sp = self.span(node)
        if fname == "len":
            return Apply(Prim("len"), (v.expr,), span=sp)
        return Apply(Prim(f"c_{fname}"), (v.expr,), span=sp)

    def truth_test(self, node: cst.BaseExpression, env: Env) -> Expr:
        """``node`` where Python takes its truth value (``if d:``, ``not s``, ``x if lst
        else y``): a container (``d``, ``d.items()``) is true when it is not empty."""
        name = node
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
            name = node.func.value
        if isinstance(name, cst.Name) and isinstance(env.names.get(name.value), Container):
            v = self.cview(node, env)
            if v is not None:
                sp = self.span(node)
                return Apply(Prim("bool"), (Apply(Prim("len"), (v.expr,), span=sp),), span=sp)
        return self.expr(node, env)  # type: ignore[attr-defined]

    def container_in(self, left: Expr, comparator: cst.BaseExpression, negated: bool,
                     env: Env) -> Expr | None:  # fmt: skip
        v = self.cview(comparator, env)
        if v is None:
            return None
        e = Apply(Prim("c_contains"), (v.expr, left), span=self.span(comparator))
        return Apply(Prim("not"), (e,), span=e.span) if negated else e

    def container_subscript(self, node: cst.Subscript, env: Env) -> Expr | None:
        """``d[k]`` (KeyError when absent), ``sorted(lst)[i]`` (IndexError)."""
        if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
            return None
        base = node.value
        idx_node = node.slice[0].slice.value
        if isinstance(base, cst.Name) and isinstance(env.names.get(base.value), Container):
            b = env.names[base.value]
            if b.ctype == "dict":
                v = self.container_view(base, env, node)
                zero = self.container_zero.get(base.value)
                if zero is not None:  # defaultdict(int) / Counter(): a missing key reads 0
                    return Apply(Prim("c_get"), (v.expr, self.expr(idx_node, env), Lit(zero)),
                                 span=self.span(node))  # fmt: skip
                return Apply(Prim("c_getitem"), (v.expr, self.expr(idx_node, env)),
                             span=self.span(node))  # fmt: skip
        v = self.cview(base, env)
        if v is None:
            return None
        if v.counts is not None:  # Counter(xs)[k]: 0 when missing
            return Apply(Prim("c_get"), (v.counts, self.expr(idx_node, env), Lit(0)),
                         span=self.span(node))  # fmt: skip
        self._need_order(v, node)
        return Apply(Prim("c_index"), (v.expr, self.expr(idx_node, env)), span=self.span(node))

    def host_list(self, node: cst.BaseExpression, env: Env) -> CView | None:
        """A call of a host function annotated ``-> list[...]`` (or a bare ``list``): its
        result is a list in Python's order, iterated and read like a container's values."""
        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Name)):
            return None
        name = node.func.value
        if name in env.names or name in env.loop_locals:
            return None
        fn = self.global_obj(name)
        kind = _host_list(fn)
        if kind is None:
            return None
        e = self.expr(node, env)
        sp = self.span(node)
        if kind == "optional":  # iterating None raises TypeError, as in Python
            tmp = self.fresh("hl")
            err = Apply(Prim("raise"), (Lit("TypeError"), Lit("'NoneType' object is not iterable")))
            test = Apply(Prim("is_none"), (Var(tmp),), span=sp)
            e = Let(tmp, e, if_expr(test, err, Var(tmp), sp), span=sp)
        return CView(e, False, True, Value(code_of(node), sp))  # type: ignore[arg-type]

    def bind_view(self, target: cst.Name, value: cst.BaseExpression, env: Env, rest) -> Expr | None:  # noqa: ANN001
        """``top = sorted(vals)[:3]``: a local holding a container value, or None."""
        if isinstance(value, cst.Name):
            return None  # an alias of a container: reported at use
        v = self.cview(value, env)
        if v is None:
            return None
        env2 = env.copy()
        name = target.value
        counted = v.counts is not None  # a Counter: the local holds its items
        env2.names[name] = ListValue(name, self.span(target), depth=env.depth,
                                     items=v.items or counted, order=v.order, source=v.binding,
                                     counter=counted)  # fmt: skip
        env2.loop_locals.pop(name, None)
        return Let(name, v.counts if counted else v.expr, rest(env2), span=self.span(target))


def _host_list(fn: object) -> str | None:
    """``"list"`` when ``fn`` is a plain function (not an algorithm or a class) annotated to
    return a list, ``"optional"`` for an ``Optional[list[...]]``, else None."""
    import inspect

    from ..backend.host_annotations import return_annotation

    if not inspect.isfunction(fn):
        return None
    said, bare = return_annotation(fn)
    if bare is not None:
        return "list" if bare == "list" else None
    if said is None or not (isinstance(said[0], tuple) and said[0][0] == "list"):
        return None
    return "optional" if said[1] else "list"
