"""Guarded, linear SQL: what :class:`~.sql.SqlRenderer` does so that an expression is
evaluated only where Python reaches it and the SQL grows linearly with the source.

- A Python function (host function, ``re``, str methods and primitives without an exact
  native lowering) takes its *path* first: the conditions of the enclosing branches and
  guards (none where there are none: its name ends in ``EVERY_ROW``). Spark evaluates every Python function, and its arguments, on every row, whatever
  CASE branch holds it; off its path the function returns None and its (composite)
  arguments are not evaluated. On its path it returns ``(v, e)``: the value, or the error
  the SQL raises where it uses the value, so what Python reaches first raises first.
- A value written more than once is computed once: a composite operand that a
  primitive's SQL repeats, the ``(v, e)`` of a Python call, and (in a scalar SQL function,
  where every binding is inlined) a let-bound value used more than once are bound to a
  lambda variable, ``transform(array(value), __v1 -> body)[0]``. The body never holds a
  Python function (Spark cannot extract one from a lambda: ``LAMBDA_FUNCTION_WITH_PYTHON_UDF``).
  SQL of at most :data:`SHORT` characters without a Python call is repeated instead.

>>> atomic("`p0`"), atomic("__v1._0"), atomic("(`p0` + 1L)"), cheap("(`p0` + 1L)")
(True, True, False, True)
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from looplift.pycalls import EVERY_ROW

from ..dataflow.strategy import PyCallKind
from ..errtext import raise_placed_sql
from ..ir.nodes import UNKNOWN, Expr, Let, Var
from ..ir.traverse import walk
from .errors import BackendError
from .types import host_return_type, spark_type

__all__ = ["PyCall", "GuardedSql", "PythonInLambda", "TooBig", "python_in_lambda", "atomic", "cheap", "SHORT", "MAX_SQL"]

#: characters of one expression's SQL at most, where a budget is set (a scalar function)
MAX_SQL = 64_000

#: a Python call this short is written out where its value and error are read, not bound
#: (Spark runs identical calls once); a longer one (large arguments) is bound once
REPEATED_CALL = 240


class TooBig(Exception):
    """The SQL of an expression outgrows its budget (``SqlRenderer.budget``)."""


class PythonInLambda(BackendError):
    """A Python function inside the lambda of a higher-order function (a loop over a list):
    Spark runs none there. A scalar algorithm then runs whole as one Python call."""


def python_in_lambda(sql: str, span: Any = None) -> str:
    """``sql``, the body of a SQL lambda, unless it calls a Python function."""
    if _PYCALL.search(sql):
        raise PythonInLambda(
            "a loop over a list calls a Python function (a primitive with no exact native "
            "lowering, or a host function) on its elements; Spark runs no Python inside "
            "`transform`/`aggregate`", span or UNKNOWN,
            "use primitives with a native lowering in the loop (see --explain), or loop in a "
            "host function",
        )
    return sql


# SQL text that may be repeated freely: a column or lambda variable, a literal, a field
_ATOM = re.compile(
    r"(?:`(?:[^`]|``)*`|[A-Za-z_]\w*)(?:\.(?:`(?:[^`]|``)*`|[A-Za-z_]\w*))*"
    r"|-?[0-9][0-9.eE+-]*[DLSY]?|'(?:[^'\\]|\\.)*'|CAST\('-?Infinity' AS DOUBLE\)"
)
_PYCALL = re.compile(r"\blooplift_(?:prim|host)_\w+\(")


def _uses(name: str, values: list[Expr], tail: Expr) -> int:
    """How often ``name`` is read in ``values`` and ``tail``."""
    return sum(1 for v in (*values, tail) for n in walk(v) if isinstance(n, Var) and n.name == name)


def atomic(sql: str) -> bool:
    """Is ``sql`` a column, a variable or a literal (cheap to repeat, cannot raise)?"""
    return _ATOM.fullmatch(sql) is not None


#: SQL this short is repeated rather than bound (``(`p0` > 0L)``): what is bound is
#: longer, so repeating costs a constant factor and nesting cannot compound it
SHORT = 40


def cheap(sql: str) -> bool:
    """Is ``sql`` repeated rather than bound: an atom, or short and with no Python call?"""
    return atomic(sql) or (len(sql) <= SHORT and not _PYCALL.search(sql))


@dataclass(frozen=True)
class PyCall:
    """A vectorized Python function the SQL calls by name (registered per session)."""

    name: str
    kind: PyCallKind
    ref: str
    arg_types: tuple[str, ...]
    return_type: str


class GuardedSql:
    """Paths of Python calls and bindings of repeated SQL (a mixin of ``SqlRenderer``,
    whose fields ``conds``, ``operands``, ``local``, ``nbound``, ``pycalls`` it uses)."""

    conds: list[str]
    operands: list[tuple[tuple[Expr, ...], list[str], list[str]]]
    local: dict[str, str]
    nbound: int
    pycalls: dict[str, PyCall]
    refs: dict[str, Any]
    resolve: Callable[[str], str | None]
    _expr: Callable[[Expr], str]
    _t: Callable[[Expr], Any]
    guards: Callable[[tuple[tuple[str, bool], ...]], str]

    @contextmanager
    def under(self, guards: tuple[tuple[str, bool], ...]) -> Iterator[str | None]:
        """Render on the path of ``guards`` (a binding's, an action's, a yield's): the
        Python functions called meanwhile get it as their path. Yields the guard's SQL."""
        if not guards:
            yield None
            return
        g = self.guards(guards)
        self.conds.append(g)
        try:
            yield g
        finally:
            self.conds.pop()

    def _operand_sql(self, e: Expr, whole: bool = False) -> str:
        """The SQL of an operand of the primitive being rendered (rendered once): as the
        primitive's template sees it, or ``whole`` (never a placeholder of :meth:`bind`)."""
        if self.operands:
            args, x, full = self.operands[-1]
            for a, s, f in zip(args, x, full, strict=True):
                if a is e:
                    return f if whole else s
        return self._expr(e)

    def bind(self, x: list[str], build: Callable[[list[str]], str]) -> str:
        """``build(x)``, with every composite operand that ``build`` uses more than once
        computed once: bound to a lambda variable (``transform(array(v), __v1 -> ...)[0]``).
        The operands are evaluated first, in order, as Python evaluates a call's
        arguments. The lambda's body holds only the variable and atoms, never a Python
        function (Spark cannot extract one from a lambda); where it would, the operands
        stay inlined."""
        # placeholders of \x01: rendered SQL never holds one (sql_string escapes it), so
        # no user text is taken for one (nor fold.py's \x00 tokens); an operand holding one
        # is a placeholder of an enclosing `bind`, and is not bound here
        marks = {i: f"\x01{i}\x01" for i, s in enumerate(x) if not cheap(s)}
        if not marks or any("\x01" in s for s in x):
            return build(x)
        body = build([marks.get(i, s) for i, s in enumerate(x)])
        used = {i: body.count(m) for i, m in marks.items()}
        if max(used.values()) <= 1 or _PYCALL.search(body):
            for i, m in marks.items():
                body = body.replace(m, x[i])
            return body
        bound = [i for i in marks if used[i]]
        self.nbound += 1
        var = f"__v{self.nbound}"
        if len(bound) == 1:
            (i,) = bound
            value = x[i]
            body = body.replace(marks[i], var)
        else:
            value = "named_struct(" + ", ".join(f"'_{i}', {x[i]}" for i in bound) + ")"
            for i in bound:
                body = body.replace(marks[i], f"{var}._{i}")
        return f"transform(array({value}), {var} -> {body})[0]"

    def _lets(self, e: Let) -> str:
        """A let chain whose binders are inlined where used (those without a column): a
        binder used more than once is bound to a lambda variable instead
        (``transform(array(value), __v1 -> body)[0]``), so its value is written and computed
        once. Not where a Python function follows in the chain (Spark cannot extract one
        from a lambda): a dry run with every such binder standing for itself finds them."""
        lets: list[Let] = []
        while isinstance(e, Let):
            lets.append(e)
            e = e.body
        tail = e
        multi = [b for i, b in enumerate(lets)
                 if b.name != "_" and b.name not in self.local and self.resolve(b.name) is None
                 and _uses(b.name, [x.value for x in lets[i + 1:]], tail) > 1]  # fmt: skip
        if not multi:
            return self._expr(tail)
        saved = (dict(self.local), self.nbound, dict(self.pycalls))
        self.local.update({b.name: f"__dry{i}" for i, b in enumerate(multi)})
        later_py = [False] * len(lets)
        py = bool(_PYCALL.search(self._expr(tail)))
        for i in range(len(lets) - 1, -1, -1):
            later_py[i] = py
            if lets[i].name != "_":
                py = py or bool(_PYCALL.search(self._expr(lets[i].value)))
        self.local, self.nbound = saved[0], saved[1]
        self.pycalls.clear()
        self.pycalls.update(saved[2])
        multi_ids = {id(b) for b in multi}
        chosen = {id(b) for i, b in enumerate(lets) if id(b) in multi_ids and not later_py[i]}
        return self._let_chain([b for b in lets if id(b) in chosen], tail)

    def _let_chain(self, lets: list[Let], tail: Expr) -> str:
        if not lets:
            return self._expr(tail)
        b, rest = lets[0], lets[1:]
        value = self._expr(b.value)
        if cheap(value):
            var, wrap = value, False
        else:
            self.nbound += 1
            var, wrap = f"__v{self.nbound}", True
        self.local[b.name] = var
        try:
            body = self._let_chain(rest, tail)
        finally:
            del self.local[b.name]
        return f"transform(array({value}), {var} -> {body})[0]" if wrap else body

    def python_call(self, ref: str, args: tuple[Expr, ...], rtype: str) -> str:
        """The whole of a ``@dataflow`` function (``module:name``) as one Python call: its
        reference run by CPython on each row, errors raised as the SQL uses the value."""
        return self._pycall(PyCallKind.HOST, ref, args, rtype=rtype)

    def _pycall(self, kind: PyCallKind, ref: str, args: tuple[Expr, ...], rtype: str | None = None,
                total: bool = False) -> str:  # fmt: skip
        arg_types = tuple(spark_type(self._t(a)) for a in args)
        if rtype is not None:
            pass
        elif kind == PyCallKind.PRIM:
            rtype = {"round": spark_type(self._t(args[0])), "str": "string"}.get(ref, "double")
        else:
            t, _ = host_return_type(self.refs.get(ref), [self._t(a) for a in args])
            rtype = spark_type(t)
        # first: is the call on Python's path; on every row (no enclosing condition) the
        # function has no path argument (a column of constant trues shipped for nothing)
        everywhere = not self.conds and bool(args)
        if not everywhere:
            arg_types = ("boolean", *arg_types)
        digest = hashlib.sha1(f"{kind}:{ref}:{arg_types}".encode()).hexdigest()[:8]
        base = ref.replace(":", "_").replace(".", "_")
        name = f"looplift_{kind}_{base}_{digest}" + (EVERY_ROW if everywhere else "")
        call = self.pycalls.get(name)
        if call is None:
            call = PyCall(name, kind, ref, arg_types, rtype)
            self.pycalls[name] = call
        # Spark evaluates a Python function, and its arguments, on every row, whatever CASE
        # branch holds it: the function gets its path (the conditions of the enclosing
        # branches) and returns None off it, and its arguments are evaluated on the path
        # only (they may raise). On the path it returns (value, error); the error is
        # raised where the value is used, so what Python reaches first raises first.
        path = " AND ".join(self.conds) if self.conds else "TRUE"
        inner = [self._operand_sql(a, whole=True) for a in args]
        if self.conds:
            inner = [v if atomic(v) else f"(CASE WHEN {path} THEN {v} END)" for v in inner]
        call = f"{name}({', '.join(inner if everywhere else [path, *inner])})"
        if total:  # the function cannot raise on these arguments: its value alone
            return f"{call}.v"
        if len(call) <= REPEATED_CALL:
            # Spark evaluates identical calls of a Python function once (ExtractPythonUDFs
            # makes each distinct call one column), so a short call is repeated: binding it
            # to a lambda variable would run the interpreted `transform` on every row
            return (f"(CASE WHEN {call}.e IS NOT NULL THEN {raise_placed_sql(f'{call}.e')} "
                    f"ELSE {call}.v END)")  # fmt: skip
        return self.bind(
            [call],
            lambda r: (
                f"(CASE WHEN {r[0]}.e IS NOT NULL THEN {raise_placed_sql(f'{r[0]}.e')} "
                f"ELSE {r[0]}.v END)"
            ),
        )
