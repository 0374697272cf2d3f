"""Recognize loop-carried locals as reductions (Sum, Count, Max, Min).

The frontend turns a local bound before a loop and updated inside it into a
``carry`` pseudo-state. This pass transforms this::

    let total.carry = new carry(total) in
    let _loop1 = smap(\\x -> let _ = total.carry#add(x) in None, xs) in
    let total_1 = total.carry#get() in ...

into::

    let total.carry = new looplift.states...:Sum() in
    let _loop1 = smap(\\x -> let _ = total.carry#add(x) in None, xs) in
    let _r1 = total.carry#value() in
    let total_1 = add(total, _r1) in ...

``n += 1`` becomes ``Count``; ``x = max(x, e)`` / ``min`` become ``Max`` /
``Min`` (starting value folded in after the loop); ``x -= e`` adds ``-e``; ``p *= e`` /
``p = p * e`` becomes ``Product`` (the start times the product: exact for ints, for
floats as order-free as a float sum); ``x |= e`` (``&=``, ``^=``, ``x = x | e``) of ints or
bools becomes ``BitOr`` (``BitAnd``, ``BitXor``), the start folded in after the loop
(where a row added anything). ``v = v and e`` (``or``) of bools, starting True
(False), is a ``Count`` of the rows where ``e`` is false (true), as a flag: ``e`` is a bool
and the start value the operator's neutral element, so every row evaluates ``e`` in some
order Python may see. A
*flag*, a local whose every update sets one constant (``found = True`` under an
``if``), is a ``Count`` of the rows that set it: the constant when it is
positive, else the starting value.

Assumes: let-normal form, unique binders.
Guarantees: every remaining ``carry`` lives in an ordered loop (it is run in
order by an ordered reducer); a carry in an unordered loop that is not a
reduction is diagnosed as order-dependent, at the offending update or read.
"""

from __future__ import annotations

import dataclasses

from ..analysis import analyze
from ..errors import Diagnostic, PassError
from ..frontend import ref_of
from ..ir.nodes import CARRY, Apply, Builtin, Expr, Lambda, Let, Lit, Prim, StateCall, StateNew, Var
from ..ir.traverse import map_children
from ..names import user_name
from ..program import Program
from .let_normalize import let_normalize

__all__ = ["recognize_reductions"]

_KIND_OPS = {"sum": {"add", "radd", "sub"}, "max": {"max"}, "min": {"min"}, "prod": {"mul"},
             "bitor": {"bitor"}, "bitand": {"bitand"}, "bitxor": {"bitxor"}}
_BITWISE = ("bitor", "bitand", "bitxor")


def recognize_reductions(prog: Program) -> Program:
    from looplift import states

    a = analyze(prog.fn)
    texts = _str_carries(a, prog.refs)
    floats = _float_carries(a, prog.refs)
    diags: list[Diagnostic] = []
    plan: dict[str, tuple[str, Expr]] = {}  # carry var -> (reduction, init atom)
    flags: dict[str, Lit] = {}  # carry var -> the constant every update sets (a flag)
    for name, decl in a.states.items():
        if decl.cls != CARRY:
            continue
        user = user_name(name)
        updates = [s for s in a.actions_of(name)]
        reads = a.reads_of(name)
        in_loop_reads = [r for r in reads if len(r.loops) > len(decl.loops)]
        ops = {s.method for s in updates}
        consts = {(type(s.args[0].value), s.args[0].value) for s in updates
                  if s.args and isinstance(s.args[0], Lit)}  # fmt: skip
        if (
            ops == {"set"}
            and not in_loop_reads
            and len(consts) == 1
            and all(isinstance(s.args[0], Lit) for s in updates)
        ):
            # a flag: `found = True` under a condition is the same in any row order
            plan[name] = ("flag", decl.args[0])
            flags[name] = updates[0].args[0]
            continue
        if ops in ({"and_"}, {"or_"}) and not in_loop_reads and _bool_fold(name, decl, a, prog.refs):
            plan[name] = ("all" if ops == {"and_"} else "any", decl.args[0])
            continue
        kind = next((k for k, allowed in _KIND_OPS.items() if ops and ops <= allowed), None)
        if kind == "sum" and name in texts:
            # `s += v` over str concatenates: in row order, not a sum
            bad = next((s for s in updates if s.loops and not a.loops[s.loops[-1]].ordered), None)
            if bad is None:
                continue  # an ordered loop concatenates in its order (a fold)
            diags.append(
                Diagnostic(
                    bad.span,
                    f"`{user}` concatenates strings in an unordered loop: the result would "
                    "depend on row order",
                    "iterate in a defined order: `for ... in sorted(g, key=...)` or "
                    "`group_by(key, rows, order_by=field)`",
                )
            )
            continue
        if kind is not None and not in_loop_reads:
            if kind == "sum" and all(
                s.method in ("add", "radd") and isinstance(s.args[0], Lit) and s.args[0].value == 1
                for s in updates
            ):
                kind = "count"
            plan[name] = (kind, decl.args[0])
            continue
        loops = [a.loops[s.loops[-1]] for s in [*updates, *in_loop_reads] if s.loops]
        if all(lp.ordered for lp in loops):
            continue  # an ordered loop runs its body in order: any update is fine
        offending = next(
            (s for s in [*updates, *in_loop_reads] if s.loops and not a.loops[s.loops[-1]].ordered),
            updates[0] if updates else reads[0],
        )
        what = (
            "read inside the loop that updates it"
            if offending.kind == "read"
            else "updated in an order-dependent way"
        )
        diags.append(
            Diagnostic(
                offending.span,
                f"loop-carried local `{user}` is {what}: in an unordered loop its value would "
                "depend on row order",
                "use a State for it, or iterate in a defined order with "
                "`group_by(key, rows, order_by=field)`; order-independent updates are "
                "`x += e`, `x -= e`, `x *= e`, `x = max(x, e)`, `x = min(x, e)` (from None: "
                "`x = e if x is None else min(x, e)`), "
                "`x |= e`, `x &= e`, `x ^= e` (ints, bools), "
                "`ok = ok and e` / `ok = ok or e` (bools, from True / False)",
            )
        )
    if diags:
        raise PassError(diags)
    if not plan:
        return prog
    classes = {"sum": states.Sum, "count": states.Count, "max": states.Max, "min": states.Min,
               "flag": states.Count, "prod": states.Product, "all": states.Count,
               "any": states.Count, "bitor": states.BitOr, "bitand": states.BitAnd,
               "bitxor": states.BitXor}  # fmt: skip
    refs = dict(prog.refs)
    for kind in {k for k, _ in plan.values()}:
        refs[ref_of(classes[kind])] = classes[kind]
    counter = [0]

    def fresh() -> str:
        counter[0] += 1
        return f"_r.{counter[0]}"

    def rewrite(e: Expr) -> Expr:
        e = map_children(e, rewrite)
        if not isinstance(e, Let) or not isinstance(e.value, Apply):
            return e
        v = e.value
        f = v.fn
        if isinstance(f, StateNew) and e.name in plan:
            cls = classes[plan[e.name][0]]
            return dataclasses.replace(
                e, value=dataclasses.replace(v, fn=StateNew(ref_of(cls), span=f.span), args=())
            )
        if not isinstance(f, StateCall) or f.state not in plan:
            return e
        kind, init = plan[f.state]
        if f.method == "get":
            r = fresh()
            read = Apply(StateCall(f.state, "value", span=f.span), (), span=v.span)
            if kind in ("all", "any"):  # no row falsified it / some row satisfied it
                cmp = Apply(Prim("eq" if kind == "all" else "gt"), (Var(r), Lit(0)), span=v.span)
                return Let(r, read, dataclasses.replace(e, value=cmp), span=e.span)
            if kind == "flag":  # the constant if any row set it, else the start value
                t = fresh()
                cond = Apply(Prim("gt"), (Var(r), Lit(0)), span=v.span)
                pick = Apply(Builtin("if"), (Var(t), Lambda((), flags[f.state]), Lambda((), init)),
                             span=v.span)  # fmt: skip
                combined = Let(t, cond, pick, span=v.span)
                return Let(r, read, dataclasses.replace(e, value=combined), span=e.span)
            if kind in ("sum", "count"):
                if isinstance(init, Lit) and type(init.value) is int and init.value == 0:
                    return Let(r, read, dataclasses.replace(e, value=Var(r)), span=e.span)
                combined: Expr = Apply(Prim("add"), (init, Var(r)), span=v.span)
            elif kind == "prod":  # the start times the product of the rows' factors
                combined = Apply(Prim("mul"), (init, Var(r)), span=v.span)
            elif kind in _BITWISE:  # the start, or it with the rows' values folded
                combined = _if_none(Var(r), init, Apply(Prim(kind), (init, Var(r)), span=v.span),
                                    v.span)  # fmt: skip
            else:
                combined = _if_none(Var(r), init, Apply(Prim(kind), (init, Var(r))), v.span)
            return Let(r, read, dataclasses.replace(e, value=combined), span=e.span)
        if kind in ("count", "flag"):
            return dataclasses.replace(e, value=dataclasses.replace(v, fn=_call(f, "add"), args=()))
        if kind in ("all", "any"):  # count the rows where the operand decides
            t = fresh()
            test = Apply(Prim("not"), v.args, span=v.span) if kind == "all" else v.args[0]
            add = Let("_", Apply(_call(f, "add"), (), span=v.span), Lit(None))
            pick = Apply(Builtin("if"), (Var(t), Lambda((), add), Lambda((), Lit(None))),
                         span=v.span)  # fmt: skip
            return Let(t, test, dataclasses.replace(e, value=pick), span=e.span)
        if f.method == "sub":
            neg = fresh()
            return Let(
                neg,
                Apply(Prim("neg"), v.args, span=v.span),
                dataclasses.replace(e, value=Apply(_call(f, "add"), (Var(neg),), span=v.span)),
                span=e.span,
            )
        if kind == "max" and f.state in floats:  # a NaN never wins `max(x, nan)`: not added
            t = "_notnan.1"  # (let_normalize makes the binders unique, as for `_if_none`)
            test = Apply(Prim("eq"), (v.args[0], v.args[0]), span=v.span)  # not NaN
            add = Let("_", Apply(_call(f, "add"), v.args, span=v.span), Lit(None))
            pick = Apply(Builtin("if"), (Var(t), Lambda((), add), Lambda((), Lit(None))),
                         span=v.span)  # fmt: skip
            return Let(t, test, dataclasses.replace(e, value=pick), span=e.span)
        if kind in ("max", "min", "prod", *_BITWISE) or f.method == "radd":  # `+` on numbers commutes
            return dataclasses.replace(e, value=dataclasses.replace(v, fn=_call(f, "add")))
        return e

    body = rewrite(prog.fn.body)
    out = dataclasses.replace(prog.with_fn(dataclasses.replace(prog.fn, body=body)), refs=refs)
    return let_normalize(out)  # the rewrite introduced nested lets and fresh names


def _call(f: StateCall, method: str) -> StateCall:
    return dataclasses.replace(f, method=method)


def _if_none(x: Var, then: Expr, other: Expr, span) -> Expr:
    from ..ir.nodes import Builtin, Lambda

    t = "_none.1"
    return Let(
        t,
        Apply(Prim("is_none"), (x,)),
        Apply(Builtin("if"), (Var(t), Lambda((), then), Lambda((), other)), span=span),
    )


def _bool_fold(name: str, decl, a, refs) -> bool:  # noqa: ANN001
    """``v = v and e`` / ``or``: exact in any row order when ``v`` starts at the operator's
    neutral element (True for ``and``, False for ``or``) and every ``e`` is a bool."""
    from ..backend.types import infer_types

    ops = {s.method for s in a.actions_of(name)}
    start = decl.args[0] if decl.args else None
    if isinstance(start, Var) and start.name in a.bound:  # `ok = True` before the loop
        start = a.bound[start.name].value
    if not (isinstance(start, Lit) and start.value is (ops == {"and_"})):
        return False
    try:
        ty = infer_types(a, refs, strict=False)
    except Exception:  # noqa: BLE001 - typing errors are reported by the backend
        return False
    return all(s.args and ty.of(s.args[0]) == "bool" for s in a.actions_of(name))


def _float_carries(a, refs) -> set[str]:  # noqa: ANN001
    """The carries updated with floats. ``x = max(x, e)`` keeps ``x`` where ``e`` is NaN
    (``nan > x`` is false), whatever the order; Spark's ``max`` takes NaN for the largest,
    so a NaN is not added (``min`` needs nothing: Spark's ``min`` puts NaN last, and the
    start folded in after the loop keeps CPython's ``min(start, nan)``). Not in an ordered
    loop: its fold compares as Python does."""
    from ..backend.types import infer_types

    try:
        ty = infer_types(a, refs, strict=False)
    except Exception:  # noqa: BLE001 - typing errors are reported by the backend
        return set()
    return {name for name, decl in a.states.items() if decl.cls == CARRY
            and any(s.args and ty.of(s.args[0]) == "float" for s in a.actions_of(name))
            and not any(s.loops and a.loops[s.loops[-1]].ordered for s in a.actions_of(name))}  # fmt: skip


def _str_carries(a, refs) -> set[str]:  # noqa: ANN001
    """The carries that hold a str: their `+` concatenates (in order), it does not sum."""
    from ..backend.types import infer_types

    try:
        ty = infer_types(a, refs, strict=False)
    except Exception:  # noqa: BLE001 - typing errors are reported by the backend
        return set()
    out = set()
    for name, decl in a.states.items():
        if decl.cls != CARRY:
            continue
        xs = [*decl.args[:1], *(s.args[0] for s in a.actions_of(name) if s.args)]
        if any(ty.of(x) == "str" for x in xs):
            out.add(name)
    return out
