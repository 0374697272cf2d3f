"""Constructing values: module-level lookup tables, ``map`` over a fixed tuple.

A module-level dict or tuple of literals used in an algorithm is read at
compile time and becomes a native ``CASE`` over its entries:

- ``RATES[c]`` → ``table_item`` (KeyError when ``c`` is missing, IndexError
  for a tuple index out of range), ``RATES.get(c, d)`` → ``table_get``;
- ``c in RATES`` → ``in`` over the keys; ``STEPS.index(x)`` → ``table_item``
  over (value, first index) pairs (ValueError when missing);
- a tuple constant used as a value is a tuple of literals.

The IR call is ``table_item(key, Lit(name), Lit(pairs), Lit(error class))`` /
``table_get(key, Lit(name), Lit(pairs), default)``; the name is only for
``--explain``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import libcst as cst

from ..ir.nodes import Apply, Builtin, Expr, Host, Let, Lit, Prim, StateCall, Var
from .base import Context
from .env import Env
from .syntax import MISSING, flatten, if_expr

__all__ = ["ValueMixin", "const_datetime", "const_table_problem", "is_const_table"]

_SCALARS = (bool, int, float, str)


def _scalar_or_tuple(v: Any) -> bool:
    if v is None or isinstance(v, _SCALARS):
        return True
    return isinstance(v, tuple) and all(_scalar_or_tuple(x) for x in v)


def _kind(v: Any) -> str:
    """A value's kind for the one-type-per-table check (int and float are numbers)."""
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "str"
    if isinstance(v, tuple):
        return f"tuple{len(v)}:" + ",".join(_kind(x) for x in v)
    return "none"


def is_const_table(obj: Any) -> bool:
    return type(obj) in (dict, tuple)


def const_table_problem(obj: Any) -> str | None:
    """Why ``obj`` (a module-level dict or tuple) cannot be a lookup table, or None."""
    if isinstance(obj, dict):
        if not obj:
            return "it is empty"
        if any(not isinstance(k, _SCALARS) for k in obj):
            return "its keys must be int, float, str or bool literals"
        if len({"str" if isinstance(k, str) else "number" for k in obj}) > 1:
            return "its keys mix strings and numbers"
        values = list(obj.values())
    else:
        values = list(obj)
    if not all(_scalar_or_tuple(v) for v in values):
        return "its values must be int, float, str, bool, None or tuples of them"
    kinds = {_kind(v) for v in values} - {"none"}
    if len(kinds) > 1:
        return "its values mix types (" + ", ".join(sorted(k.split(":")[0] for k in kinds)) + ")"
    return None


class ValueMixin(Context):
    """Module-level constant tables in expressions (used by ``ExprMixin``)."""

    def const_table(self, node: cst.BaseExpression, env: Env) -> tuple[str, Any] | None:
        """``(name, value)`` when ``node`` names a module-level dict or tuple, else None."""
        if not isinstance(node, cst.Name) or node.value in env.names:
            return None
        if node.value in env.loop_locals:
            return None
        obj = self.global_obj(node.value)
        if obj is MISSING or not is_const_table(obj):
            return None
        problem = const_table_problem(obj)
        if problem is not None:
            raise self.error(
                node,
                f"module-level `{node.value}` cannot be used as a lookup table: {problem}",
                "use a dict or tuple of int, float, str, bool or None literals (one type of "
                "value), or a host function",
            )
        return node.value, obj

    def const_value(self, name: str, obj: Any, sp: Any) -> Expr:
        """A tuple constant as a value (a dict has no value form)."""
        if isinstance(obj, tuple):
            return Apply(Prim("tuple"), tuple(_lit(v) for v in obj), span=sp)
        return Lit(obj, span=sp)

    def table_item(self, name: str, obj: Any, key: Expr, sp: Any) -> Expr:
        if isinstance(obj, dict):
            pairs, err = tuple(obj.items()), "KeyError"
        else:
            n = len(obj)
            pairs = tuple((i, v) for i, v in enumerate(obj))
            pairs += tuple((i - n, v) for i, v in enumerate(obj))
            err = "IndexError"
        return Apply(Prim("table_item"), (key, Lit(name), Lit(pairs), Lit(err)), span=sp)

    def table_in(self, obj: Any, key: Expr, negate: bool, sp: Any) -> Expr:
        keys = tuple(obj) if isinstance(obj, dict) else obj
        op = "not_in" if negate else "in"
        return Apply(Prim(op), (key, *(_lit(k) for k in keys)), span=sp)

    def construct_datetime(self, node: cst.Call, cls: type, env: Env) -> Expr:
        """``datetime.datetime(y, m, d[, h, mi, s, us])``, ``date(y, m, d)``,
        ``timedelta(days=, seconds=, ..., weeks=)``: positional or keyword fields."""
        import datetime

        params, op, required = {
            datetime.datetime: (_DATETIME_FIELDS, "make_datetime", 3),
            datetime.date: (_DATETIME_FIELDS[:3], "make_date", 3),
            datetime.timedelta: (_TIMEDELTA_FIELDS, "make_timedelta", 0),
        }[cls]
        name = cls.__name__
        given: dict[str, cst.BaseExpression] = {}
        for i, a in enumerate(node.args):
            key = (
                a.keyword.value if a.keyword is not None else params[i] if i < len(params) else None
            )
            if a.star or key is None or key not in params or key in given:
                raise self.error(
                    a,
                    f"unsupported argument for `{name}(...)`",
                    f"pass {', '.join(params)} (positionally or by name)",
                )
            given[key] = a.value
        missing = [p for p in params[:required] if p not in given]
        if missing:
            raise self.error(
                node, f"`{name}(...)` needs {', '.join(missing)}", f"pass {', '.join(params[:3])}"
            )
        used = [p for p in params if p in given] if op == "make_datetime" else params
        if op == "make_datetime":  # the trailing fields default to 0
            used = list(params[: max(3, max(params.index(p) for p in given) + 1)])
        values = self.exprs([given[p] for p in used if p in given], env)
        it = iter(values)
        args = tuple(next(it) if p in given else Lit(0) for p in used)
        return Apply(Prim(op), args, span=self.span(node))

    def map_over_tuple(self, node: cst.Call, env: Env) -> Expr:
        """``map(f, (a, b, c))``: unrolled to ``(f(a), f(b), f(c))`` over a fixed tuple."""
        if node not in self.__dict__.setdefault("unpacked_maps", set()):
            raise self.error(
                node,
                "a `map` object can only be unpacked or turned into a tuple here",
                "write `a, b = map(f, (x, y))` or `tuple(map(f, (x, y)))`",
            )
        args = node.args
        if len(args) != 2 or any(a.keyword is not None or a.star for a in args):
            raise self.error(node, "`map` takes a function and one tuple", "write `map(f, (a, b))`")
        fn, seq = args[0].value, args[1].value
        if isinstance(seq, cst.Tuple) and not any(
            isinstance(e, cst.StarredElement) for e in seq.elements
        ):
            elems = [e.value for e in seq.elements]
        else:
            table = self.const_table(seq, env)
            if table is None or not isinstance(table[1], tuple):
                raise self.error(
                    seq,
                    "`map` is only supported over a tuple written out, e.g. `map(f, (a, b, c))`, "
                    "or a module-level tuple",
                    "list the elements: `map(float, (a, b, c))`",
                )
            elems = [cst.parse_expression(repr(v)) for v in table[1]]
        if isinstance(fn, cst.Lambda):
            raise self.error(fn, "`map` with a lambda is not supported", "call a named function")
        calls = [cst.Call(func=fn, args=[cst.Arg(value=e)]) for e in elems]
        out = []
        for c in calls:
            out.append(self.call(c, env, statement=False))  # type: ignore[attr-defined]
        return Apply(Prim("tuple"), tuple(out), span=self.span(node))

    def allow_map(self, node: cst.BaseExpression) -> None:
        """``node`` (if a ``map(...)`` call) is unpacked or converted by ``tuple``."""
        if isinstance(node, cst.Call):
            self.__dict__.setdefault("unpacked_maps", set()).add(node)

    def tuple_of(self, node: cst.Call, env: Env) -> Expr:
        """``tuple(map(f, (a, b)))`` or ``tuple((a, b))``: the tuple itself."""
        if len(node.args) == 1 and node.args[0].keyword is None and not node.args[0].star:
            arg = node.args[0].value
            if (
                isinstance(arg, cst.Call)
                and isinstance(arg.func, cst.Name)
                and (arg.func.value == "map")
            ):
                self.allow_map(arg)
                return self.expr(arg, env)  # type: ignore[attr-defined]
            if isinstance(arg, cst.Tuple):
                return self.expr(arg, env)  # type: ignore[attr-defined]
        raise self.error(
            node,
            "`tuple(...)` is only supported of a `map(...)` or a tuple",
            "build the tuple directly: `(a, b, c)`",
        )

    def raise_in_loop(self, s: cst.If, cond: Expr, after: list[cst.CSTNode], env: Env,
                      tail_fn: Any, top: bool) -> Expr:  # fmt: skip
        """``if bad: raise E(msg)`` in a loop body: every unconditional ``yield`` and state
        update after it in the body carries the check, so Spark evaluates it on every row
        (the algorithm raises E on a row where Python raises E), and what comes after the
        check is evaluated only where it does not hold (see :func:`_wrap_effects`).

        Transforms ``if c: raise E(m)`` + ``n = f(x)`` + ``yield a, b`` into
        ``_chk = c; n = (raise E(m) if _chk else f(x));
        yield (raise E(m) if _chk else a), (raise E(m) if _chk else b)``.
        """
        raise_stmt = flatten(list(s.body.body))[0]
        err = self.raise_value(raise_stmt, env)  # type: ignore[attr-defined]
        rest = self.stmts(list(after), 0, env.copy(), tail_fn, top)  # type: ignore[attr-defined]
        sp = self.span(s)
        tmp = self.fresh("chk")
        wrapped, n = _wrap_effects(rest, lambda v: if_expr(Var(tmp), err, v, sp))
        if n == 0:
            raise self.error(
                s,
                "a `raise` inside a loop must be followed, in the same loop body and outside "
                "any `if`, by a `yield` or a state update that takes a value",
                "move the check just before the loop body's `yield`, or check the value in a "
                "scalar @dataflow function that raises",
            )
        return Let(tmp, cond, wrapped, span=sp)

    def table_method(
        self, node: cst.Call, name: str, obj: Any, meth: str, args: list[Expr]
    ) -> Expr:
        sp = self.span(node)
        if isinstance(obj, dict) and meth == "get" and len(args) in (1, 2):
            default = args[1] if len(args) == 2 else Lit(None)
            pairs = tuple(obj.items())
            return Apply(Prim("table_get"), (args[0], Lit(name), Lit(pairs), default), span=sp)
        if isinstance(obj, tuple) and meth == "index" and len(args) == 1:
            first: dict[Any, int] = {}
            for i, v in enumerate(obj):
                first.setdefault(v, i)
            pairs = tuple(first.items())
            return Apply(
                Prim("table_item"), (args[0], Lit(name), Lit(pairs), Lit("ValueError")), span=sp
            )
        if isinstance(obj, tuple) and meth == "count" and len(args) == 1:
            counts: dict[Any, int] = {}
            for v in obj:
                counts[v] = counts.get(v, 0) + 1
            pairs = tuple(counts.items())
            return Apply(Prim("table_get"), (args[0], Lit(name), Lit(pairs), Lit(0)), span=sp)
        what = "`.get(key)` / `.get(key, default)`" if isinstance(obj, dict) else "`.index(x)`"
        raise self.error(
            node,
            f"`{name}.{meth}(...)` is not supported on a module-level lookup table",
            f"use `{name}[key]`, `key in {name}` or {what}",
        )


_DATETIME_FIELDS = ("year", "month", "day", "hour", "minute", "second", "microsecond")
_TIMEDELTA_FIELDS = ("days", "seconds", "microseconds", "milliseconds", "minutes", "hours", "weeks")


def const_datetime(v: Any) -> Expr | None:
    """A module-level datetime, date or timedelta constant as IR, else None."""
    import datetime

    if isinstance(v, (datetime.datetime, datetime.date)):
        if isinstance(v, datetime.datetime) and v.tzinfo is not None:
            return None
        return Lit(v)
    if isinstance(v, datetime.timedelta):
        parts = (v.days, v.seconds, v.microseconds, 0, 0, 0, 0)
        return Apply(Prim("make_timedelta"), tuple(Lit(p) for p in parts))
    return None


def is_raise_check(s: cst.If) -> bool:
    """``if cond: raise ...`` with no ``else`` and nothing else in the branch."""
    body = flatten(list(s.body.body))
    return s.orelse is None and len(body) == 1 and isinstance(body[0], cst.Raise)


def _wrap_effects(e: Expr, wrap: Any) -> tuple[Expr, int]:
    """Guard what ``e``'s top-level let chain evaluates after a raise check: every field of
    a ``yield``, every argument of a state update and every value computed on the way
    becomes ``wrap(v)`` (the raise where the check holds, else ``v``), so nothing after the
    check is evaluated where Python raises, and the raise wins wherever Spark evaluates
    first. The first field or argument of an effect is always wrapped (it carries the
    raise); a variable or literal elsewhere cannot raise and stays as it is."""
    if not isinstance(e, Let):
        return e, 0
    body, n = _wrap_effects(e.body, wrap)
    v = e.value

    def guard(args: tuple[Expr, ...]) -> tuple[Expr, ...]:
        return tuple(wrap(a) if i == 0 or not isinstance(a, (Var, Lit)) else a
                     for i, a in enumerate(args))  # fmt: skip

    if e.name == "_" and isinstance(v, Apply):
        if isinstance(v.fn, Builtin) and v.fn.name == "yield":
            row = v.args[0]
            if isinstance(row, Apply) and row.fn == Prim("tuple") and row.args:
                row = replace(row, args=guard(row.args))
                return replace(e, value=replace(v, args=(row,)), body=body), n + 1
        if isinstance(v.fn, StateCall) and v.args:
            new = replace(v, args=guard(v.args))
            return replace(e, value=new, body=body), n + 1
    if e.name != "_" and isinstance(v, Apply) and isinstance(v.fn, (Prim, Host)):
        return replace(e, value=wrap(v), body=body), n
    return replace(e, body=body), n


def _lit(v: Any) -> Expr:
    if isinstance(v, tuple):
        return Apply(Prim("tuple"), tuple(_lit(x) for x in v))
    return Lit(v)
