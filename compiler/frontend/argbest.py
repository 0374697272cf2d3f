"""The "keep the best row" shape in an unordered loop: an arg-max / arg-min reduction.

Transforms this (the carried locals are only updated together, by one ``if``)::

    best_ts, best = None, None
    for k, ts, v in rows:
        if best_ts is None or ts > best_ts:
            best_ts, best = ts, v

into one :class:`looplift.states.ArgBest` state per carried name instead of a
carry: ``best_ts.carry = new ArgBest(best_ts, best_ts, "gt")`` and in the loop
``best_ts.carry#offer(ts, (k, ts, v), ts)``, ``best.carry#offer(ts, (k, ts, v), v)``
— order-independent (ties go to the first or last row in the canonical row
order, as CPython's loop over a stream does), so no ``order_by`` is needed.

Recognized conditions: ``x OP K``, ``K OP x`` and ``K is None or ...`` of them,
with ``OP`` one of ``> >= < <=``, where ``K`` is a carried name assigned ``x``.
The other assigned values must not read the carried names. The update may have a
guard that does not read them either: ``if g and (K is None or x > K):``, or the
update as the only statement of an ``if g:`` (only the rows where ``g`` holds are
offered).

The min / max folds that start from None are the same update, spelled with ``min`` /
``max``: ``K = x if K is None else min(K, x)`` (or ``min(K, x) if K is not None else x``)
and ``if K is None: K = x`` + ``else: K = min(K, x)`` (or ``elif x < K: K = x``) are
``if K is None or x < K: K = x`` — CPython's ``min(K, x)`` returns ``x`` exactly when
``x < K``; ``min(x, K)`` returns ``x`` unless ``K < x``, which is ``x <= K`` (ties: the
last row). ``max`` is ``>`` (``>=``). Where ``min`` or ``max`` is a module global, no.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from ..ir.nodes import UNIT, Apply, Builtin, Expr, Lambda, Let, Prim, StateCall, StateNew, Var
from ..names import carry_var
from .base import Context
from .env import Env
from .parse import ref_of
from .syntax import assigned_names, code_of, flatten, read_names

__all__ = ["ArgBestMixin", "ArgBestUpdate"]

_MODE = {"GreaterThan": "gt", "GreaterThanEqual": "ge", "LessThan": "lt", "LessThanEqual": "le"}
_FLIP = {"gt": "lt", "ge": "le", "lt": "gt", "le": "ge"}


@dataclass(frozen=True)
class ArgBestUpdate:
    key: str  # the carried name holding the best key
    mode: str  # gt / ge / lt / le: the new key against the best so far
    key_expr: cst.BaseExpression
    values: tuple[tuple[str, cst.BaseExpression], ...]  # carried name -> its new value
    guard: cst.BaseExpression | None = None  # offered only where this holds


class ArgBestMixin(Context):
    """Finds the arg-max / arg-min updates of a loop body, and translates them."""

    def argbest_updates(
        self, body: list[cst.BaseStatement], carried: list[str]
    ) -> dict[cst.CSTNode, ArgBestUpdate]:
        """The recognized ``if`` statements (and ``K = x if K is None else min(K, x)``
        assignments) of a loop body (by node)."""
        flat = flatten(body)
        out: dict[cst.CSTNode, ArgBestUpdate] = {}
        for s in flat:
            up = _match(s, set(carried)) if isinstance(s, cst.If) else None
            if up is None and {"min", "max"}.isdisjoint(self.globals):
                up = _match_first_or_best(s, set(carried))
            if up is None:
                continue
            names = {n for n, _ in up.values}
            others = [x for x in flat if x is not s]
            if names & (assigned_names(others, deep=True) | read_names(others)):
                continue  # also updated or read elsewhere in the loop: not this shape
            if any(n in names for n, _ in ((k, 0) for k in out)):  # pragma: no cover
                continue
            out[s] = up  # by the node (a rewritten tree's nodes may reuse a freed id)
        return out

    def argbest_states(
        self, ups: dict[cst.CSTNode, ArgBestUpdate], env: Env
    ) -> dict[str, tuple[str, Expr]]:
        """The ArgBest state replacing each carry (carry var, constructor call)."""
        from looplift.states import ArgBest

        ref = ref_of(ArgBest)
        self.refs[ref] = ArgBest
        out: dict[str, tuple[str, Expr]] = {}
        for up in ups.values():
            init_key = Var(env.names[up.key].var)
            for n, _ in up.values:
                init = Var(env.names[n].var)
                sp = env.names[n].span
                mode = _lit(up.mode)
                out[n] = (carry_var(n), Apply(StateNew(ref), (init, init_key, mode), span=sp))
        return out

    def argbest_stmt(
        self, up: ArgBestUpdate, row: tuple[str, ...], env: Env, rest: Expr, s: cst.CSTNode
    ) -> Expr:
        """``offer(key, row, value)`` to each carried name's state: unconditionally, or
        where the update's guard holds."""
        sp = self.span(s)
        cond = self.condition(up.guard, env) if up.guard is not None else None  # type: ignore[attr-defined]
        key = self.expr(up.key_expr, env)  # type: ignore[attr-defined]
        ktmp, rtmp = self.fresh("best_key"), self.fresh("row")
        body = rest if cond is None else UNIT
        for n, node in reversed(up.values):
            val = key if node is up.key_expr else self.expr(node, env)  # type: ignore[attr-defined]
            call = Apply(StateCall(carry_var(n), "offer"), (Var(ktmp), Var(rtmp), val), span=sp)
            body = Let("_", call, body, span=sp)
        row_t = Apply(Prim("tuple"), tuple(Var(p) for p in row), span=sp)
        offers = Let(ktmp, key, Let(rtmp, row_t, body, span=sp), span=sp)
        if cond is None:
            return offers
        ife = Apply(Builtin("if"), (cond, Lambda((), offers), Lambda((), UNIT)), span=sp)
        return Let("_", ife, rest, span=sp)


def _lit(v: str) -> Expr:
    from ..ir.nodes import Lit

    return Lit(v)


def _match(s: cst.If, carried: set[str]) -> ArgBestUpdate | None:
    if s.orelse is not None:
        return None
    inner = s.body.body
    if len(inner) == 1 and isinstance(inner[0], cst.If):  # `if g:` around the update
        up = _match(inner[0], carried)
        if up is None or up.guard is not None or read_names([s.test]) & {n for n, _ in up.values}:
            return None
        return ArgBestUpdate(up.key, up.mode, up.key_expr, up.values, s.test)
    test = s.test
    guard = None
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.And):
        guard, test = test.left, test.right  # `g and (K is None or x > K)`
    has_none = False
    if isinstance(test, cst.BooleanOperation) and isinstance(test.operator, cst.Or):
        left = test.left
        if not (
            isinstance(left, cst.Comparison)
            and len(left.comparisons) == 1
            and isinstance(left.comparisons[0].operator, cst.Is)
            and isinstance(left.left, cst.Name)
            and code_of(left.comparisons[0].comparator).strip() == "None"
        ):
            return None
        has_none, none_name, test = True, left.left.value, test.right
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1):
        return None
    op = _MODE.get(type(test.comparisons[0].operator).__name__)
    if op is None:
        return None
    a, b = test.left, test.comparisons[0].comparator
    if isinstance(b, cst.Name) and b.value in carried:
        key, x, mode = b.value, a, op
    elif isinstance(a, cst.Name) and a.value in carried:
        key, x, mode = a.value, b, _FLIP[op]
    else:
        return None
    if has_none and none_name != key:
        return None
    values: list[tuple[str, cst.BaseExpression]] = []
    for st in s.body.body:
        if not (isinstance(st, cst.SimpleStatementLine) and len(st.body) == 1):
            return None
        asg = st.body[0]
        if not (isinstance(asg, cst.Assign) and len(asg.targets) == 1):
            return None
        t, v = asg.targets[0].target, asg.value
        if isinstance(t, cst.Name):
            values.append((t.value, v))
        elif (
            isinstance(t, cst.Tuple)
            and isinstance(v, cst.Tuple)
            and len(t.elements) == len(v.elements)
            and all(isinstance(e.value, cst.Name) for e in t.elements)
        ):
            values.extend((e.value.value, w.value) for e, w in zip(t.elements, v.elements, strict=True))  # type: ignore[attr-defined]
        else:
            return None
    names = [n for n, _ in values]
    if len(set(names)) != len(names) or not set(names) <= carried or key not in names:
        return None
    x_code = code_of(x).strip()
    kv = dict(values)
    if code_of(kv[key]).strip() != x_code:
        return None
    if read_names([x, *kv.values()]) & set(names):  # type: ignore[list-item]
        return None
    if guard is not None and read_names([guard]) & set(names):
        return None
    fixed = tuple((n, x if n == key else v) for n, v in values)
    return ArgBestUpdate(key, mode, x, fixed, guard)


_FOLD_MODE = {("min", 1): "lt", ("min", 0): "le", ("max", 1): "gt", ("max", 0): "ge"}


def _match_first_or_best(s: cst.CSTNode, carried: set[str]) -> ArgBestUpdate | None:
    """``K = x if K is None else min(K, x)``, ``if K is None: K = x`` / ``else: K =
    min(K, x)`` (``elif x < K: K = x``), and the ``is not None`` spellings, as the update
    ``if K is None or x OP K: K = x``."""
    if isinstance(s, cst.Assign):
        if not (len(s.targets) == 1 and isinstance(s.targets[0].target, cst.Name)
                and isinstance(s.value, cst.IfExp)):  # fmt: skip
            return None
        key = s.targets[0].target.value
        first, best = _none_split(s.value.test, s.value.body, s.value.orelse, key)
        return _first_or_best(key, first, best, carried)
    if not isinstance(s, cst.If) or s.orelse is None:
        return None
    then = _single_assign(s.body.body)
    if then is None:
        return None
    key = then[0]
    if isinstance(s.orelse, cst.If):  # `elif x < K: K = x`: the update's own test
        inner = s.orelse
        if inner.orelse is not None or not _is_none_test(s.test, key, True):
            return None
        up = _match(cst.If(test=cst.BooleanOperation(s.test, cst.Or(), inner.test),
                           body=inner.body), carried)  # fmt: skip
        if up is None or up.guard is not None or up.values != ((key, up.key_expr),):
            return None
        return up if code_of(then[1]).strip() == code_of(up.key_expr).strip() else None
    other = _single_assign(s.orelse.body.body)
    if other is None or other[0] != key:
        return None
    first, best = _none_split(s.test, then[1], other[1], key)
    return _first_or_best(key, first, best, carried)


def _first_or_best(key: str, first: cst.BaseExpression | None, best: cst.BaseExpression | None,
                   carried: set[str]) -> ArgBestUpdate | None:  # fmt: skip
    """``first`` (the value where ``K`` is None) is ``x``, ``best`` is ``min(K, x)``."""
    if key not in carried or first is None or not isinstance(best, cst.Call):
        return None
    fn = best.func
    if not (isinstance(fn, cst.Name) and fn.value in ("min", "max") and len(best.args) == 2
            and all(a.keyword is None and not a.star for a in best.args)):  # fmt: skip
        return None
    a0, a1 = (a.value for a in best.args)
    pos = 1 if isinstance(a0, cst.Name) and a0.value == key else 0
    x = a1 if pos == 1 else a0
    if pos == 0 and not (isinstance(a1, cst.Name) and a1.value == key):
        return None
    if code_of(x).strip() != code_of(first).strip() or key in read_names([x]):  # type: ignore[list-item]
        return None
    return ArgBestUpdate(key, _FOLD_MODE[fn.value, pos], x, ((key, x),))


def _none_split(test: cst.BaseExpression, then: cst.BaseExpression, other: cst.BaseExpression,
                key: str) -> tuple[cst.BaseExpression | None, cst.BaseExpression | None]:  # fmt: skip
    """(the value where ``key`` is None, the value where it is not) of a choice on
    ``key is None`` / ``key is not None``; (None, None) for another test."""
    if _is_none_test(test, key, True):
        return then, other
    if _is_none_test(test, key, False):
        return other, then
    return None, None


def _is_none_test(test: cst.BaseExpression, key: str, positive: bool) -> bool:
    """``key is None`` (``positive``) / ``key is not None``."""
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1
            and isinstance(test.left, cst.Name) and test.left.value == key):  # fmt: skip
        return False
    c = test.comparisons[0]
    op = cst.Is if positive else cst.IsNot
    return isinstance(c.operator, op) and code_of(c.comparator).strip() == "None"


def _single_assign(body: object) -> tuple[str, cst.BaseExpression] | None:
    """(name, value) of a block that is one ``name = value``."""
    if not (isinstance(body, (list, tuple)) and len(body) == 1):
        return None
    line = body[0]
    if not (isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1):
        return None
    asg = line.body[0]
    if not (isinstance(asg, cst.Assign) and len(asg.targets) == 1
            and isinstance(asg.targets[0].target, cst.Name)):  # fmt: skip
        return None
    return asg.targets[0].target.value, asg.value

