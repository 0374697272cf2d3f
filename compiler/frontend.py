"""Frontend: a ``@dataflow`` function's libcst tree → lambda IR.

Transforms this::

    def avg_path(clicks: RowStream[int, int]) -> float:
        seq = IntervalSequence()
        for category, ts in clicks:
            if category == 0:
                seq.open(ts)
            ...
        return seq.average_closed_size()

into::

    let seq = new looplift.states...:IntervalSequence() in
    let _ = smap[ordered=False](\\category ts -> if(eq(category, 0), \\() -> (let _ = seq#open(ts) in None), ...), clicks) in
    seq#average_closed_size()

Names resolve against the module's globals (the decorated function's
``__globals__``): other ``@dataflow`` functions, state classes, ``math``,
constants, and importable *host* functions. Every construct SPEC §2 rejects is
diagnosed with its span; translation goes on after an error so that all
problems of a file are reported at once.

Loop-carried locals (a name bound before a loop and updated inside it) become
states of the pseudo class ``carry`` whose actions record the update (``add``,
``sub``, ``max``, ``min``, ``set``) and whose reader ``get`` yields the value;
the ``recognize_reductions`` pass turns them into library states.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import math
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from .errors import Diagnostic, FrontendError
from .ir.nodes import (
    CARRY,
    UNIT,
    UNKNOWN,
    Apply,
    Builtin,
    CallDataflow,
    Expr,
    Function,
    Host,
    Lambda,
    Let,
    Lit,
    Param,
    Prim,
    Span,
    StateCall,
    StateNew,
    Var,
)
from .ir.prims import AUGOPS, BINOPS, BUILTIN_FUNCS, COMPAREOPS, MATH_FUNCS, UNARYOPS
from .names import carry_var

__all__ = ["ParsedModule", "parse_module", "translate", "ref_of", "SCALAR_TYPES"]

SCALAR_TYPES = {"int", "float", "str", "bool", "datetime", "date"}
MUTATORS = {
    "append", "extend", "insert", "pop", "remove", "clear", "update", "add", "discard",
    "setdefault", "popitem", "sort", "reverse", "__setitem__",
}  # fmt: skip


def ref_of(obj: Any) -> str:
    """``module:qualname`` of a function, class or ``Dataflow``."""
    fn = getattr(obj, "fn", obj)
    return f"{fn.__module__}:{fn.__qualname__}"


# -- parsing ----------------------------------------------------------------------


@dataclass
class ParsedModule:
    path: str
    wrapper: MetadataWrapper
    positions: Any
    functions: dict[str, cst.FunctionDef]
    classes: dict[str, cst.ClassDef]

    def span(self, node: cst.CSTNode) -> Span:
        r = self.positions[node]
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            r = self.positions[node]  # starts at the keyword, decorators excluded
        return Span(self.path, r.start.line, r.start.column + 1, r.end.line, r.end.column + 1)


_PARSED: dict[tuple[str, int, int], ParsedModule] = {}


def parse_module(path: str) -> ParsedModule:
    """Parse (and cache) a module file with libcst, keeping positions."""
    import os

    st = os.stat(path)
    key = (path, st.st_mtime_ns, st.st_size)
    if key in _PARSED:
        return _PARSED[key]
    with open(path, encoding="utf-8") as f:
        src = f.read()
    try:
        module = cst.parse_module(src)
    except cst.ParserSyntaxError as e:
        raise FrontendError(
            Diagnostic(Span(path, e.raw_line, e.raw_column + 1), f"syntax error: {e.message}")
        ) from None
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    functions, classes = {}, {}
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef):
            functions[stmt.name.value] = stmt
        elif isinstance(stmt, cst.ClassDef):
            classes[stmt.name.value] = stmt
    parsed = ParsedModule(path, wrapper, positions, functions, classes)
    _PARSED[key] = parsed
    return parsed


# -- environment --------------------------------------------------------------------


@dataclass(frozen=True)
class Binding:
    """What a local name denotes during translation."""

    kind: str  # value | rows | state | carry | container
    var: str  # IR variable holding it (for carry: the carry state variable)
    span: Span = UNKNOWN
    arity: int = 0  # rows: number of fields
    types: tuple[str, ...] = ()  # rows: field types
    ordered: bool = False  # rows: iterated in order
    cls: Any = None  # state: the State class
    depth: int = 0  # loop depth where bound


@dataclass
class Env:
    names: dict[str, Binding] = field(default_factory=dict)
    # names bound inside an already-closed loop: reading them later is an error
    loop_locals: dict[str, tuple[Binding, Span]] = field(default_factory=dict)
    depth: int = 0
    ordered: bool = False  # inside an ordered loop

    def copy(self) -> Env:
        return Env(dict(self.names), dict(self.loop_locals), self.depth, self.ordered)


class _Stop(Exception):
    """Abandon translating the current statement after a diagnostic."""


# -- the translator --------------------------------------------------------------------


def translate(
    dataflow_obj: Any, parsed: ParsedModule, *, partial: bool = False
) -> tuple[Function, dict[str, Any], list[Diagnostic]]:
    """Translate one ``Dataflow`` into IR.

    Returns the IR function, the table of referenced objects (``ref`` →
    Python object: callee Dataflows, state classes, host functions) and the
    diagnostics. Raises :class:`FrontendError` with every diagnostic found,
    unless ``partial``: then the IR (without the statements in error) is
    returned with the diagnostics, so later passes can find more problems.
    """
    t = _Translator(dataflow_obj, parsed)
    fn = t.run()
    diags = _dedupe(t.diags)
    if diags and not partial:
        raise FrontendError(diags)
    return fn, t.refs, diags


def _dedupe(diags: list[Diagnostic]) -> list[Diagnostic]:
    seen, out = set(), []
    for d in diags:
        k = (d.span.line, d.span.col, d.message)
        if k not in seen:
            seen.add(k)
            out.append(d)
    return out


class _Translator:
    def __init__(self, obj: Any, parsed: ParsedModule):
        self.obj = obj
        self.parsed = parsed
        self.globals: dict[str, Any] = obj.fn.__globals__
        self.diags: list[Diagnostic] = []
        self.refs: dict[str, Any] = {}
        self.counter = 0
        self.has_yield = False
        self.node = parsed.functions.get(obj.name)

    # -- helpers ------------------------------------------------------------
    def span(self, node: cst.CSTNode) -> Span:
        try:
            return self.parsed.span(node)
        except KeyError:
            return UNKNOWN

    def error(self, node: cst.CSTNode | Span, message: str, hint: str = "") -> _Stop:
        sp = node if isinstance(node, Span) else self.span(node)
        self.diags.append(Diagnostic(sp, message, hint))
        return _Stop()

    def fresh(self, base: str) -> str:
        self.counter += 1
        return f"_{base}.{self.counter}"

    # -- function ---------------------------------------------------------
    def run(self) -> Function:
        node = self.node
        ref = ref_of(self.obj)
        if node is None:
            self.diags.append(
                Diagnostic(
                    Span(self.parsed.path, 1, 1),
                    f"@dataflow function `{self.obj.name}` is not defined at module level "
                    "of its file",
                    "define algorithms as top-level functions",
                )
            )
            return Function(ref, self.obj.name, (), UNIT, "value")
        fspan = self.span(node)
        self.has_yield = _contains(node.body, (cst.Yield,))
        env = Env()
        params = []
        for p in [*node.params.posonly_params, *node.params.params]:
            par = self.param(p)
            if par is None:
                continue
            params.append(par)
            if par.kind == "rows":
                env.names[par.name] = Binding(
                    "rows", par.name, par.span, len(par.types), par.types, False
                )
            else:
                env.names[par.name] = Binding("value", par.name, par.span)
        for extra in (node.params.star_arg, node.params.star_kwarg):
            if isinstance(extra, cst.Param):
                self.error(
                    extra,
                    "*args and **kwargs are not supported in @dataflow functions",
                    "declare each parameter with a type",
                )
        if node.asynchronous:
            self.error(node, "async functions are not supported", "remove `async`")
        stream_params = [p for p in params if p.kind == "rows"]
        if self.has_yield and not stream_params:
            self.error(
                node.name,
                f"table algorithm `{self.obj.name}` yields rows but has no RowStream parameter",
                "take the input relation as a `RowStream[...]` parameter",
            )
        tail = UNIT
        body = self.block(list(node.body.body), env, tail_fn=lambda env: tail, top=True)
        returns = "rows" if self.has_yield else "value"
        ret_type = None
        if node.returns is not None:
            ret_type = _code(node.returns.annotation)
        return Function(
            ref,
            self.obj.name,
            tuple(params),
            body,
            returns,
            self.obj.columns,
            ret_type,
            span=fspan,
        )

    def param(self, p: cst.Param) -> Param | None:
        name = p.name.value
        sp = self.span(p.name)
        if p.annotation is None:
            self.error(
                p.name,
                f"parameter `{name}` needs a type annotation",
                "annotate it, e.g. `rows: RowStream[int, float]` or `threshold: int`",
            )
            return None
        if p.default is not None:
            self.error(
                p.default,
                f"parameter `{name}`: default values are not supported",
                "pass every argument at the call (SQL literals for scalar parameters)",
            )
        ann = p.annotation.annotation
        if isinstance(ann, cst.Subscript) and _code(ann.value) in (
            "RowStream",
            "looplift.RowStream",
        ):
            tys = []
            for el in ann.slice:
                t = self.field_type(el.slice.value if isinstance(el.slice, cst.Index) else None)
                if t is None:
                    self.error(
                        el,
                        f"unsupported RowStream field type `{_code(el)}`",
                        "fields are int, float, str, bool, datetime.datetime, datetime.date, "
                        "or Optional[...] of those",
                    )
                    t = "int"
                tys.append(t)
            return Param(name, "rows", tuple(tys), span=sp)
        t = _norm_type(_code(ann))
        if t not in ("int", "float", "str", "bool"):
            self.error(
                ann,
                f"unsupported parameter type `{_code(ann)}` for `{name}`",
                "scalar parameters are int, float, str or bool; relations are RowStream[...]",
            )
            t = "int"
        return Param(name, "scalar", (t,), span=sp)

    def field_type(self, node: cst.BaseExpression | None) -> str | None:
        if node is None:
            return None
        text = _code(node).replace(" ", "")
        opt = False
        for pre in ("Optional[", "typing.Optional["):
            if text.startswith(pre) and text.endswith("]"):
                text, opt = text[len(pre) : -1], True
        if text.endswith("|None"):
            text, opt = text[: -len("|None")], True
        if text.startswith("None|"):
            text, opt = text[len("None|") :], True
        t = _norm_type(text)
        if t not in SCALAR_TYPES:
            return None
        return f"Optional[{t}]" if opt else t

    # -- blocks ------------------------------------------------------------------
    def block(
        self,
        stmts: list[cst.BaseStatement],
        env: Env,
        tail_fn: Callable[[Env], Expr],
        top: bool = False,
    ) -> Expr:
        """Translate a statement list; ``tail_fn(env)`` builds what follows it."""
        flat = _flatten(stmts)
        return self.stmts(flat, 0, env, tail_fn, top)

    def stmts(
        self,
        flat: list[cst.CSTNode],
        i: int,
        env: Env,
        tail_fn: Callable[[Env], Expr],
        top: bool,
    ) -> Expr:
        if i == len(flat):
            return tail_fn(env)
        s = flat[i]

        def rest(env2: Env) -> Expr:
            return self.stmts(flat, i + 1, env2, tail_fn, top)

        try:
            if isinstance(s, cst.If):
                return self.if_stmt(s, flat[i + 1 :], env, tail_fn, top)
            if isinstance(s, cst.For):
                return self.for_stmt(s, flat[i + 1 :], env, rest)
            if isinstance(s, cst.Return):
                return self.return_stmt(s, flat[i + 1 :], env, top)
            if self.poisoned(s, env):
                raise _Stop()  # depends on a statement already reported
            return self.simple(s, env, rest)
        except _Stop:
            return rest(self.poison(s, env))

    def poison(self, s: cst.CSTNode, env: Env) -> Env:
        """After a statement in error: the names it would bind are silently unusable,
        so the problem is reported once, not again at every use."""
        names = _assigned_names([s], deep=True)
        if isinstance(s, (cst.FunctionDef, cst.ClassDef)):
            names.add(s.name.value)
        if isinstance(s, cst.For):
            names |= {n.value for n in _walk(s.target) if isinstance(n, cst.Name)}
        if isinstance(s, (cst.Try, cst.TryStar, cst.With, cst.While)):
            names |= _assigned_names([x for blk in _walk_blocks(s) for x in blk], deep=True)
        new = [n for n in names if n not in env.names]
        if not new:
            return env
        env2 = env.copy()
        for n in new:
            env2.names[n] = Binding("poison", n, self.span(s), depth=env.depth)
            env2.loop_locals.pop(n, None)
        return env2

    def poisoned(self, s: cst.CSTNode, env: Env) -> bool:
        if not isinstance(s, (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Expr)):
            return False
        return any(
            isinstance(n, cst.Name) and env.names.get(n.value, _NO).kind == "poison"
            for n in _walk(s)
        )

    def simple(self, s: cst.CSTNode, env: Env, rest: Callable[[Env], Expr]) -> Expr:
        if isinstance(s, cst.Pass):
            return rest(env)
        if isinstance(s, cst.Expr):
            return self.expr_stmt(s, env, rest)
        if isinstance(s, cst.Assign):
            return self.assign(s, env, rest)
        if isinstance(s, cst.AnnAssign):
            if s.value is None:
                return rest(env)
            return self.bind_target(s.target, s.value, self.expr(s.value, env), env, rest, s)
        if isinstance(s, cst.AugAssign):
            return self.aug_assign(s, env, rest)
        rejected = _REJECTED_STATEMENTS.get(type(s).__name__)
        if rejected:
            what, hint = rejected
            self.error(s, what, hint)
            if isinstance(s, (cst.FunctionDef, cst.ClassDef)):
                # report what else is wrong inside (global / nonlocal ...), not its body
                for n in _walk(s.body):
                    if isinstance(n, (cst.Global, cst.Nonlocal)):
                        self.error(n, *_REJECTED_STATEMENTS[type(n).__name__])
            else:
                # find the problems inside the rejected block too
                for block in _walk_blocks(s):
                    self.block(list(block), env.copy(), lambda e: UNIT)
            raise _Stop()
        raise self.error(
            s,
            f"unsupported statement `{_code(s).strip()}`",
            "use assignments, if/elif/else, for loops over streams, yield and return",
        )

    # -- statements ---------------------------------------------------------------
    def expr_stmt(self, s: cst.Expr, env: Env, rest: Callable[[Env], Expr]) -> Expr:
        v = s.value
        if isinstance(v, (cst.SimpleString, cst.ConcatenatedString)):
            return rest(env)  # docstring
        if isinstance(v, cst.Yield):
            if v.value is None or isinstance(v.value, cst.From):
                raise self.error(
                    v,
                    "`yield` needs a row value; `yield from` is not supported",
                    "yield a tuple of values: `yield key, value`",
                )
            row = self.expr(v.value, env)
            if not (isinstance(row, Apply) and row.fn == Prim("tuple")):
                row = Apply(Prim("tuple"), (row,), span=row.span)
            eff = Apply(Builtin("yield"), (row,), span=self.span(v))
            return Let("_", eff, rest(env), span=self.span(v))
        if isinstance(v, cst.Call):
            call = self.call(v, env, statement=True)
            return Let("_", call, rest(env), span=self.span(v))
        raise self.error(
            v,
            "this expression statement has no effect",
            "only state actions (`s.add(x)`) and `yield` may stand alone",
        )

    def assign(self, s: cst.Assign, env: Env, rest: Callable[[Env], Expr]) -> Expr:
        if len(s.targets) != 1:
            raise self.error(
                s,
                "chained assignment `a = b = ...` is not supported",
                "assign each name on its own line",
            )
        target = s.targets[0].target
        value = s.value
        # state construction: name = StateClass(...)
        if isinstance(value, cst.Call) and isinstance(target, cst.Name):
            cls = self.state_class(value.func, env)
            if cls is not None:
                return self.state_new(target, value, cls, env, rest)
        if isinstance(value, (cst.List, cst.Dict, cst.Set)) and isinstance(target, cst.Name):
            env2 = env.copy()
            env2.names[target.value] = Binding(
                "container", target.value, self.span(target), depth=env.depth
            )
            return rest(env2)
        # a carried local being updated inside a loop
        if isinstance(target, cst.Name):
            b = env.names.get(target.value)
            if b is not None and b.kind == "carry":
                return self.carry_update(target, value, b, env, rest, s)
            if b is not None and b.kind == "state":
                raise self.error(
                    target,
                    f"state `{target.value}` is reassigned",
                    "a state variable is bound once; use a new name for another state",
                )
        # a stream binding: sub = g.project(1, 2)
        if isinstance(target, cst.Name):
            st = self.try_stream(value, env)
            if st is not None:
                expr, b = st
                var = target.value
                env2 = env.copy()
                env2.names[var] = Binding(
                    "rows", var, self.span(target), b.arity, b.types, b.ordered, depth=env.depth
                )
                return Let(var, expr, rest(env2), span=self.span(s))
        return self.bind_target(target, value, self.expr(value, env), env, rest, s)

    def bind_target(
        self,
        target: cst.BaseExpression,
        value_node: cst.CSTNode,
        value: Expr,
        env: Env,
        rest: Callable[[Env], Expr],
        stmt: cst.CSTNode,
    ) -> Expr:
        if isinstance(target, cst.Name):
            name = target.value
            b = env.names.get(name)
            if b is not None and b.kind == "carry":
                return self.carry_set(b, value, env, rest, stmt)
            if b is not None and b.kind == "state":
                raise self.error(
                    target,
                    f"state `{name}` is reassigned",
                    "a state variable is bound once; give another state its own name",
                )
            env2 = env.copy()
            env2.names[name] = Binding("value", name, self.span(target), depth=env.depth)
            env2.loop_locals.pop(name, None)
            return Let(name, value, rest(env2), span=self.span(stmt))
        if isinstance(target, (cst.Tuple, cst.List)):
            tmp = self.fresh("t")
            elems = [e.value for e in target.elements]
            if any(isinstance(e, cst.StarredElement) for e in target.elements):
                raise self.error(
                    target,
                    "starred assignment is not supported",
                    "unpack into exactly as many names as there are values",
                )

            def unpack(k: int, env_k: Env) -> Expr:
                if k == len(elems):
                    return rest(env_k)
                item = Apply(Prim("nth"), (Var(tmp), Lit(k)), span=self.span(elems[k]))
                return self.bind_target(
                    elems[k], elems[k], item, env_k, lambda e2: unpack(k + 1, e2), stmt
                )

            return Let(tmp, value, unpack(0, env), span=self.span(stmt))
        if isinstance(target, (cst.Attribute, cst.Subscript)):
            raise self.error(
                target,
                f"assignment to `{_code(target)}` mutates an object",
                "only local names can be assigned; keep accumulating data in a State",
            )
        raise self.error(
            target,
            f"unsupported assignment target `{_code(target)}`",
            "assign to a name or a tuple of names",
        )

    def aug_assign(self, s: cst.AugAssign, env: Env, rest: Callable[[Env], Expr]) -> Expr:
        op = AUGOPS.get(type(s.operator).__name__)
        if op is None:
            raise self.error(
                s.operator,
                f"operator `{_code(s.operator).strip()}` is not supported",
                "use +=, -=, *=, /=, //=, %= or **=",
            )
        target = s.target
        if not isinstance(target, cst.Name):
            raise self.error(
                target,
                f"augmented assignment to `{_code(target)}` mutates an object",
                "only local names can be updated; use a State for accumulated data",
            )
        b = env.names.get(target.value)
        if b is None:
            raise self.error(target, f"unknown name `{target.value}`", "assign it before updating")
        rhs = self.expr(s.value, env)
        if b.kind == "carry":
            if op in ("add", "sub"):
                eff = Apply(StateCall(b.var, op), (rhs,), span=self.span(s))
                return Let("_", eff, rest(env), span=self.span(s))
            cur = Apply(StateCall(b.var, "get"), (), span=self.span(target))
            return self.carry_set(b, Apply(Prim(op), (cur, rhs), span=self.span(s)), env, rest, s)
        if b.kind != "value":
            raise self.error(
                target,
                f"`{target.value}` is a {b.kind}, not a number",
                "update only numeric locals with augmented assignment",
            )
        value = Apply(Prim(op), (Var(b.var, span=self.span(target)), rhs), span=self.span(s))
        return Let(target.value, value, rest(env), span=self.span(s))

    def carry_update(
        self,
        target: cst.Name,
        value: cst.BaseExpression,
        b: Binding,
        env: Env,
        rest: Callable[[Env], Expr],
        stmt: cst.CSTNode,
    ) -> Expr:
        name = target.value
        # v = v + e / v = e + v / v = v - e
        if isinstance(value, cst.BinaryOperation) and type(value.operator).__name__ in (
            "Add",
            "Subtract",
        ):
            op = BINOPS[type(value.operator).__name__]
            left_is = _is_name(value.left, name)
            right_is = _is_name(value.right, name)
            other = value.right if left_is else value.left
            if (left_is or (right_is and op == "add")) and not _mentions(other, name):
                eff = Apply(StateCall(b.var, op), (self.expr(other, env),), span=self.span(stmt))
                return Let("_", eff, rest(env), span=self.span(stmt))
        # v = max(v, e) / v = min(e, v)
        if (
            isinstance(value, cst.Call)
            and isinstance(value.func, cst.Name)
            and value.func.value in ("max", "min")
            and value.func.value not in self.globals
            and len(value.args) == 2
        ):
            a0, a1 = value.args[0].value, value.args[1].value
            other = a1 if _is_name(a0, name) else a0 if _is_name(a1, name) else None
            if other is not None and not _mentions(other, name):
                eff = Apply(
                    StateCall(b.var, value.func.value),
                    (self.expr(other, env),),
                    span=self.span(stmt),
                )
                return Let("_", eff, rest(env), span=self.span(stmt))
        return self.carry_set(b, self.expr(value, env), env, rest, stmt)

    def carry_set(
        self, b: Binding, value: Expr, env: Env, rest: Callable[[Env], Expr], stmt: cst.CSTNode
    ) -> Expr:
        eff = Apply(StateCall(b.var, "set"), (value,), span=self.span(stmt))
        return Let("_", eff, rest(env), span=self.span(stmt))

    def state_new(
        self,
        target: cst.Name,
        call: cst.Call,
        cls: type,
        env: Env,
        rest: Callable[[Env], Expr],
    ) -> Expr:
        ref = ref_of(cls)
        self.refs[ref] = cls
        args = self.call_args(call, env)
        try:
            inspect.signature(cls).bind(*[None] * len(args))
        except TypeError:
            raise self.error(
                call,
                f"wrong number of arguments ({len(args)}) for state `{cls.__name__}()`",
                f"its constructor is {cls.__name__}{inspect.signature(cls)}",
            ) from None
        for a, node in zip(args, call.args, strict=True):
            if not isinstance(a, Lit) and not (
                isinstance(a, Var) and env.names.get(a.name, Binding("value", "")).depth == 0
            ):
                self.error(
                    node,
                    f"state constructor argument `{_code(node)}` must be a constant or a "
                    "scalar parameter",
                    "pass literals or scalar parameters to state constructors",
                )
        name = target.value
        if name in env.names and env.names[name].kind in ("state", "carry"):
            raise self.error(
                target,
                f"state `{name}` is reassigned",
                "a state variable is bound once; give another state its own name",
            )
        env2 = env.copy()
        env2.names[name] = Binding("state", name, self.span(target), cls=cls, depth=env.depth)
        env2.loop_locals.pop(name, None)
        value = Apply(StateNew(ref, span=self.span(call.func)), tuple(args), span=self.span(call))
        return Let(name, value, rest(env2), span=self.span(target))

    def return_stmt(self, s: cst.Return, after: list[cst.CSTNode], env: Env, top: bool) -> Expr:
        if env.depth > 0:
            raise self.error(
                s,
                "`return` inside a loop is not supported",
                "compute the result with a State or a reduction and return it after the loop",
            )
        if self.has_yield:
            if s.value is not None:
                raise self.error(
                    s,
                    "a table algorithm (one that yields) cannot `return` a value",
                    "yield rows; a table algorithm returns nothing",
                )
            return UNIT
        return self.expr(s.value, env) if s.value is not None else UNIT

    def if_stmt(
        self,
        s: cst.If,
        after: list[cst.CSTNode],
        env: Env,
        tail_fn: Callable[[Env], Expr],
        top: bool,
    ) -> Expr:
        cond = self.expr(s.test, env)
        then_stmts = list(s.body.body)
        if s.orelse is None:
            else_stmts: list[cst.CSTNode] = []
        elif isinstance(s.orelse, cst.If):
            else_stmts = [s.orelse]
        else:
            else_stmts = list(s.orelse.body.body)
        sp = self.span(s)
        if _contains_return(s):
            # push the statements after the `if` into each branch that falls through
            def branch(stmts: list[cst.CSTNode]) -> Expr:
                flat = _flatten(stmts)
                if not _terminates(flat):
                    flat = flat + list(after)
                return self.stmts(flat, 0, env.copy(), tail_fn, top)

            return Apply(
                Builtin("if"),
                (cond, Lambda((), branch(then_stmts)), Lambda((), branch(else_stmts))),
                span=sp,
            )
        # no return: join the names assigned in either branch
        assigned = sorted(
            (_assigned_names(then_stmts, deep=True) | _assigned_names(else_stmts, deep=True))
            - {n for n, b in env.names.items() if b.kind in ("carry", "state", "rows")}
        )
        outs: dict[str, Env] = {}

        def join_tail(tag: str) -> Callable[[Env], Expr]:
            def f(env_b: Env) -> Expr:
                outs[tag] = env_b
                vals = [
                    Var(env_b.names[n].var) if n in env_b.names else Lit(None) for n in assigned
                ]
                return Apply(Prim("tuple"), tuple(vals)) if assigned else UNIT

            return f

        then_e = self.block(then_stmts, env.copy(), join_tail("then"))
        else_e = self.block(else_stmts, env.copy(), join_tail("else"))
        ife = Apply(Builtin("if"), (cond, Lambda((), then_e), Lambda((), else_e)), span=sp)
        env2 = env.copy()
        joined = []
        for n in assigned:
            in_then = n in outs.get("then", env).names
            in_else = n in outs.get("else", env).names
            if in_then and in_else:
                bt = outs.get("then", env).names[n]
                be = outs.get("else", env).names[n]
                if bt.kind != "value" or be.kind != "value":
                    kinds = {bt.kind, be.kind} - {"value"}
                    raise self.error(
                        sp,
                        f"`{n}` is bound to a {kinds.pop()} inside an `if`",
                        "create states and streams unconditionally, before the `if`",
                    )
                env2.names[n] = Binding("value", n, bt.span, depth=env.depth)
                joined.append(n)
            else:
                # possibly unbound after the if: reading it later is an error
                env2.names.pop(n, None)
                env2.loop_locals[n] = (Binding("maybe", n, sp), sp)
        if not assigned:
            return Let("_", ife, self.stmts(after, 0, env2, tail_fn, top), span=sp)
        tmp = self.fresh("if")

        def unpack(k: int) -> Expr:
            if k == len(assigned):
                return self.stmts(after, 0, env2, tail_fn, top)
            n = assigned[k]
            if n not in joined:
                return unpack(k + 1)
            return Let(n, Apply(Prim("nth"), (Var(tmp), Lit(k))), unpack(k + 1))

        return Let(tmp, ife, unpack(0), span=sp)

    # -- loops ------------------------------------------------------------------------
    def for_stmt(
        self, s: cst.For, after: list[cst.CSTNode], env: Env, rest: Callable[[Env], Expr]
    ) -> Expr:
        if s.asynchronous:
            raise self.error(s, "`async for` is not supported", "use a plain `for` loop")
        if s.orelse is not None:
            raise self.error(s.orelse, "`for ... else` is not supported", "drop the `else` block")
        sp = self.span(s)
        it = s.iter
        # what is iterated
        group = None
        if (
            isinstance(it, cst.Call)
            and isinstance(it.func, cst.Name)
            and self.global_obj(it.func.value) is _group_by()
        ):
            group = self.group_by_call(it, env)
            stream_expr, src, gattrs = group
        else:
            st = self.try_stream(it, env)
            if st is None:
                raise self.error(
                    it,
                    f"a loop must iterate a RowStream, a substream or group_by(...), "
                    f"not `{_code(it)}`",
                    "loop over a RowStream parameter, `g.project(...)` or `group_by(i, rows)`",
                )
            stream_expr, src = st
        ordered = src.ordered if group is None else False
        # loop-carried locals: bound before, updated inside
        body_stmts = list(s.body.body)
        assigned = _assigned_names(body_stmts, deep=True)
        read_after = _read_names(after)
        carried = []
        for n in sorted(assigned):
            b = env.names.get(n)
            if b is None or b.kind != "value":
                continue
            if n in read_after or _reads_before_write(body_stmts, n):
                carried.append(n)
        prologue: list[tuple[str, Expr]] = []
        inner = env.copy()
        inner.depth = env.depth + 1
        inner.ordered = env.ordered or ordered
        for n in carried:
            cvar = carry_var(n)
            prologue.append(
                (cvar, Apply(StateNew(CARRY), (Var(env.names[n].var),), span=env.names[n].span))
            )
            inner.names[n] = Binding(
                "carry", cvar, env.names[n].span, depth=env.depth, ordered=inner.ordered
            )
        # loop parameters
        params: list[str] = []
        pre_body: list[tuple[str, Expr]] = []
        if group is not None:
            params, pre_body = self.group_targets(s.target, src, gattrs, inner)
        else:
            params = self.row_targets(s.target, src, inner)
        final: list[Env] = []
        body = self.block(body_stmts, inner, lambda e: (final.append(e), UNIT)[1])
        for name, val in reversed(pre_body):
            body = Let(name, val, body)
        loop = Apply(
            Builtin("smap", (("ordered", ordered),)),
            (Lambda(tuple(params), body, span=self.span(s.target)), stream_expr),
            span=sp,
        )
        # after the loop: carried values are read back; loop locals go out of scope
        env2 = env.copy()
        for scope_env in (inner, *final):
            for n, b in scope_env.names.items():
                if n not in env.names and b.depth > env.depth:
                    env2.loop_locals[n] = (b, sp)
        for n in carried:
            env2.names[n] = Binding("value", n, env.names[n].span, depth=env.depth)
        tail = rest(env2)
        for n in reversed(carried):
            tail = Let(n, Apply(StateCall(carry_var(n), "get"), ()), tail, span=sp)
        out = Let("_loop", loop, tail, span=sp)
        for name, val in reversed(prologue):
            out = Let(name, val, out, span=sp)
        return out

    def group_by_call(self, call: cst.Call, env: Env) -> tuple[Expr, Binding, dict[str, Any]]:
        args = [a for a in call.args if a.keyword is None]
        kws = {a.keyword.value: a.value for a in call.args if a.keyword is not None}
        if len(args) != 2 or set(kws) - {"order_by"}:
            raise self.error(
                call,
                "group_by takes (key, stream) and optionally order_by=field",
                "e.g. `group_by(0, rows)` or `group_by((0, 1), rows, order_by=2)`",
            )
        st = self.try_stream(args[1].value, env)
        if st is None:
            raise self.error(
                args[1].value,
                f"`{_code(args[1].value)}` is not a RowStream",
                "group a RowStream parameter, a group or a projection",
            )
        sexpr, src = st
        key = self.field_indices(args[0].value, src)
        order_by = None
        if "order_by" in kws:
            ob = self.field_indices(kws["order_by"], src)
            if len(ob) != 1:
                raise self.error(
                    kws["order_by"],
                    "order_by takes one field index",
                    "write `group_by(0, rows, order_by=2)`",
                )
            order_by = ob[0]
        tuple_key = isinstance(args[0].value, cst.Tuple)
        gattrs = {"key": key, "order_by": order_by, "tuple_key": tuple_key}
        expr = Apply(
            Builtin("group_by", (("key", key), ("order_by", order_by))),
            (sexpr,),
            span=self.span(call),
        )
        return expr, src, gattrs

    def field_indices(self, node: cst.BaseExpression, src: Binding) -> tuple[int, ...]:
        elems = [e.value for e in node.elements] if isinstance(node, cst.Tuple) else [node]
        out = []
        for e in elems:
            v = _int_literal(e)
            if v is None:
                raise self.error(
                    e,
                    f"field index `{_code(e)}` must be an integer literal",
                    "field indices are integer literals, e.g. `group_by(0, rows)`",
                )
            if not -src.arity <= v < src.arity:
                raise self.error(
                    e,
                    f"field index {v} is out of range: the stream has {src.arity} field"
                    f"{'s' if src.arity != 1 else ''}",
                    "fields are numbered from 0",
                )
            out.append(v % src.arity)
        return tuple(out)

    def group_targets(
        self, target: cst.BaseExpression, src: Binding, gattrs: dict[str, Any], inner: Env
    ) -> tuple[list[str], list[tuple[str, Expr]]]:
        if not (isinstance(target, cst.Tuple) and len(target.elements) == 2):
            raise self.error(
                target,
                "a group_by loop unpacks (key, group): `for key, group in group_by(...)`",
                "write `for key, group in group_by(0, rows):`",
            )
        kt, gt = target.elements[0].value, target.elements[1].value
        if not isinstance(gt, cst.Name):
            raise self.error(
                gt,
                "the group must be bound to a name",
                "write `for key, group in group_by(0, rows):`",
            )
        pre: list[tuple[str, Expr]] = []
        if isinstance(kt, cst.Name):
            kname = kt.value
            inner.names[kname] = Binding("value", kname, self.span(kt), depth=inner.depth)
        elif isinstance(kt, cst.Tuple):
            n = len(gattrs["key"])
            if len(kt.elements) != n or not gattrs["tuple_key"]:
                raise self.error(
                    kt,
                    f"the group key has {n} field{'s' if n != 1 else ''} but is unpacked "
                    f"into {len(kt.elements)} names",
                    "unpack one name per key field",
                )
            kname = self.fresh("key")
            for i, el in enumerate(kt.elements):
                if not isinstance(el.value, cst.Name):
                    raise self.error(
                        el,
                        "unpack the key into plain names",
                        "write `for (a, b), group in group_by((0, 1), rows):`",
                    )
                nm = el.value.value
                inner.names[nm] = Binding("value", nm, self.span(el.value), depth=inner.depth)
                pre.append((nm, Apply(Prim("nth"), (Var(kname), Lit(i)))))
        else:
            raise self.error(
                kt,
                "the group key must be bound to a name or a tuple of names",
                "write `for key, group in ...` or `for (a, b), group in group_by((0, 1), rows)`",
            )
        inner.names[gt.value] = Binding(
            "rows",
            gt.value,
            self.span(gt),
            src.arity,
            src.types,
            gattrs["order_by"] is not None,
            depth=inner.depth,
        )
        return [kname, gt.value], pre

    def row_targets(self, target: cst.BaseExpression, src: Binding, inner: Env) -> list[str]:
        if isinstance(target, cst.Name):
            if src.arity == 1:
                names = [target.value]
            else:
                raise self.error(
                    target,
                    f"the stream has {src.arity} fields; unpack them: "
                    f"`for {', '.join(f'f{i}' for i in range(src.arity))} in ...`",
                    "unpack one name per field",
                )
        elif isinstance(target, (cst.Tuple, cst.List)):
            names = []
            for el in target.elements:
                if not isinstance(el.value, cst.Name) or isinstance(el, cst.StarredElement):
                    raise self.error(
                        el, "unpack each field into a plain name", "write `for a, b in rows:`"
                    )
                names.append(el.value.value)
            if len(names) != src.arity:
                raise self.error(
                    target,
                    f"the stream has {src.arity} field{'s' if src.arity != 1 else ''} "
                    f"({', '.join(src.types)}) but the loop unpacks {len(names)}",
                    "unpack exactly one name per field, or project the fields you need "
                    "with `.project(i, j)`",
                )
        else:
            raise self.error(
                target, "unsupported loop target", "unpack one name per field: `for a, b in rows:`"
            )
        for n, ty in zip(names, src.types, strict=False):
            inner.names[n] = Binding("value", n, self.span(target), types=(ty,), depth=inner.depth)
        return names

    def try_stream(self, node: cst.BaseExpression, env: Env) -> tuple[Expr, Binding] | None:
        """If ``node`` denotes a stream, its IR and a Binding describing it."""
        if isinstance(node, cst.Name):
            b = env.names.get(node.value)
            if b is not None and b.kind == "rows":
                return Var(b.var, span=self.span(node)), b
            return None
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "project"
        ):
            inner = self.try_stream(node.func.value, env)
            if inner is None:
                return None
            iexpr, ib = inner
            if any(a.keyword is not None for a in node.args) or not node.args:
                raise self.error(
                    node, "project takes field indices: `.project(1, 2)`", "write `g.project(1, 2)`"
                )
            idx = []
            for a in node.args:
                v = _int_literal(a.value)
                if v is None:
                    raise self.error(
                        a.value,
                        "project takes integer literal field indices",
                        "write `g.project(1, 2)`",
                    )
                if not -ib.arity <= v < ib.arity:
                    raise self.error(
                        a.value,
                        f"field index {v} is out of range: the stream has {ib.arity} field"
                        f"{'s' if ib.arity != 1 else ''}",
                        "fields are numbered from 0",
                    )
                idx.append(v % ib.arity)
            expr = Apply(Builtin("project", (("fields", tuple(idx)),)), (iexpr,))
            expr = Apply(expr.fn, expr.args, span=self.span(node))
            return expr, Binding(
                "rows",
                "",
                self.span(node),
                len(idx),
                tuple(ib.types[i] for i in idx),
                ib.ordered,
            )
        return None

    # -- expressions -----------------------------------------------------------------
    def expr(self, node: cst.BaseExpression, env: Env) -> Expr:
        sp = self.span(node)
        if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary)):
            v = ast.literal_eval(node.value)
            if isinstance(v, complex):
                raise self.error(node, "complex numbers are not supported", "use int or float")
            return Lit(v, span=sp)
        if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
            v = ast.literal_eval(_code(node))
            if isinstance(v, bytes):
                raise self.error(node, "bytes literals are not supported", "use a str")
            return Lit(v, span=sp)
        if isinstance(node, cst.Name):
            return self.name(node, env)
        if isinstance(node, cst.Attribute):
            return self.attribute(node, env)
        if isinstance(node, cst.BinaryOperation):
            op = BINOPS.get(type(node.operator).__name__)
            if op is None:
                raise self.error(
                    node.operator,
                    f"operator `{_code(node.operator).strip()}` is not supported",
                    "use arithmetic (+ - * / // % **) and comparisons",
                )
            return Apply(Prim(op), (self.expr(node.left, env), self.expr(node.right, env)), span=sp)
        if isinstance(node, cst.UnaryOperation):
            op = UNARYOPS.get(type(node.operator).__name__)
            if op is None:
                raise self.error(
                    node,
                    f"operator `{_code(node.operator).strip()}` is not supported",
                    "bitwise operators are not supported; use arithmetic and comparisons",
                )
            operand = self.expr(node.expression, env)
            if op == "neg" and isinstance(operand, Lit) and type(operand.value) in (int, float):
                return Lit(-operand.value, span=sp)  # a negative literal
            return Apply(Prim(op), (operand,), span=sp)
        if isinstance(node, cst.BooleanOperation):
            left = self.expr(node.left, env)
            right = self.expr(node.right, env)
            tmp = self.fresh("b")
            # `a and b` is `b if a else a`; `a or b` is `a if a else b` (operands returned)
            if isinstance(node.operator, cst.And):
                ife = _if(Var(tmp), right, Var(tmp), sp)
            else:
                ife = _if(Var(tmp), Var(tmp), right, sp)
            return Let(tmp, left, ife, span=sp)
        if isinstance(node, cst.Comparison):
            return self.comparison(node, env)
        if isinstance(node, cst.IfExp):
            return _if(
                self.expr(node.test, env),
                self.expr(node.body, env),
                self.expr(node.orelse, env),
                sp,
            )
        if isinstance(node, cst.Call):
            return self.call(node, env, statement=False)
        if isinstance(node, cst.Tuple):
            if any(isinstance(e, cst.StarredElement) for e in node.elements):
                raise self.error(
                    node, "starred elements are not supported", "list the elements explicitly"
                )
            return Apply(
                Prim("tuple"), tuple(self.expr(e.value, env) for e in node.elements), span=sp
            )
        if isinstance(node, cst.Subscript):
            return self.subscript(node, env)
        rejected = _REJECTED_EXPRESSIONS.get(type(node).__name__)
        if rejected:
            raise self.error(node, *rejected)
        raise self.error(
            node,
            f"unsupported expression `{_code(node)}`",
            "use literals, names, arithmetic, comparisons, calls and conditional expressions",
        )

    def comparison(self, node: cst.Comparison, env: Env) -> Expr:
        sp = self.span(node)
        left = self.expr(node.left, env)
        parts: list[Expr] = []
        prev = left
        lets: list[tuple[str, Expr]] = []
        for i, ct in enumerate(node.comparisons):
            opname = type(ct.operator).__name__
            right = self.expr(ct.comparator, env)
            if i < len(node.comparisons) - 1 and not isinstance(right, (Var, Lit)):
                tmp = self.fresh("c")
                lets.append((tmp, right))
                right = Var(tmp)
            if opname in ("Is", "IsNot"):
                if not (isinstance(right, Lit) and right.value is None):
                    raise self.error(ct, "`is` is only supported against None", "use == for values")
                parts.append(
                    Apply(Prim("is_none" if opname == "Is" else "is_not_none"), (prev,), span=sp)
                )
            elif opname in ("In", "NotIn"):
                if not isinstance(ct.comparator, cst.Tuple):
                    raise self.error(
                        ct.comparator,
                        "`in` is only supported against a literal tuple: `x in (1, 2, 3)`",
                        "compare against a literal tuple: `x in (1, 2, 3)`",
                    )
                elems = right.args if isinstance(right, Apply) else ()
                parts.append(Apply(Prim(COMPAREOPS[opname]), (prev, *elems), span=sp))
            else:
                op = COMPAREOPS.get(opname)
                if op is None:
                    raise self.error(
                        ct,
                        f"comparison `{_code(ct.operator).strip()}` is not supported",
                        "use ==, !=, <, <=, >, >=, `is None`, `is not None` or `in (...)`",
                    )
                parts.append(Apply(Prim(op), (prev, right), span=sp))
            prev = right
        out = parts[-1]
        for p in reversed(parts[:-1]):
            tmp = self.fresh("b")
            out = Let(tmp, p, _if(Var(tmp), out, Var(tmp), sp), span=sp)
        for name, val in reversed(lets):
            out = Let(name, val, out, span=sp)
        return out

    def subscript(self, node: cst.Subscript, env: Env) -> Expr:
        if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
            raise self.error(
                node,
                "only indexing with an integer literal is supported: `t[0]`",
                "index tuples with a constant, e.g. `t[0]`",
            )
        idx = _int_literal(node.slice[0].slice.value)
        if idx is None:
            raise self.error(
                node.slice[0],
                "only indexing with an integer literal is supported",
                "index tuples with a constant, e.g. `t[0]`",
            )
        base = self.expr(node.value, env)
        return Apply(Prim("nth"), (base, Lit(idx)), span=self.span(node))

    def name(self, node: cst.Name, env: Env) -> Expr:
        n = node.value
        sp = self.span(node)
        if n in ("True", "False", "None"):
            return Lit({"True": True, "False": False, "None": None}[n], span=sp)
        b = env.names.get(n)
        if b is not None:
            if b.kind == "poison":
                return Lit(None, span=sp)  # its statement was reported
            if b.kind == "value":
                return Var(b.var, span=sp)
            if b.kind == "carry":
                return Apply(StateCall(b.var, "get"), (), span=sp)
            if b.kind == "rows":
                return Var(b.var, span=sp)
            if b.kind == "state":
                self.error(
                    node,
                    f"state `{n}` is used as a value",
                    f"call one of its readers, e.g. `{n}.{next(iter(b.cls.readers()), 'value')}()`",
                )
                return Lit(None, span=sp)  # reported; go on to find more problems
            if b.kind == "container":
                self.error(
                    node,
                    f"`{n}` is a list/dict/set; containers are not supported",
                    "accumulate with a State (Distinct, TopK, Median ...) instead",
                )
                return Lit(None, span=sp)  # reported; go on to find more problems
        if n in env.loop_locals:
            lb, loop_span = env.loop_locals[n]
            if lb.kind == "maybe":
                self.error(
                    node,
                    f"`{n}` may be unbound here: it is assigned in only one branch of the "
                    f"`if` at {loop_span}",
                    "assign it before the `if` or in every branch",
                )
                return Lit(None, span=sp)  # reported; go on to find more problems
            if lb.kind == "state":
                self.error(
                    node,
                    f"state `{n}` is created inside the loop at {loop_span} (its scope is one "
                    "iteration of that loop) but used outside that scope",
                    "create the state before the loop, or use it only inside the loop",
                )
                return Lit(None, span=sp)  # reported; go on to find more problems
            self.error(
                node,
                f"`{n}` is assigned inside the loop at {loop_span} and read after it; its value "
                "would be the last iteration's, which depends on row order",
                "accumulate it with a reduction (`x += ...`, `x = max(x, ...)`) or a State",
            )
            return Lit(None, span=sp)  # reported; go on to find more problems
        obj = self.global_obj(n)
        if obj is _MISSING:
            self.error(node, f"unknown name `{n}`", "define or import it in the module")
            return Lit(None, span=sp)
        return self.global_value(node, n, obj)

    def global_obj(self, n: str) -> Any:
        if n in self.globals:
            return self.globals[n]
        if hasattr(builtins, n):
            return getattr(builtins, n)
        return _MISSING

    def global_value(self, node: cst.CSTNode, n: str, obj: Any) -> Expr:
        sp = self.span(node)
        if isinstance(obj, (bool, int, float, str)) or obj is None:
            return Lit(obj, span=sp)
        raise self.error(
            node,
            f"`{n}` cannot be used as a value here",
            "module-level constants (int, float, str, bool) and calls are supported",
        )

    def attribute(self, node: cst.Attribute, env: Env) -> Expr:
        base = node.value
        if isinstance(base, cst.Name) and base.value not in env.names:
            obj = self.global_obj(base.value)
            if obj is math:
                v = getattr(math, node.attr.value, _MISSING)
                if isinstance(v, float):
                    return Lit(v, span=self.span(node))
            if isinstance(obj, types.ModuleType):
                v = getattr(obj, node.attr.value, _MISSING)
                if isinstance(v, (bool, int, float, str)):
                    return Lit(v, span=self.span(node))
        raise self.error(
            node,
            f"attribute access `{_code(node)}` is not supported",
            "call a state's reader (`s.value()`) or use module constants",
        )

    def call_args(self, call: cst.Call, env: Env) -> list[Expr]:
        out = []
        for a in call.args:
            if a.star:
                raise self.error(
                    a,
                    "*args / **kwargs in calls are not supported",
                    "pass each argument explicitly",
                )
            if a.keyword is not None:
                raise self.error(
                    a, "keyword arguments are not supported here", "pass arguments positionally"
                )
            out.append(self.expr(a.value, env))
        return out

    def state_class(self, func: cst.BaseExpression, env: Env) -> type | None:
        from looplift.state import State

        obj = _MISSING
        if isinstance(func, cst.Name) and func.value not in env.names:
            obj = self.global_obj(func.value)
        elif isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
            mod = self.global_obj(func.value.value)
            if isinstance(mod, types.ModuleType):
                obj = getattr(mod, func.attr.value, _MISSING)
        if isinstance(obj, type) and issubclass(obj, State):
            return obj
        return None

    def call(self, node: cst.Call, env: Env, statement: bool) -> Expr:
        sp = self.span(node)
        func = node.func
        # method calls: state actions / readers, stream methods, mutation
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name):
            recv = func.value.value
            meth = func.attr.value
            b = env.names.get(recv)
            if b is not None:
                return self.method_call(node, b, recv, meth, env, statement)
            if recv in env.loop_locals:
                self.name(func.value, env)  # reports the scope / order problem
                self.call_args(node, env)
                return Lit(None, span=sp)
            obj = self.global_obj(recv)
            if obj is math:
                if meth not in MATH_FUNCS:
                    raise self.error(
                        func,
                        f"`math.{meth}` is not supported",
                        "use math.sqrt, log, exp, floor, ceil, ... or a host function",
                    )
                return Apply(Prim(f"math.{meth}"), tuple(self.call_args(node, env)), span=sp)
            if isinstance(obj, types.ModuleType):
                target = getattr(obj, meth, _MISSING)
                if target is _MISSING:
                    raise self.error(
                        func, f"unknown name `{recv}.{meth}`", "check the module attribute's name"
                    )
                return self.call_global(node, f"{recv}.{meth}", target, env, statement)
            if obj is _MISSING:
                self.error(func.value, f"unknown name `{recv}`", "define or import it")
                self.call_args(node, env)
                return Lit(None, span=sp)
        if isinstance(func, cst.Name):
            n = func.value
            b = env.names.get(n)
            if b is not None and b.kind == "poison":
                self.call_args(node, env)
                return Lit(None, span=sp)
            if b is not None:
                raise self.error(
                    func,
                    f"`{n}` is a local {b.kind} and cannot be called",
                    "call module-level functions, @dataflow functions or state methods",
                )
            if n in env.loop_locals:
                self.name(func, env)
                self.call_args(node, env)
                return Lit(None, span=sp)
            obj = self.global_obj(n)
            if obj is _MISSING:
                self.error(func, f"unknown name `{n}`", "define or import it in the module")
                self.call_args(node, env)
                return Lit(None, span=sp)
            return self.call_global(node, n, obj, env, statement)
        raise self.error(
            func,
            f"unsupported call of `{_code(func)}`",
            "call a @dataflow function, a state's method, a builtin, math.* or a module-level function",
        )

    def method_call(
        self, node: cst.Call, b: Binding, recv: str, meth: str, env: Env, statement: bool
    ) -> Expr:
        sp = self.span(node)
        if b.kind == "poison":
            self.call_args(node, env)
            return Lit(None, span=sp)
        if b.kind == "state":
            cls = b.cls
            acts = cls.actions()
            readers = cls.readers()
            if meth not in acts and meth not in readers:
                avail = ", ".join(sorted([*acts, *readers]))
                raise self.error(
                    node.func,
                    f"state `{recv}` ({cls.__name__}) has no action or reader `{meth}`",
                    f"available: {avail}",
                )
            fn = acts[meth].fn if meth in acts else readers[meth]
            args = self.call_args(node, env)
            try:
                inspect.signature(fn).bind(None, *args)
            except TypeError:
                sig = inspect.signature(fn)
                shown = "(" + ", ".join(list(sig.parameters)[1:]) + ")"
                raise self.error(
                    node,
                    f"wrong number of arguments ({len(args)}) for `{recv}.{meth}`; "
                    f"{cls.__name__}.{meth} takes {shown}",
                    f"call it as `{recv}.{meth}{shown}`",
                ) from None
            if meth in acts and not statement:
                raise self.error(
                    node,
                    f"state action `{recv}.{meth}(...)` is used as a value; actions modify "
                    "the state and return nothing",
                    f"call it as a statement and read the state with a reader "
                    f"({', '.join(sorted(readers)) or 'none'})",
                )
            return Apply(StateCall(b.var, meth, span=self.span(node.func)), tuple(args), span=sp)
        if b.kind == "rows":
            if meth == "project":
                raise self.error(
                    node,
                    "a projected stream can only be iterated, grouped, bound to a name or "
                    "passed to a @dataflow function",
                    "iterate it with `for`, group it, or pass it to a @dataflow function",
                )
            raise self.error(node.func, f"streams have no method `{meth}`", "use .project(...)")
        if b.kind in ("container", "value", "carry"):
            if meth in MUTATORS:
                raise self.error(
                    node,
                    f"`{recv}.{meth}(...)` mutates a non-state object; only states can be modified",
                    "accumulate with a State instead (e.g. Distinct, TopK, Median, or your own "
                    "State subclass with @action methods)",
                )
            raise self.error(
                node.func,
                f"method calls are only supported on states; `{recv}.{meth}` is not",
                "use builtins (str, len, abs ...) or a host function",
            )
        raise self.error(
            node.func,
            f"unsupported call `{_code(node.func)}`",
            "call a @dataflow function, a state's method, a builtin, math.* or a module-level function",
        )

    def call_global(self, node: cst.Call, n: str, obj: Any, env: Env, statement: bool) -> Expr:
        from looplift.api import Dataflow
        from looplift.state import State
        from looplift.streams import group_by

        sp = self.span(node)
        if obj is group_by:
            raise self.error(
                node,
                "group_by(...) can only be iterated by a for loop",
                "write `for key, group in group_by(0, rows): ...`",
            )
        if isinstance(obj, type) and issubclass(obj, State):
            raise self.error(
                node,
                f"state `{obj.__name__}(...)` must be assigned to a name on its own line",
                f"write `s = {obj.__name__}(...)` and call its actions",
            )
        if isinstance(obj, Dataflow):
            return self.dataflow_call(node, n, obj, env)
        if n in BUILTIN_FUNCS and getattr(builtins, n, None) is obj:
            lo, hi = BUILTIN_FUNCS[n]
            args = self.call_args(node, env)
            if len(args) < lo or (hi is not None and len(args) > hi):
                want = f"{lo}" if lo == hi else f"{lo} or more" if hi is None else f"{lo} to {hi}"
                raise self.error(
                    node,
                    f"wrong number of arguments for `{n}`: {len(args)} given, {want} expected",
                    f"see help({n}) for its arguments",
                )
            return Apply(Prim(n), tuple(args), span=sp)
        if getattr(builtins, n, None) is obj and n in (
            "list",
            "dict",
            "set",
            "sorted",
            "sum",
            "range",
            "print",
            "enumerate",
            "zip",
            "iter",
            "next",
            "open",
            "input",
            "eval",
            "exec",
        ):
            hint = {
                "sum": "loop and accumulate with `total += x`, or use the Sum state",
                "range": "loops run over RowStreams and group_by(...)",
                "print": "remove the print; use explain() to see the plan",
            }.get(n, "use a State to accumulate collections")
            raise self.error(node, f"builtin `{n}()` is not supported in @dataflow code", hint)
        if isinstance(obj, type):
            raise self.error(
                node,
                f"constructing `{n}` objects is not supported",
                "only State subclasses can be constructed (as states)",
            )
        if callable(obj) and isinstance(obj, (types.FunctionType, types.BuiltinFunctionType)):
            if not getattr(obj, "__module__", None) or "<locals>" in obj.__qualname__:
                raise self.error(
                    node,
                    f"host function `{n}` is not importable",
                    "define host functions at module level so Spark workers can import them",
                )
            ref = ref_of(obj)
            self.refs[ref] = obj
            args = self.call_args(node, env)
            try:
                inspect.signature(obj).bind(*args)
            except (TypeError, ValueError) as e:
                if isinstance(e, TypeError):
                    raise self.error(
                        node,
                        f"wrong number of arguments ({len(args)}) for host function `{n}`"
                        f"{inspect.signature(obj)}",
                        f"call it as `{n}{inspect.signature(obj)}`",
                    ) from None
            return Apply(Host(ref, span=self.span(node.func)), tuple(args), span=sp)
        raise self.error(
            node.func,
            f"`{n}` is not callable in @dataflow code",
            "call a @dataflow function, a State class, a builtin, math.* or a module-level function",
        )

    def dataflow_call(self, node: cst.Call, n: str, obj: Any, env: Env) -> Expr:
        sp = self.span(node)
        ref = ref_of(obj)
        self.refs[ref] = obj
        params = list(obj.signature.parameters.values())
        pos = [a for a in node.args if a.keyword is None]
        kw = {a.keyword.value: a for a in node.args if a.keyword is not None}
        if any(a.star for a in node.args):
            raise self.error(
                node, "*args / **kwargs in calls are not supported", "pass each argument explicitly"
            )
        if len(pos) + len(kw) != len(params) or len(pos) > len(params):
            raise self.error(
                node,
                f"wrong number of arguments for `{n}`: {len(pos) + len(kw)} given, "
                f"{len(params)} expected ({', '.join(p.name for p in params)})",
                f"call it as `{n}({', '.join(p.name for p in params)})`",
            )
        ordered_args: list[cst.BaseExpression] = [a.value for a in pos]
        for p in params[len(pos) :]:
            if p.name not in kw:
                raise self.error(
                    node,
                    f"missing argument `{p.name}` for `{n}`",
                    "pass every parameter of the called function",
                )
            ordered_args.append(kw.pop(p.name).value)
        if kw:
            raise self.error(
                node,
                f"unexpected keyword argument `{next(iter(kw))}` for `{n}`",
                "use the parameter names of the called function",
            )
        args = []
        from looplift.api import rowstream_fields

        for p, a in zip(params, ordered_args, strict=True):
            fields = rowstream_fields(p.annotation, obj.fn)
            st = self.try_stream(a, env)
            if fields is not None:
                if st is None:
                    raise self.error(
                        a,
                        f"argument `{p.name}` of `{n}` must be a stream",
                        "pass a RowStream, a group or a projection like `g.project(1, 2)`",
                    )
                want = len(fields)
                if st[1].arity != want:
                    raise self.error(
                        a,
                        f"`{n}` expects a stream of {want} field{'s' if want != 1 else ''} for "
                        f"`{p.name}` but `{_code(a)}` has {st[1].arity}",
                        "project the fields it needs with `.project(i, j)`",
                    )
                args.append(st[0])
            else:
                if st is not None:
                    raise self.error(
                        a,
                        f"argument `{p.name}` of `{n}` is a scalar, not a stream",
                        "pass a value; to aggregate a stream, call an aggregate on it first",
                    )
                args.append(self.expr(a, env))
        return Apply(CallDataflow(ref, span=self.span(node.func)), tuple(args), span=sp)


# -- module-level helpers ---------------------------------------------------------------

_MISSING = object()
_NO = Binding("none", "")


def _walk_blocks(s: cst.CSTNode) -> list[list[cst.BaseStatement]]:
    """The statement blocks nested directly in a compound statement."""
    out = []
    for attr_name in ("body", "orelse", "finalbody"):
        part = getattr(s, attr_name, None)
        if isinstance(part, (cst.Else, cst.Finally)):
            part = part.body
        if isinstance(part, cst.BaseSuite) and isinstance(part, cst.IndentedBlock):
            out.append(list(part.body))
    for h in getattr(s, "handlers", ()) or ():
        if isinstance(h.body, cst.IndentedBlock):
            out.append(list(h.body.body))
    return out


def _group_by() -> Any:
    from looplift.streams import group_by

    return group_by


def _if(c: Expr, a: Expr, b: Expr, sp: Span) -> Expr:
    return Apply(Builtin("if"), (c, Lambda((), a), Lambda((), b)), span=sp)


_EMPTY_MODULE = cst.Module(body=[])


def _code(node: cst.CSTNode) -> str:
    return _EMPTY_MODULE.code_for_node(node)


def _norm_type(t: str) -> str:
    return {
        "datetime.datetime": "datetime",
        "datetime.date": "date",
        "builtins.int": "int",
    }.get(t, t)


def _int_literal(node: cst.BaseExpression) -> int | None:
    if isinstance(node, cst.Integer):
        return int(node.value, 0)
    if (
        isinstance(node, cst.UnaryOperation)
        and isinstance(node.operator, cst.Minus)
        and isinstance(node.expression, cst.Integer)
    ):
        return -int(node.expression.value, 0)
    return None


def _is_name(node: cst.CSTNode, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name


def _mentions(node: cst.CSTNode, name: str) -> bool:
    return any(isinstance(n, cst.Name) and n.value == name for n in _walk(node))


def _walk(node: cst.CSTNode):
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(n.children)


def _contains(node: cst.CSTNode, kinds: tuple[type, ...]) -> bool:
    for n in _walk(node):
        if isinstance(n, kinds):
            return True
    return False


def _flatten(stmts: list[cst.CSTNode]) -> list[cst.CSTNode]:
    """Statement lines → small statements (``a = 1; b = 2`` gives two)."""
    out: list[cst.CSTNode] = []
    for s in stmts:
        if isinstance(s, cst.SimpleStatementLine):
            out.extend(s.body)
        else:
            out.append(s)
    return out


def _contains_return(node: cst.CSTNode) -> bool:
    for n in _walk(node):
        if isinstance(n, cst.Return):
            return True
    return False


def _terminates(flat: list[cst.CSTNode]) -> bool:
    """Does this statement list end in a return on every path?"""
    if not flat:
        return False
    last = flat[-1]
    if isinstance(last, cst.Return):
        return True
    if isinstance(last, cst.If):
        then = _flatten(list(last.body.body))
        if last.orelse is None:
            return False
        if isinstance(last.orelse, cst.If):
            return _terminates(then) and _terminates([last.orelse])
        return _terminates(then) and _terminates(_flatten(list(last.orelse.body.body)))
    return False


def _assigned_names(stmts: list[cst.CSTNode], deep: bool = False) -> set[str]:
    """Names assigned by these statements (into nested ifs; into loops if ``deep``)."""
    out: set[str] = set()

    def targets(t: cst.CSTNode) -> None:
        if isinstance(t, cst.Name):
            out.add(t.value)
        elif isinstance(t, (cst.Tuple, cst.List)):
            for e in t.elements:
                targets(e.value)

    def visit(s: cst.CSTNode) -> None:
        if isinstance(s, cst.SimpleStatementLine):
            for x in s.body:
                visit(x)
        elif isinstance(s, cst.Assign):
            for t in s.targets:
                targets(t.target)
        elif isinstance(s, (cst.AugAssign, cst.AnnAssign)):
            targets(s.target)
        elif isinstance(s, cst.If):
            for x in s.body.body:
                visit(x)
            if s.orelse is not None:
                if isinstance(s.orelse, cst.If):
                    visit(s.orelse)
                else:
                    for x in s.orelse.body.body:
                        visit(x)
        elif isinstance(s, cst.For) and deep:
            for x in s.body.body:
                visit(x)

    for s in stmts:
        visit(s)
    return out


def _read_names(stmts: list[cst.CSTNode]) -> set[str]:
    out: set[str] = set()
    for s in stmts:
        for n in _walk(s):
            if isinstance(n, cst.Name):
                out.add(n.value)
    return out


def _reads_before_write(stmts: list[cst.CSTNode], name: str) -> bool:
    """Is ``name`` read (in this loop body) before an unconditional assignment to it?

    Any read inside a nested compound statement, or in the right-hand side of its
    own assignment (``x += 1``, ``x = f(x)``), counts as a read before write.
    """
    for s in _flatten(stmts):
        if isinstance(s, cst.Assign):
            if _mentions(s.value, name):
                return True
            if any(_is_name(t.target, name) for t in s.targets):
                return False
            continue
        if isinstance(s, cst.AugAssign):
            if _is_name(s.target, name) or _mentions(s.value, name):
                return True
            continue
        if _mentions(s, name):
            return True
    return False


_REJECTED_STATEMENTS: dict[str, tuple[str, str]] = {
    "While": (
        "`while` loops are not supported",
        "loop over a RowStream or group_by(...) with `for`",
    ),
    "Try": ("`try` is not supported", "remove the try block; errors surface as Spark errors"),
    "TryStar": ("`try` is not supported", "remove the try block"),
    "With": ("`with` is not supported", "remove the with block"),
    "FunctionDef": (
        "nested `def` is not supported",
        "define the helper at module level (as a @dataflow function or a host function)",
    ),
    "ClassDef": ("nested `class` is not supported", "define classes (states) at module level"),
    "Global": ("`global` is not supported", "pass values as parameters"),
    "Nonlocal": ("`nonlocal` is not supported", "pass values as parameters"),
    "Break": (
        "`break` is not supported: a loop over a stream sees every row",
        "guard the loop body with `if` instead",
    ),
    "Continue": (
        "`continue` is not supported",
        "guard the rest of the loop body with `if` instead",
    ),
    "Raise": ("`raise` is not supported", "return a sentinel value (e.g. None) instead"),
    "Assert": ("`assert` is not supported", "guard with `if` instead"),
    "Del": ("`del` is not supported", "just stop using the name"),
    "Import": ("`import` inside a @dataflow function is not supported", "import at module level"),
    "ImportFrom": (
        "`import` inside a @dataflow function is not supported",
        "import at module level",
    ),
    "Match": ("`match` is not supported", "use if/elif/else"),
}

_REJECTED_EXPRESSIONS: dict[str, tuple[str, str]] = {
    "Lambda": ("`lambda` is not supported", "define a module-level function (a host function)"),
    "ListComp": ("list comprehensions are not supported", "loop over the stream with `for`"),
    "SetComp": ("set comprehensions are not supported", "use the Distinct state"),
    "DictComp": ("dict comprehensions are not supported", "use group_by(...)"),
    "GeneratorExp": ("generator expressions are not supported", "loop with `for`"),
    "List": ("list literals are not supported", "use a tuple, or a State to accumulate"),
    "Dict": ("dict literals are not supported", "use group_by(...) or a State"),
    "Set": ("set literals are not supported", "use the Distinct state"),
    "FormattedString": ("f-strings are not supported", "build strings with str(x) and +"),
    "Await": ("`await` is not supported", ""),
    "Yield": ("`yield` can only be a statement", "write `yield a, b` on its own line"),
    "NamedExpr": ("`:=` is not supported", "assign on its own line"),
    "Ellipsis": ("`...` is not supported", ""),
    "Slice": ("slices are not supported", "index with an integer literal"),
}
