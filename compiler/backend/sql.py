"""Render IR values as Spark SQL expressions with CPython's semantics.

The plan runs with ANSI mode on, so integer overflow and division by zero
raise, as in Python (which has no 64-bit overflow: there the plan raises
where Python would give a big int, never a wrapped value). Python's floor
division and modulo become ``pmod`` arithmetic, ``round`` is banker's
``bround``, ``+`` on strings is ``concat``, truthiness follows Python, and
comparisons with None raise as they do in Python.

Where no native expression is exact (``round(x, n)`` on floats, ``str`` of a
float, some ``math`` functions) the expression calls a registered vectorized
Python function; host functions are called the same way.

>>> quote_ident("a`b")
'`a``b`'
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from looplift.sqltext import quote_ident, sql_string
from looplift.sqltext import sql_literal as _sql_literal

from ..analysis import Analysis
from ..ir.nodes import Apply, Builtin, Expr, Host, Lambda, Let, Lit, Prim, Var
from ..primitives import PRIMITIVES
from . import container_loops, containers, datetimes, maps, strsql  # noqa: F401 - register their rules
from .errors import BackendError
from .guarded import MAX_SQL, GuardedSql, PyCall, TooBig
from .rules import form_for, overload_for, rule_for
from .strsql import FLOAT_RE, INT_RE, render_float, render_index, render_int, truthy
from .strtypes import element_type
from .types import Typing, spark_type

__all__ = ["SqlRenderer", "quote_ident", "sql_string", "sql_literal", "BackendError", "PyCall"]


def sql_literal(v: Any) -> str:
    try:
        return _sql_literal(v)
    except (TypeError, ValueError) as e:
        raise BackendError(str(e)) from None


def _const_sql(v: Any) -> str:
    """A constant (a scalar or a tuple of them) as Spark SQL."""
    if isinstance(v, tuple):
        inner = ", ".join(f"'_{i + 1}', {_const_sql(x)}" for i, x in enumerate(v))
        return f"named_struct({inner})"
    return sql_literal(v)


def _int_power(x: str, y: str) -> str:
    """``x ** y`` on 64-bit ints, exact, raising on overflow (Python's result is an int)."""
    return (
        f"(CASE WHEN {y} = 0 THEN 1L WHEN {x} = 0 THEN 0L WHEN {x} = 1 THEN 1L "
        f"WHEN {x} = -1 THEN (CASE WHEN {y} % 2 = 0 THEN 1L ELSE -1L END) "
        f"WHEN {y} > 64 THEN raise_error('looplift: integer power overflows 64 bits') "
        f"ELSE aggregate(sequence(1, CAST({y} AS INT)), 1L, (acc, i) -> acc * {x}) END)"
    )


# operators whose SQL is a template of their operands' SQL: op -> (template, what raises
# TypeError on None in Python, or None when None is fine)
SIMPLE: dict[str, tuple[str, str | None]] = {
    "sub": ("({0} - {1})", "`-`"),
    "truediv": ("(CAST({0} AS DOUBLE) / CAST({1} AS DOUBLE))", "`/`"),
    "neg": ("(- {0})", "unary `-`"),
    "pos": ("{0}", None),
    "lt": ("({0} < {1})", "comparison `<`"),
    "le": ("({0} <= {1})", "comparison `<=`"),
    "gt": ("({0} > {1})", "comparison `>`"),
    "ge": ("({0} >= {1})", "comparison `>=`"),
    "is_none": ("({0} IS NULL)", None),
    "is_not_none": ("({0} IS NOT NULL)", None),
    "abs": ("abs({0})", "abs()"),
}


_NUMBER_SQL = re.compile(r"-?[0-9][0-9.eE+-]*[DL]?|CAST\('-?Infinity' AS DOUBLE\)")
NAN_COMPARE = frozenset(("lt", "le", "gt", "ge"))  # rendered by SqlRenderer._nan_compare on floats


@dataclass
class SqlRenderer(GuardedSql):
    a: Analysis
    ty: Typing
    resolve: Callable[[str], str | None]  # binder -> column reference, or None to inline it
    refs: dict[str, Any] = field(default_factory=dict)
    pycalls: dict[str, PyCall] = field(default_factory=dict)
    depth: int = 0
    # conditions of the enclosing if-branches: Python calls (which Spark evaluates on every
    # row, whatever the branch) get their arguments only where the branch is taken
    conds: list[str] = field(default_factory=list)
    # the operands (IR, SQL) of the primitives being rendered, innermost last: error checks
    # reference an operand's SQL instead of rendering it again
    operands: list[tuple[tuple[Expr, ...], list[str], list[str]]] = field(default_factory=list)
    nbound: int = 0  # lambda variables made by `bind` and `_lets`
    local: dict[str, str] = field(default_factory=dict)  # binder -> its lambda variable
    # bind let-bound values used more than once (`_lets`); only where `resolve` has no
    # effects (a scalar function: every binding inlined), not in a plan that makes columns
    bind_lets: bool = False
    budget: int | None = None  # values rendered at most (then TooBig); None: no limit

    # -- entry points -------------------------------------------------------------
    def expr(self, e: Expr) -> str:
        self.depth += 1
        if self.depth > 200:
            raise BackendError("expression too deeply nested")
        try:
            return self._expr(e)
        finally:
            self.depth -= 1

    def cond(self, e: Expr) -> str:
        """Python truthiness of ``e`` as a SQL boolean."""
        return self._truthy(self.expr(e), self._t(e), self.ty.may_be_null(e))

    def guards(self, guards: tuple[tuple[str, bool], ...]) -> str:
        parts = []
        for c, taken in guards:
            text = self.cond(Var(c))
            parts.append(text if taken else f"(NOT {text})")
        return " AND ".join(parts) if parts else "TRUE"

    # -- internals -----------------------------------------------------------------
    def _t(self, e: Expr) -> Any:
        return self.ty.of(e)

    def _expr(self, e: Expr) -> str:
        if self.budget is None:
            return self._render(e)
        self.budget -= 1  # a scalar function's budget: values rendered, and their length
        sql = self._render(e) if self.budget >= 0 else ""
        if self.budget < 0 or len(sql) > MAX_SQL:
            raise TooBig("the expression's SQL grows beyond its budget")
        return sql

    def _render(self, e: Expr) -> str:
        if isinstance(e, Lit):
            return sql_literal(e.value)
        if isinstance(e, Var):
            if e.name in self.local:
                return self.local[e.name]
            ref = self.resolve(e.name)
            if ref is not None:
                return ref
            b = self.a.bound.get(e.name)
            if b is None or b.value is None:
                raise BackendError(f"no column for {e.name}")
            return self._expr(b.value)
        if isinstance(e, Let):
            if self.bind_lets:
                return self._lets(e)
            while isinstance(e, Let):
                e = e.body
            return self._expr(e)
        if isinstance(e, Apply):
            f = e.fn
            if isinstance(f, Prim):
                try:
                    return self._prim(f.op, e.args)
                except BackendError as err:  # a limit of this operator: said at its source
                    raise err.placed(e.span) from None
            if isinstance(f, Builtin) and f.name == "if":
                short = self._and_or(e)
                if short is not None:
                    return short
                c = self.cond(e.args[0])
                self.conds.append(f"coalesce({c}, FALSE)")
                try:
                    t = self._branch(e.args[1])
                finally:
                    self.conds.pop()
                self.conds.append(f"(NOT coalesce({c}, FALSE))")
                try:
                    o = self._branch(e.args[2])
                finally:
                    self.conds.pop()
                return f"(CASE WHEN {c} THEN {t} ELSE {o} END)"
            if isinstance(f, Host):
                return self._pycall("host", f.ref, e.args)
            special = form_for(f.name) if isinstance(f, Builtin) else None
            if special is not None:  # fold, sort_by, each (container_loops)
                return special(self, e)
        raise BackendError(f"no SQL translation for {type(e).__name__} {e!r:.80}")

    def _and_or(self, e: Apply) -> str | None:
        """``x and y`` / ``x or y`` on booleans as SQL AND / OR (the optimizer likes them)."""
        c, then, other = e.args
        if not (isinstance(then, Lambda) and isinstance(other, Lambda)):
            return None
        if self._t(c) != "bool":
            return None
        if other.body == c and self._safe_bool(then.body):
            return f"({self.expr(c)} AND {self._branch(then)})"
        if then.body == c and self._safe_bool(other.body):
            return f"({self.expr(c)} OR {self._branch(other)})"
        return None

    _SAFE = frozenset(("eq", "ne", "lt", "le", "gt", "ge", "not", "is_none", "is_not_none",
                       "in", "not_in"))  # fmt: skip

    def _safe_bool(self, e: Expr, depth: int = 0) -> bool:
        """A boolean expression that cannot raise (so SQL may evaluate it eagerly)."""
        while isinstance(e, Let):
            e = e.body
        if depth > 20:
            return False
        if isinstance(e, Lit):
            return isinstance(e.value, bool)
        if isinstance(e, Var):
            b = self.a.bound.get(e.name)
            if self._t(e) != "bool":
                return False
            if b is None or b.value is None or self.resolve(e.name) is not None:
                return True
            return self._safe_bool(b.value, depth + 1)
        if isinstance(e, Apply) and isinstance(e.fn, Prim) and e.fn.op in self._SAFE:
            if any(self.ty.may_be_null(x) for x in e.args) and e.fn.op in ("lt", "le", "gt", "ge"):
                return False
            return all(isinstance(x, (Var, Lit)) for x in e.args)
        return False

    def _branch(self, lam: Expr) -> str:
        assert isinstance(lam, Lambda)
        return self._expr(lam.body)

    def _truthy(self, sql: str, t: Any, nullable: bool = False) -> str:
        if nullable and t != "none":
            return f"coalesce({self._truthy(sql, t)}, FALSE)"  # None is falsy
        if t == "bool":
            return sql
        if t in ("int", "float"):
            return f"({sql} != 0)"
        if t == "str":
            return f"({sql} != '')"
        if t == "none":
            return "FALSE"
        if truthy(sql, t) is not None:
            return truthy(sql, t)  # type: ignore[return-value]
        if isinstance(t, tuple):
            return "TRUE"
        return f"CAST({sql} AS BOOLEAN)"

    def _raise_if_null(self, args: tuple[Expr, ...], sql: str, what: str) -> str:
        nullable = [self._operand_sql(x) for x in args if self.ty.may_be_null(x)]
        if not nullable:
            return sql
        test = " OR ".join(f"{x} IS NULL" for x in nullable)
        msg = sql_string(f"looplift: {what} with None (Python raises TypeError)")
        return f"(CASE WHEN {test} THEN raise_error({msg}) ELSE {sql} END)"

    def _prim(self, op: str, args: tuple[Expr, ...]) -> str:
        """An operator: a template of :data:`SIMPLE`, else its ``_op_<name>`` method."""
        if op == "nth":
            return self._nth(args[0], args[1])
        if op in ("table_item", "table_get"):
            return self._table(op, args)
        ts = [self._t(x) for x in args]
        x = [self._expr(a) for a in args]

        def build(xs: list[str]) -> str:
            self.operands.append((args, xs, x))
            try:
                return self._prim_sql(op, args, ts, xs)
            finally:
                self.operands.pop()

        return self.bind(x, build)

    def _prim_sql(self, op: str, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
        registered = overload_for(op, ts) or rule_for(op)  # datetime arithmetic: an overload
        if registered is not None:
            return registered(self, op, args, ts, x)
        if op in NAN_COMPARE and "float" in ts:
            return self._raise_if_null(args, self._nan_compare(op, args, ts, x), SIMPLE[op][1])
        simple = SIMPLE.get(op)
        if simple is not None:
            template, what = simple
            sql = template.format(*x)
            return sql if what is None else self._raise_if_null(args, sql, what)
        if op.startswith("math."):
            return self._math(op[5:], args, x)
        method = getattr(self, f"_op_{op}", None)
        if method is None:
            raise BackendError(f"no SQL translation for operator {op}")
        return method(args, ts, x)

    # -- operators that depend on their operands' types ------------------------------
    def _op_add(self, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
        if "str" in ts:
            return self._raise_if_null(args, f"concat({x[0]}, {x[1]})", "string concatenation")
        return self._raise_if_null(args, f"({x[0]} + {x[1]})", "`+`")

    def _op_mul(self, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
        if "str" in ts:
            s, n = (x[0], x[1]) if ts[0] == "str" else (x[1], x[0])
            return f"repeat({s}, CAST(greatest({n}, 0L) AS INT))"
        return self._raise_if_null(args, f"({x[0]} * {x[1]})", "`*`")

    def _op_floordiv(self, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
        if all(t in ("int", "bool") for t in ts):
            # truncating division, one less when the signs differ and it is inexact
            # (never overflows where Python's result fits in 64 bits)
            body = (
                f"(CASE WHEN ({x[0]} % {x[1]}) != 0 AND (({x[0]} < 0) != ({x[1]} < 0)) "
                f"THEN ({x[0]} div {x[1]}) - 1 ELSE {x[0]} div {x[1]} END)"
            )
        else:
            body = f"CAST(floor(CAST({x[0]} AS DOUBLE) / {x[1]}) AS DOUBLE)"
        return self._raise_if_null(args, body, "`//`")

    def _op_mod(self, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
        if "str" in ts:
            raise BackendError("`%` formatting with a format that is not a constant str is not "
                               "supported", hint='write the format as a literal ("n=%d" % n) '
                               'or use an f-string')  # fmt: skip
        # Python's remainder has the sign of the divisor
        a0, b0 = (x[0], x[1]) if all(t in ("int", "bool") for t in ts) else (
            f"CAST({x[0]} AS DOUBLE)", f"CAST({x[1]} AS DOUBLE)")  # fmt: skip
        body = (
            f"(CASE WHEN ({a0} % {b0}) != 0 AND ((({a0} % {b0}) < 0) != ({b0} < 0)) "
            f"THEN ({a0} % {b0}) + {b0} ELSE ({a0} % {b0}) END)"
        )
        return self._raise_if_null(args, body, "`%`")

    def _op_pow(self, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
        if all(t in ("int", "bool") for t in ts):
            exact = _int_power(x[0], x[1])
            if isinstance(args[1], Lit) and args[1].value >= 0:
                return self._raise_if_null(args, exact, "`**`")
            body = (
                f"(CASE WHEN {x[1]} >= 0 THEN CAST({exact} AS DOUBLE) "
                f"ELSE power({x[0]}, {x[1]}) END)"
            )
            return self._raise_if_null(args, body, "`**`")
        return self._raise_if_null(args, f"power({x[0]}, {x[1]})", "`**`")

    def _op_not(self, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
        return f"(NOT {self._truthy(x[0], ts[0], self.ty.may_be_null(args[0]))})"

    def _nullable(self, args: tuple[Expr, ...]) -> bool:
        return any(self.ty.may_be_null(a) for a in args)

    def _op_eq(self, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
        sql = f"({x[0]} <=> {x[1]})" if self._nullable(args) else f"({x[0]} = {x[1]})"
        nan = self._may_be_nan(args, ts, x)[:1]  # NaN == NaN is false in Python
        return f"({sql} AND NOT isnan({nan[0]}))" if nan else sql

    def _op_ne(self, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
        sql = f"(NOT ({x[0]} <=> {x[1]}))" if self._nullable(args) else f"({x[0]} != {x[1]})"
        nan = self._may_be_nan(args, ts, x)[:1]
        return f"({sql} OR isnan({nan[0]}))" if nan else sql

    # -- NaN: Spark orders it above every number and makes it equal to itself; in Python
    # every comparison with NaN is false (and so max/min keep the value they have) --------
    def _may_be_nan(self, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> list[str]:
        """The SQL of the operands that may be NaN: floats other than literal numbers."""
        return [s for a, t, s in zip(args, ts, x, strict=True)
                if t == "float" and not (isinstance(a, Lit) and a.value == a.value)
                and not _NUMBER_SQL.fullmatch(s)]  # fmt: skip

    def _nan_compare(self, op: str, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
        """``<``, ``<=``, ``>``, ``>=`` as Python compares floats: false when either side
        is NaN. Spark's own result is already false when the side it orders first is NaN
        (``NaN < y``), so only the other side needs a test."""
        sql = SIMPLE[op][0].format(*x)
        side = 1 if op in ("lt", "le") else 0
        if side == 1:
            may = self._may_be_nan(args[1:], ts[1:], x[1:])
        else:
            may = self._may_be_nan(args[:1], ts[:1], x[:1])
        return f"({sql} AND NOT isnan({may[0]}))" if may else sql

    def _py_extreme(self, op: str, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
        """``max(a, b, ...)`` as Python computes it: the first argument, replaced by each
        later one that compares greater (``min``: less); NaN never compares, so it is kept
        only where it comes first."""
        cmp = "gt" if op == "max" else "lt"
        best, best_t, best_e = x[0], ts[0], args[0]
        for a, t, s in zip(args[1:], ts[1:], x[1:], strict=True):
            test = self._nan_compare(cmp, (a, best_e), [t, best_t], [s, best])
            best = f"(CASE WHEN {test} THEN {s} ELSE {best} END)"
            best_t, best_e = ("float" if "float" in (t, best_t) else t), Var("_")
        return best

    def _op_in(self, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
        if self.ty.may_be_null(args[0]):
            body = " OR ".join(f"({x[0]} <=> {y})" for y in x[1:]) or "FALSE"
        else:
            body = f"{x[0]} IN ({', '.join(x[1:])})" if x[1:] else "FALSE"
        return f"({body})"

    def _op_not_in(self, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
        return f"(NOT {self._op_in(args, ts, x)})"

    def _op_tuple(self, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
        inner = ", ".join(f"'_{i + 1}', {v}" for i, v in enumerate(x))
        return f"named_struct({inner})"

    def _op_raise(self, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
        """``raise Cls(msg)``: Spark's raise_error, its message led by the Python class."""
        cls = args[0].value if isinstance(args[0], Lit) else "Exception"
        msg = x[1] if ts[1] == "str" else f"CAST({x[1]} AS STRING)"
        return f"raise_error(concat({sql_string(f'{cls}: ')}, coalesce({msg}, 'None')))"

    def _table(self, op: str, args: tuple[Expr, ...]) -> str:
        """A module-level lookup table: a CASE over its entries (keys of the key's kind only)."""
        key, _, pairs, last = args
        assert isinstance(pairs, Lit)
        kt = self._t(key)
        k = self._expr(key)
        if kt == "bool":
            k = f"CAST({k} AS BIGINT)"
        whens = []
        for kv, v in pairs.value:
            numeric = isinstance(kv, (bool, int, float))
            if kt == "str" and numeric or kt in ("int", "float", "bool") and not numeric:
                continue  # never equal in Python: a str is no number
            kv = int(kv) if isinstance(kv, bool) else kv
            whens.append(f"WHEN {sql_literal(kv)} THEN {_const_sql(v)}")
        if op == "table_get":
            other = self._expr(last)
        else:
            assert isinstance(last, Lit)
            text = k if kt == "str" else f"CAST({k} AS STRING)"
            other = f"raise_error(concat({sql_string(f'{last.value}: ')}, coalesce({text}, 'None')))"
        if not whens:
            return other
        return f"(CASE {k} {' '.join(whens)} ELSE {other} END)"

    def _op_min(self, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
        if len(args) > 1 and self._may_be_nan(args, ts, x):
            return self._raise_if_null(args, self._py_extreme("min", args, ts, x), "min()")
        return self._raise_if_null(args, f"least({', '.join(x)})", "min()")

    def _op_max(self, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
        if len(args) > 1 and self._may_be_nan(args, ts, x):
            return self._raise_if_null(args, self._py_extreme("max", args, ts, x), "max()")
        return self._raise_if_null(args, f"greatest({', '.join(x)})", "max()")

    def _op_round(self, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
        if len(args) == 1:
            if ts[0] in ("int", "bool"):
                return x[0]
            return self._raise_if_null(
                args, f"CAST(bround(CAST({x[0]} AS DOUBLE), 0) AS BIGINT)", "round()"
            )
        if ts[0] in ("int", "bool") and isinstance(args[1], Lit) and args[1].value >= 0:
            return x[0]
        return self._pycall("prim", "round", args)

    def _op_int(self, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
        if ts[0] == "str":
            return render_int(x[0])
        return self._raise_if_null(args, f"CAST({x[0]} AS BIGINT)", "int()")

    def _op_int_ok(self, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
        """``int(x)`` does not raise ValueError (a None goes on, to raise TypeError)."""
        if ts[0] == "str":
            return f"({x[0]} IS NULL OR {x[0]} RLIKE {sql_string(INT_RE)})"
        if ts[0] == "float":
            return f"({x[0]} IS NULL OR NOT isnan({x[0]}))"
        return "TRUE"

    def _op_float_ok(self, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
        if ts[0] == "str":
            return f"({x[0]} IS NULL OR {x[0]} RLIKE {sql_string(FLOAT_RE)})"
        return "TRUE"

    def _op_float(self, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
        if ts[0] == "str":
            return render_float(x[0])
        return self._raise_if_null(args, f"CAST({x[0]} AS DOUBLE)", "float()")

    def _op_str(self, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
        t = ts[0]
        if t == "str":
            return x[0] if not self.ty.may_be_null(args[0]) else f"coalesce({x[0]}, 'None')"
        if t == "bool":
            return f"(CASE WHEN {x[0]} IS NULL THEN 'None' WHEN {x[0]} THEN 'True' ELSE 'False' END)"
        if t == "int":
            return f"coalesce(CAST({x[0]} AS STRING), 'None')"
        return self._pycall("prim", "str", args)

    def _op_bool(self, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
        return self._truthy(x[0], ts[0], True)

    def _op_len(self, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
        if isinstance(ts[0], tuple) and ts[0][0] in ("list", "dict"):
            return self._raise_if_null(args, f"CAST(size({x[0]}) AS BIGINT)", "len()")
        if isinstance(ts[0], tuple):
            return f"{len(ts[0][1])}L"
        return self._raise_if_null(args, f"CAST(char_length({x[0]}) AS BIGINT)", "len()")

    def _nth(self, base: Expr, idx: Expr) -> str:
        assert isinstance(idx, Lit)
        if element_type(self._t(base)) is not None:  # a str, list or match object
            t = self._t(base)
            return self.bind([self._expr(base), self._expr(idx)],
                             lambda x: render_index(self, base, idx, t, x[0], x[1]))  # fmt: skip
        i = idx.value
        target = base
        while isinstance(target, Var) and self.resolve(target.name) is None:
            b = self.a.bound.get(target.name)
            if b is None or b.value is None:
                break
            target = b.value
        if isinstance(target, Apply) and target.fn == Prim("tuple"):
            return self._expr(target.args[i])
        if isinstance(target, Apply) and isinstance(target.fn, Builtin) and target.fn.name == "if":
            c = self.cond(target.args[0])
            parts = []
            for lam in target.args[1:]:
                assert isinstance(lam, Lambda)
                body = lam.body
                while isinstance(body, Let):
                    body = body.body
                parts.append(self._nth(body, idx) if not isinstance(body, Lit) else "NULL")
            return f"(CASE WHEN {c} THEN {parts[0]} ELSE {parts[1]} END)"
        t = self.ty.of(base) if isinstance(base, Var) else "any"
        n = len(t[1]) if isinstance(t, tuple) and t[0] == "tuple" else None
        if n is None:
            raise BackendError(
                f"indexing `[{i}]` a value whose type is not a known tuple; if it comes from a "
                "host function, annotate its return type (e.g. `-> tuple[str, str]`)"
            )
        if n is not None and i < 0:
            i += n
        s = self._expr(base)
        item = f"{s}.{quote_ident('_' + str(i + 1))}"
        if not self.ty.may_be_null(base):
            return item
        err = sql_string("TypeError: 'NoneType' object is not subscriptable")
        return f"(CASE WHEN {s} IS NULL THEN raise_error({err}) ELSE {item} END)"

    def _math(self, name: str, args: tuple[Expr, ...], x: list[str]) -> str:
        """``math.<name>``: the table of primitives' checked lowering, or its CPython
        reference as a Python call where the lowering is not exact."""
        prim = PRIMITIVES[f"math.{name}"]
        ts = [self._t(a) for a in args]
        if not prim.lowers_natively(ts):
            return self._pycall("prim", prim.name, args, spark_type(prim.result_type(ts)))
        return self._raise_if_null(args, prim.lower(x, ts), f"{prim.name}()")
