"""Loops over container values in a plan: ``each`` (rows per element), ``fold`` (locals
updated per element, Spark's ``aggregate``) and ``sort_by`` (``sorted(..., key=lambda)``).

Their lambdas are rendered as Spark SQL lambda functions: the parameters become
lambda variables and the binders of the body are inlined (:func:`_locals_renderer`).
Each form registers its SQL (``@form``) and its type rule (``@form_type``) in
:mod:`.rules`, where the emitter and the typer read them.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..errtext import raise_sql
from ..ir.nodes import Apply, Builtin, Expr, Lambda, Let, Prim, Var, attr
from ..primitives.containers import element_type
from ..primitives.typerules import unify
from .errors import BackendError
from .guarded import python_in_lambda
from .rules import Emitter, form, form_type
from .types import solid_list
from .typevocab import Type, Typing, spark_type

__all__ = ["each_of", "each_row_types", "each_type", "each_sql", "fold_type", "fold_sql",
           "sort_by_type", "sort_by_sql"]  # fmt: skip


# -- loops over container values: ``each(list, λ e. rows)`` ------------------------------------


def each_of(e: Expr, a: Any) -> Any:
    """The ``each`` form a yield's argument is bound to, or None."""
    while isinstance(e, Var):
        b = a.bound.get(e.name)
        if b is None or b.value is None:
            return None
        e = b.value
    if isinstance(e, Apply) and isinstance(e.fn, Builtin) and e.fn.name == "each":
        return e
    if (
        isinstance(e, Apply)
        and isinstance(e.fn, Prim)
        and e.fn.op == "nth"
        and isinstance(e.args[0], Var)
    ):
        src = a.bound.get(e.args[0].name)  # the rows a fold collected
        v = src.value if src is not None else None
        if isinstance(v, Apply) and isinstance(v.fn, Builtin) and v.fn.name == "fold":
            return v
    return None


def each_row_types(e: Expr, a: Any, ty: Typing) -> list[Type] | None:
    """The field types of the rows an ``each`` yields (None if ``e`` is not one)."""
    if each_of(e, a) is None:
        return None
    t = element_type(ty.of(e))
    return list(t[1]) if isinstance(t, tuple) and t[0] == "tuple" else None


def iterated_type(t: Type, span: Any = None) -> Type:
    """The element type of what a loop iterates: a list's elements, a str's characters;
    anything else is not iterable natively (a BackendError)."""
    if t == "str":
        return "str"
    if isinstance(t, tuple) and t[0] == "list" or t in ("any", "none"):
        return element_type(t)
    shown = t[0] if isinstance(t, tuple) else t
    raise BackendError(f"a loop over a value of type {shown} is not supported natively; loop over "
                       "a list (`s.split()`, `range(n)`, a container's values)", span)  # fmt: skip


def iterated_sql(r: Emitter, lst: Expr) -> str:
    """The array a loop iterates: a list as it is, a str as its characters (code points;
    Java's ``.`` takes a surrogate pair as one), TypeError when it is None."""
    sql = r.expr(lst)
    if r.ty.of(lst) == "str":
        sql = f"regexp_extract_all({sql}, '(?s).', 0)"
    if r.ty.may_be_null(lst):
        none = raise_sql("TypeError", "'NoneType' object is not iterable")
        return f"(CASE WHEN {r.expr(lst)} IS NULL THEN {none} ELSE {sql} END)"
    return sql


@form_type("each")
def each_type(v: Any, ty: Typing, value_type: Any) -> tuple[Type, bool]:
    """Type an ``each``: its element parameter, every binder of its body, its rows."""
    lst, lam = v.args
    assert isinstance(lam, Lambda)
    ty.types[lam.params[0]] = iterated_type(ty.of(lst), lst.span)
    if ty.of(lst) == "str" or solid_list(lst, ty):  # a str's characters are never None
        ty.nullable.discard(lam.params[0])
    else:
        ty.nullable.add(lam.params[0])

    def reg(e: Expr) -> None:
        while isinstance(e, Let):
            val = e.value
            if isinstance(val, Apply) and isinstance(val.fn, Builtin) and val.fn.name == "if":
                for br in val.args[1:]:
                    if isinstance(br, Lambda):
                        reg(br.body)
            t, null = value_type(val)
            ty.types[e.name] = t
            if null:
                ty.nullable.add(e.name)
            else:
                ty.nullable.discard(e.name)
            e = e.body

    reg(lam.body)
    body = lam.body
    while isinstance(body, Let):
        body = body.body
    t, _ = value_type(body)
    return t, False


@form("each")
def each_sql(r: Emitter, v: Any) -> str:
    """``flatten(transform(list, e -> filter(array(CASE WHEN guard THEN row END, ...))))``."""
    lst, lam = v.args
    assert isinstance(lam, Lambda)
    var = f"_ce{r.depth}"
    sub, tail, local = _locals_renderer(r, lam.body, {lam.params[0]: var})
    rows = _row_parts(sub, local, tail, [])
    if not rows:
        return "array()"
    body = python_in_lambda(_rows_array(rows, r.depth), v.span)
    return f"flatten(transform({iterated_sql(r, lst)}, {var} -> {body}))"


def _row_parts(sub: Any, local: dict, e: Expr, guard: list[str]) -> list[tuple[list[str], str, bool]]:
    """The rows a body yields, each with the conditions of the branches on its way."""
    while isinstance(e, Var) and e.name in local:
        e = local[e.name]
    while isinstance(e, Let):
        e = e.body
        while isinstance(e, Var) and e.name in local:
            e = local[e.name]
    if not isinstance(e, Apply):
        return []
    f = e.fn
    if isinstance(f, Builtin) and f.name == "if":
        c = sub.cond(e.args[0])
        then, other = e.args[1], e.args[2]
        assert isinstance(then, Lambda) and isinstance(other, Lambda)
        return _row_parts(sub, local, then.body, [*guard, f"coalesce({c}, FALSE)"]) + _row_parts(
            sub, local, other.body, [*guard, f"NOT coalesce({c}, FALSE)"]
        )
    op = getattr(f, "op", "")
    if op == "c_concat":
        return [p for x in e.args for p in _row_parts(sub, local, x, guard)]
    if op == "c_row":
        row = e.args[0]
        null = not (isinstance(row, Apply) and row.fn == Prim("tuple")) and (
            not isinstance(row, Var) or sub.ty.may_be_null(row))
        return [(guard, sub.expr(row), null)]
    return []


def _rows_array(rows: list[tuple[list[str], str, bool]], depth: int) -> str:
    """The rows of one element: those whose branch conditions hold. A row whose branch is
    not taken is NULL and filtered out; a row that may be None itself (``[w for w in ws if
    w is None]``) is boxed in a struct first, so that its None is kept."""
    guarded = any(g for g, _, _ in rows)
    box = guarded and any(null for _, _, null in rows)
    items = []
    for g, row, _ in rows:
        if box:
            row = f"named_struct('v', {row})"
        items.append(f"CASE WHEN {' AND '.join(g)} THEN {row} END" if g else row)
    arr = f"array({', '.join(items)})"
    if guarded:
        arr = f"filter({arr}, _cr{depth} -> _cr{depth} IS NOT NULL)"
    if box:
        arr = f"transform({arr}, _cr{depth} -> _cr{depth}.v)"
    return arr


# -- sorted(x, key=lambda e: ...) ----------------------------------------------------------------


@form_type("sort_by")
def sort_by_type(v: Any, ty: Typing, value_type: Any) -> tuple[Type, bool]:
    """``sort_by`` keeps its list's type; its key function's binders are typed on the way."""
    each_type(v, ty, value_type)
    return ty.of(v.args[0]), False


def _key_sql(r: Emitter, lam: Any, var: str) -> str:
    """The key function's body as SQL with its parameter bound to the lambda variable ``var``."""
    sub, tail, _ = _locals_renderer(r, lam.body, {lam.params[0]: var})
    return sub.expr(tail)


@form("sort_by")
def sort_by_sql(r: Emitter, v: Any) -> str:
    """``array_sort`` with a comparator of the keys (Spark's sort is stable, like Python's)."""
    lst, lam = v.args
    a, b = f"_ka{r.depth}", f"_kb{r.depth}"
    ka, kb = python_in_lambda(_key_sql(r, lam, a), v.span), _key_sql(r, lam, b)
    lo, hi = ("1", "-1") if attr(v.fn, "reverse") else ("-1", "1")
    cmp = f"CASE WHEN {ka} < {kb} THEN {lo} WHEN {ka} > {kb} THEN {hi} ELSE 0 END"
    # two elements or more, a key None: Python's comparison raises TypeError
    none = raise_sql("TypeError", "'<' not supported between instances of 'NoneType' and "
                     "another")  # fmt: skip

    def build(xs: list[str]) -> str:
        test = f"size({xs[0]}) > 1 AND exists({xs[0]}, {a} -> ({ka}) IS NULL)"
        return (f"(CASE WHEN {test} THEN {none} "
                f"ELSE array_sort({xs[0]}, ({a}, {b}) -> {cmp}) END)")  # fmt: skip

    return r.bind([r.expr(lst)], build)


# -- loops over values that update locals: fold(list, init, λ acc e. (acc', rows)) --------------


def _locals_renderer(r: Emitter, body: Expr, params: dict[str, str]) -> tuple[Any, Expr, dict]:
    """A renderer for a lambda body: its parameters are SQL lambda variables (``params``),
    its binders inlined. Returns (renderer, the body's tail, the binders)."""
    local: dict[str, Expr] = {}

    def collect(e: Expr) -> Expr:
        while isinstance(e, Let):
            local[e.name] = e.value
            val = e.value
            if isinstance(val, Apply) and isinstance(val.fn, Builtin) and val.fn.name == "if":
                for br in val.args[1:]:
                    if isinstance(br, Lambda):
                        collect(br.body)
            e = e.body
        return e

    tail = collect(body)
    outer = r.resolve

    def resolve(name: str) -> str | None:
        if name in params:
            return params[name]
        if name in local:
            return f"({sub._expr(local[name])})"
        return outer(name)

    sub: Any = dataclasses.replace(r, resolve=resolve)  # type: ignore[type-var]
    return sub, tail, local


@form_type("fold")
def fold_type(v: Any, ty: Typing, value_type: Any) -> tuple[Type, bool]:
    lst, init, lam = v.args
    assert isinstance(lam, Lambda)
    acc, elem = lam.params
    init_t = ty.of(init)
    carried = list(init_t[1]) if isinstance(init_t, tuple) and init_t[0] == "tuple" else []
    prev = ty.types.get(acc)
    if isinstance(prev, tuple) and prev[0] == "tuple" and len(prev[1]) == len(carried):
        carried = [unify(a, b) for a, b in zip(carried, prev[1], strict=True)]
    rows: Type = ("list", "none")
    for _ in range(2):  # the accumulator's types follow what the body computes from them
        ty.types[acc] = ("tuple", tuple(carried))
        each_type(Apply_like(lst, Lambda((elem,), lam.body)), ty, value_type)
        body = lam.body
        while isinstance(body, Let):
            body = body.body
        step_t = value_type(body)[0]
        if isinstance(step_t, tuple) and step_t[0] == "tuple" and len(step_t[1]) == 2:
            new, rows = step_t[1]
            if isinstance(new, tuple) and new[0] == "tuple" and len(new[1]) == len(carried):
                carried = [unify(a, b) for a, b in zip(carried, new[1], strict=True)]
    ty.types[acc] = ("tuple", tuple(carried))
    return ("tuple", (("tuple", tuple(carried)), rows)), False


class Apply_like:  # noqa: N801 - the (list, lambda) shape each_type reads
    def __init__(self, lst: Expr, lam: Any) -> None:
        self.args = (lst, lam)


@form("fold")
def fold_sql(r: Emitter, v: Any) -> str:
    """``aggregate(list, struct(init, rows0), (acc, e) -> struct(acc', concat(acc.rows, rows)))``."""
    lst, init, lam = v.args
    assert isinstance(lam, Lambda)
    acc, elem = lam.params
    av, ev = f"_fa{r.depth}", f"_fe{r.depth}"
    ctype = spark_type(r.ty.types.get(acc, ("tuple", ())))
    sub, tail, local = _locals_renderer(r, lam.body, {acc: f"{av}._1", elem: ev})
    while isinstance(tail, Var) and tail.name in local:
        tail = local[tail.name]
    assert isinstance(tail, Apply)
    new, rows = tail.args
    rows_t = sub._t(rows)
    rtype = spark_type(
        rows_t if isinstance(rows_t, tuple) and rows_t[1] != "none" else ("list", "int")
    )

    got = _row_parts(sub, local, rows, [])
    step_rows = f"concat({av}._2, {_rows_array(got, r.depth)})" if got else f"{av}._2"
    start = f"named_struct('_1', CAST({r.expr(init)} AS {ctype}), '_2', CAST(array() AS {rtype}))"
    step = python_in_lambda(f"named_struct('_1', CAST({sub.expr(new)} AS {ctype}), '_2', {step_rows})", v.span)
    return f"aggregate({iterated_sql(r, lst)}, {start}, ({av}, {ev}) -> {step})"
