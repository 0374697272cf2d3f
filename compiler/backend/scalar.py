"""Scalar algorithms as Spark SQL functions (``CREATE TEMPORARY FUNCTION ... RETURN``).

Spark inlines SQL functions during analysis, so a compiled scalar algorithm is
one native expression in the caller's projection: the optimizer sees it like
any built-in (constant folding, pushdown, codegen).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from looplift.kernels import needing_jvm, portable

from ..analysis import Analysis
from ..ir.nodes import Let, Var
from ..program import Program
from .guarded import MAX_SQL, PythonInLambda, TooBig
from .sql import BackendError, PyCall, SqlRenderer, quote_ident, sql_string
from .types import infer_types, spark_type

__all__ = ["ScalarFunction", "scalar_function", "RENDER_BUDGET"]

#: a body needing more values rendered than this, or longer than MAX_SQL, runs in Python
RENDER_BUDGET = 20_000


@dataclass(frozen=True)
class ScalarFunction:
    name: str  # the SQL function name (unique per compiled body)
    params: tuple[tuple[str, str], ...]  # (SQL parameter name, Spark type)
    return_type: str
    body: str  # the SQL expression
    pycalls: tuple[PyCall, ...]
    #: why the whole function runs as one Python call ("": its body is native SQL with
    #: the Python calls its primitives need)
    in_python: str = ""

    @property
    def needs_jvm(self) -> tuple[str, ...]:
        """The kernels the body calls that no Spark function can stand in for: a session
        must have them defined (``functions.sql`` leaves such a function out)."""
        return tuple(needing_jvm(self.body))

    def create_sql(self, name: str | None = None, portable_sql: bool = False) -> str:
        """The ``CREATE TEMPORARY FUNCTION`` statement; ``portable_sql``: kernels with a
        Spark function of the same meaning call that function (for a session looplift did
        not prepare: :func:`looplift.kernels.portable`)."""
        from .shells import render

        return render(
            "scalar_function.sql.j2",
            name=quote_ident(name or self.name),
            params=[f"{quote_ident(n)} {t.upper()}" for n, t in self.params],
            return_type=self.return_type.upper(),
            body=portable(self.body) if portable_sql else self.body,
        )


def scalar_function(prog: Program) -> ScalarFunction:
    a: Analysis = prog.analysis
    ty = infer_types(a, prog.refs)
    fn = prog.fn
    names = {p.name: f"p{i}" for i, p in enumerate(fn.params)}

    def resolve(n: str) -> str | None:
        if n in names:
            return quote_ident(names[n])
        b = a.bound.get(n)
        if b is None:
            raise BackendError(f"unknown value {n}")
        return None  # inline every binding: the body is one expression

    tail = fn.body
    while isinstance(tail, Let):
        tail = tail.body
    rtype = spark_type(ty.of(tail) if isinstance(tail, Var) else ty.of(tail))
    r = SqlRenderer(a, ty, resolve, prog.refs, {}, bind_lets=True, budget=RENDER_BUDGET)
    in_python = ""
    try:
        body = r.expr(fn.body)  # its bindings inlined, or bound once where used more than once
    except TooBig:
        body = None
    except PythonInLambda:  # Spark runs no Python inside a loop over a list
        body = None
        in_python = "a loop over a list calls a Python function on its elements"
    if body is None or len(body) > MAX_SQL:
        # values shared by Python calls (which cannot take a lambda variable) would be
        # copied into each: the whole function runs in Python instead, as one call
        in_python = in_python or (
            f"as one SQL expression it would outgrow {MAX_SQL:,} characters: values "
            "used by several Python calls would be copied into each")  # fmt: skip
        r = SqlRenderer(a, ty, resolve, prog.refs, {})
        body = r.python_call(fn.ref, tuple(Var(p.name) for p in fn.params), rtype)
    params = tuple(
        (names[p.name], spark_type(p.types[0].removeprefix("Optional[").removesuffix("]")))
        for p in fn.params
    )
    body = null_checks(fn.name, [(p.name, names[p.name], p.types[0]) for p in fn.params], body)
    digest = hashlib.sha1(f"{params}{rtype}{body}".encode()).hexdigest()[:10]
    return ScalarFunction(
        f"looplift_{fn.name}_{digest}", params, rtype, body, tuple(r.pycalls.values()),
        in_python,
    )


def null_checks(fname: str, params: list[tuple[str, str, str]], body: str) -> str:
    """``body`` behind a check per parameter that is not ``Optional``: a null there raises
    naming the parameter (as a null in a RowStream field does), rather than flowing into
    comparisons that SQL makes false where Python raises or answers otherwise. Spark drops
    the check for arguments it knows are never null."""
    checks = []
    for i, (pname, sqlname, t) in enumerate(params):
        if t not in ("int", "float", "str", "bool", "datetime", "date"):
            continue  # Optional[...], or a type outside the model (unchecked, as in entry)
        msg = sql_string(f"looplift: argument {i + 1} (`{pname}`, {t}) of `{fname}` is null; "
                         f"declare it Optional[{t}] to allow nulls")  # fmt: skip
        checks.append(f"WHEN {quote_ident(sqlname)} IS NULL THEN raise_error({msg})")
    if not checks:
        return body
    return f"CASE {' '.join(checks)} ELSE {body} END"
