"""Loops over a container's values after the loop that fills it: rows yielded per element.

Transforms this::

    for month, n in sorted(counts.items()):
        if n > 1:
            yield month, n

into one yield of every element's rows (an ``each`` over the container's value)::

    let _ = yield(each(c_sorted(counts#value(), False),
                       λ e. let month = e[0] in let n = e[1] in
                            c_concat(if(n > 1, λ. c_row((month, n)), λ. c_empty()), c_empty())))

which the plan computes natively (``transform`` / ``filter`` over the array) and
explodes into rows. The body may bind values, branch with ``if`` and ``yield``;
it reads the values of the enclosing scope but does not update locals or
states (reduce the container with ``len`` / ``sum`` / ``max`` ... instead).
"""

from __future__ import annotations

from collections.abc import Callable

import libcst as cst

from ..ir.nodes import UNIT, Apply, Builtin, Expr, Lambda, Let, Lit, Prim, StateCall, Var
from .container_reads import CView
from .env import Carry, Env, Value
from .syntax import assigned_names, code_of, is_name, walk
from .value_lists import ValueListMixin

__all__ = ["ContainerLoopMixin"]


class ContainerLoopMixin(ValueListMixin):
    def loop_view(self, it: cst.BaseExpression, env: Env) -> CView | None:
        """What a ``for`` over container values iterates: a container expression,
        ``enumerate(...)``, ``zip(...)`` or ``range(len(...))`` / ``range(n)``."""
        if (
            isinstance(it, cst.Call)
            and isinstance(it.func, cst.Name)
            and it.func.value not in env.names
        ):
            fname = it.func.value
            pos = [a.value for a in it.args if a.keyword is None and not a.star]
            sp = self.span(it)
            if fname == "enumerate" and pos and len(it.args) in (1, 2):
                inner = self.loop_view(pos[0], env)  # `enumerate(zip(a, b))` too
                if inner is None:
                    return None
                self._need_order(inner, it)
                start = self.expr(it.args[1].value, env) if len(it.args) == 2 else Lit(0)
                e = Apply(Prim("c_enumerate"), (inner.expr, start), span=sp)
                return CView(e, False, True, inner.binding)
            if fname == "zip" and len(pos) >= 2 and len(pos) == len(it.args):
                views = [self.cview(p, env) or self.iterated(p, env) for p in pos]
                if any(v is None for v in views):
                    return None
                for v in views:
                    assert v is not None
                    self._need_order(v, it)
                e = Apply(Prim("c_zip"), tuple(v.expr for v in views if v is not None), span=sp)
                return CView(e, False, True, views[0].binding)  # type: ignore[union-attr]
            if fname == "range" and len(pos) == 1 == len(it.args):
                arg = pos[0]
                if not (
                    isinstance(arg, cst.Call)
                    and isinstance(arg.func, cst.Name)
                    and arg.func.value == "len"
                ):
                    return self.cview(it, env)  # `range(n)`: a range of ints
                counted = self.cview(arg.args[0].value, env) if len(arg.args) == 1 else None
                if counted is None:
                    return self.cview(it, env)  # `range(len(s))` of a str: a range of ints
                n = Apply(Prim("len"), (counted.expr,), span=self.span(arg))
                return CView(Apply(Prim("c_range"), (n,), span=sp), False, True, counted.binding)
        return self.cview(it, env) or self.iterated(it, env)

    def container_for(self, s: cst.For, env: Env, rest: Callable[[Env], Expr]) -> Expr | None:
        """A ``for`` over container values, or None when ``s`` does not iterate one."""
        view = self.loop_view(s.iter, env)
        if view is None:
            return None
        sp = self.span(s)
        body_stmts = list(s.body.body)
        outer = [n for n in sorted(assigned_names(body_stmts, deep=True)) if n in env.names]
        bad = [n for n in outer if type(env.names[n]) is not Value]
        if bad and all(isinstance(env.names[n], Carry) for n in bad):
            summed = self.inner_sums(s, env)
            if summed is None and env.ordered:  # rows in order: any update, in list order
                summed = self.inner_copies(s, [n for n in outer if isinstance(env.names[n], Carry)], env)
            if summed is not None:  # `n += 1` per word in a loop over rows: add the word count
                return self._chain(summed, env, rest)
        if bad:
            raise self.error(
                s,
                f"`{bad[0]}` is rebound in a loop over the values of `{view.binding.var}`",
                "update plain values (numbers, strings) in such loops, or yield rows",
            )
        if outer:
            return self._fold(s, view, outer, env, rest)
        elem = self.fresh("elem")
        inner = env.copy()
        inner.depth = env.depth + 1
        lets = self._bind_target(s.target, Var(elem), inner)
        self.open_loops.append(s)
        try:
            body = self.block(body_stmts, inner, lambda e: UNIT)
        finally:
            self.open_loops.pop()
        rows = self._rows_of(body, s)
        for name, val in reversed(lets):
            rows = Let(name, val, rows)
        each = Apply(
            Builtin("each"), (view.expr, Lambda((elem,), rows, span=self.span(s.target))), span=sp
        )
        env2 = env.copy()
        for n, b in inner.names.items():
            if n not in env.names:
                env2.loop_locals[n] = (b, sp)
        # container reads in the body do not depend on the element: read them before the loop
        hoisted: list[tuple[str, Expr]] = []
        each = self._hoist_reads(each, hoisted)
        eff = Apply(Builtin("yield"), (each,), span=sp)
        out: Expr = Let("_", eff, rest(env2), span=sp)
        for name, val in reversed(hoisted):
            out = Let(name, val, out, span=sp)
        return out

    def _chain(self, stmts: list[cst.CSTNode], env: Env, rest: Callable[[Env], Expr]) -> Expr:
        """Translate ``stmts``, then ``rest``."""
        return self.stmts(stmts, 0, env, rest, False)  # type: ignore[attr-defined]

    def _hoist_reads(self, e: Expr, hoisted: list[tuple[str, Expr]]) -> Expr:
        """Replace every ``c#value()`` inside ``e`` by a variable bound in ``hoisted``."""
        import dataclasses

        if isinstance(e, Apply) and isinstance(e.fn, StateCall) and e.fn.method == "value":
            name = self.fresh("cvalue")
            hoisted.append((name, e))
            return Var(name, span=e.span)
        if isinstance(e, Apply):
            args = tuple(self._hoist_reads(x, hoisted) for x in e.args)
            return dataclasses.replace(e, args=args)
        if isinstance(e, Let):
            return dataclasses.replace(
                e,
                value=self._hoist_reads(e.value, hoisted),
                body=self._hoist_reads(e.body, hoisted),
            )
        if isinstance(e, Lambda):
            return dataclasses.replace(e, body=self._hoist_reads(e.body, hoisted))
        return e

    def _bind_target(
        self, target: cst.BaseExpression, value: Expr, inner: Env
    ) -> list[tuple[str, Expr]]:
        if isinstance(target, cst.Name):
            inner.names[target.value] = Value(target.value, self.span(target), depth=inner.depth)
            return [(target.value, value)]
        if isinstance(target, (cst.Tuple, cst.List)):
            out: list[tuple[str, Expr]] = []
            for i, el in enumerate(target.elements):
                if isinstance(el, cst.StarredElement):
                    raise self.error(
                        el, "starred loop targets are not supported", "unpack every field"
                    )
                part = Apply(Prim("nth"), (value, Lit(i)), span=self.span(el.value))
                if isinstance(el.value, cst.Name):
                    out += self._bind_target(el.value, part, inner)
                else:
                    tmp = self.fresh("part")
                    out.append((tmp, part))
                    out += self._bind_target(el.value, Var(tmp), inner)
            return out
        raise self.error(
            target, f"unsupported loop target `{code_of(target)}`", "unpack into names"
        )

    def _rows_of(self, e: Expr, s: cst.For) -> Expr:
        """The body of a loop over values as an expression: the array of rows it yields."""
        if isinstance(e, Let):
            v = e.value
            if isinstance(v, Apply) and isinstance(v.fn, Builtin) and v.fn.name == "yield":
                row = Apply(Prim("c_row"), (v.args[0],), span=v.span)
                return Apply(Prim("c_concat"), (row, self._rows_of(e.body, s)), span=v.span)
            if isinstance(v, Apply) and isinstance(v.fn, Builtin) and v.fn.name == "if":
                lams = v.args[1:]
                if any(self._yields(lam) for lam in lams):
                    if not all(
                        isinstance(lam, Lambda) and self._unit_tail(lam.body) for lam in lams
                    ):
                        raise self.error(
                            v.span,
                            "an `if` that yields rows in a loop over container values also assigns "
                            "names used after it",
                            "compute the values before the `if`, or yield in every branch",
                        )
                    branches = tuple(
                        Lambda((), self._rows_of(lam.body, s), span=lam.span) for lam in lams
                    )  # type: ignore[union-attr]
                    part = Apply(v.fn, (v.args[0], *branches), span=v.span)
                    return Apply(Prim("c_concat"), (part, self._rows_of(e.body, s)), span=v.span)
            if (
                isinstance(v, Apply)
                and isinstance(v.fn, (StateCall, Builtin))
                and not (isinstance(v.fn, Builtin) and v.fn.name == "if")
            ):
                raise self.error(
                    v.span,
                    "a loop over container values may compute values and yield rows, but not "
                    "update states or loop over rows",
                    "move the update into the loop over the rows that fills the container",
                )
            return Let(e.name, v, self._rows_of(e.body, s), span=e.span)
        return Apply(Prim("c_empty"), (), span=self.span(s))

    def _yields(self, e: Expr) -> bool:
        from ..ir.traverse import walk

        return any(isinstance(n, Builtin) and n.name == "yield" for n in walk(e))

    def _unit_tail(self, e: Expr) -> bool:
        while isinstance(e, Let):
            e = e.body
        return isinstance(e, Lit) and e.value is None

    # -- loops over values that update locals: a fold ----------------------------------
    def _fold(
        self, s: cst.For, view: CView, carried: list[str], env: Env, rest: Callable[[Env], Expr]
    ) -> Expr:
        """``total = 0; for k, v in sorted(d.items()): total += v; yield k, total``: a fold
        over the elements (Spark's ``aggregate``), the locals its accumulator, the rows
        collected on the way."""
        sp = self.span(s)
        if not view.order:
            self._check_reductions(s, carried, view)
        acc, elem = self.fresh("acc"), self.fresh("elem")
        inner = env.copy()
        inner.depth = env.depth + 1
        lets: list[tuple[str, Expr]] = [
            (n, Apply(Prim("nth"), (Var(acc), Lit(i)), span=sp)) for i, n in enumerate(carried)
        ]
        for n in carried:
            inner.names[n] = Value(n, env.names[n].span, depth=inner.depth)
        lets += self._bind_target(s.target, Var(elem), inner)

        def tail(e: Env) -> Expr:
            return Apply(Prim("tuple"), tuple(Var(e.names[n].var) for n in carried), span=sp)

        self.open_loops.append(s)
        try:
            body = self.block(list(s.body.body), inner, tail)
        finally:
            self.open_loops.pop()
        step = Apply(Prim("tuple"), (self._strip_yields(body), self._rows_of(body, s)), span=sp)
        for name, val in reversed(lets):
            step = Let(name, val, step)
        init = Apply(Prim("tuple"), tuple(Var(env.names[n].var) for n in carried), span=sp)
        fold = Apply(
            Builtin("fold"), (view.expr, init, Lambda((acc, elem), step, span=sp)), span=sp
        )
        hoisted: list[tuple[str, Expr]] = []
        fold = self._hoist_reads(fold, hoisted)
        res = self.fresh("fold")
        env2 = env.copy()
        for n, b in inner.names.items():
            if n not in env.names:
                env2.loop_locals[n] = (b, sp)
        for n in carried:
            env2.names[n] = Value(n, env.names[n].span, depth=env.depth)
        out: Expr = rest(env2)
        if self._yields(body):
            rows = Apply(Prim("nth"), (Var(res), Lit(1)), span=sp)
            out = Let("_", Apply(Builtin("yield"), (rows,), span=sp), out, span=sp)
        for i, n in reversed(list(enumerate(carried))):
            acc_i = Apply(Prim("nth"), (Apply(Prim("nth"), (Var(res), Lit(0))), Lit(i)), span=sp)
            out = Let(n, acc_i, out, span=sp)
        out = Let(res, fold, out, span=sp)
        for name, val in reversed(hoisted):
            out = Let(name, val, out, span=sp)
        return out

    def _strip_yields(self, e: Expr) -> Expr:
        """The body without its yields (what it computes for the accumulator)."""
        import dataclasses

        if isinstance(e, Let):
            v = e.value
            if isinstance(v, Apply) and isinstance(v.fn, Builtin) and v.fn.name == "yield":
                return self._strip_yields(e.body)
            if isinstance(v, Apply) and isinstance(v.fn, Builtin) and v.fn.name == "if":
                args = tuple(
                    dataclasses.replace(x, body=self._strip_yields(x.body))
                    if isinstance(x, Lambda)
                    else x
                    for x in v.args
                )
                v = dataclasses.replace(v, args=args)
            return dataclasses.replace(e, value=v, body=self._strip_yields(e.body))
        return e

    def _check_reductions(self, s: cst.For, carried: list[str], view: CView) -> None:
        """Over elements in no defined order only order-free updates are allowed."""
        for n in walk(s.body):
            target, value = None, None
            if isinstance(n, cst.AugAssign) and isinstance(n.target, cst.Name):
                if type(n.operator).__name__ in ("AddAssign", "SubtractAssign"):
                    continue
                target = n.target
            elif isinstance(n, cst.Assign) and len(n.targets) == 1:
                target, value = n.targets[0].target, n.value
            if not (isinstance(target, cst.Name) and target.value in carried):
                continue
            if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) and (
                value.func.value in ("max", "min") and any(is_name(a.value, target.value) for a in value.args)
            ):  # fmt: skip
                continue
            if (
                isinstance(value, cst.BinaryOperation)
                and type(value.operator).__name__ in ("Add", "Subtract")
                and is_name(value.left, target.value)
            ):
                continue
            raise self.error(
                n,
                f"`{code_of(n).strip()}` depends on the order of the values of "
                f"`{view.binding.var}`, which an unordered loop filled in no defined order",
                f"iterate `sorted({view.binding.var})` (or `sorted(d.items())` for a dict), or only "
                "accumulate (`x += v`, `x = max(x, v)`)",
            )
