"""Shared analysis of let-normalized IR: loops, bindings, state call sites, guards.

One walk records, for every binder, the stack of loops that encloses it and
the stack of ``if`` guards on the way; for every loop, what it iterates
(which RowStream parameter, which of its fields, grouped by which key); and
for every state call, yield and host call, where it happens.

>>> # analysis = analyze(program.fn)   # after let_normalize
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from functools import cached_property

from .ir.nodes import (
    Apply,
    Builtin,
    Expr,
    Function,
    Host,
    Lambda,
    Let,
    ParamKind,
    Span,
    StateCall,
    StateNew,
    Var,
    attr,
)
from .ir.traverse import free_vars

__all__ = ["Analysis", "Loop", "LoopKind", "Site", "SiteKind", "Bound", "StateDecl", "analyze", "is_ranked", "rank_field"]

Guard = tuple[str, bool]  # (condition variable, branch taken)


class LoopKind(enum.StrEnum):
    """What a loop iterates (a str, equal to its value)."""

    ROWS = "rows"  # the rows of a stream or of a group
    GROUP = "group"  # the groups of ``group_by``


class SiteKind(enum.StrEnum):
    """What a call site is (a str, equal to its value)."""

    ACTION = "action"  # a state's action
    READ = "read"  # a state's reader
    HOST = "host"  # a host function call
    YIELD = "yield"  # a ``yield``


@dataclass(frozen=True)
class Loop:
    """An ``smap``: a loop over a stream (``LoopKind.ROWS``) or over groups (``GROUP``)."""

    name: str
    kind: LoopKind
    params: tuple[str, ...]
    ordered: bool
    source: str  # the RowStream parameter ultimately iterated
    fields: tuple[int, ...]  # rows loop: source field of each param; group: of the stream
    key: tuple[int, ...]  # group loop: source fields of the key
    # group loop: (source field, descending) ordering each group; rows loop over
    # ``sorted_by``: its order; the remaining fields break ties, ascending
    order_by: tuple[tuple[int, bool], ...] | None
    parent: str | None
    span: Span


@dataclass(frozen=True)
class Site:
    """A state call, a ``yield`` or a host call."""

    kind: SiteKind
    state: str  # state variable (or "" for yield/host)
    method: str  # action/reader name, host ref, or "yield"
    args: tuple[Expr, ...]
    result: str  # the let binder ("_" for effects)
    loops: tuple[str, ...]
    guards: tuple[Guard, ...]
    span: Span


@dataclass(frozen=True)
class Bound:
    """A binder: its defining value (None for parameters) and its context."""

    name: str
    value: Expr | None
    loops: tuple[str, ...]
    guards: tuple[Guard, ...]
    span: Span


@dataclass(frozen=True)
class StateDecl:
    name: str
    cls: str
    args: tuple[Expr, ...]
    loops: tuple[str, ...]
    span: Span


@dataclass(frozen=True)
class Analysis:
    """What one walk of the let-normal IR found (built by :func:`analyze`, then read-only)."""

    fn: Function
    loops: dict[str, Loop] = field(default_factory=dict)
    bound: dict[str, Bound] = field(default_factory=dict)
    sites: list[Site] = field(default_factory=list)
    states: dict[str, StateDecl] = field(default_factory=dict)
    # stream variable -> (source param, source fields)
    streams: dict[str, tuple[str, tuple[int, ...]]] = field(default_factory=dict)
    # virtual source fields (index >= the source's arity): a computed group key part,
    # (its IR over ``_kf.<source field>`` variables, its type)
    virtual: dict[int, tuple[Expr, str]] = field(default_factory=dict)

    def actions_of(self, state: str) -> list[Site]:
        return [s for s in self.sites if s.kind == SiteKind.ACTION and s.state == state]

    def reads_of(self, state: str) -> list[Site]:
        return [s for s in self.sites if s.kind == SiteKind.READ and s.state == state]

    @cached_property
    def deps(self) -> dict[str, frozenset[str]]:
        """Direct dependencies of each binder (free variables of its value)."""
        return {
            n: (free_vars(b.value) if b.value is not None else frozenset())
            for n, b in self.bound.items()
        }

    def rows_origin(self, loop: str) -> str:
        """The stream variable whose rows feed ``loop``: a RowStream parameter or a
        group loop's substream parameter (aliases and projections followed)."""
        v = self.bound[loop].value
        stream = v.args[1] if isinstance(v, Apply) else None
        while isinstance(stream, Var):
            b = self.bound.get(stream.name)
            if b is None or b.value is None:
                return stream.name
            val = b.value
            if isinstance(val, Var):
                stream = val
            elif (
                isinstance(val, Apply)
                and isinstance(val.fn, Builtin)
                and val.fn.name
                in (
                    "project",
                    "group_by",
                    "sorted_by",
                    "ranked",
                )
            ):
                stream = val.args[0]
            else:
                break
        return self.loops[loop].source

    def input_key(self, loop: str) -> tuple[str | None, str]:
        """Loops with equal keys iterate the same rows (possibly projected differently)."""
        lp = self.loops[loop]
        return (lp.parent, self.rows_origin(loop))

    def closure(self, names: frozenset[str] | set[str]) -> set[str]:
        """All binders that ``names`` depend on, transitively (including them)."""
        out: set[str] = set()
        todo = list(names)
        while todo:
            n = todo.pop()
            if n in out:
                continue
            out.add(n)
            todo.extend(self.deps.get(n, ()))
        return out


def analyze(fn: Function) -> Analysis:
    a = Analysis(fn)
    for p in fn.params:
        a.bound[p.name] = Bound(p.name, None, (), (), p.span)
        if p.kind == ParamKind.ROWS:
            a.streams[p.name] = (p.name, tuple(range(len(p.types))))
    _walk(fn.body, a, (), ())
    return a


def _walk(e: Expr, a: Analysis, loops: tuple[str, ...], guards: tuple[Guard, ...]) -> None:
    while isinstance(e, Let):
        _binding(e.name, e.value, e.span, a, loops, guards)
        e = e.body
    _binding("_", e, e.span, a, loops, guards)


def _binding(
    name: str,
    v: Expr,
    span: Span,
    a: Analysis,
    loops: tuple[str, ...],
    guards: tuple[Guard, ...],
) -> None:
    if name != "_":
        a.bound[name] = Bound(name, v, loops, guards, span)
    if isinstance(v, Var) and v.name in a.streams:
        a.streams[name] = a.streams[v.name]  # an alias of a stream (an inlined parameter)
    if not isinstance(v, Apply):
        return
    f = v.fn
    if isinstance(f, StateNew):
        a.states[name] = StateDecl(name, f.cls, v.args, loops, span)
    elif isinstance(f, StateCall):
        kind = SiteKind.READ if name != "_" else SiteKind.ACTION
        a.sites.append(Site(kind, f.state, f.method, v.args, name, loops, guards, v.span))
    elif isinstance(f, Host):
        a.sites.append(Site(SiteKind.HOST, "", f.ref, v.args, name, loops, guards, v.span))
    elif isinstance(f, Builtin):
        if f.name == "yield":
            a.sites.append(Site(SiteKind.YIELD, "", "yield", v.args, name, loops, guards, v.span))
        elif f.name == "sorted_by" and isinstance(v.args[0], Var):
            a.streams[name] = a.streams.get(v.args[0].name, (v.args[0].name, ()))
        elif f.name == "ranked" and isinstance(v.args[0], Var):
            # a ranked stream: its rows and their rank, a virtual field after the source's
            src, fields = a.streams.get(v.args[0].name, (v.args[0].name, ()))
            a.streams[name] = (src, (*fields, rank_field(a, src)))
        elif f.name == "project" and isinstance(v.args[0], Var):
            src, fields = a.streams.get(v.args[0].name, (v.args[0].name, ()))
            pick = attr(f, "fields")
            a.streams[name] = (src, tuple(fields[i] for i in pick) if fields else pick)
        elif f.name == "if":
            cond = v.args[0]
            cname = cond.name if isinstance(cond, Var) else repr(getattr(cond, "value", cond))
            for branch, lam in ((True, v.args[1]), (False, v.args[2])):
                if isinstance(lam, Lambda):
                    _walk(lam.body, a, loops, (*guards, (cname, branch)))
        elif f.name == "smap":
            _loop(name, v, f, a, loops, guards)


def _loop(
    name: str, v: Apply, f: Builtin, a: Analysis, loops: tuple[str, ...], guards: tuple[Guard, ...]
) -> None:
    lam, stream = v.args
    assert isinstance(lam, Lambda) and isinstance(stream, Var)
    parent = loops[-1] if loops else None
    sdef = a.bound.get(stream.name)
    sval = sdef.value if sdef is not None else None
    inner = (*loops, name)
    if isinstance(sval, Apply) and isinstance(sval.fn, Builtin) and sval.fn.name == "group_by":
        src_var = sval.args[0].name  # type: ignore[union-attr]
        src, fields = a.streams.get(src_var, (src_var, ()))
        key = _key_fields(a, sval.fn, src, fields)
        ob = attr(sval.fn, "order_by")
        loop = Loop(
            name,
            LoopKind.GROUP,
            lam.params,
            False,
            src,
            fields,
            key,
            _order(ob, fields),
            parent,
            v.span,
        )
        a.streams[lam.params[1]] = (src, fields)
    else:
        src, fields = a.streams.get(stream.name, (stream.name, ()))
        ordered_by = None
        if (
            isinstance(sval, Apply)
            and isinstance(sval.fn, Builtin)
            and sval.fn.name
            in (
                "sorted_by",
                "ranked",
            )
        ):
            ordered_by = _order(attr(sval.fn, "order"), fields)
        loop = Loop(
            name,
            LoopKind.ROWS,
            lam.params,
            bool(attr(f, "ordered")),
            src,
            fields,
            (),
            ordered_by,
            parent,
            v.span,
        )
    a.loops[name] = loop
    for p in lam.params:
        a.bound[p] = Bound(p, None, inner, guards, lam.span)
    _walk(lam.body, a, inner, guards)


def _order(
    ob: tuple[tuple[int, bool], ...] | None, fields: tuple[int, ...]
) -> tuple[tuple[int, bool], ...] | None:
    """An order over a stream's fields, as an order over its source's fields."""
    if ob is None:
        return None
    return tuple((fields[i] if fields else i, d) for i, d in ob)


def rank_field(a: Analysis, src: str) -> int:
    """A fresh virtual field of ``src`` for the rank of a ranked stream's rows."""
    p = next((p for p in a.fn.params if p.name == src), None)
    base = len(p.types) if p is not None else 0
    used = {f for _, fs in a.streams.values() for f in fs if f >= base} | set(a.virtual)
    return max(used, default=base - 1) + 1


def is_ranked(lp: Loop, nfields: int) -> bool:
    """A loop over a ranked stream (its last field is the rank, a window function)."""
    return (
        lp.kind == LoopKind.ROWS
        and lp.order_by is not None
        and not lp.ordered
        and bool(lp.fields)
        and lp.fields[-1] >= nfields
    )


def _key_fields(a: Analysis, g: Builtin, src: str, fields: tuple[int, ...]) -> tuple[int, ...]:
    """A group_by's key as source fields; a computed part becomes a virtual field."""
    from .ir.traverse import map_children

    computed = {pos: (e, t) for pos, e, t in attr(g, "computed", ())}
    out = []
    for pos, i in enumerate(attr(g, "key")):
        if i >= 0:
            out.append(fields[i] if fields else i)
            continue
        e, t = computed[pos]

        def to_source(x: Expr) -> Expr:
            if isinstance(x, Var) and x.name.startswith("_kf."):
                j = int(x.name[4:])
                return Var(f"_kf.{fields[j] if fields else j}")
            return map_children(x, to_source)

        v = rank_field(a, src)
        a.virtual[v] = (to_source(e), t)
        out.append(v)
    return tuple(out)
