"""Local containers used as accumulators: ``dict`` / ``list`` / ``set`` → reversible states.

Transforms this::

    d = {}
    for k, v in rows:
        d[k] = d.get(k, 0) + v         # or d[k] += v after `if k not in d: d[k] = 0`
    n = len(d)

into::

    let d = new KeyedSums() in
    let _loop = smap(λ k v. d#add(k, v), rows) in
    let n = len(d#value()) in ...

A container is a state (``states/containers.py``) whose actions are reversible,
so incremental mode keeps working. Its value after the loop is an ordered list
(a dict's ``(key, value)`` pairs by key; a set's distinct elements, a list's
elements, ascending, since rows arrive in no order) that the plan reads with
native Spark array functions (the ``c_*`` primitives of ``ir/prims.py``).
Reading a container inside the unordered loop that builds it depends on row
order and is reported with a rewrite (``order_by=``).

Recognized updates in an unordered loop: ``d[k] = d.get(k, 0) + v`` (either
operand order), ``d[k] += v`` / ``-= v``, ``if k not in d: d[k] = 0``,
``if k in d: d[k] += v else: d[k] = v``, ``d.setdefault(k, 0)``,
``d[k] = max(d.get(k, x), v)`` / ``min`` (``KeyedMax`` / ``KeyedMin``),
``lst.append(x)``, ``s.add(x)``. In an ordered loop (``group_by(...,
order_by=)``) the container is a Python one run in row order (``Seq``,
``InsertionDict``, ``PySet``): ``d[k] = v``, ``lst.pop(0)`` / ``pop()``,
``s.discard(x)`` and reads inside the loop are allowed too.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable

import libcst as cst

from ..ir.nodes import Apply, Expr, Let, Lit, Prim, StateCall, StateNew
from .container_loops import ContainerLoopMixin
from .container_starts import ContainerStartMixin
from .counters import CounterMixin
from .env import Container, Env, Poison, Stop
from .list_values import ListValueMixin
from .parse import ref_of
from .syntax import code_of, is_name, mentions

__all__ = ["ContainerMixin"]

_KINDS = {cst.Dict: "dict", cst.List: "list", cst.Set: "set"}
_CTORS = ("dict", "list", "set")


class ContainerMixin(ContainerLoopMixin, CounterMixin, ListValueMixin, ContainerStartMixin):
    """Creation, mutation and reading of local containers."""

    # -- creation ---------------------------------------------------------------------
    def container_kind(self, value: cst.BaseExpression, env: Env) -> str | None:
        """``{}`` / ``[]`` / ``set()`` / ``dict()`` / ``list()``: the container kind, else None."""
        if isinstance(value, (cst.Dict, cst.List, cst.Set)):
            return _KINDS[type(value)]
        if (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Name)
            and value.func.value in _CTORS
            and value.func.value not in env.names
            and self.global_obj(value.func.value) is getattr(builtins, value.func.value)
        ):
            return value.func.value
        if self.counter_default(value, env) is not None:
            return "dict"
        return None

    def counter_default(self, value: cst.BaseExpression, env: Env) -> int | float | None:
        """``defaultdict(int)``, ``defaultdict(float)``, ``Counter()``: a dict of sums whose
        missing keys read as 0 (``0.0``), else None."""
        import collections

        if not isinstance(value, cst.Call):
            return None
        func = value.func
        if isinstance(func, cst.Name) and func.value not in env.names:
            fn = self.global_obj(func.value)
        elif (isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name)
              and func.value.value not in env.names
              and self.global_obj(func.value.value) is collections):  # fmt: skip
            fn = getattr(collections, func.attr.value, None)  # `collections.Counter()`
        else:
            return None
        args = [a.value for a in value.args]
        if fn is collections.Counter and not args:
            return 0
        if (fn is collections.defaultdict and len(args) == 1 and isinstance(args[0], cst.Name)
                and args[0].value not in env.names
                and self.global_obj(args[0].value) in (int, float)):  # fmt: skip
            return 0 if self.global_obj(args[0].value) is int else 0.0
        return None

    def container_new(
        self, target: cst.Name, value: cst.BaseExpression, kind: str, env: Env,
        rest: Callable[[Env], Expr],
    ) -> Expr:  # fmt: skip
        from looplift.states.containers import CONTAINER_STATES, ORDERED_CONTAINER_STATES

        zero = self.counter_default(value, env)
        init = self.container_init(target, value, kind, env) if zero is None else None
        name = target.value
        env2 = env.copy()
        cls = CONTAINER_STATES[kind]
        init_var = self.fresh(f"{name}_init") if init is not None else None
        env2.names[name] = Container(name, self.span(target), depth=env.depth, cls=cls, ctype=kind,
                                     init=init_var)  # fmt: skip
        if zero is not None:
            self.container_zero[name] = zero
            if isinstance(value, cst.Call) and self.is_counter(value.func, env):
                self.counter_names.add(name)
        else:
            self.container_zero.pop(name, None)
        env2.loop_locals.pop(name, None)
        body = rest(env2)
        # filled in an ordered loop: a Python container run in row order (ordered.py)
        if self.ordered_containers.get(name):
            cls = ORDERED_CONTAINER_STATES[kind]
        elif kind == "dict" and self.container_modes.get(name) in ("max", "min"):
            from looplift.states.containers import KeyedMax, KeyedMin

            cls = KeyedMax if self.container_modes[name] == "max" else KeyedMin
        ref = ref_of(cls)
        self.refs[ref] = cls
        new = Apply(StateNew(ref, span=self.span(value)), (), span=self.span(value))
        out = Let(name, new, body, span=self.span(target))
        if init is not None and init_var is not None:  # evaluated where Python builds it
            out = Let(init_var, init, out, span=self.span(value))
        return out

    # -- mutation ---------------------------------------------------------------------
    def _mutating(self, b: Container, node: cst.CSTNode, env: Env) -> None:
        if env.depth <= b.depth:
            raise self.error(
                node,
                f"`{b.var}` is changed outside a loop; a container accumulator is filled "
                "inside a loop over rows",
                "add the elements inside the `for` loop over the rows",
            )

    def container_store(
        self, target: cst.Subscript, value: cst.BaseExpression, b: Container, env: Env,
        stmt: cst.CSTNode, rest: Callable[[Env], Expr],
    ) -> Expr:  # fmt: skip
        """``d[k] = d.get(k, 0) + v`` / ``d[k] = d[k] + v`` / ``d[k] = 0`` (in ``if k not in d``)."""
        name = b.var
        if b.ctype != "dict":
            raise self.error(
                target,
                f"item assignment on the {b.ctype} `{name}` is not supported",
                f"build it with `{name}.{'append' if b.ctype == 'list' else 'add'}(x)`",
            )
        self._mutating(b, target, env)
        key_node = self._key_of(target)
        add = self._sum_operand(value, name, key_node)
        if env.ordered:  # rows in order: the store is Python's, later rows overwrite
            key, val = self.exprs([key_node, add if add is not None else value], env)
            return self._ordered(
                b, "add" if add is not None else "set", (key, val), stmt, env, rest
            )
        ext = self._extreme_operand(value, name, key_node) if add is None else None
        if ext is not None:  # d[k] = max(d.get(k, x), v): the max of every max(x, v)
            fn, v_node, d_node = ext
            self._mode(b, fn, stmt)
            key, v, d = self.exprs([key_node, v_node, d_node], env)
            amount = v if code_of(v_node) == code_of(d_node) else Apply(Prim(fn), (v, d))
            return self._add(b, key, amount, stmt, env, rest)
        if add is None:
            raise self.error(
                stmt,
                f"`{code_of(stmt).strip()}` keeps one row's value per key; in an unordered "
                "loop that row is arbitrary",
                f"accumulate per key (`{name}[k] = {name}.get(k, 0) + v`, `{name}[k] += v`), "
                "or iterate the rows in order with `group_by(..., order_by=i)`",
            )
        self._mode(b, "sum", stmt)
        key = self.expr(key_node, env)
        amount = self.expr(add, env)
        return self._add(b, key, amount, stmt, env, rest)

    def _mode(self, b: Container, mode: str, node: cst.CSTNode) -> None:
        """A dict accumulates sums, maxima or minima: one of them."""
        if b.init is not None and mode != "sum":
            raise self.error(
                node,
                f"`{b.var}` starts with elements and is accumulated with {mode}",
                f"start `{b.var}` empty, or accumulate sums",
            )
        was = self.container_modes.setdefault(b.var, mode)
        if was != mode:
            raise self.error(
                node,
                f"`{b.var}` is accumulated with both {was} and {mode}",
                "keep one accumulation per dict; use another dict for the other",
            )

    def _extreme_operand(
        self, value: cst.BaseExpression, name: str, key_node: cst.BaseExpression
    ) -> tuple[str, cst.BaseExpression, cst.BaseExpression] | None:
        """``max(d.get(k, x), v)`` / ``min(v, d.get(k, x))``: (``max``, v, x), else None."""
        if not (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Name)
            and value.func.value in ("max", "min")
            and value.func.value not in self.globals
            and len(value.args) == 2
            and all(a.keyword is None and not a.star for a in value.args)
        ):
            return None
        a0, a1 = value.args[0].value, value.args[1].value
        for cur, other in ((a0, a1), (a1, a0)):
            if (
                isinstance(cur, cst.Call)
                and isinstance(cur.func, cst.Attribute)
                and is_name(cur.func.value, name)
                and cur.func.attr.value == "get"
                and len(cur.args) == 2
                and code_of(cur.args[0].value) == code_of(key_node)
                and not mentions(other, name)
                and not mentions(cur.args[1].value, name)
            ):
                return value.func.value, other, cur.args[1].value
        return None

    def container_aug(
        self, s: cst.AugAssign, b: Container, env: Env, rest: Callable[[Env], Expr]
    ) -> Expr:
        """``d[k] += v`` / ``d[k] -= v``."""
        target = s.target
        assert isinstance(target, cst.Subscript)
        op = type(s.operator).__name__
        if b.ctype != "dict" or op not in ("AddAssign", "SubtractAssign"):
            raise self.error(
                s,
                f"`{code_of(s).strip()}` is not an accumulation this compiler recognizes",
                f"accumulate per key with `{b.var}[k] += v` or `{b.var}[k] = {b.var}.get(k, 0) + v`",
            )
        self._mutating(b, target, env)
        self._mode(b, "sum", s)
        key = self.expr(self._key_of(target), env)
        amount = self.expr(s.value, env)
        if op == "SubtractAssign":
            amount = Apply(Prim("neg"), (amount,), span=amount.span)
        return self._add(b, key, amount, s, env, rest)

    def container_if(self, s: cst.If, env: Env, rest: Callable[[Env], Expr]) -> Expr | None:
        """``if k not in d: d[k] = 0`` (optionally ``else: d[k] += v``) and
        ``if k in d: d[k] += v else: d[k] = v``: per-key sums written Python's long way."""
        test = s.test
        if not (
            isinstance(test, cst.Comparison)
            and len(test.comparisons) == 1
            and type(test.comparisons[0].operator).__name__ in ("In", "NotIn")
            and isinstance(test.comparisons[0].comparator, cst.Name)
        ):
            return None
        b = env.names.get(test.comparisons[0].comparator.value)
        if not isinstance(b, Container) or b.ctype != "dict" or env.ordered:
            return None
        key_node = test.left
        negated = type(test.comparisons[0].operator).__name__ == "NotIn"
        then = list(s.body.body)
        other = [] if s.orelse is None or isinstance(s.orelse, cst.If) else list(s.orelse.body.body)
        if isinstance(s.orelse, cst.If):
            return None
        absent, present = (then, other) if negated else (other, then)
        init = self._single_store(absent, b.var, key_node)
        if init is None:
            return None
        init_key, init_val = init
        if present:
            upd = self._single_update(present, b.var, key_node)
            if upd is None:
                return None
            # if k in d: d[k] += v  else: d[k] = v   → add(k, v) (same v)
            if code_of(upd) != code_of(init_val):
                return None
            self._mutating(b, s, env)
            self._mode(b, "sum", s)
            return self._add(b, self.expr(key_node, env), self.expr(upd, env), s, env, rest)
        # if k not in d: d[k] = 0   → add(k, 0): the key exists, its sum unchanged
        if not (isinstance(init_val, (cst.Integer, cst.Float)) and float(init_val.value) == 0):
            return None
        self._mutating(b, s, env)
        self._mode(b, "sum", s)
        return self._add(b, self.expr(init_key, env), self.expr(init_val, env), s, env, rest)

    def _single_store(
        self, stmts: list[cst.CSTNode], name: str, key_node: cst.BaseExpression
    ) -> tuple[cst.BaseExpression, cst.BaseExpression] | None:
        if len(stmts) != 1 or not isinstance(stmts[0], cst.SimpleStatementLine):
            return None
        body = stmts[0].body
        if len(body) != 1 or not isinstance(body[0], cst.Assign) or len(body[0].targets) != 1:
            return None
        t = body[0].targets[0].target
        if not (isinstance(t, cst.Subscript) and is_name(t.value, name)):
            return None
        k = self._key_of(t)
        if code_of(k) != code_of(key_node):
            return None
        return k, body[0].value

    def _single_update(
        self, stmts: list[cst.CSTNode], name: str, key_node: cst.BaseExpression
    ) -> cst.BaseExpression | None:
        if len(stmts) != 1 or not isinstance(stmts[0], cst.SimpleStatementLine):
            return None
        body = stmts[0].body
        if len(body) != 1:
            return None
        s = body[0]
        if (
            isinstance(s, cst.AugAssign)
            and isinstance(s.operator, cst.AddAssign)
            and isinstance(s.target, cst.Subscript)
            and is_name(s.target.value, name)
            and code_of(self._key_of(s.target)) == code_of(key_node)
        ):
            return s.value
        if isinstance(s, cst.Assign) and len(s.targets) == 1:
            t = s.targets[0].target
            if isinstance(t, cst.Subscript) and is_name(t.value, name):
                if code_of(self._key_of(t)) == code_of(key_node):
                    return self._sum_operand(s.value, name, key_node)
        return None

    def _key_of(self, target: cst.Subscript) -> cst.BaseExpression:
        if len(target.slice) != 1 or not isinstance(target.slice[0].slice, cst.Index):
            raise self.error(target, "a dict is indexed by one key", "write `d[k]`")
        return target.slice[0].slice.value

    def _sum_operand(
        self, value: cst.BaseExpression, name: str, key_node: cst.BaseExpression
    ) -> cst.BaseExpression | None:
        """``d.get(k, 0) + v`` / ``v + d.get(k, 0)`` / ``d[k] + v``: ``v``, else None."""
        if not (isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Add)):
            return None
        for cur, other in ((value.left, value.right), (value.right, value.left)):
            if self._is_current(cur, name, key_node) and not mentions(other, name):
                return other
        return None

    def _is_current(
        self, node: cst.BaseExpression, name: str, key_node: cst.BaseExpression
    ) -> bool:
        """``d.get(k, 0)`` / ``d.get(k, 0.0)`` / ``d[k]`` of the same key."""
        if isinstance(node, cst.Subscript) and is_name(node.value, name):
            return code_of(self._key_of(node)) == code_of(key_node)
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and is_name(node.func.value, name)
            and node.func.attr.value == "get"
            and len(node.args) == 2
            and code_of(node.args[0].value) == code_of(key_node)
        ):
            d = node.args[1].value
            return isinstance(d, (cst.Integer, cst.Float)) and float(d.value) == 0
        return False

    def _add(
        self, b: Container, key: Expr | None, amount: Expr | None, stmt: cst.CSTNode, env: Env,
        rest: Callable[[Env], Expr],
    ) -> Expr:  # fmt: skip
        if env.ordered:
            return self._ordered(b, "add", (key, amount), stmt, env, rest)
        args = tuple(x for x in (key, amount) if x is not None)
        eff = Apply(StateCall(b.var, "add", span=self.span(stmt)), args, span=self.span(stmt))
        return Let("_", eff, rest(env), span=self.span(stmt))

    def _ordered(
        self, b: Container, meth: str, args: tuple, stmt: cst.CSTNode, env: Env,
        rest: Callable[[Env], Expr] | None,
    ) -> Expr:  # fmt: skip
        """An update of a container filled in an ordered loop (its Python runs in row order)."""
        if b.init is not None and meth in ("set", "pop_first", "pop_last", "discard"):
            raise self.error(
                stmt,
                f"`{code_of(stmt).strip()}` changes the elements `{b.var}` starts with",
                f"start `{b.var}` empty and add its starting elements before the loop's rows",
            )
        self.ordered_containers[b.var] = True
        eff = Apply(StateCall(b.var, meth, span=self.span(stmt)), tuple(args), span=self.span(stmt))
        return eff if rest is None else Let("_", eff, rest(env), span=self.span(stmt))

    def container_method(
        self, node: cst.Call, b: Container, meth: str, env: Env, statement: bool
    ) -> Expr:
        """``lst.append(x)`` / ``s.add(x)`` (statements); ``d.get(k, default)`` (a value)."""
        if b.var in self.counter_names and meth == "update" and statement:
            return self.counter_update(node, b, env)
        if b.var in self.counter_names and meth == "most_common" and not statement:
            view = self.cview(node, env)
            assert view is not None
            return view.expr
        want = {"list": "append", "set": "add"}.get(b.ctype)
        if statement and meth == want:
            if len(node.args) != 1 or node.args[0].keyword or node.args[0].star:
                raise self.error(
                    node, f"`{b.var}.{meth}` takes one argument", f"write `{b.var}.{meth}(x)`"
                )
            self._mutating(b, node, env)
            x = self.expr(node.args[0].value, env)
            if env.ordered:
                return self._ordered(b, meth, (x,), node, env, None)
            return Apply(
                StateCall(b.var, "add", span=self.span(node.func)), (x,), span=self.span(node)
            )
        if b.ctype == "dict" and meth == "get" and not statement:
            view = self.container_view(cst.Name(b.var), env, node)
            args = self.call_args(node, env)
            if not 1 <= len(args) <= 2:
                raise self.error(
                    node, "`get` takes a key and an optional default", "write `d.get(k, 0)`"
                )
            dflt = args[1] if len(args) == 2 else Lit(None)
            return Apply(Prim("c_get"), (view.expr, args[0], dflt), span=self.span(node))
        if statement and env.ordered and env.depth > b.depth:
            ordered_forms = {("list", "pop"): None, ("set", "discard"): "discard",
                             ("set", "remove"): "discard"}  # fmt: skip
            if (b.ctype, meth) in ordered_forms:
                args = self.call_args(node, env)
                if meth == "pop":
                    if args and not (isinstance(args[0], Lit) and args[0].value in (0, -1)):
                        raise self.error(node, "only `pop(0)` and `pop()` are supported",
                                         "drop the oldest element with `lst.pop(0)`")  # fmt: skip
                    first = bool(args) and args[0].value == 0  # type: ignore[union-attr]
                    return self._ordered(b, "pop_first" if first else "pop_last", (), node, env,
                                         None)  # fmt: skip
                return self._ordered(b, "discard", tuple(args), node, env, None)
        if b.ctype == "dict" and meth == "setdefault" and statement:
            args = self.call_args(node, env)
            if len(args) == 2 and isinstance(args[1], Lit) and args[1].value == 0:
                self._mutating(b, node, env)
                return Apply(StateCall(b.var, "add", span=self.span(node.func)), tuple(args),
                             span=self.span(node))  # fmt: skip
        raise self.error(
            node,
            f"`{b.var}.{meth}(...)` is not supported on a {b.ctype} accumulator",
            {
                "list": f"append in the loop (`{b.var}.append(x)`), read after it with len, "
                "sum, min, max, sorted(...), `x in`",
                "set": f"add in the loop (`{b.var}.add(x)`), read after it with len, `x in`, "
                "sorted(...)",
                "dict": f"accumulate with `{b.var}[k] = {b.var}.get(k, 0) + v`; read after the "
                f"loop with `{b.var}[k]`, `{b.var}.get(k, default)`, len, sorted({b.var}.items())",
            }[b.ctype],
        )

    def container_use_error(self, node: cst.Name, b: Container) -> None:
        self.error(
            node,
            f"the {b.ctype} `{node.value}` is used as a value",
            "read it with len, sum, min, max, `x in`, sorted(...), "
            + (
                "`d[k]`, `d.get(k, default)`, .items(), .keys(), .values() "
                if b.ctype == "dict"
                else ""
            )
            + "or iterate it with `for`",
        )

    def poison_names(self, env: Env, names: set[str], span_node: cst.CSTNode) -> Env:
        env2 = env.copy()
        for n in names:
            env2.names[n] = Poison(n, self.span(span_node), depth=env.depth)
        return env2

    def stop(self) -> Stop:
        return Stop()
