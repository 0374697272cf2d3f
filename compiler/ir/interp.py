"""A reference evaluator of the lambda IR (for differential tests of the passes).

Evaluating the IR after any stage on plain Python data must give what the
original function gives when run as CPython: that is how the tests check
that no pass changed the meaning of a program.

>>> # evaluate(program.fn, program.refs, [[(1, 0, 10), (1, 5, 11), (1, 1, 12)]])
"""

from __future__ import annotations

from typing import Any

from looplift.state import Carry
from looplift.windows import group_rows

from ..ir.nodes import ParamKind
from .nodes import (
    CARRY,
    Apply,
    Builtin,
    Expr,
    Function,
    Host,
    Lambda,
    Let,
    Lit,
    Prim,
    StateCall,
    StateNew,
    Var,
    attr,
)
from .prims import PRIMS

__all__ = ["evaluate", "Carry"]


def evaluate(fn: Function, refs: dict[str, Any], args: list[Any]) -> Any:
    """Run ``fn`` on Python arguments (lists of tuples for RowStreams)."""
    env: dict[str, Any] = {}
    for p, a in zip(fn.params, args, strict=True):
        env[p.name] = [tuple(r) for r in a] if p.kind == ParamKind.ROWS else a
    out: list[tuple[Any, ...]] = []
    result = _eval(fn.body, env, refs, out)
    return out if fn.returns == "rows" else result


def _eval(e: Expr, env: dict[str, Any], refs: dict[str, Any], out: list) -> Any:
    while isinstance(e, Let):
        v = _eval(e.value, env, refs, out)
        if e.name != "_":
            env = {**env, e.name: v}
        e = e.body
    if isinstance(e, Var):
        return env[e.name]
    if isinstance(e, Lit):
        return e.value
    if isinstance(e, Lambda):
        return ("closure", e, env)
    if not isinstance(e, Apply):
        raise TypeError(f"cannot evaluate {type(e).__name__}")
    f = e.fn
    if isinstance(f, Builtin) and f.name == "if":
        cond = _eval(e.args[0], env, refs, out)
        branch = e.args[1] if cond else e.args[2]
        assert isinstance(branch, Lambda)
        return _eval(branch.body, env, refs, out)
    if isinstance(f, Builtin) and f.name == "smap":
        lam, stream = e.args
        assert isinstance(lam, Lambda)
        items = _eval(stream, env, refs, out)
        for item in items:
            inner = dict(env)
            for p, v in zip(lam.params, item, strict=True):  # fields, or (key, group)
                inner[p] = v
            _eval(lam.body, inner, refs, out)
        return None
    if isinstance(f, Builtin) and f.name == "fold":  # a loop over values updating locals
        lam = e.args[2]
        assert isinstance(lam, Lambda)
        carried, rows = _eval(e.args[1], env, refs, out), _Rows()
        for item in _eval(e.args[0], env, refs, out):
            inner = {**env, lam.params[0]: carried, lam.params[1]: item}
            carried, more = _eval(lam.body, inner, refs, out)
            rows.extend(more)
        return (carried, rows)
    if isinstance(f, Builtin) and f.name == "sort_by":  # sorted(x, key=lambda ...)
        lam = e.args[1]
        assert isinstance(lam, Lambda)
        items = _eval(e.args[0], env, refs, out)
        key = lambda item: _eval(lam.body, {**env, lam.params[0]: item}, refs, out)  # noqa: E731
        return sorted(items, key=key, reverse=bool(attr(f, "reverse")))
    if isinstance(f, Builtin) and f.name == "each":  # rows per container value
        lam = e.args[1]
        assert isinstance(lam, Lambda)
        rows = _Rows()
        for item in _eval(e.args[0], env, refs, out):
            rows.extend(_eval(lam.body, {**env, lam.params[0]: item}, refs, out))
        return rows
    args = [_eval(a, env, refs, out) for a in e.args]
    if isinstance(f, Prim):
        return PRIMS[f.op].impl(*args)
    if isinstance(f, Builtin):
        if f.name == "project":
            fields = attr(f, "fields")
            return [tuple(r[i] for i in fields) for r in args[0]]
        if f.name == "group_by":
            key = attr(f, "key")
            computed = {pos: e for pos, e, _ in attr(f, "computed", ())}
            rows_in = list(args[0])
            keys = []
            for r in rows_in:
                parts = [
                    r[i] if i >= 0 else _eval(computed[pos], {**env, **_kf(r)}, refs, out)
                    for pos, i in enumerate(key)
                ]
                keys.append(tuple(parts) if len(key) != 1 else parts[0])
            # hop(...) in a key: a group per window; session(...): a group per session
            groups = {k: [rows_in[j] for j in js] for k, js in group_rows(keys).items()}
            ob = attr(f, "order_by")
            items = []
            for k, rows in groups.items():
                if ob is not None:
                    rows = _sorted(rows, ob)
                items.append((k, rows))
            return items
        if f.name == "sorted_by":
            return _sorted(list(args[0]), attr(f, "order"))
        if f.name == "ranked":  # each row and its rank (1-based) in the order
            rows = _sorted(list(args[0]), attr(f, "order"))
            return [(*r, i) for i, r in enumerate(rows, 1)]
        if f.name == "yield":
            if isinstance(args[0], _Rows):
                out.extend(args[0])
            else:
                out.append(args[0])
            return None
    if isinstance(f, StateNew):
        if f.cls == CARRY:
            return Carry(*args)
        return refs[f.cls](*args)
    if isinstance(f, StateCall):
        return getattr(env[f.state], f.method)(*args)
    if isinstance(f, Host):
        return refs[f.ref](*args)
    raise TypeError(f"no evaluation rule for {f!r}")


def _sorted(rows: list, order: tuple[tuple[int, bool], ...]) -> list:
    """Rows in ``order`` ((field, descending), ...), ties by the remaining fields ascending."""
    from looplift.streams import sort_indices

    n = len(rows[0]) if rows else 0
    given = {i for i, _ in order}
    spec = [*order, *((i, False) for i in range(n) if i not in given)]
    return [rows[j] for j in sort_indices(rows, spec)]


def _kf(row: tuple) -> dict[str, Any]:
    """A row's fields as the variables of a computed group key."""
    return {f"_kf.{i}": v for i, v in enumerate(row)}
class _Rows(list):
    """The rows an ``each`` (a loop over container values) yields."""
