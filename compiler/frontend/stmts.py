"""Statements: a block of libcst statements → nested ``Let`` IR.

Each statement is translated with a continuation ``rest(env)`` that builds what
follows it, so bindings scope over the rest of the block. A statement in error
is reported and skipped; the names it would bind are poisoned so the problem
is reported once, not again at every use.
"""

from __future__ import annotations

import builtins
import inspect
from collections.abc import Callable

import libcst as cst

from ..ir.nodes import UNIT, Apply, Builtin, Expr, Let, Lit, Prim, StateCall, StateNew, Var
from ..ir.prims import AUGOPS, BINOPS
from .base import Context
from .env import Carry, Container, Env, Pattern, Poison, Rows, StateVar, Stop, Value
from .parse import ref_of
from .reject import rule_for
from .syntax import assigned_names, code_of, flatten, is_name, mentions, walk, walk_blocks

#: updates of a carry that commute and associate: any row order gives one result
_ORDER_FREE = ("mul", "bitor", "bitand", "bitxor")

__all__ = ["StmtMixin"]


class StmtMixin(Context):
    """Blocks, simple statements, assignments, carried locals, state creation, return."""

    def block(
        self,
        stmts: list[cst.BaseStatement],
        env: Env,
        tail_fn: Callable[[Env], Expr],
        top: bool = False,
    ) -> Expr:
        """Translate a statement list; ``tail_fn(env)`` builds what follows it."""
        flat = flatten(stmts)
        return self.stmts(flat, 0, env, tail_fn, top)

    def stmts(
        self,
        flat: list[cst.CSTNode],
        i: int,
        env: Env,
        tail_fn: Callable[[Env], Expr],
        top: bool,
    ) -> Expr:
        if i == len(flat):
            return tail_fn(env)
        s = flat[i]
        self.note_env(s, env)

        def rest(env2: Env) -> Expr:
            return self.stmts(flat, i + 1, env2, tail_fn, top)

        try:
            counted = self.counter_loop(s, env)  # c = Counter(w for w in rows): a loop
            if counted is not None:
                return self.stmts([*flat[:i], *counted, *flat[i + 1 :]], i, env, tail_fn, top)
            hoisted = self.hoist_generators(s, env)  # type: ignore[attr-defined]
            if hoisted is not None:  # comprehensions over streams run as loops first
                before, s2 = hoisted
                flat2 = [*flat[:i], *before, *([s2] if s2 is not None else []), *flat[i + 1 :]]
                return self.stmts(flat2, i, env, tail_fn, top)
            if isinstance(s, cst.If):
                done = self.container_if(s, env, rest)
                if done is not None:
                    return done
                return self.if_stmt(s, flat[i + 1 :], env, tail_fn, top)
            if isinstance(s, cst.For):
                returned = self.return_rewrite(s, env)  # type: ignore[attr-defined]
                if returned is not None:  # `return` in an ordered top-level loop
                    return self.stmts([*flat[:i], *returned, *flat[i + 1 :]], i, env, tail_fn, top)
                return self.for_stmt(s, flat[i + 1 :], env, rest)
            if isinstance(s, cst.Return):
                return self.return_stmt(s, flat[i + 1 :], env, top)
            if isinstance(s, cst.Raise):
                return self.raise_stmt(s, env)
            if self.poisoned(s, env):
                raise Stop()  # depends on a statement already reported
            best = getattr(self, "argbest_ifs", {}).get(s)
            if best is not None:  # `K = x if K is None else min(K, x)` (argbest.py)
                return self.argbest_stmt(best[0], best[1], env, rest(env), s)  # type: ignore[attr-defined]
            return self.simple(s, env, rest)
        except Stop:
            return rest(self.poison(s, env))

    def poison(self, s: cst.CSTNode, env: Env) -> Env:
        """After a statement in error: the names it would bind are silently unusable,
        so the problem is reported once, not again at every use."""
        names = assigned_names([s], deep=True)
        if isinstance(s, (cst.FunctionDef, cst.ClassDef)):
            names.add(s.name.value)
        if isinstance(s, cst.For):
            names |= {n.value for n in walk(s.target) if isinstance(n, cst.Name)}
        if isinstance(s, (cst.Try, cst.TryStar, cst.With, cst.While)):
            names |= assigned_names([x for blk in walk_blocks(s) for x in blk], deep=True)
        new = [n for n in names if n not in env.names]
        if not new:
            return env
        env2 = env.copy()
        for n in new:
            env2.names[n] = Poison(n, self.span(s), depth=env.depth)
            env2.loop_locals.pop(n, None)
        return env2

    def poisoned(self, s: cst.CSTNode, env: Env) -> bool:
        if not isinstance(s, (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Expr)):
            return False
        return any(
            isinstance(n, cst.Name) and isinstance(env.names.get(n.value), Poison) for n in walk(s)
        )

    def simple(self, s: cst.CSTNode, env: Env, rest: Callable[[Env], Expr]) -> Expr:
        match s:
            case cst.Pass() | cst.AnnAssign(value=None):
                return rest(env)
            case cst.Expr():
                return self.expr_stmt(s, env, rest)
            case cst.Assign():
                return self.assign(s, env, rest)
            case cst.AnnAssign(target=target, value=value):
                return self.bind_target(target, value, self.expr(value, env), env, rest, s)
            case cst.AugAssign():
                return self.aug_assign(s, env, rest)
        if rule_for(s, None) is not None:
            # reported (with what is wrong inside it) by the rejection visitor
            self.reject(s)
            if not isinstance(s, (cst.FunctionDef, cst.ClassDef)):
                # find the problems inside the rejected block too
                for block in walk_blocks(s):
                    self.block(list(block), env.copy(), lambda e: UNIT)
            raise Stop()
        raise self.error(
            s,
            f"unsupported statement `{code_of(s).strip()}`",
            "use assignments, if/elif/else, for loops over streams, yield and return",
        )

    # -- statements ---------------------------------------------------------------
    def expr_stmt(self, s: cst.Expr, env: Env, rest: Callable[[Env], Expr]) -> Expr:
        v = s.value
        if isinstance(v, (cst.SimpleString, cst.ConcatenatedString)):
            return rest(env)  # docstring
        if isinstance(v, cst.Yield):
            if v.value is None or isinstance(v.value, cst.From):
                raise self.reject(v, s)
            row = self.expr(v.value, env)
            if not (isinstance(row, Apply) and row.fn == Prim("tuple")):
                row = Apply(Prim("tuple"), (row,), span=row.span)
            eff = Apply(Builtin("yield"), (row,), span=self.span(v))
            return Let("_", eff, rest(env), span=self.span(v))
        if isinstance(v, cst.Call):
            sort = self.container_sort(v, env, rest)  # `lst.sort()` after the loop
            if sort is not None:
                return sort
            call = self.call(v, env, statement=True)
            return Let("_", call, rest(env), span=self.span(v))
        raise self.error(
            v,
            "this expression statement has no effect",
            "only state actions (`s.add(x)`) and `yield` may stand alone",
        )

    def assign(self, s: cst.Assign, env: Env, rest: Callable[[Env], Expr]) -> Expr:
        if len(s.targets) != 1:
            raise self.reject(s)
        target = s.targets[0].target
        value = s.value
        if isinstance(target, cst.Tuple):
            self.allow_map(value)  # `a, b = map(f, (x, y))` unpacks the map
        # state construction: name = StateClass(...)
        if isinstance(value, cst.Call) and isinstance(target, cst.Name):
            cls = self.state_class(value.func, env)
            if cls is not None:
                return self.state_new(target, value, cls, env, rest)
        # pat = re.compile(CONST): the methods of a constant pattern (strings.py)
        if isinstance(target, cst.Name) and (pat := self.local_pattern(value, env)) is not None:
            env2 = env.copy()
            env2.names[target.value] = Pattern(target.value, self.span(target), env.depth,
                                               pattern=pat)  # fmt: skip
            env2.loop_locals.pop(target.value, None)
            return rest(env2)
        # a local container accumulator: d = {} / lst = [] / s = set()
        kind = self.container_kind(value, env) if isinstance(target, cst.Name) else None
        if kind is not None and isinstance(target, cst.Name):
            if isinstance(env.names.get(target.value), (StateVar, Carry)):
                raise self.error(
                    target,
                    f"`{target.value}` is reassigned",
                    "give each container or state its own name",
                )
            return self.container_new(target, value, kind, env, rest)
        if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name):
            cb = env.names.get(target.value.value)
            if isinstance(cb, Container):
                return self.container_store(target, value, cb, env, s, rest)
        if (
            isinstance(target, cst.Name)
            and (got := self.bind_view(target, value, env, rest)) is not None
        ):
            return got
        # a carried local being updated inside a loop
        if isinstance(target, cst.Name):
            b = env.names.get(target.value)
            if isinstance(b, Carry):
                return self.carry_update(target, value, b, env, rest, s)
            if isinstance(b, StateVar):
                raise self.error(
                    target,
                    f"state `{target.value}` is reassigned",
                    "a state variable is bound once; use a new name for another state",
                )
        # a stream binding: sub = g.project(1, 2)
        if isinstance(target, cst.Name):
            st = self.try_stream(value, env)
            if st is not None:
                expr, b = st
                var = target.value
                env2 = env.copy()
                env2.names[var] = Rows(
                    var, self.span(target), env.depth, b.arity, b.types, b.ordered, b.window,
                    b.names, b.row_type,
                )
                return Let(var, expr, rest(env2), span=self.span(s))
        return self.bind_target(target, value, self.expr(value, env), env, rest, s)

    def bind_target(
        self,
        target: cst.BaseExpression,
        value_node: cst.CSTNode,
        value: Expr,
        env: Env,
        rest: Callable[[Env], Expr],
        stmt: cst.CSTNode,
    ) -> Expr:
        if isinstance(target, cst.Name):
            name = target.value
            b = env.names.get(name)
            if isinstance(b, Carry):
                return self.carry_set(b, value, env, rest, stmt)
            if isinstance(b, StateVar):
                raise self.error(
                    target,
                    f"state `{name}` is reassigned",
                    "a state variable is bound once; give another state its own name",
                )
            env2 = env.copy()
            named = self.named_value(value_node, env)  # type: ignore[attr-defined]
            env2.names[name] = Value(name, self.span(target), depth=env.depth, **named)
            env2.loop_locals.pop(name, None)
            return Let(name, value, rest(env2), span=self.span(stmt))
        if isinstance(target, (cst.Tuple, cst.List)):
            tmp = self.fresh("t")
            elems = [e.value for e in target.elements]
            if any(isinstance(e, cst.StarredElement) for e in target.elements):
                raise self.error(
                    target,
                    "starred assignment is not supported",
                    "unpack into exactly as many names as there are values",
                )

            def unpack(k: int, env_k: Env) -> Expr:
                if k == len(elems):
                    return rest(env_k)
                if isinstance(elems[k], cst.Name) and elems[k].value == "_":
                    return unpack(k + 1, env_k)  # `a, _ = pair`: the value is not kept
                item = Apply(Prim("nth"), (Var(tmp), Lit(k)), span=self.span(elems[k]))
                return self.bind_target(
                    elems[k], elems[k], item, env_k, lambda e2: unpack(k + 1, e2), stmt
                )

            if not (isinstance(value, Apply) and value.fn == Prim("tuple")):
                # a list (`a, b = s.split()`) must have exactly as many elements
                value = Apply(Prim("c_unpack"), (value, Lit(len(elems))), span=self.span(target))
            return Let(tmp, value, unpack(0, env), span=self.span(stmt))
        if isinstance(target, (cst.Attribute, cst.Subscript)):
            raise self.error(
                target,
                f"assignment to `{code_of(target)}` mutates an object",
                "only local names can be assigned; keep accumulating data in a State",
            )
        raise self.error(
            target,
            f"unsupported assignment target `{code_of(target)}`",
            "assign to a name or a tuple of names",
        )

    def aug_assign(self, s: cst.AugAssign, env: Env, rest: Callable[[Env], Expr]) -> Expr:
        op = AUGOPS.get(type(s.operator).__name__)
        if op is None:
            raise self.reject(s.operator, s)
        target = s.target
        if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name):
            cb = env.names.get(target.value.value)
            if isinstance(cb, Container):
                return self.container_aug(s, cb, env, rest)
        if not isinstance(target, cst.Name):
            raise self.error(
                target,
                f"augmented assignment to `{code_of(target)}` mutates an object",
                "only local names can be updated; use a State for accumulated data",
            )
        b = env.names.get(target.value)
        if b is None:
            raise self.error(target, f"unknown name `{target.value}`", "assign it before updating")
        rhs = self.expr(s.value, env)
        if isinstance(b, Carry):
            # `p *= x` in an unordered loop: a product (recognize_reductions), `bits |= x` a
            # bitwise fold; in an ordered loop the carry runs in row order and updates there
            if op in ("add", "sub") or (op in _ORDER_FREE and not env.ordered):
                eff = Apply(StateCall(b.var, op), (rhs,), span=self.span(s))
                return Let("_", eff, rest(env), span=self.span(s))
            cur = Apply(StateCall(b.var, "get"), (), span=self.span(target))
            return self.carry_set(b, Apply(Prim(op), (cur, rhs), span=self.span(s)), env, rest, s)
        if not isinstance(b, Value):
            raise self.error(
                target,
                f"`{target.value}` is a {b.kind}, not a number",
                "update only numeric locals with augmented assignment",
            )
        value = Apply(Prim(op), (Var(b.var, span=self.span(target)), rhs), span=self.span(s))
        return Let(target.value, value, rest(env), span=self.span(s))

    def carry_update(
        self,
        target: cst.Name,
        value: cst.BaseExpression,
        b: Carry,
        env: Env,
        rest: Callable[[Env], Expr],
        stmt: cst.CSTNode,
    ) -> Expr:
        name = target.value
        # v = v + e / v = e + v / v = v - e
        if isinstance(value, cst.BinaryOperation) and type(value.operator).__name__ in (
            "Add",
            "Subtract",
        ):
            op = BINOPS[type(value.operator).__name__]
            left_is = is_name(value.left, name)
            right_is = is_name(value.right, name)
            other = value.right if left_is else value.left
            if (left_is or (right_is and op == "add")) and not mentions(other, name):
                # `v = e + v` prepends: the same as `v += e` for numbers, not for str
                meth = op if left_is else "radd"
                eff = Apply(StateCall(b.var, meth), (self.expr(other, env),), span=self.span(stmt))
                return Let("_", eff, rest(env), span=self.span(stmt))
        # v = v * e / v = e * v: a product, in an unordered loop (`|`, `&`, `^`: bitwise folds)
        op = BINOPS.get(type(value.operator).__name__) if isinstance(value, cst.BinaryOperation) else None
        if op in _ORDER_FREE and not env.ordered:
            other = value.right if is_name(value.left, name) else (  # type: ignore[attr-defined]
                value.left if is_name(value.right, name) else None)  # type: ignore[attr-defined]  # fmt: skip
            if other is not None and not mentions(other, name):
                eff = Apply(StateCall(b.var, op), (self.expr(other, env),), span=self.span(stmt))
                return Let("_", eff, rest(env), span=self.span(stmt))
        # v = v and e / v = v or e: all / any of bools, in an unordered loop (recognize_reductions
        # checks the types and the start value)
        if isinstance(value, cst.BooleanOperation) and not env.ordered:
            other = value.right if is_name(value.left, name) else (
                value.left if is_name(value.right, name) else None)  # fmt: skip
            if other is not None and not mentions(other, name):
                meth = "and_" if isinstance(value.operator, cst.And) else "or_"
                eff = Apply(StateCall(b.var, meth), (self.expr(other, env),), span=self.span(stmt))
                return Let("_", eff, rest(env), span=self.span(stmt))
        # v = max(v, e) / v = min(e, v)
        if (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Name)
            and value.func.value in ("max", "min")
            and value.func.value not in self.globals
            and len(value.args) == 2
        ):
            a0, a1 = value.args[0].value, value.args[1].value
            other = a1 if is_name(a0, name) else a0 if is_name(a1, name) else None
            if other is not None and not mentions(other, name):
                eff = Apply(
                    StateCall(b.var, value.func.value),
                    (self.expr(other, env),),
                    span=self.span(stmt),
                )
                return Let("_", eff, rest(env), span=self.span(stmt))
        return self.carry_set(b, self.expr(value, env), env, rest, stmt)

    def carry_set(
        self, b: Carry, value: Expr, env: Env, rest: Callable[[Env], Expr], stmt: cst.CSTNode
    ) -> Expr:
        eff = Apply(StateCall(b.var, "set"), (value,), span=self.span(stmt))
        return Let("_", eff, rest(env), span=self.span(stmt))

    def state_new(
        self,
        target: cst.Name,
        call: cst.Call,
        cls: type,
        env: Env,
        rest: Callable[[Env], Expr],
    ) -> Expr:
        ref = ref_of(cls)
        self.refs[ref] = cls
        args = self.call_args(call, env)
        try:
            inspect.signature(cls).bind(*[None] * len(args))
        except TypeError:
            raise self.error(
                call,
                f"wrong number of arguments ({len(args)}) for state `{cls.__name__}()`",
                f"its constructor is {cls.__name__}{inspect.signature(cls)}",
            ) from None
        except ValueError:  # e.g. `def __init__(*, self)`
            raise self.error(
                call,
                f"the constructor of state `{cls.__name__}` has a signature looplift cannot read",
                "declare it with `self` first: `def __init__(self, a, b)`",
            ) from None
        for a, node in zip(args, call.args, strict=True):
            if not isinstance(a, Lit) and not (
                isinstance(a, Var) and getattr(env.names.get(a.name), "depth", 0) == 0
            ):
                self.error(
                    node,
                    f"state constructor argument `{code_of(node)}` must be a constant or a "
                    "scalar parameter",
                    "pass literals or scalar parameters to state constructors",
                )
        name = target.value
        if isinstance(env.names.get(name), (StateVar, Carry)):
            raise self.error(
                target,
                f"state `{name}` is reassigned",
                "a state variable is bound once; give another state its own name",
            )
        env2 = env.copy()
        env2.names[name] = StateVar(name, self.span(target), depth=env.depth, cls=cls)
        env2.loop_locals.pop(name, None)
        value = Apply(StateNew(ref, span=self.span(call.func)), tuple(args), span=self.span(call))
        return Let(name, value, rest(env2), span=self.span(target))

    def return_stmt(self, s: cst.Return, after: list[cst.CSTNode], env: Env, top: bool) -> Expr:
        if env.depth > 0:
            raise self.error(
                s,
                "`return` inside a loop is supported only in a loop whose rows come in an order, "
                "at the top of the algorithm",
                "iterate in an order (`sorted_by(rows, ...)`, `group_by((), rows, order_by=...)`), "
                "or compute the result with a reduction or a State and return it after the loop",
            )
        if self.has_yield:
            if s.value is not None:
                raise self.error(
                    s,
                    "a table algorithm (one that yields) cannot `return` a value",
                    "yield rows; a table algorithm returns nothing",
                )
            return UNIT
        return self.expr(s.value, env) if s.value is not None else UNIT

    def raise_stmt(self, s: cst.Raise, env: Env) -> Expr:
        """``raise ValueError(msg)``: ends its branch like a return, with an error value."""
        rule = rule_for(s, None)
        if rule is not None:
            raise self.reject(s)
        if env.depth > 0:
            raise self.error(
                s,
                "`raise` inside a loop is only supported as a check `if bad: raise E(msg)` "
                "(no `else`) before the loop body's `yield` or state updates",
                "write the check that way, or check the value in a scalar @dataflow function "
                "that raises, and call it from the loop",
            )
        return self.raise_value(s, env)

    def raise_value(self, s: cst.Raise, env: Env) -> Expr:
        """The IR value of a supported ``raise`` statement."""
        call = s.exc if isinstance(s.exc, cst.Call) else None
        name = call.func if call is not None else s.exc
        assert isinstance(name, cst.Name)
        cls = name.value
        obj = self.global_obj(cls)
        if not (
            isinstance(obj, type)
            and issubclass(obj, Exception)
            and obj is getattr(builtins, cls, None)
        ):
            raise self.error(
                name,
                f"`{cls}` is not a builtin exception class",
                "raise a builtin exception (ValueError, KeyError, ...) with a message",
            )
        msg = self.call_args(call, env) if call is not None else []
        return Apply(Prim("raise"), (Lit(cls), msg[0] if msg else Lit("")), span=self.span(s))
