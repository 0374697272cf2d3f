"""How a state becomes Spark: the one place for additive sums and action reducers.

An additive state is native: per action, the sign-weighted projections of
its fields (:func:`additive_terms`) are summed per scope key, and its readers
are SQL over the sums (:func:`additive_reader`). An action state's map part
is native too (:func:`action_map`: which action each row takes, and its
argument); its reduce part is a Python ``ActionReducer`` per scope key
(:func:`reducer_spec`). The plan (:class:`StatesMixin`) and ``looplift.sql``'s
aggregate expression (:mod:`.aggexpr`) both build on these.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..analysis import Analysis
from ..errtext import raise_sql
from ..ir.nodes import Lit, Var
from ..names import user_name
from ..operators import ActionSite, StateClassInfo, StateOperator
from .errors import BackendError
from .sql import SqlRenderer, sql_literal
from .state_expr import state_expr_sql
from .types import Typing, unify

if TYPE_CHECKING:
    pass

__all__ = [
    "Term",
    "additive_terms",
    "field_init",
    "field_total",
    "additive_reader",
    "ActionMap",
    "action_map",
    "exclusive",
    "reader_list",
]


# -- additive states ----------------------------------------------------------------------


@dataclass(frozen=True)
class Term:
    """One action's contribution to one field of an additive state."""

    state: str
    field: str
    sql: str  # the signed value, guarded: 0 where the action is not taken
    type: Any
    act: ActionSite


def field_init(text: str) -> Any:
    """A field's initial value (Python literal text: ``1e3`` is a float, as in Python)."""
    return ast.literal_eval(text)


def _value_type(v: Any) -> str:
    return "float" if isinstance(v, float) else "int"


def additive_terms(
    op: StateOperator,
    classes: Mapping[str, StateClassInfo],
    renderer_for: Callable[[ActionSite], SqlRenderer],
    ty: Typing,
) -> list[Term]:
    """Every action's signed, guarded projection of every field it updates."""
    out = []
    for act in op.actions:
        info = classes[op.classes[op.states.index(act.state)]]
        spec = next(x for x in info.additive_actions if x.method == act.method)
        r = renderer_for(act)
        what = f"{user_name(act.state)}.{act.method}"
        env = {p: _not_null(r.expr(x), ty.may_be_null(x), what)
               for p, x in zip(spec.params, act.args, strict=True)}  # fmt: skip
        envt = {p: ty.of(x) for p, x in zip(spec.params, act.args, strict=True)}
        guard = r.guards(act.guards) if act.guards else None
        for fname, sign, expr in spec.update_exprs:
            value, vtype = state_expr_sql(expr, env, envt)
            if sign == "-":
                value = f"(- {value})"
            sql = f"CASE WHEN {guard} THEN {value} ELSE 0 END" if guard else value
            out.append(Term(act.state, fname, sql, vtype, act))
    return out


def field_total(summed: str, init: Any) -> str:
    """A field's value from the sum of its terms (NULL over no rows: the initial value)."""
    total = f"coalesce({summed}, 0)"
    return total if init == 0 and type(init) is int else f"({sql_literal(init)} + {total})"


def field_type(init: Any, terms: list[Term]) -> Any:
    t = _value_type(init)
    for term in terms:
        t = unify(t, term.type)
    return t


def additive_reader(
    info: StateClassInfo, method: str, totals: Mapping[str, tuple[str, Any]]
) -> str:
    """SQL of reader ``method`` over the fields' totals (field -> (SQL, type))."""
    expr = dict(info.reader_irs)[method]
    env = {f"self.{f}": sql for f, (sql, _) in totals.items()}
    envt = {f"self.{f}": t for f, (_, t) in totals.items()}
    sql, _ = state_expr_sql(expr, env, envt)
    return sql


def _not_null(sql: str, nullable: bool, what: str) -> str:
    """An action argument that may be None: Python's ``self.f += None`` raises."""
    if not nullable:
        return sql
    msg = raise_sql("TypeError", f"{what}(None): a state's += with None")
    return f"(CASE WHEN {sql} IS NULL THEN {msg} ELSE {sql} END)"


# -- action states ------------------------------------------------------------------------


def exclusive(acts: tuple[ActionSite, ...]) -> bool:
    """Are the guards of these action sites pairwise exclusive (one action per row)?"""
    for i, x in enumerate(acts):
        for y in acts[i + 1 :]:
            gx, gy = dict(x.guards), dict(y.guards)
            if not any(c in gy and gy[c] != v for c, v in gx.items()):
                return False
    return True


@dataclass(frozen=True)
class ActionMap:
    """The native map part of an action state: SQL columns fed to its reducer.

    Packed (exclusive actions of one argument each): ``[code, argument]``, the
    code numbering the action taken. Otherwise per action ``[taken, *args]``.
    """

    packed: bool
    columns: tuple[str, ...]
    sites: tuple[tuple[str, int], ...]  # (action method, number of arguments)


def action_map(op: StateOperator, r: SqlRenderer) -> ActionMap:
    acts = op.actions
    packed = exclusive(acts) and all(len(a.args) == 1 for a in acts)
    if packed and acts:
        code = _chain_code(acts, r) or " ".join(
            f"WHEN {r.guards(a.guards)} THEN {i}" for i, a in enumerate(acts)
        )
        arg_sql = [r.expr(a.args[0]) for a in acts]
        if len(set(arg_sql)) == 1:
            arg = arg_sql[0]  # every action takes the same argument: no CASE needed
        else:
            whens = " ".join(
                f"WHEN {r.guards(a.guards)} THEN {x}" for a, x in zip(acts, arg_sql, strict=True)
            )
            arg = f"CASE {whens} END"
        return ActionMap(True, (f"CASE {code} END", arg), tuple((a.method, 1) for a in acts))
    cols: list[str] = []
    for a in acts:
        guard = r.guards(a.guards)
        cols.append(f"CASE WHEN {guard} THEN 1 END")
        cols.extend(f"CASE WHEN {guard} THEN {r.expr(x)} END" for x in a.args)
    return ActionMap(packed, tuple(cols), tuple((a.method, len(a.args)) for a in acts))


def _chain_code(acts: tuple[ActionSite, ...], r: SqlRenderer) -> str | None:
    """The WHENs of an ``if``/``elif``/``else`` chain's action codes, each condition once:
    ``WHEN c0 THEN 0 WHEN c1 THEN 1 ELSE 2`` for guards ``c0``, ``not c0 and c1``, ``not c0
    and not c1`` (a CASE tries its branches in order, so the negations are implied; the
    conditions are Python bools, never NULL where the chain evaluates them). None when the
    guards are not such a chain."""
    conds: list[str] = []
    for i, a in enumerate(acts):
        g = tuple(a.guards)
        last = i == len(acts) - 1
        prefix = tuple((c, False) for c in conds)
        if last and len(acts) > 1 and g == prefix:
            return " ".join(f"WHEN {r.cond(Var(c))} THEN {j}" for j, c in enumerate(conds)) + (
                f" ELSE {i}"
            )
        if len(g) != len(conds) + 1 or g[:-1] != prefix or not g[-1][1]:
            return None
        conds.append(g[-1][0])
    return None


def reader_list(op: StateOperator, a: Analysis) -> list[tuple[Any, str]]:
    """The readers of an action state: ((method, constant args) or method, result binder)."""
    out = []
    for rd in op.reads:
        if rd.result == "_":
            continue
        if not all(isinstance(x, Lit) for x in rd.args):
            raise BackendError(
                f"reader `{user_name(rd.state)}.{rd.method}(...)` takes a computed argument; the "
                "Spark backend passes constant reader arguments only",
                a.bound[rd.result].span if rd.result in a.bound else a.fn.span,
            )
        margs = tuple(x.value for x in rd.args)
        out.append(((rd.method, margs) if margs else rd.method, rd.result))
    return out


def constructor_args(op: StateOperator, a: Analysis, params: set[str]) -> list[Any]:
    """The state's constructor arguments: Lit values, or Var of scalar parameters."""
    (s,) = op.states
    decl = a.states[s]
    args = [_through_names(x, a, params) for x in decl.args]
    for x in args:
        if not (isinstance(x, Lit) or (isinstance(x, Var) and x.name in params)):
            raise BackendError(
                f"state `{user_name(s)}`: constructor arguments must be constants or scalar "
                "parameters",
                decl.span,
            )
    return args


def _through_names(x: Any, a: Analysis, params: set[str]) -> Any:
    """A name bound (unconditionally) to a literal or another such name: that literal."""
    for _ in range(20):
        b = a.bound.get(x.name) if isinstance(x, Var) and x.name not in params else None
        if b is None or b.guards or not isinstance(b.value, (Lit, Var)):
            return x
        x = b.value
    return x
