"""Calls: state actions and readers, builtins, ``math.*``, host functions, ``@dataflow`` calls."""

from __future__ import annotations

import builtins
import datetime
import inspect
import math
import statistics
import types
from typing import Any

import libcst as cst
from looplift.rowtypes import is_row_class, row_class, row_fields

from ..ir.nodes import Apply, Builtin, CallDataflow, Expr, Host, Lit, Prim, StateCall
from ..ir.prims import BUILTIN_FUNCS, DATETIME_METHODS, MATH_ARITY, MATH_FUNCS
from .base import Context
from .datetime_text import DatetimeTextMixin
from .env import Binding, Carry, Container, Env, Poison, Rows, StateVar, Value
from .parse import ref_of
from .strings import StringMixin
from .syntax import MISSING, MUTATORS, code_of
from .tries import TRY_OK
from .values import is_const_table
from .windows import WINDOW_FUNCS, WindowMixin

STATS_FUNCS = ("mean", "fmean", "median", "median_low", "median_high")

__all__ = ["CallMixin"]


class CallMixin(StringMixin, DatetimeTextMixin, WindowMixin, Context):
    """Every call form; expressions come from ``ExprMixin``."""

    def state_class(self, func: cst.BaseExpression, env: Env) -> type | None:
        from looplift.state import State

        obj = MISSING
        if isinstance(func, cst.Name) and func.value not in env.names:
            obj = self.global_obj(func.value)
        elif isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
            mod = self.global_obj(func.value.value)
            if isinstance(mod, types.ModuleType):
                obj = getattr(mod, func.attr.value, MISSING)
        if isinstance(obj, type) and issubclass(obj, State):
            return obj
        return None

    def call(self, node: cst.Call, env: Env, statement: bool) -> Expr:
        sp = self.span(node)
        row_len = self.row_len(node, env)  # type: ignore[attr-defined]
        if row_len is not None:
            return row_len
        best = self.stream_best(node, env)  # type: ignore[attr-defined]
        if best is not None:
            return best
        func = node.func
        if isinstance(func, cst.Name) and func.value == TRY_OK:  # a try's test (tries.py)
            return self.try_ok(node, env)  # type: ignore[attr-defined]
        string = self.string_call(node, env)  # str methods, re, format
        if string is not None:
            return string
        dt_text = self.datetime_text_call(node, env)  # strptime / strftime (datetime_text.py)
        if dt_text is not None:
            return dt_text
        # method calls: state actions / readers, stream methods, mutation
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
            recv = func.value.value
            meth = func.attr.value
            b = env.names.get(recv)
            if b is not None:
                return self.method_call(node, b, recv, meth, env, statement)
            if recv in env.loop_locals:
                self.name(func.value, env)  # reports the scope / order problem
                self.call_args(node, env)
                return Lit(None, span=sp)
            obj = self.global_obj(recv)
            if is_const_table(obj):  # RATES.get(c, 0), STEPS.index(x)
                name, value = self.const_table(func.value, env)
                return self.table_method(node, name, value, meth, self.call_args(node, env))
            if obj is statistics and meth in STATS_FUNCS:  # of a container's values
                got = self.statistics_call(node, meth, env)
                if got is not None:
                    return got
            if obj is math:
                if meth not in MATH_FUNCS:
                    raise self.error(
                        func,
                        f"`math.{meth}` is not supported",
                        "use math.sqrt, log, exp, floor, ceil, ... or a host function",
                    )
                args = tuple(self.call_args(node, env))
                lo, hi = MATH_ARITY.get(meth, (1, 1))
                if not lo <= len(args) <= hi:
                    want = f"{lo}" if lo == hi else f"{lo} or {hi}"
                    raise self.error(node, f"`math.{meth}` takes {want} argument"
                                     f"{'s' if hi > 1 else ''} here, not {len(args)}",
                                     f"see help(math.{meth})")  # fmt: skip
                return Apply(Prim(f"math.{meth}"), args, span=sp)
            if isinstance(obj, types.ModuleType):
                target = getattr(obj, meth, MISSING)
                if target is MISSING:
                    raise self.error(
                        func, f"unknown name `{recv}.{meth}`", "check the module attribute's name"
                    )
                return self.call_global(node, f"{recv}.{meth}", target, env, statement)
            if obj is MISSING:
                self.error(func.value, f"unknown name `{recv}`", "define or import it")
                self.call_args(node, env)
                return Lit(None, span=sp)
        if isinstance(func, cst.Name):
            n = func.value
            got = self.container_call(node, env)
            if got is not None:
                return got
            b = env.names.get(n)
            if isinstance(b, Poison):
                self.call_args(node, env)
                return Lit(None, span=sp)
            if b is not None:
                raise self.error(
                    func,
                    f"`{n}` is a local {b.kind} and cannot be called",
                    "call module-level functions, @dataflow functions or state methods",
                )
            if n in env.loop_locals:
                self.name(func, env)
                self.call_args(node, env)
                return Lit(None, span=sp)
            obj = self.global_obj(n)
            if obj is MISSING:
                self.error(func, f"unknown name `{n}`", "define or import it in the module")
                self.call_args(node, env)
                return Lit(None, span=sp)
            return self.call_global(node, n, obj, env, statement)
        if isinstance(func, cst.Attribute) and func.attr.value == "get" and not statement:
            return self.dict_get(node, env)  # `f(x).get(k, default)`: of a dict value
        if isinstance(func, cst.Attribute) and func.attr.value in DATETIME_METHODS:
            if not node.args:  # `(t - p).total_seconds()`, `ts.date()`
                value = self.expr(func.value, env)
                return Apply(Prim(DATETIME_METHODS[func.attr.value]), (value,), span=sp)
        raise self.error(
            func,
            f"unsupported call of `{code_of(func)}`",
            "call a @dataflow function, a state's method, a builtin, math.* or a module-level function",
        )

    def method_call(
        self, node: cst.Call, b: Binding, recv: str, meth: str, env: Env, statement: bool
    ) -> Expr:
        sp = self.span(node)
        if isinstance(b, Poison):
            self.call_args(node, env)
            return Lit(None, span=sp)
        if isinstance(b, Container):
            return self.container_method(node, b, meth, env, statement)
        if isinstance(b, StateVar):
            cls = b.cls
            acts = cls.actions()
            readers = cls.readers()
            if meth not in acts and meth not in readers:
                avail = ", ".join(sorted([*acts, *readers]))
                raise self.error(
                    node.func,
                    f"state `{recv}` ({cls.__name__}) has no action or reader `{meth}`",
                    f"available: {avail}",
                )
            fn = acts[meth].fn if meth in acts else readers[meth]
            args = self.call_args(node, env)
            try:
                inspect.signature(fn).bind(None, *args)
            except TypeError:
                sig = inspect.signature(fn)
                shown = "(" + ", ".join(list(sig.parameters)[1:]) + ")"
                raise self.error(
                    node,
                    f"wrong number of arguments ({len(args)}) for `{recv}.{meth}`; "
                    f"{cls.__name__}.{meth} takes {shown}",
                    f"call it as `{recv}.{meth}{shown}`",
                ) from None
            if meth in acts and not statement:
                raise self.error(
                    node,
                    f"state action `{recv}.{meth}(...)` is used as a value; actions modify "
                    "the state and return nothing",
                    f"call it as a statement and read the state with a reader "
                    f"({', '.join(sorted(readers)) or 'none'})",
                )
            return Apply(StateCall(b.var, meth, span=self.span(node.func)), tuple(args), span=sp)
        if isinstance(b, Rows):
            if meth == "project":
                raise self.error(
                    node,
                    "a projected stream can only be iterated, grouped, bound to a name or "
                    "passed to a @dataflow function",
                    "iterate it with `for`, group it, or pass it to a @dataflow function",
                )
            raise self.error(node.func, f"streams have no method `{meth}`", "use .project(...)")
        if isinstance(b, (Value, Carry)) and meth in DATETIME_METHODS and not node.args:
            value = self.expr(node.func.value, env)  # `ts.weekday()`, `delta.total_seconds()`
            return Apply(Prim(DATETIME_METHODS[meth]), (value,), span=sp)
        if isinstance(b, Value) and meth == "get" and not statement:
            return self.dict_get(node, env)
        if isinstance(b, (Value, Carry)):
            if meth in MUTATORS:
                raise self.error(
                    node,
                    f"`{recv}.{meth}(...)` mutates a non-state object; only states can be modified",
                    "accumulate with a State instead (e.g. Distinct, TopK, Median, or your own "
                    "State subclass with @action methods)",
                )
            raise self.error(
                node.func,
                f"method calls are only supported on states; `{recv}.{meth}` is not",
                "use builtins (str, len, abs ...) or a host function",
            )
        raise self.error(
            node.func,
            f"unsupported call `{code_of(node.func)}`",
            "call a @dataflow function, a state's method, a builtin, math.* or a module-level function",
        )

    def dict_get(self, node: cst.Call, env: Env) -> Expr:
        """``d.get(k)`` / ``d.get(k, default)`` of a dict value (a host function's result);
        the backend checks that the value is a dict."""
        assert isinstance(node.func, cst.Attribute)
        sp = self.span(node)
        base = self.expr(node.func.value, env)  # type: ignore[attr-defined]
        args = self.call_args(node, env)
        if len(args) not in (1, 2):
            shown = code_of(node.func.value)
            raise self.error(node, f"`{shown}.get` takes a key and an optional default",
                             f"write `{shown}.get(key, default)`")  # fmt: skip
        dflt = args[1] if len(args) == 2 else Lit(None, span=sp)
        return Apply(Prim("dict_get"), (base, args[0], dflt), span=sp)

    def statistics_call(self, node: cst.Call, fn: str, env: Env) -> Expr | None:
        """``statistics.mean/fmean/median/median_low/median_high`` of a container's values
        (None: not of a container)."""
        if len(node.args) != 1 or node.args[0].keyword is not None or node.args[0].star:
            return None
        v = self.cview(node.args[0].value, env)  # type: ignore[attr-defined]
        if v is None:
            return None
        return Apply(Prim(f"c_{fn}"), (v.expr,), span=self.span(node))

    def call_global(self, node: cst.Call, n: str, obj: Any, env: Env, statement: bool) -> Expr:
        from looplift.api import Dataflow
        from looplift.state import State
        from looplift.streams import group_by

        sp = self.span(node)
        stat = next((m for m in STATS_FUNCS if getattr(statistics, m) is obj), None)
        if stat is not None:  # `from statistics import median`
            got = self.statistics_call(node, stat, env)
            if got is not None:
                return got
        window = next((op for f, op in WINDOW_FUNCS.items() if obj is f), None)
        if window is not None:  # tumble(ts, minutes=5), hop(ts, size=..., slide=...)
            return self.window_call(node, window, env)
        if obj is group_by:
            raise self.error(
                node,
                "group_by(...) can only be iterated by a for loop",
                "write `for key, group in group_by(0, rows): ...`",
            )
        if isinstance(obj, type) and issubclass(obj, State):
            raise self.error(
                node,
                f"state `{obj.__name__}(...)` must be assigned to a name on its own line",
                f"write `s = {obj.__name__}(...)` and call its actions",
            )
        if isinstance(obj, Dataflow):
            return self.dataflow_call(node, n, obj, env)
        if obj is builtins.len and len(node.args) == 1 and not node.args[0].star:
            table = self.const_table(node.args[0].value, env)
            if table is not None:  # len(RATES): read at compile time
                return Lit(len(table[1]), span=sp)
        if n in BUILTIN_FUNCS and getattr(builtins, n, None) is obj:
            lo, hi = BUILTIN_FUNCS[n]
            args = self.call_args(node, env)
            if len(args) < lo or (hi is not None and len(args) > hi):
                want = f"{lo}" if lo == hi else f"{lo} or more" if hi is None else f"{lo} to {hi}"
                raise self.error(
                    node,
                    f"wrong number of arguments for `{n}`: {len(args)} given, {want} expected",
                    f"see help({n}) for its arguments",
                )
            return Apply(Prim(n), tuple(args), span=sp)
        if getattr(builtins, n, None) is obj and n in (
            "list",
            "dict",
            "set",
            "sorted",
            "sum",
            "range",
            "print",
            "enumerate",
            "zip",
            "iter",
            "next",
            "open",
            "input",
            "eval",
            "exec",
        ):
            hint = {
                "sum": "loop and accumulate with `total += x`, or use the Sum state",
                "range": "loops run over RowStreams and group_by(...)",
                "print": "remove the print; use explain() to see the plan",
            }.get(n, "use a State to accumulate collections")
            raise self.error(node, f"builtin `{n}()` is not supported in @dataflow code", hint)
        if obj is builtins.map:
            return self.map_over_tuple(node, env)
        if obj is builtins.tuple:
            return self.tuple_of(node, env)
        if obj in (datetime.datetime, datetime.date, datetime.timedelta):
            return self.construct_datetime(node, obj, env)
        if is_row_class(obj):  # `Out(uid, n)`: a named row, the tuple of its fields
            return self.row_construct(node, obj, env)  # type: ignore[attr-defined]
        if isinstance(obj, type):
            raise self.error(
                node,
                f"constructing `{n}` objects is not supported",
                "only State subclasses can be constructed (as states)",
            )
        if callable(obj) and isinstance(obj, (types.FunctionType, types.BuiltinFunctionType)):
            if not getattr(obj, "__module__", None) or "<locals>" in obj.__qualname__:
                raise self.error(
                    node,
                    f"host function `{n}` is not importable",
                    "define host functions at module level so Spark workers can import them",
                )
            ref = ref_of(obj)
            self.refs[ref] = obj
            args = self.host_args(node, env)  # a local list is passed as a Python list
            try:
                inspect.signature(obj).bind(*args)
            except (TypeError, ValueError) as e:
                if isinstance(e, TypeError):
                    raise self.error(
                        node,
                        f"wrong number of arguments ({len(args)}) for host function `{n}`"
                        f"{inspect.signature(obj)}",
                        f"call it as `{n}{inspect.signature(obj)}`",
                    ) from None
            return Apply(Host(ref, span=self.span(node.func)), tuple(args), span=sp)
        raise self.error(
            node.func,
            f"`{n}` is not callable in @dataflow code",
            "call a @dataflow function, a State class, a builtin, math.* or a module-level function",
        )

    def dataflow_call(self, node: cst.Call, n: str, obj: Any, env: Env) -> Expr:
        sp = self.span(node)
        ref = ref_of(obj)
        self.refs[ref] = obj
        params = list(obj.signature.parameters.values())
        pos = [a for a in node.args if a.keyword is None]
        kw = {a.keyword.value: a for a in node.args if a.keyword is not None}
        starred = [self.reject(a, node) for a in node.args if a.star]
        if starred:
            raise starred[0]
        if len(pos) + len(kw) != len(params) or len(pos) > len(params):
            raise self.error(
                node,
                f"wrong number of arguments for `{n}`: {len(pos) + len(kw)} given, "
                f"{len(params)} expected ({', '.join(p.name for p in params)})",
                f"call it as `{n}({', '.join(p.name for p in params)})`",
            )
        ordered_args: list[cst.BaseExpression] = [a.value for a in pos]
        for p in params[len(pos) :]:
            if p.name not in kw:
                raise self.error(
                    node,
                    f"missing argument `{p.name}` for `{n}`",
                    "pass every parameter of the called function",
                )
            ordered_args.append(kw.pop(p.name).value)
        if kw:
            raise self.error(
                node,
                f"unexpected keyword argument `{next(iter(kw))}` for `{n}`",
                "use the parameter names of the called function",
            )
        args = []
        from looplift.streams import rowstream_fields

        for p, a in zip(params, ordered_args, strict=True):
            fields = rowstream_fields(p.annotation, obj.fn)
            st = self.try_stream(a, env)
            if fields is not None:
                if st is None:
                    raise self.error(
                        a,
                        f"argument `{p.name}` of `{n}` must be a stream",
                        "pass a RowStream, a group or a projection like `g.project(1, 2)`",
                    )
                cls = row_class(fields)
                if cls is not None:  # the callee takes named rows: bound by name
                    args.append(self.named_argument(a, st, cls, p.name, n))
                    continue
                want = len(fields)
                if st[1].arity != want:
                    raise self.error(
                        a,
                        f"`{n}` expects a stream of {want} field{'s' if want != 1 else ''} for "
                        f"`{p.name}` but `{code_of(a)}` has {st[1].arity}",
                        "project the fields it needs with `.project(i, j)`",
                    )
                args.append(st[0])
            else:
                if st is not None:
                    raise self.error(
                        a,
                        f"argument `{p.name}` of `{n}` is a scalar, not a stream",
                        "pass a value; to aggregate a stream, call an aggregate on it first",
                    )
                args.append(self.expr(a, env))
        return Apply(CallDataflow(ref, span=self.span(node.func)), tuple(args), span=sp)

    def named_argument(self, a: cst.BaseExpression, st: tuple[Expr, Any], cls: type,
                       pname: str, n: str) -> Expr:  # fmt: skip
        """A stream passed to a ``RowStream[Click]`` parameter: a named stream's fields by
        name (projected into the callee's order), a positional one's by position."""
        want = [f for f, _ in row_fields(cls)]
        sexpr, src = st
        if not src.names:
            if src.arity != len(want):
                raise self.error(
                    a,
                    f"`{n}` expects a stream of {cls.__name__} rows ({len(want)} fields: "
                    f"{', '.join(want)}) for `{pname}` but `{code_of(a)}` has {src.arity}",
                    "project the fields it needs with `.project(i, j)`",
                )
            return sexpr
        if list(src.names) == want:
            return sexpr
        missing = [f for f in want if f not in src.names]
        if missing:
            raise self.error(
                a,
                f"`{n}` expects {cls.__name__} rows for `{pname}` but the rows of "
                f"`{code_of(a)}` ({src.row_type}) have no field {', '.join(missing)}",
                f"their fields are: {', '.join(src.names)}",
            )
        idx = tuple(src.names.index(f) for f in want)
        return Apply(Builtin("project", (("fields", idx),)), (sexpr,), span=self.span(a))


# -- module-level helpers ---------------------------------------------------------------
