"""Render IR values as Spark SQL expressions with CPython's semantics.

The plan runs with ANSI mode on, so integer overflow and division by zero
raise, as in Python (which has no 64-bit overflow: there the plan raises
where Python would give a big int, never a wrapped value). What each primitive
becomes is its rule (:mod:`.rules`): the operators' and numeric builtins' are the
table of primitives' lowerings (:mod:`.arithsql`), truthiness follows Python.

Where no native expression is exact (``round(x, n)`` on floats, ``str`` of a
float, some ``math`` functions: the table says) the expression calls a registered
vectorized Python function; host functions are called the same way.

>>> quote_ident("a`b")
'`a``b`'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from looplift.kernels import builtins_in_lambdas
from looplift.sqltext import quote_ident, sql_string
from looplift.sqltext import sql_literal as _sql_literal

from ..analysis import Analysis
from ..errtext import Sql, at, py_repr_sql, raise_sql
from ..ir.nodes import Apply, Builtin, Expr, Host, Lambda, Let, Lit, Prim, Var
from ..primitives import PRIMITIVES
from ..primitives.grammar import FLOAT_RE, INT_RE

# the renderer modules register their rules when imported (names imported to say so)
from .arithsql import operator_sql  # noqa: F401
from .container_loops import each_sql  # noqa: F401
from .containers import container_sql  # noqa: F401
from .datetimes import datetime_rule  # noqa: F401
from .errors import BackendError
from .guarded import MAX_SQL, GuardedSql, PyCall, PyCallKind, TooBig
from .indexing import render_index, truthy
from .maps import dict_get_rule  # noqa: F401
from .matchsql import group_read, match_call, match_test
from .rules import form_for, overload_for, rule_for
from .strsql import render_string  # noqa: F401
from .strtypes import element_type
from .trysql import raise_code_sql  # noqa: F401
from .types import Typing, spark_type
from .windows import window_rule  # noqa: F401

#: tests of a match object's truth (True: the test itself, False: its negation)
_MATCH_TESTS = {"bool": True, "is_not_none": True, "not": False, "is_none": False}

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
    # read a match object's test and groups where used (.matchsql), not its array of groups:
    # in a scalar function and in a frame filtered on the test (else the array is a column)
    reads_matches: bool = True

    # -- entry points -------------------------------------------------------------
    def expr(self, e: Expr) -> str:
        top = self.depth == 0
        self.depth += 1
        if self.depth > 200:
            raise BackendError("expression too deeply nested")
        try:
            with at(e.span):  # the errors of the node are placed at its source
                out = self._expr(e)
        finally:
            self.depth -= 1
        # a kernel that is one of Spark's functions (regexp_like, regexp_extract) is that
        # function in a lambda, where a session with the kernels' SQL forms cannot call them
        return builtins_in_lambdas(out) if top else out

    def cond(self, e: Expr) -> str:
        """Python truthiness of ``e`` as a SQL boolean (of a match object: the match test,
        without building the match, :mod:`.matchsql`)."""
        call = match_call(self, e) if self.reads_matches else None
        if call is not None:
            try:
                return match_test(self, call)
            except BackendError:  # the string is not a value of this frame
                pass
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
                return self._pycall(PyCallKind.HOST, f.ref, e.args)
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
        return f"(CASE WHEN {test} THEN {raise_sql('TypeError', f'{what} with None')} ELSE {sql} END)"

    def _prim(self, op: str, args: tuple[Expr, ...]) -> str:
        """An operator: its registered rule (:mod:`.rules`), else its ``_op_<name>`` method."""
        if op == "nth":
            return self._nth(args[0], args[1])
        if op in ("table_item", "table_get"):
            return self._table(op, args)
        if op == "raise_code":  # a try's test renders its operands where it tests them
            return raise_code_sql(self, args)
        if op == "match.group" and self.reads_matches:  # a group read, no match built
            call = match_call(self, args[0])
            got = group_read(self, call, args[1]) if call is not None else None
            if got is not None:
                return got
        if op in _MATCH_TESTS and self.reads_matches and match_call(self, args[0]) is not None:
            return self._match_truth(op, args[0])
        ts = [self._t(x) for x in args]
        x = [self._expr(a) for a in args]

        def build(xs: list[str]) -> str:
            self.operands.append((args, xs, x))
            try:
                return self._prim_sql(op, args, ts, xs)
            finally:
                self.operands.pop()

        return self.bind(x, build)

    def _match_truth(self, op: str, m: Expr) -> str:
        """``not m``, ``bool(m)``, ``m is None``, ``m is not None`` of a match object: its
        match test (:mod:`.matchsql`)."""
        test = self.cond(m)
        return test if _MATCH_TESTS[op] else f"(NOT {test})"

    def _prim_sql(self, op: str, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
        registered = overload_for(op, ts) or rule_for(op)  # datetime arithmetic: an overload
        if registered is not None:
            return registered(self, op, args, ts, x)
        if op.startswith("math."):
            return self._math(op[5:], args, x)
        method = getattr(self, f"_op_{op}", None)
        if method is None:
            raise BackendError(f"no SQL translation for operator {op}")
        return method(args, ts, x)

    def _op_tuple(self, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
        inner = ", ".join(f"'_{i + 1}', {v}" for i, v in enumerate(x))
        return f"named_struct({inner})"

    def _op_raise(self, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
        """``raise Cls(msg)``: Spark's raise_error, its message led by the Python class."""
        cls = args[0].value if isinstance(args[0], Lit) else "Exception"
        msg = x[1] if ts[1] == "str" else f"CAST({x[1]} AS STRING)"
        return raise_sql(cls, Sql(msg))

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
            text = py_repr_sql(k) if kt == "str" else f"CAST({k} AS STRING)"
            other = raise_sql(str(last.value), Sql(text))
        if not whens:
            return other
        return f"(CASE {k} {' '.join(whens)} ELSE {other} END)"

    # -- the table's operators, for the renderers that build on them (``%`` formatting)
    def _op_int(self, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
        return operator_sql(self, "int", args, ts, x)

    def _op_str(self, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
        return operator_sql(self, "str", args, ts, x)

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
        err = raise_sql("TypeError", "'NoneType' object is not subscriptable")
        return f"(CASE WHEN {s} IS NULL THEN {err} ELSE {item} END)"

    def _math(self, name: str, args: tuple[Expr, ...], x: list[str]) -> str:
        """``math.<name>``: the table of primitives' checked lowering, or its CPython
        reference as a Python call where the lowering is not exact."""
        prim = PRIMITIVES[f"math.{name}"]
        ts = [self._t(a) for a in args]
        if not prim.lowers_natively(ts):
            return self._pycall(PyCallKind.PRIM, prim.name, args, spark_type(prim.result_type(ts)))
        return self._raise_if_null(args, prim.lower(x, ts), f"{prim.name}()")
