"""Type inference over let-normal IR, for Python-exact code generation.

Types are small values: ``"int"``, ``"float"``, ``"str"``, ``"bool"``,
``"datetime"``, ``"date"``, ``"none"``, ``"any"``; ``("tuple", (t1, ...))``
and ``("list", t)``. Nullability is tracked beside the type: a value may be
None when it comes from an ``Optional`` field, a reader that can return None,
or an ``if`` with a None branch.

>>> unify("int", "float")
'float'
"""

from __future__ import annotations

import inspect
import typing
from dataclasses import dataclass, field
from typing import Any

from ...fieldtypes import FIELD_TYPES
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
)
from ..primitives import PRIMITIVES, Operator, TypeRefused
from ..primitives.datetimes import arith_type
from ..primitives.operator import NOLIT
from ..primitives.typerules import numeric, unify
from .strtypes import STRING_OPS, element_type, string_prim_type

__all__ = ["Typing", "infer_types", "unify", "spark_type", "py_type"]

Type = Any


def spark_type(t: Type) -> str:
    """Spark DDL type of a looplift type (``any`` values travel as double)."""
    if isinstance(t, tuple):
        if t[0] == "list":
            return f"array<{spark_type(t[1])}>"
        if t[0] == "match":
            return "array<string>"  # a match object: its groups
        if t[0] == "dict":
            return f"map<{spark_type(t[1])}, {spark_type(t[2])}>"
        inner = ", ".join(f"_{i + 1}: {spark_type(x)}" for i, x in enumerate(t[1]))
        return f"struct<{inner}>"
    if t == "timedelta":
        return "interval day to second"
    # the runtime's field-type model; values of no known type travel as double
    return FIELD_TYPES[t].spark if t in FIELD_TYPES else "double"


def py_type(annotation: Any) -> tuple[Type, bool]:
    """(type, nullable) from a Python annotation (reader or host function returns)."""
    if annotation is inspect.Signature.empty or annotation is None:
        return ("any", True) if annotation is inspect.Signature.empty else ("none", True)
    if isinstance(annotation, str):
        text = annotation.replace(" ", "")
        nullable = "None" in text or "Optional" in text
        if text.startswith(("list[", "tuple[")):
            return ("any", True)
        for name in ("bool", "int", "float", "str"):
            if text.split("|")[0].removeprefix("Optional[").rstrip("]") == name:
                return name, nullable
        return "any", True
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        rest = [a for a in args if a is not type(None)]
        t, _ = py_type(rest[0]) if len(rest) == 1 else ("any", True)
        return t, True
    if origin is list:
        return ("list", py_type(args[0])[0] if args else "any"), False
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:  # tuple[int, ...]: no fixed width
            return "any", True
        return ("tuple", tuple(py_type(x)[0] for x in args)), False
    if origin is dict:
        kv = [py_type(x)[0] for x in args] if len(args) == 2 else ["any", "any"]
        return ("dict", kv[0], kv[1]), False
    import datetime

    table = {
        bool: "bool",
        int: "int",
        float: "float",
        str: "str",
        datetime.datetime: "datetime",
        datetime.date: "date",
    }
    return table.get(annotation, "any"), False


@dataclass
class Typing:
    types: dict[str, Type] = field(default_factory=dict)
    nullable: set[str] = field(default_factory=set)

    def of(self, e: Expr) -> Type:
        if isinstance(e, Var):
            return self.types.get(e.name, "any")
        if isinstance(e, Lit):
            return _lit_type(e.value)
        return "any"

    def may_be_null(self, e: Expr) -> bool:
        if isinstance(e, Var):
            return e.name in self.nullable
        return isinstance(e, Lit) and e.value is None


def _lit_type(v: Any) -> Type:
    import datetime

    if v is None:
        return "none"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "float"
    if isinstance(v, str):
        return "str"
    if isinstance(v, datetime.datetime):
        return "datetime"
    if isinstance(v, datetime.date):
        return "date"
    return "any"


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


def _value_type(
    v: Expr, ty: Typing, a: Analysis, refs: dict[str, Any], state_arg: dict[str, Type]
) -> tuple[Type, bool]:
    if isinstance(v, Var):
        return ty.types.get(v.name, "any"), v.name in ty.nullable
    if isinstance(v, Lit):
        return _lit_type(v.value), v.value is None
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
    if isinstance(f, Builtin) and f.name == "fold":
        from .container_loops import fold_type

        return fold_type(v, ty, lambda x: _value_type(x, ty, a, refs, state_arg))
    if isinstance(f, Builtin) and f.name == "sort_by":
        from .container_loops import sort_by_type

        return sort_by_type(v, ty, lambda x: _value_type(x, ty, a, refs, state_arg))
    if isinstance(f, Builtin) and f.name == "each":
        from .container_loops import each_type

        return each_type(v, ty, lambda x: _value_type(x, ty, a, refs, state_arg))
    if isinstance(f, Host):
        return host_return_type(refs.get(f.ref), [ty.of(x) for x in args])
    return "any", True


# return types of common unannotated library functions
_KNOWN_HOSTS: dict[str, Any] = {
    "posixpath:splitext": ("tuple", ("str", "str")),
    "posixpath:split": ("tuple", ("str", "str")),
    "ntpath:splitext": ("tuple", ("str", "str")),
    "ntpath:split": ("tuple", ("str", "str")),
    "posixpath:basename": "str",
    "posixpath:dirname": "str",
    "posixpath:join": "str",
    "posixpath:normpath": "str",
    "builtins:ord": "int",
    "builtins:chr": "str",
    "builtins:hash": "int",
}


def host_return_type(fn: Any, arg_types: list[Type]) -> tuple[Type, bool]:
    """A host function's result type: its annotation, a known library signature, what its
    source returns, or str (checked per value at run time) when none of these says it."""
    found = _host_type(fn, arg_types)
    return found if found is not None else ("str", True)


def _host_type(fn: Any, arg_types: list[Type]) -> tuple[Type, bool] | None:
    from .host_annotations import return_annotation

    said, bare = return_annotation(fn)
    if said is not None and said[0] != "any":
        return said
    ref = f"{getattr(fn, '__module__', '')}:{getattr(fn, '__qualname__', '')}"
    if ref == "builtins:divmod":
        num = numeric(arg_types)
        return ("tuple", (num, num)), False
    if ref in _KNOWN_HOSTS:
        return _KNOWN_HOSTS[ref], False
    if said is not None:
        return "str", True  # an annotation looplift has no column type for: checked per value
    # no annotation, or a bare tuple / list / dict: what the source returns, else what a
    # DataFrame call saw it return on its first rows (else the build asks for one)
    from .host_types import infer_host_return, probed_host_type

    got = infer_host_return(fn, arg_types, displays=bare in ("list", "dict"))
    return got or probed_host_type(ref, arg_types)


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
            if fn is not None and _host_type(fn, [ty.of(x) for x in v.args]) is None:
                found.append(v)
    return found


def _unresolved_hosts(a: Analysis, refs: dict[str, Any], ty: Typing) -> None:
    """Raise for every call of a host function whose result type nothing says."""
    from .errors import BackendError
    from .host_diagnostics import unresolved_diagnostic

    found = [
        unresolved_diagnostic(refs[v.fn.ref], v.fn.span, [ty.of(x) for x in v.args])
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
            from .errors import BackendError

            raise BackendError(str(e)) from None
    if op in ("int_ok", "float_ok"):
        return "bool", False
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
        lits = [x.value if isinstance(x, Lit) else NOLIT for x in args]
        t = prim.result_type(ts, lits)
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
    if op in PRIMITIVES:
        return PRIMITIVES[op].result_type(ts), null
    return "any", True


def _const_type(v: Any) -> Type:
    if isinstance(v, tuple):
        return ("tuple", tuple(_const_type(x) for x in v))
    return _lit_type(v)


# readers whose type follows the argument type of the state's actions
_ARG_TYPED = {
    ("Max", "value"): "arg",
    ("Min", "value"): "arg",
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
    if f.method == "value" and getattr(cls, "__module__", "") == "looplift.states.containers":
        from .containers import container_reader_type

        acts = a.actions_of(f.state)
        width = max((len(s.args) for s in acts), default=0)
        got = container_reader_type(
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
    if t == "any" and cls is not None:
        from .reader_types import infer_state_reader

        action_args: dict[str, list[Type]] = {}
        for s in a.actions_of(f.state):
            ts = [ty.of(x) for x in s.args]
            prev = action_args.get(s.method)
            if prev is not None:
                ts = [unify(p, q) for p, q in zip(prev, ts, strict=False)]
            action_args[s.method] = ts
        read = infer_state_reader(cls, f.method, action_args, [ty.of(x) for x in decl.args])
        if read is not None:
            return read
        from .host_types import probed_host_type

        seen = probed_host_type(f"{decl.cls}.{f.method}", [])
        if seen is not None:
            return seen
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
