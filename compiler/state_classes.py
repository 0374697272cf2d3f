"""Read a State class's source (with libcst) and classify it.

A state is *additive* when its ``__init__`` only assigns numeric literals to
fields, every action only does ``self.f += e`` / ``self.f -= e`` with ``e``
over the action's parameters, and every reader is one ``return`` of an
expression over fields and literals. Additive states run as Spark's native
sums; every other state is an *action reducer* that needs its Python.

>>> from looplift.states import Average
>>> info = classify_state_class(Average)
>>> info.additive, info.actions
(True, ('add',))
"""

from __future__ import annotations

import inspect
import textwrap
from typing import Any

import libcst as cst

from .errors import Diagnostic
from .frontend.classes import state_expr
from .frontend.syntax import code_of, is_name, mentions, walk
from .ir.nodes import Expr, Span
from .operators import AdditiveAction, StateClassInfo

__all__ = ["classify_state_class", "check_undo"]

_SAFE_CALLS = {"float", "int", "abs", "min", "max", "round", "bool"}
_CACHE: dict[type, StateClassInfo] = {}


def classify_state_class(cls: type) -> StateClassInfo:
    if cls in _CACHE:
        return _CACHE[cls]
    from .frontend.parse import ref_of

    acts = cls.actions()
    actions = tuple(acts)
    readers = tuple(cls.readers())
    undo = tuple(
        (n, "explicit" if a.undo_fn is not None else "derived" if a.has_undo else "missing")
        for n, a in acts.items()
    )
    info = StateClassInfo(ref_of(cls), cls.__name__, False, actions, readers, undo=undo)
    why = ""
    fields: list[tuple[str, str]] = []
    adds: list[AdditiveAction] = []
    rexprs: list[tuple[str, str]] = []
    rirs: list[tuple[str, Expr]] = []
    init = _method_def(getattr(cls, "__init__", None))
    if init is None:
        why = "its __init__ is not plain Python source"
    else:
        fields, why = _init_fields(init)
    names = {f for f, _ in fields}
    for name, act in acts.items():
        if why:
            break
        fn = _method_def(act.fn)
        if fn is None:
            why = f"the source of action `{name}` is not available"
            break
        found, why = _additive_action(fn, names, act.fn.__globals__)
        if found is not None:
            adds.append(found)
        if found is not None and act.undo_fn is not None:
            why = _undo_negates(found, _method_def(act.undo_fn), names, act.undo_fn.__globals__)
    for name in readers:
        if why:
            break
        reader = cls.readers()[name]
        expr, ir, why = _reader_expr(_method_def(reader), names, reader.__globals__)
        if expr is not None and ir is not None:
            rexprs.append((name, expr))
            rirs.append((name, ir))
    if why:
        info = _replace(info, why=why)
    else:
        info = _replace(
            info,
            additive=True,
            fields=tuple(fields),
            additive_actions=tuple(adds),
            reader_exprs=tuple(rexprs),
            reader_irs=tuple(rirs),
        )
    _CACHE[cls] = info
    return info


def _method_def(fn: object) -> cst.FunctionDef | None:
    """The libcst tree of one method, wherever in the class hierarchy it is defined."""
    try:
        src = textwrap.dedent(inspect.getsource(fn))  # type: ignore[arg-type]
        mod = cst.parse_module(src)
    except (OSError, TypeError, cst.ParserSyntaxError):
        return None
    node = mod.body[0] if mod.body else None
    return node if isinstance(node, cst.FunctionDef) else None


def check_undo(cls: type) -> list[Diagnostic]:
    """Every action needs an explicit ``@x.undo`` or an additive (derivable) body."""
    out = []
    for name, act in cls.actions().items():
        if act.has_undo:
            continue
        try:
            lines, start = inspect.getsourcelines(act.fn)
            path = inspect.getsourcefile(act.fn) or "<unknown>"
            offset = next(i for i, ln in enumerate(lines) if ln.lstrip().startswith("def "))
            col = lines[offset].index("def ") + 1
            span = Span(path, start + offset, col, start + offset, col + 3)
        except (OSError, TypeError, StopIteration):
            span = Span("<unknown>", 0, 0)
        out.append(
            Diagnostic(
                span,
                f"action `{cls.__name__}.{name}` has no undo, so deletes cannot be applied",
                f"add `@{name}.undo` with its inverse, or make it additive "
                "(only `self.f += e` / `self.f -= e`)",
            )
        )
    return out


def _replace(info: StateClassInfo, **kw) -> StateClassInfo:
    import dataclasses

    return dataclasses.replace(info, **kw)


def _body(fn: cst.FunctionDef) -> list[cst.CSTNode]:
    out = []
    for s in fn.body.body:
        if isinstance(s, cst.SimpleStatementLine):
            for x in s.body:
                if isinstance(x, cst.Expr) and isinstance(x.value, cst.SimpleString):
                    continue  # docstring
                if isinstance(x, cst.Pass):
                    continue
                out.append(x)
        else:
            out.append(s)
    return out


def _self_name(fn: cst.FunctionDef) -> str:
    return fn.params.params[0].name.value if fn.params.params else "self"


def _init_fields(init: cst.FunctionDef) -> tuple[list[tuple[str, str]], str]:
    me = _self_name(init)
    fields = []
    for s in _body(init):
        if (
            isinstance(s, cst.Assign)
            and len(s.targets) == 1
            and isinstance(s.targets[0].target, cst.Attribute)
            and is_name(s.targets[0].target.value, me)
            and _is_number(s.value)
        ):
            fields.append((s.targets[0].target.attr.value, code_of(s.value)))
        else:
            return [], "its __init__ does more than assign numbers to fields"
    if len(init.params.params) > 1:
        return [], "its constructor takes arguments"
    return fields, ""


def _additive_action(
    fn: cst.FunctionDef, fields: set[str], globals_: dict[str, Any]
) -> tuple[AdditiveAction | None, str]:
    me = _self_name(fn)
    params = tuple(p.name.value for p in fn.params.params[1:])
    updates = []
    irs: list[tuple[str, str, Expr]] = []
    for s in _body(fn):
        if not (
            isinstance(s, cst.AugAssign)
            and isinstance(s.operator, (cst.AddAssign, cst.SubtractAssign))
            and isinstance(s.target, cst.Attribute)
            and is_name(s.target.value, me)
            and s.target.attr.value in fields
        ):
            return None, f"action `{fn.name.value}` does more than `self.f += e` / `self.f -= e`"
        if mentions(s.value, me):
            return None, f"action `{fn.name.value}` reads the state in its increment"
        sign = "+" if isinstance(s.operator, cst.AddAssign) else "-"
        ir, problem = state_expr(s.value, globals_, me, fields, params)
        if ir is None:
            return None, f"action `{fn.name.value}`: {problem}"
        updates.append((s.target.attr.value, sign, code_of(s.value)))
        irs.append((s.target.attr.value, sign, ir))
    if not updates:
        return None, f"action `{fn.name.value}` has an empty body"
    return AdditiveAction(fn.name.value, params, tuple(updates), tuple(irs)), ""


def _undo_negates(
    act: AdditiveAction, undo: cst.FunctionDef | None, fields: set[str], globals_: dict[str, Any]
) -> str:
    """Why an explicit undo of additive ``act`` is not its exact negation ("" when it is).

    The undo must update the same fields by the same expressions (compared as IR, so
    formatting and parentheses do not matter; its parameters may have other names) with
    the opposite signs: ``self.f += e`` undone by ``self.f -= e``, in any order.
    """
    why = f"action `{act.method}` has an explicit undo that is not its exact negation"
    if undo is None:
        return why
    found, _ = _additive_action(undo, fields, globals_)
    if found is None or len(found.params) != len(act.params):
        return why
    rename = dict(zip(found.params, act.params, strict=True))
    flip = {"+": "-", "-": "+"}
    want = [(f, flip[sign], ir) for f, sign, ir in act.update_exprs]
    for f, sign, ir in found.update_exprs:
        item = (f, sign, _renamed(ir, rename))
        if item not in want:
            return why
        want.remove(item)
    return "" if not want else why


def _renamed(e: Expr, names: dict[str, str]) -> Expr:
    """``e`` with its parameter variables renamed."""
    import dataclasses

    from .ir.nodes import Var
    from .ir.traverse import map_children

    if isinstance(e, Var):
        return dataclasses.replace(e, name=names[e.name]) if e.name in names else e
    return map_children(e, lambda c: _renamed(c, names))


def _reader_expr(
    fn: cst.FunctionDef | None, fields: set[str], globals_: dict[str, Any]
) -> tuple[str | None, Expr | None, str]:
    if fn is None:
        return None, None, "a reader is inherited"
    body = _body(fn)
    if len(fn.params.params) > 1:
        return None, None, f"reader `{fn.name.value}` takes arguments"
    if len(body) != 1 or not isinstance(body[0], cst.Return) or body[0].value is None:
        return None, None, f"reader `{fn.name.value}` is not a single `return <expression>`"
    me = _self_name(fn)
    expr = body[0].value
    for n in walk(expr):
        if isinstance(n, cst.Attribute):
            if not (is_name(n.value, me) and n.attr.value in fields):
                return None, None, f"reader `{fn.name.value}` uses `{code_of(n)}`"
        elif isinstance(n, cst.Call):
            if not (isinstance(n.func, cst.Name) and n.func.value in _SAFE_CALLS):
                return None, None, f"reader `{fn.name.value}` calls `{code_of(n.func)}`"
        elif isinstance(n, (cst.Lambda, cst.ListComp, cst.GeneratorExp, cst.Subscript)):
            return None, None, f"reader `{fn.name.value}` is not a plain expression"
    ir, problem = state_expr(expr, globals_, me, fields)
    if ir is None:
        return None, None, f"reader `{fn.name.value}`: {problem}"
    return code_of(expr), ir, ""


def _is_number(node: cst.CSTNode) -> bool:
    if isinstance(node, (cst.Integer, cst.Float)):
        return True
    return (
        isinstance(node, cst.UnaryOperation)
        and isinstance(node.operator, cst.Minus)
        and isinstance(node.expression, (cst.Integer, cst.Float))
    )
