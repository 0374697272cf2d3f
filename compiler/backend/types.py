"""Type inference over let-normal IR, for Python-exact code generation.

The types and :class:`Typing` are :mod:`.typevocab`'s. The typer reads the rules of
the modules that know a domain without importing them: the table of primitives, the
type rules of the special forms and of container readers (registered in :mod:`.rules`)
and the typing of host code (hooks registered here, :func:`host_hook`).

>>> unify("int", "float")
'float'
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from typing import Any, TypeVar

from ..analysis import Analysis, LoopKind, SiteKind
from ..ir.nodes import (
    CARRY,
    Apply,
    Builtin,
    Expr,
    Host,
    Lambda,
    Let,
    Lit,
    ParamKind,
    Prim,
    StateCall,
    Var,
)  # fmt: skip
from ..primitives import NOT_LIT, PRIMITIVES, Operator, TypeRefused
from ..primitives.datetimes import arith_type
from ..primitives.typerules import unify
from .errors import BackendError
from .rules import form_type_for, reader_type_for
from .strtypes import STRING_OPS, element_type, string_prim_type
from .typevocab import Type, Typing, lit_type, py_type, spark_type

__all__ = ["Type", "Typing", "host_hook", "infer_types", "py_type", "spark_type", "unify"]

# -- what the typer asks of the code of host functions and user states ------------------
#
# A host function's result type (or an unannotated user-state reader's) is read from its
# Python source, else learnt by running the typed IR on data (host_probe.learn_host_types,
# which runs this typer): the modules that do it stand above the typer and register here,
# and the typer calls them without importing them.

#: the hooks, and the module that registers each
HOST_HOOKS: dict[str, str] = {
    # (fn, argument types) -> (type, nullable), or None when nothing says it
    "host_result": "host_types",
    # (state class, its reference, reader, action name -> argument types, constructor
    # argument types) -> (type, nullable), or None when nothing says it
    "state_reader": "reader_types",
    # (fn, call span, argument types) -> the Diagnostic of a host result nothing says
    "unresolved_host": "host_diagnostics",
}
_HOOKS: dict[str, Callable[..., Any]] = {}

_F = TypeVar("_F", bound=Callable[..., Any])


def host_hook(name: str) -> Callable[[_F], _F]:
    """Register the decorated function as the typer's hook ``name`` (one of
    :data:`HOST_HOOKS`). A hook registered twice is a bug."""

    def register(f: _F) -> _F:
        if name not in HOST_HOOKS:
            raise ValueError(f"the typer has no hook {name!r}")
        if name in _HOOKS:
            raise ValueError(f"two typer hooks {name!r}")
        _HOOKS[name] = f
        return f

    return register


def _hook(name: str) -> Callable[..., Any]:
    found = _HOOKS.get(name)
    if found is None:
        raise LookupError(f"the typer's hook {name!r} is not registered: is "
                          f"backend/{HOST_HOOKS[name]}.py imported (backend/__init__.py)?")  # fmt: skip
    return found


def infer_types(a: Analysis, refs: dict[str, Any], *, strict: bool = True) -> Typing:
    """Infer the type of every binder (forward, in program order); ``strict``: raise for a
    host function whose result type nothing says (else it is typed ``str``)."""
    ty = Typing()
    for p in a.fn.params:
        if p.kind == ParamKind.SCALAR:
            t = p.types[0]
            if t.startswith("Optional["):  # an Optional scalar parameter may be None
                t = t[len("Optional[") : -1]
                ty.nullable.add(p.name)
            ty.types[p.name] = t
    fields: dict[str, tuple[str, ...]] = {p.name: p.types for p in a.fn.params if p.kind == ParamKind.ROWS}

    def field_type(src: str, i: int) -> tuple[Type, bool]:
        if i >= len(fields[src]):  # a computed key part, or the rank of a ranked stream's row
            return (a.virtual[i][1] if i in a.virtual else "int"), False
        t = fields[src][i]
        if t.startswith("Optional["):
            return t[len("Optional[") : -1], True
        return t, False

    state_arg: dict[str, Type] = {}
    # values nested in `if` branches are bound after the `if` that uses them: iterate to a
    # fixed point (ends: types only move up the finite lattice none < int < float < any)
    for _ in range(6):
        before = (dict(ty.types), set(ty.nullable))
        _infer_pass(a, refs, ty, field_type, state_arg)
        if (ty.types, ty.nullable) == before:
            break
    if strict:
        _unresolved_hosts(a, refs, ty)
    return ty


def _infer_pass(a: Analysis, refs: dict[str, Any], ty: Typing, field_type: Any,
                state_arg: dict[str, Type]) -> None:  # fmt: skip
    for name, b in a.bound.items():
        if b.value is None:
            # a loop parameter: a field, a group key, or a group
            loop = next((lp for lp in a.loops.values() if name in lp.params), None)
            if loop is None:
                continue
            if loop.kind == LoopKind.ROWS:
                i = loop.params.index(name)
                t, null = field_type(loop.source, loop.fields[i])
            elif name == loop.params[0]:
                parts = [field_type(loop.source, f) for f in loop.key]
                t = parts[0][0] if len(parts) == 1 else ("tuple", tuple(p[0] for p in parts))
                null = any(p[1] for p in parts) and len(parts) == 1
            else:
                continue
            ty.types[name] = t
            if null:
                ty.nullable.add(name)
            continue
        t, null = _value_type(b.value, ty, a, refs, state_arg)
        ty.types[name] = t
        if null:
            ty.nullable.add(name)
        if solid_list(b.value, ty, a, refs):
            ty.solid.add(name)


def _value_type(
    v: Expr, ty: Typing, a: Analysis, refs: dict[str, Any], state_arg: dict[str, Type]
) -> tuple[Type, bool]:
    if isinstance(v, Var):
        return ty.types.get(v.name, "any"), v.name in ty.nullable
    if isinstance(v, Lit):
        return lit_type(v.value), v.value is None
    if isinstance(v, Let):
        while isinstance(v, Let):
            v = v.body
        return _value_type(v, ty, a, refs, state_arg)
    if not isinstance(v, Apply):
        return "any", True
    f = v.fn
    args = v.args
    if isinstance(f, Prim):
        return _prim_type(f.op, args, ty)
    if isinstance(f, Builtin) and f.name == "if":
        ts = []
        nulls = False
        for lam in args[1:]:
            assert isinstance(lam, Lambda)
            tail = lam.body
            while isinstance(tail, Let):
                tail = tail.body
            if isinstance(tail, Var) and tail.name not in ty.types and tail.name in a.bound:
                continue  # bound after this `if` (in its branch): the next pass types it
            t, n = _value_type(lam.body, ty, a, refs, state_arg)
            ts.append(t)
            nulls = nulls or (t != "never" and (n or t == "none"))
        return (unify(ts[0], ts[1]) if len(ts) == 2 else ts[0] if ts else "none"), nulls
    if isinstance(f, StateCall):
        return _reader_type(f, a, refs, ty)
    if isinstance(f, Builtin):
        rule = form_type_for(f.name)  # fold, sort_by, each (container_loops)
        if rule is not None:
            return rule(v, ty, lambda x: _value_type(x, ty, a, refs, state_arg))
    if isinstance(f, Host):
        return host_return_type(refs.get(f.ref), [ty.of(x) for x in args])
    return "any", True


#: list primitives whose elements are never None
_SOLID_MAKERS = frozenset({"str.split", "str.rsplit", "str.splitlines", "re.findall", "c_range",
                           "c_enumerate", "c_zip", "c_combinations", "c_permutations",
                           "c_product", "c_count", "c_most_common", "c_empty", "win.hop"})  # fmt: skip
#: list primitives whose elements are some of their first argument's
_SOLID_KEEPERS = frozenset({"c_sorted", "c_reversed", "c_slice", "c_distinct", "c_unpack"})


def solid_list(v: Expr, ty: Typing, a: Analysis | None = None, refs: Any = None) -> bool:
    """Whether the list ``v`` evaluates to has no None element (known from how it is made:
    words, a range, a container filled with values that are never None, ...)."""
    while isinstance(v, Let):
        v = v.body
    if isinstance(v, Var):
        return v.name in ty.solid
    if not isinstance(v, Apply):
        return False
    f = v.fn
    if isinstance(f, Prim):
        if f.op in _SOLID_MAKERS:
            return True
        if f.op in _SOLID_KEEPERS:
            return solid_list(v.args[0], ty, a, refs)
        if f.op in ("c_concat", "c_union"):
            return all(solid_list(x, ty, a, refs) for x in v.args)
        if f.op == "c_list":
            return not any(ty.may_be_null(x) for x in v.args)
        return False
    if isinstance(f, StateCall) and a is not None and refs is not None and f.method == "value":
        from .containers import CONTAINER_CLASSES

        decl = a.states.get(f.state)
        cls = refs.get(decl.cls) if decl is not None else None
        how = CONTAINER_CLASSES.get(getattr(cls, "__name__", ""))
        if how == "items":
            return True  # (key, value) pairs
        if how == "elements":
            return all(s.args and not ty.may_be_null(s.args[0]) for s in a.actions_of(f.state))
    return False


def host_return_type(fn: Any, arg_types: list[Type]) -> tuple[Type, bool]:
    """A host function's result type: its annotation, a known library signature, what its
    source returns, or str (checked per value at run time) when none of these says it."""
    found = _hook("host_result")(fn, arg_types)
    return found if found is not None else ("str", True)


def unresolved_host_calls(a: Analysis, refs: dict[str, Any], ty: Typing) -> list[Apply]:
    """The calls of host functions whose result type nothing says (no annotation, no known
    signature, source that does not say it, no type observed on data)."""
    found = []
    for b in a.bound.values():
        v = b.value
        while isinstance(v, Let):
            v = v.body
        if isinstance(v, Apply) and isinstance(v.fn, Host):
            fn = refs.get(v.fn.ref)
            if fn is not None and _hook("host_result")(fn, [ty.of(x) for x in v.args]) is None:
                found.append(v)
    return found


def _unresolved_hosts(a: Analysis, refs: dict[str, Any], ty: Typing) -> None:
    """Raise for every call of a host function whose result type nothing says."""
    unresolved = _hook("unresolved_host")
    found = [
        unresolved(refs[v.fn.ref], v.fn.span, [ty.of(x) for x in v.args])
        for v in unresolved_host_calls(a, refs, ty)
        if isinstance(v.fn, Host)
    ]
    if found:
        raise BackendError(found)


def _prim_type(op: str, args: tuple[Expr, ...], ty: Typing) -> tuple[Type, bool]:
    ts = [ty.of(x) for x in args]
    nulls = [ty.may_be_null(x) for x in args]
    null = any(nulls)
    entry = PRIMITIVES.get(op)
    if entry is not None and entry.type_rule is not None:  # the table's type rule
        try:
            return entry.result_type(ts), entry.result_nullable(ts, nulls)
        except TypeRefused as e:
            raise BackendError(str(e)) from None
    if op in ("int_ok", "float_ok"):
        return "bool", False
    if op == "win.session":  # a session's start: a time of the key's rows
        return (ts[0] if ts[0] in ("datetime", "int") else "any"), False
    if op == "raise_code":  # a try's test (trysql.py)
        return "int", False
    if op in STRING_OPS:
        lits = [x.value if isinstance(x, Lit) else None for x in args]
        got = string_prim_type(op, ts, [ty.may_be_null(x) for x in args], lits)
        if got is not None:  # else: not a str, list or match operand (a tuple's item)
            return got  # type: ignore[return-value]
    if op == "nth" and element_type(ts[0]) is not None:
        return element_type(ts[0])  # type: ignore[return-value]
    dt = arith_type(op, ts)
    if dt is not None:
        return dt, null
    if op == "sub" and ts and ts[0] in ("datetime", "date"):
        return "any", null
    prim = PRIMITIVES.get(op)
    if isinstance(prim, Operator):  # operators and numeric builtins: the table's rule
        lits = [x.value if isinstance(x, Lit) else NOT_LIT for x in args]
        try:
            t = prim.result_type(ts, lits)
        except TypeRefused as e:  # `s & t` of strs: CPython's TypeError, said at compile time
            raise BackendError(str(e)) from None
        return t, null and prim.nulls == "raise" and t != "bool"
    if op == "len":
        return "int", null
    if op == "tuple":
        return ("tuple", tuple(ts)), False
    if op == "raise":
        return "never", False
    if op in ("table_item", "table_get") and isinstance(args[2], Lit):
        values = [v for _, v in args[2].value]
        t: Type = "none"
        for v in values:
            t = unify(t, _const_type(v))
        none = any(v is None for v in values)
        if op == "table_get":
            t, none = unify(t, ts[3]), none or ty.may_be_null(args[3])
        return t, none
    if op == "nth":
        t = ts[0]
        i = args[1].value if isinstance(args[1], Lit) else 0
        if isinstance(t, tuple) and t[0] == "tuple" and -len(t[1]) <= i < len(t[1]):
            return t[1][i], True
        return "any", True
    if op in PRIMITIVES:  # literal arguments may decide it (``combinations(xs, 2)``)
        try:
            return PRIMITIVES[op].result_type(ts, [x.value if isinstance(x, Lit) else None for x in args]), null
        except TypeRefused as e:
            raise BackendError(str(e)) from None
    return "any", True


def _const_type(v: Any) -> Type:
    if isinstance(v, tuple):
        return ("tuple", tuple(_const_type(x) for x in v))
    return lit_type(v)


# readers whose type follows the argument type of the state's actions
_ARG_TYPED = {
    ("Max", "value"): "arg",
    ("Min", "value"): "arg",
    ("Product", "value"): "arg",
    ("BitOr", "value"): "arg",
    ("BitAnd", "value"): "arg",
    ("BitXor", "value"): "arg",
    ("Sum", "value"): "arg",
    ("TopK", "values"): "list",
    ("Distinct", "values"): "list",
    ("Median", "value"): "float",
}


def _reader_type(f: StateCall, a: Analysis, refs: dict[str, Any], ty: Typing) -> tuple[Type, bool]:
    decl = a.states.get(f.state)
    if decl is None:
        return "any", True
    if decl.cls == CARRY:
        init = decl.args[0] if decl.args else None
        t = ty.of(init) if init is not None else "any"
        for s in a.actions_of(f.state):
            if s.args:
                # a value not typed yet is bound after this read (`acc = acc * 2` reads acc
                # first): it adds nothing now, and the next pass of the fixed point sees it
                x = s.args[0]
                untyped = isinstance(x, Var) and x.name not in ty.types
                t = unify(t, "none" if untyped else ty.of(x))
        return t, ty.may_be_null(init) if init is not None else True
    cls = refs.get(decl.cls)
    key = (getattr(cls, "__name__", ""), f.method)
    library = reader_type_for(getattr(cls, "__module__", ""), f.method)  # containers' value()
    if library is not None:
        acts = a.actions_of(f.state)
        width = max((len(s.args) for s in acts), default=0)
        got = library(
            key[0], [[ty.of(s.args[i]) for s in acts if len(s.args) > i] for i in range(width)]
        )
        if got is not None:
            return got
    arg_t: Type = "none"
    for s in a.actions_of(f.state):
        if s.args:
            arg_t = unify(arg_t, ty.of(s.args[0]))
    if arg_t == "none":
        arg_t = "int"
    if key == ("ArgBest", "get"):  # the value offered with the best key, or the start
        t = ty.of(decl.args[0]) if decl.args else "none"
        for s in a.actions_of(f.state):
            t = unify(t, ty.of(s.args[2])) if len(s.args) == 3 else t
        return t, True
    if key in _ARG_TYPED:
        how = _ARG_TYPED[key]
        if how == "arg":
            return arg_t, key[0] != "Sum"
        if how == "list":
            return ("list", arg_t), False
        return how, True
    reader = getattr(cls, f.method, None)
    try:
        hints = typing.get_type_hints(reader)
        ann = hints.get("return", inspect.Signature.empty)
    except Exception:  # noqa: BLE001 - unresolvable annotations: fall back to the raw one
        try:
            ann = inspect.signature(reader).return_annotation
        except (TypeError, ValueError):
            ann = inspect.Signature.empty
    t, null = py_type(ann)
    if t == "any" and key[0] in ("Count",):
        return "int", False
    if t == "any" and cls is not None:  # the source of a user state's reader, else data
        action_args: dict[str, list[Type]] = {}
        for s in a.actions_of(f.state):
            ts = [ty.of(x) for x in s.args]
            prev = action_args.get(s.method)
            if prev is not None:
                ts = [unify(p, q) for p, q in zip(prev, ts, strict=False)]
            action_args[s.method] = ts
        inits = [ty.of(x) for x in decl.args]
        read = _hook("state_reader")(cls, decl.cls, f.method, action_args, inits)
        if read is not None:
            return read
    return t, null


def unresolved_readers(a: Analysis, refs: dict[str, Any], ty: Typing) -> list[tuple[str, str]]:
    """(state class ref, reader) of the user-state readers whose result type nothing says
    (no annotation, a source that does not say it, no type observed on data)."""
    found = []
    for s in a.sites:
        decl = a.states.get(s.state) if s.kind == SiteKind.READ else None
        if decl is None or decl.cls == CARRY:
            continue
        cls = refs.get(decl.cls)
        if cls is None or getattr(cls, "__module__", "").startswith("looplift."):
            continue
        if _reader_type(StateCall(s.state, s.method), a, refs, ty)[0] == "any":
            found.append((decl.cls, s.method))
    return sorted(set(found))
