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

import libcst as cst

from .errors import Diagnostic
from .ir.nodes import Span
from .operators import AdditiveAction, StateClassInfo

__all__ = ["classify_state_class", "check_undo"]

_SAFE_CALLS = {"float", "int", "abs", "min", "max", "round", "bool"}
_CACHE: dict[type, StateClassInfo] = {}


def classify_state_class(cls: type) -> StateClassInfo:
    if cls in _CACHE:
        return _CACHE[cls]
    from .frontend import ref_of

    actions = tuple(cls.actions())
    readers = tuple(cls.readers())
    info = StateClassInfo(ref_of(cls), cls.__name__, False, actions, readers)
    try:
        src = textwrap.dedent(inspect.getsource(cls))
        mod = cst.parse_module(src)
    except (OSError, TypeError, cst.ParserSyntaxError):
        info = _replace(info, why="its source is not available")
        _CACHE[cls] = info
        return info
    klass = next(s for s in mod.body if isinstance(s, cst.ClassDef))
    methods = {s.name.value: s for s in klass.body.body if isinstance(s, cst.FunctionDef)}
    why = ""
    fields: list[tuple[str, str]] = []
    init = methods.get("__init__")
    bases_ok = all(_only_machinery(b, cls) for b in cls.__mro__[1:])
    if not bases_ok:
        why = "it inherits from another state class"
    elif init is None:
        why = "it has no __init__ initializing its fields"
    else:
        fields, why = _init_fields(init)
    adds: list[AdditiveAction] = []
    if not why:
        for name in actions:
            fn = _last_def(klass, name)
            if cls.actions()[name].undo_fn is not None:
                why = f"action `{name}` has an explicit undo"
                break
            act, why = _additive_action(fn, {f for f, _ in fields})
            if act is None:
                break
            adds.append(act)
    rexprs: list[tuple[str, str]] = []
    if not why:
        for name in readers:
            expr, why = _reader_expr(methods.get(name), {f for f, _ in fields})
            if expr is None:
                break
            rexprs.append((name, expr))
    undo = tuple(
        (n, "explicit" if a.undo_fn is not None else "derived" if a.has_undo else "missing")
        for n, a in cls.actions().items()
    )
    if why:
        info = _replace(info, why=why, undo=undo)
    else:
        info = StateClassInfo(
            info.ref,
            info.name,
            True,
            actions,
            readers,
            tuple(fields),
            tuple(adds),
            tuple(rexprs),
            "",
            undo,
        )
    _CACHE[cls] = info
    return info


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


def _only_machinery(base: type, cls: type) -> bool:
    """A base class that defines no constructor, action or reader of ``cls``."""
    from looplift.state import State

    if base in (State, object):
        return True
    own = vars(base)
    return "__init__" not in own and not any(n in own for n in (*cls.actions(), *cls.readers()))


def _replace(info: StateClassInfo, **kw) -> StateClassInfo:
    import dataclasses

    return dataclasses.replace(info, **kw)


def _code(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)


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


def _last_def(klass: cst.ClassDef, name: str) -> cst.FunctionDef:
    """The action's own def (the first of possibly two defs named ``name``)."""
    for s in klass.body.body:
        if isinstance(s, cst.FunctionDef) and s.name.value == name:
            return s
    raise KeyError(name)


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
            and _is_name(s.targets[0].target.value, me)
            and _is_number(s.value)
        ):
            fields.append((s.targets[0].target.attr.value, _code(s.value)))
        else:
            return [], "its __init__ does more than assign numbers to fields"
    if len(init.params.params) > 1:
        return [], "its constructor takes arguments"
    return fields, ""


def _additive_action(fn: cst.FunctionDef, fields: set[str]) -> tuple[AdditiveAction | None, str]:
    me = _self_name(fn)
    params = tuple(p.name.value for p in fn.params.params[1:])
    updates = []
    for s in _body(fn):
        if not (
            isinstance(s, cst.AugAssign)
            and isinstance(s.operator, (cst.AddAssign, cst.SubtractAssign))
            and isinstance(s.target, cst.Attribute)
            and _is_name(s.target.value, me)
            and s.target.attr.value in fields
        ):
            return None, f"action `{fn.name.value}` does more than `self.f += e` / `self.f -= e`"
        if _mentions(s.value, me):
            return None, f"action `{fn.name.value}` reads the state in its increment"
        sign = "+" if isinstance(s.operator, cst.AddAssign) else "-"
        updates.append((s.target.attr.value, sign, _code(s.value)))
    if not updates:
        return None, f"action `{fn.name.value}` has an empty body"
    return AdditiveAction(fn.name.value, params, tuple(updates)), ""


def _reader_expr(fn: cst.FunctionDef | None, fields: set[str]) -> tuple[str | None, str]:
    if fn is None:
        return None, "a reader is inherited"
    body = _body(fn)
    if len(fn.params.params) > 1:
        return None, f"reader `{fn.name.value}` takes arguments"
    if len(body) != 1 or not isinstance(body[0], cst.Return) or body[0].value is None:
        return None, f"reader `{fn.name.value}` is not a single `return <expression>`"
    me = _self_name(fn)
    expr = body[0].value
    for n in _walk(expr):
        if isinstance(n, cst.Attribute):
            if not (_is_name(n.value, me) and n.attr.value in fields):
                return None, f"reader `{fn.name.value}` uses `{_code(n)}`"
        elif isinstance(n, cst.Call):
            if not (isinstance(n.func, cst.Name) and n.func.value in _SAFE_CALLS):
                return None, f"reader `{fn.name.value}` calls `{_code(n.func)}`"
        elif isinstance(n, (cst.Lambda, cst.ListComp, cst.GeneratorExp, cst.Subscript)):
            return None, f"reader `{fn.name.value}` is not a plain expression"
    return _code(expr), ""


def _is_name(node: cst.CSTNode, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name


def _is_number(node: cst.CSTNode) -> bool:
    if isinstance(node, (cst.Integer, cst.Float)):
        return True
    return (
        isinstance(node, cst.UnaryOperation)
        and isinstance(node.operator, cst.Minus)
        and isinstance(node.expression, (cst.Integer, cst.Float))
    )


def _walk(node: cst.CSTNode):
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(n.children)


def _mentions(node: cst.CSTNode, name: str) -> bool:
    return any(_is_name(n, name) for n in _walk(node))
