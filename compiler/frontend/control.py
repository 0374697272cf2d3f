"""Control flow: ``if`` (joined or with early returns), ``for`` loops over streams and groups.

A loop becomes ``smap`` of a lambda over the stream; names bound before a loop
and updated inside it become carry states; names bound inside a loop go out of
scope after it (reading them is reported with the loop's position).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import libcst as cst

from ..ir.nodes import (
    CARRY,
    UNIT,
    Apply,
    Builtin,
    Expr,
    Lambda,
    Let,
    Lit,
    Prim,
    StateCall,
    StateNew,
    Var,
)
from ..names import carry_var
from .base import Context
from .env import Carry, Env, MaybeUnbound, Rows, RowValue, StateVar, Value
from .syntax import (
    assigned_names,
    code_of,
    contains_return,
    flatten,
    group_by_fn,
    read_names,
    reads_before_write,
    terminates,
)  # fmt: skip
from .values import is_raise_check

__all__ = ["ControlMixin"]


class ControlMixin(Context):
    """``if`` statements, ``for`` loops, ``group_by`` and loop targets."""

    def if_stmt(
        self,
        s: cst.If,
        after: list[cst.CSTNode],
        env: Env,
        tail_fn: Callable[[Env], Expr],
        top: bool,
    ) -> Expr:
        cond = self.condition(s.test, env)
        if env.depth > 0 and is_raise_check(s):  # `if bad: raise E(msg)` in a loop body
            return self.raise_in_loop(s, cond, after, env, tail_fn, top)
        then_stmts = list(s.body.body)
        if s.orelse is None:
            else_stmts: list[cst.CSTNode] = []
        elif isinstance(s.orelse, cst.If):
            else_stmts = [s.orelse]
        else:
            else_stmts = list(s.orelse.body.body)
        sp = self.span(s)
        argbest = getattr(self, "argbest_ifs", {}).get(s)
        if argbest is not None:  # an arg-max / arg-min update (argbest.py)
            up, row = argbest
            tail = self.stmts(after, 0, env, tail_fn, top)
            return self.argbest_stmt(up, row, env, tail, s)  # type: ignore[attr-defined]
        if contains_return(s):
            # push the statements after the `if` into each branch that falls through
            def branch(stmts: list[cst.CSTNode]) -> Expr:
                flat = flatten(stmts)
                if not terminates(flat):
                    flat = flat + list(after)
                return self.stmts(flat, 0, env.copy(), tail_fn, top)

            return Apply(
                Builtin("if"),
                (cond, Lambda((), branch(then_stmts)), Lambda((), branch(else_stmts))),
                span=sp,
            )
        # no return: join the names assigned in either branch
        assigned = sorted(
            (assigned_names(then_stmts, deep=True) | assigned_names(else_stmts, deep=True))
            - {n for n, b in env.names.items() if isinstance(b, (Carry, StateVar, Rows))}
        )
        outs: dict[str, Env] = {}

        def join_tail(tag: str) -> Callable[[Env], Expr]:
            def f(env_b: Env) -> Expr:
                outs[tag] = env_b
                vals = [
                    Var(env_b.names[n].var) if n in env_b.names else Lit(None) for n in assigned
                ]
                return Apply(Prim("tuple"), tuple(vals)) if assigned else UNIT

            return f

        then_e = self.block(then_stmts, env.copy(), join_tail("then"))
        else_e = self.block(else_stmts, env.copy(), join_tail("else"))
        ife = Apply(Builtin("if"), (cond, Lambda((), then_e), Lambda((), else_e)), span=sp)
        env2 = env.copy()
        joined = []
        for n in assigned:
            in_then = n in outs.get("then", env).names
            in_else = n in outs.get("else", env).names
            if in_then and in_else:
                bt = outs.get("then", env).names[n]
                be = outs.get("else", env).names[n]
                if not (isinstance(bt, Value) and isinstance(be, Value)):
                    kinds = {bt.kind, be.kind} - {Value.kind}
                    raise self.error(
                        sp,
                        f"`{n}` is bound to a {kinds.pop()} inside an `if`",
                        "create states and streams unconditionally, before the `if`",
                    )
                env2.names[n] = Value(n, bt.span, depth=env.depth)
                joined.append(n)
            else:
                # possibly unbound after the if: reading it later is an error
                env2.names.pop(n, None)
                env2.loop_locals[n] = (MaybeUnbound(n, sp), sp)
        if not assigned:
            return Let("_", ife, self.stmts(after, 0, env2, tail_fn, top), span=sp)
        tmp = self.fresh("if")

        def unpack(k: int) -> Expr:
            if k == len(assigned):
                return self.stmts(after, 0, env2, tail_fn, top)
            n = assigned[k]
            if n not in joined:
                return unpack(k + 1)
            return Let(n, Apply(Prim("nth"), (Var(tmp), Lit(k))), unpack(k + 1))

        return Let(tmp, ife, unpack(0), span=sp)

    # -- loops ------------------------------------------------------------------------
    def for_stmt(
        self, s: cst.For, after: list[cst.CSTNode], env: Env, rest: Callable[[Env], Expr]
    ) -> Expr:
        done = self.rewritten_for(s, after, env, rest)  # type: ignore[attr-defined]
        if done is not None:  # `continue`, `break`, `enumerate` of an ordered stream
            return done
        # reported, and the loop is still translated to find the problems in its body
        if s.asynchronous:
            self.reject(s)
        if s.orelse is not None:
            self.reject(s.orelse, s)
        sp = self.span(s)
        it = s.iter
        # what is iterated
        group = None
        enumerated = False
        if (
            isinstance(it, cst.Call)
            and isinstance(it.func, cst.Name)
            and self.global_obj(it.func.value) is group_by_fn()
        ):
            group = self.group_by_call(it, env)
            stream_expr, src, gattrs = group
        else:
            st = self.try_stream(it, env)
            if st is None and (done := self.container_for(s, env, rest)) is not None:
                return done  # a loop over a container's values
            if st is None:
                st = self.enumerated_stream(it, env)  # type: ignore[attr-defined]
                enumerated = st is not None
            if st is None:
                raise self.error(
                    it,
                    f"a loop must iterate a RowStream, a substream or group_by(...), "
                    f"not `{code_of(it)}`",
                    "loop over a RowStream parameter, `g.project(...)` or `group_by(i, rows)`",
                )
            stream_expr, src = st
        ordered = src.ordered if group is None else False
        # loop-carried locals: bound before, updated inside
        body_stmts = list(s.body.body)
        assigned = assigned_names(body_stmts, deep=True)
        read_after = read_names(after)
        carried = []
        for n in sorted(assigned):
            b = env.names.get(n)
            if not isinstance(b, Value):
                continue
            if n in read_after or reads_before_write(body_stmts, n):
                carried.append(n)
        argbest = {}
        if group is None and not ordered:
            argbest = self.argbest_updates(body_stmts, carried)  # type: ignore[attr-defined]
        best_states = self.argbest_states(argbest, env) if argbest else {}  # type: ignore[attr-defined]
        prologue: list[tuple[str, Expr]] = []
        inner = env.copy()
        inner.depth = env.depth + 1
        inner.ordered = env.ordered or ordered
        for n in carried:
            cvar = carry_var(n)
            if n in best_states:
                prologue.append(best_states[n])
                inner.names[n] = Carry(cvar, env.names[n].span, depth=env.depth)
                continue
            prologue.append(
                (cvar, Apply(StateNew(CARRY), (Var(env.names[n].var),), span=env.names[n].span))
            )
            inner.names[n] = Carry(cvar, env.names[n].span, depth=env.depth, ordered=inner.ordered)
        # loop parameters
        params: list[str] = []
        pre_body: list[tuple[str, Expr]] = []
        rank = None
        if group is not None:
            params, pre_body = self.group_targets(s.target, src, gattrs, inner)
        elif src.window is not None:
            target = s.target
            if enumerated and isinstance(target, cst.Tuple) and len(target.elements) == 2:
                target = target.elements[1].value
            # the row's rank in the order (a name no user variable can have)
            rank = f"{target.value if isinstance(target, cst.Name) else 'row'}.rank"
            target = s.target
            if enumerated:
                target, pre_body = self.enumerate_target(s.target, rank, src, inner)
            params = [*self.row_targets(target, src, inner), rank]
        else:
            params = self.row_targets(s.target, src, inner)
        if argbest:
            if not hasattr(self, "argbest_ifs"):
                self.argbest_ifs: dict[Any, Any] = {}
            row = tuple(p for p in params if p != rank)
            self.argbest_ifs.update({k: (up, row) for k, up in argbest.items()})
        final: list[Env] = []
        self.open_loops.append(s)  # containers filled here are not read here (order)
        try:
            body = self.block(body_stmts, inner, lambda e: (final.append(e), UNIT)[1])
        finally:
            self.open_loops.pop()
        if rank is not None:
            body = self.rank_guard(rank, src, body)
        for name, val in reversed(pre_body):
            body = Let(name, val, body)
        loop = Apply(
            Builtin("smap", (("ordered", ordered),)),
            (Lambda(tuple(params), body, span=self.span(s.target)), stream_expr),
            span=sp,
        )
        # after the loop: carried values are read back; loop locals go out of scope
        env2 = env.copy()
        for scope_env in (inner, *final):
            for n, b in scope_env.names.items():
                if n not in env.names and b.depth > env.depth:
                    env2.loop_locals[n] = (b, sp)
        for n in carried:
            env2.names[n] = Value(n, env.names[n].span, depth=env.depth)
        tail = rest(env2)
        for n in reversed(carried):
            tail = Let(n, Apply(StateCall(carry_var(n), "get"), ()), tail, span=sp)
        out = Let("_loop", loop, tail, span=sp)
        for name, val in reversed(prologue):
            out = Let(name, val, out, span=sp)
        return out

    def group_by_call(self, call: cst.Call, env: Env) -> tuple[Expr, Rows, dict[str, Any]]:
        args = [a for a in call.args if a.keyword is None]
        kws = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
        if len(args) != 2 or set(kws) - {"order_by", "desc"}:
            raise self.error(
                call,
                "group_by takes (key, stream) and optionally order_by=field and desc=True",
                "e.g. `group_by(0, rows)` or `group_by((0, 1), rows, order_by=(2, -3))`",
            )
        st = self.try_stream(args[1].value, env)
        if st is None:
            raise self.error(
                args[1].value,
                f"`{code_of(args[1].value)}` is not a RowStream",
                "group a RowStream parameter, a group or a projection",
            )
        sexpr, src = st
        computed: tuple = ()
        if isinstance(args[0].value, cst.Lambda):  # a computed key (order.py)
            key, computed = self.computed_key(args[0].value, src, env)  # type: ignore[attr-defined]
        else:
            key = self.field_indices(args[0].value, src)
        order_by = None
        if "order_by" in kws and isinstance(kws["order_by"], cst.Lambda):  # `lambda c: c.ts`
            order_by = self.lambda_order(kws["order_by"], kws.get("desc"), src)  # type: ignore[attr-defined]
        elif "order_by" in kws:
            order_by = self.order_spec(kws["order_by"], kws.get("desc"), src)
        elif "desc" in kws:
            raise self.error(
                kws["desc"],
                "desc=True needs an order_by=",
                "write `group_by(0, rows, order_by=2, desc=True)`",
            )
        tuple_key = isinstance(args[0].value, cst.Tuple) or (
            isinstance(args[0].value, cst.Lambda) and isinstance(args[0].value.body, cst.Tuple)
        )
        gattrs = {"key": key, "order_by": order_by, "tuple_key": tuple_key}
        battrs: tuple = (("key", key), ("order_by", order_by))
        if computed:
            battrs = (("computed", computed), *battrs)
        expr = Apply(
            Builtin("group_by", battrs),
            (sexpr,),
            span=self.span(call),
        )
        return expr, src, gattrs

    def order_spec(
        self, node: cst.BaseExpression, desc: cst.BaseExpression | None, src: Rows
    ) -> tuple[tuple[int, bool], ...]:
        """``order_by=`` / a ``sorted_by`` order: ((field, descending), ...) of the given fields.

        A field index, a tuple of them, or a negated index for descending
        (``-2``); ``desc=True`` flips every given field (field 0 descending).
        """
        hint = (
            "order by field indices: `order_by=2`, `order_by=(1, 2)`, `order_by=-2` for field "
            "2 descending; field 0 descending is `order_by=0, desc=True`"
        )
        flip = False
        if desc is not None:
            if not (isinstance(desc, cst.Name) and desc.value in ("True", "False")):
                raise self.error(desc, "desc= takes True or False", hint)
            flip = desc.value == "True"
        elems = [e.value for e in node.elements] if isinstance(node, cst.Tuple) else [node]
        if not elems:
            raise self.error(node, "the order needs at least one field", hint)
        out: list[tuple[int, bool]] = []
        for e in elems:
            v = self.field_literal(e, src)  # type: ignore[attr-defined]
            if v is None:
                raise self.error(e, f"order field `{code_of(e)}` must be an integer literal", hint)
            if abs(v) >= src.arity:
                raise self.error(
                    e,
                    f"order field {abs(v)} is out of range: the stream has {src.arity} field"
                    f"{'s' if src.arity != 1 else ''} (a negated index means descending, not "
                    "from the end)",
                    hint,
                )
            if any(f == abs(v) for f, _ in out):
                raise self.error(e, f"field {abs(v)} is ordered by twice", hint)
            out.append((abs(v), (v < 0) != flip))
        return tuple(out)

    def field_indices(self, node: cst.BaseExpression, src: Rows) -> tuple[int, ...]:
        elems = [e.value for e in node.elements] if isinstance(node, cst.Tuple) else [node]
        out = []
        for e in elems:
            v = self.field_literal(e, src)  # type: ignore[attr-defined]
            if v is None:
                raise self.error(
                    e,
                    f"field index `{code_of(e)}` must be an integer literal",
                    "field indices are integer literals, e.g. `group_by(0, rows)`",
                )
            if not -src.arity <= v < src.arity:
                raise self.error(
                    e,
                    f"field index {v} is out of range: the stream has {src.arity} field"
                    f"{'s' if src.arity != 1 else ''}",
                    "fields are numbered from 0",
                )
            out.append(v % src.arity)
        return tuple(out)

    def group_targets(
        self, target: cst.BaseExpression, src: Rows, gattrs: dict[str, Any], inner: Env
    ) -> tuple[list[str], list[tuple[str, Expr]]]:
        if not (isinstance(target, cst.Tuple) and len(target.elements) == 2):
            raise self.error(
                target,
                "a group_by loop unpacks (key, group): `for key, group in group_by(...)`",
                "write `for key, group in group_by(0, rows):`",
            )
        kt, gt = target.elements[0].value, target.elements[1].value
        if not isinstance(gt, cst.Name):
            raise self.error(
                gt,
                "the group must be bound to a name",
                "write `for key, group in group_by(0, rows):`",
            )
        pre: list[tuple[str, Expr]] = []
        if isinstance(kt, cst.Name):
            kname = kt.value
            inner.names[kname] = Value(kname, self.span(kt), depth=inner.depth)
        elif isinstance(kt, cst.Tuple):
            n = len(gattrs["key"])
            if len(kt.elements) != n or not gattrs["tuple_key"]:
                raise self.error(
                    kt,
                    f"the group key has {n} field{'s' if n != 1 else ''} but is unpacked "
                    f"into {len(kt.elements)} names",
                    "unpack one name per key field",
                )
            kname = self.fresh("key")
            for i, el in enumerate(kt.elements):
                if not isinstance(el.value, cst.Name):
                    raise self.error(
                        el,
                        "unpack the key into plain names",
                        "write `for (a, b), group in group_by((0, 1), rows):`",
                    )
                nm = el.value.value
                inner.names[nm] = Value(nm, self.span(el.value), depth=inner.depth)
                pre.append((nm, Apply(Prim("nth"), (Var(kname), Lit(i)))))
        else:
            raise self.error(
                kt,
                "the group key must be bound to a name or a tuple of names",
                "write `for key, group in ...` or `for (a, b), group in group_by((0, 1), rows)`",
            )
        inner.names[gt.value] = Rows(
            gt.value,
            self.span(gt),
            inner.depth,
            src.arity,
            src.types,
            gattrs["order_by"] is not None,
            names=src.names,
            row_type=src.row_type,
        )
        return [kname, gt.value], pre

    def enumerate_target(
        self, target: cst.BaseExpression, rank: str, src: Rows, inner: Env
    ) -> tuple[cst.BaseExpression, list[tuple[str, Expr]]]:
        """``for i, row in enumerate(...[start:stop])``: ``i`` is the row's rank - 1 - start."""
        if not (
            isinstance(target, cst.Tuple)
            and len(target.elements) == 2
            and isinstance(target.elements[0].value, cst.Name)
        ):
            raise self.error(
                target,
                "an enumerate loop unpacks (index, row)",
                "write `for i, row in enumerate(sorted(g, key=lambda r: r[1])):`",
            )
        idx = target.elements[0].value.value
        inner.names[idx] = Value(idx, self.span(target.elements[0].value), depth=inner.depth)
        first = 1 + (src.window[0] if src.window else 0)
        return target.elements[1].value, [(idx, Apply(Prim("sub"), (Var(rank), Lit(first))))]

    def rank_guard(self, rank: str, src: Rows, body: Expr) -> Expr:
        """Run ``body`` only for the rows whose rank is in the window ``start < rank <= stop``."""
        assert src.window is not None
        start, stop = src.window
        conds = []
        if start > 0:
            conds.append(Apply(Prim("gt"), (Var(rank), Lit(start))))
        if stop is not None:
            conds.append(Apply(Prim("le"), (Var(rank), Lit(stop))))
        for c in reversed(conds):
            tmp = self.fresh("in_window")
            body = Let(tmp, c, Apply(Builtin("if"), (Var(tmp), Lambda((), body), Lambda((), UNIT))))
        return body

    def row_targets(self, target: cst.BaseExpression, src: Rows, inner: Env) -> list[str]:
        if isinstance(target, cst.Name):
            if src.arity == 1 and not src.names:
                names = [target.value]
            else:
                # a whole row: `row[i]`, `len(row)`, `a, b = row` (see order.py)
                fields = tuple(f"{target.value}[{i}]" for i in range(src.arity))  # no user name
                for f, ty in zip(fields, src.types, strict=True):
                    inner.names[f] = Value(f, self.span(target), depth=inner.depth, types=(ty,))
                inner.names[target.value] = RowValue(
                    target.value, self.span(target), inner.depth, fields, src.types,
                    src.names, src.row_type,
                )
                return list(fields)
        elif isinstance(target, (cst.Tuple, cst.List)):
            names = []
            for el in target.elements:
                if not isinstance(el.value, cst.Name) or isinstance(el, cst.StarredElement):
                    raise self.error(
                        el, "unpack each field into a plain name", "write `for a, b in rows:`"
                    )
                names.append(el.value.value)
            if len(names) != src.arity:
                raise self.error(
                    target,
                    f"the stream has {src.arity} field{'s' if src.arity != 1 else ''} "
                    f"({', '.join(src.types)}) but the loop unpacks {len(names)}",
                    "unpack exactly one name per field, or project the fields you need "
                    "with `.project(i, j)`",
                )
        else:
            raise self.error(
                target, "unsupported loop target", "unpack one name per field: `for a, b in rows:`"
            )
        for n, ty in zip(names, src.types, strict=False):
            inner.names[n] = Value(n, self.span(target), depth=inner.depth, types=(ty,))
        return names
