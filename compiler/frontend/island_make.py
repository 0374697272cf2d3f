"""Making Python islands (``islands.py`` chooses the units): each unit becomes a generated
function compiled at the user's own lines, recorded for ``--explain``, and the call that
replaces it in the function: ``x, y = _island_f_L7(a, b)`` for a statement (with a
``continue`` flag where it may continue the loop), ``_island_f_L9(words)`` for a value,
``return _island_f(s)`` for the whole function.

An output's type, where no annotation gives one, is the type of the input it came in as
or of the literal it started from (``__looplift_island_passthrough__``, read by the
backend's host typing)."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import libcst as cst

from ..errors import Diagnostic
from ..ir.nodes import Span
from .env import RowValue, Value
from .island_live import LiveNames
from .island_syntax import (
    CONTINUES,
    ISLAND_PREFIX,
    ROWS,
    YIELDS,
    ContinueAsReturn,
    Island,
    YieldAsAppend,
    code,
    escapes,
    island_module,
    make_function,
    scope_names,
    yielded_arity,
)
from .syntax import code_of, int_literal, walk

__all__ = ["IslandMaker", "Unit", "flatten_rows", "literal_type"]


@dataclass
class Unit:
    node: cst.CSTNode  # what is replaced: a statement, or an expression in one
    stmt: cst.CSTNode  # the statement holding it
    kind: str  # "expression", "return value" or "statement"
    diag: Diagnostic
    returns: str | None = None  # the annotation of an expression's value
    # simple statements just before a statement unit whose values only it reads: they go
    # into the island with it (computed in Python where Python alone reads them)
    before: tuple[cst.CSTNode, ...] = ()


def literal_type(s: cst.CSTNode) -> str | None:
    """``"int"`` for ``n = 0`` (``str``, ``float``, ``bool``: a name set to a literal), else
    None: the type an island's output has when it starts from this line."""
    small = s.body[0] if isinstance(s, cst.SimpleStatementLine) and len(s.body) == 1 else None
    if not (isinstance(small, cst.Assign) and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name)):  # fmt: skip
        return None
    v = small.value
    if isinstance(v, cst.UnaryOperation) and isinstance(v.operator, cst.Minus):
        v = v.expression
    if isinstance(v, cst.Integer):
        return "int"
    if isinstance(v, cst.Float):
        return "float"
    if isinstance(v, cst.SimpleString) and not v.prefix.lower().count("b"):
        return "str"
    if isinstance(v, cst.Name) and v.value in ("True", "False"):
        return "bool"
    return None


def flatten_rows(nodes: list[cst.CSTNode], env: dict[str, Any], taken: set[str]
                 ) -> tuple[list[cst.CSTNode], dict[str, str]]:  # fmt: skip
    """``nodes`` with each field of a row they read (``c.page``, ``row[1]``) as a plain
    name (``c__page``, ``row__1``), and those names -> the field (``"c.page"``,
    ``"row[1]"``): an island takes the fields it reads, not the row. A row used otherwise
    (``f(c)``, ``row[i]``) stays a free name, which the outliner does not take."""
    rows = {n for n, b in env.items()
            if (isinstance(b, RowValue) and b.names) or (isinstance(b, Value) and b.row_names)}  # fmt: skip
    # a row read by position (``row[1]``): its width, to take only fields it has
    widths = {n: len(b.fields) for n, b in env.items() if isinstance(b, RowValue) and b.fields}
    fields: dict[str, str] = {}

    def field(text: str, name: str) -> cst.Name:
        got = next((k for k, v in fields.items() if v == text), None)
        if got is None:
            got = name
            while got in taken or got in fields:
                got += "_"
            fields[got] = text
        return cst.Name(got)

    class Flatten(cst.CSTTransformer):
        def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> Any:
            if not (isinstance(updated.value, cst.Name) and updated.value.value in rows):
                return updated
            row, attr = updated.value.value, updated.attr.value
            return field(f"{row}.{attr}", f"{row}__{attr}")

        def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript) -> Any:
            base = updated.value
            if not (isinstance(base, cst.Name) and base.value in widths
                    and len(updated.slice) == 1
                    and isinstance(updated.slice[0].slice, cst.Index)):  # fmt: skip
                return updated
            i = int_literal(updated.slice[0].slice.value)
            n = widths[base.value]
            if i is None or not -n <= i < n:
                return updated  # Python's IndexError stays where Python raises it
            i %= n
            return field(f"{base.value}[{i}]", f"{base.value}__{i}")

    if not rows and not widths:
        return nodes, {}
    out = [n.visit(Flatten()) for n in nodes]
    return out, fields  # type: ignore[return-value]



class IslandMaker:
    """Makes the islands of the units :class:`~.islands.Outliner` chose."""

    obj: Any
    user_fn: cst.FunctionDef
    span: Callable[[cst.CSTNode], Span]
    origins: dict[cst.CSTNode, cst.CSTNode]
    module: str
    globals: dict[str, Any]
    islands: list[Island]
    functions: dict[str, Any]
    annotations: dict[str, str]
    whole: bool
    locals: set[str]

    def _env(self, s: cst.CSTNode, envs: dict) -> dict[str, Any] | None:
        raise NotImplementedError

    def _read_elsewhere(self, fn: cst.FunctionDef, s: cst.CSTNode | list[cst.CSTNode]) -> set[str]:
        raise NotImplementedError

    def _name(self, s: cst.CSTNode | None) -> str:
        base = f"{ISLAND_PREFIX}{self.obj.name}"
        if s is None:
            return base
        sp = self.span(s)
        name = f"{base}_L{sp.line}"
        while name in self.functions:
            name += "_"
        return name

    def _returns(self) -> str | None:
        r = self.user_fn.returns
        return code_of(r.annotation).strip() if r is not None else None

    def _define(self, name: str, params: list[str], body: str, returns: str | None,
                at: cst.CSTNode) -> Any:  # fmt: skip
        """The island ``name``; its code is compiled at the user's file and lines (``at``:
        the user's node its body starts with), so a traceback points at the user's code."""
        ann = f" -> {returns!r}" if returns else ""  # resolved in the user's globals when read
        src = f"def {name}({', '.join(params)}){ann}:\n{textwrap.indent(body, '    ')}"
        if not src.endswith("\n"):
            src += "\n"
        sp = self.span(at)
        first = sp.line - len(getattr(at, "leading_lines", ()))  # the body's first line
        fn = make_function(self.globals, self.module, name, src, (sp.path, first))
        self.functions[name] = fn
        return fn

    def _record(self, name: str, kind: str, at: cst.CSTNode | Span, d: Diagnostic,
                ins: list[str], outs: list[str], before: tuple[cst.CSTNode, ...] = (),
                yields: bool = False, fields: dict[str, str] | None = None) -> None:  # fmt: skip
        sp = at if isinstance(at, Span) else self.span(at)
        ref = f"{island_module(self.module).__name__}:{name}"
        lines = tuple(self.span(p).line for p in before)
        args = tuple((fields or {}).get(n, n) for n in ins) if fields else ()
        self.islands.append(Island(name, ref, kind, sp, d.message, d.hint, tuple(ins), tuple(outs),
                                   absorbed=lines, yields=yields, args=args))  # fmt: skip

    def _whole(self, d: Diagnostic) -> cst.FunctionDef:
        self.whole = True
        self.islands.clear()
        self.functions.clear()
        user = self.user_fn
        params = [p.name.value for p in [*user.params.posonly_params, *user.params.params]]
        name = self._name(None)
        self._define(name, params, code(list(user.body.body)), self._returns(), user.body.body[0])
        self._record(name, "whole function", self.span(user), d, params, [])
        call = cst.parse_statement(f"return {name}({', '.join(params)})\n")
        self._origin_tree(call, user)
        body = user.body.with_changes(body=[call])
        self.origins[body] = user.body
        new = user.with_changes(body=body)
        self.origins[new] = user
        return new

    def _replace(self, u: Unit, fn: cst.FunctionDef, envs: dict) -> cst.CSTNode:
        s = u.stmt
        env = self._env(s, envs) or {}
        bound = set(env)
        name = self._name(u.node)
        if u.kind != "statement":
            (flat,), fields = flatten_rows([u.node], env, self.locals)
            text = code_of(flat).strip()
            free, _, _ = scope_names(f"_v = {text}\n")
            ins = sorted(free & (bound | set(fields)))
            self._define(name, ins, f"return ({text})\n", u.returns, u.node)
            self._record(name, u.kind, u.node, u.diag, ins, [], fields=fields)
            args = [fields.get(n, n) for n in ins]
            new: cst.CSTNode = cst.parse_expression(f"{name}({', '.join(args)})")
        else:
            nodes = originals = [*u.before, s]
            if u.before:
                env = self._env(u.before[0], envs) or {}
                bound = set(env)
            nodes, fields = flatten_rows(nodes, env, self.locals)
            bound |= set(fields)
            src = code(nodes)  # type: ignore[arg-type]
            free, assigned, _ = scope_names(src)
            ins = sorted(free | (assigned & bound))
            ins = [n for n in ins if n in bound]
            live = LiveNames(fn)  # the outputs: assigned here and read after (island_live.py)
            outs = sorted(n for n in assigned & self._read_elsewhere(fn, originals)
                          if live.live_after(s, n))  # fmt: skip
            types_ = [self.annotations.get(o) for o in outs]
            returns = None
            if outs and all(types_):
                returns = types_[0] if len(outs) == 1 else f"tuple[{', '.join(types_)}]"  # type: ignore[arg-type]
            if escapes(src) == CONTINUES:  # `continue`: a flag first, then the outputs
                new = self._continuing(u, nodes[-1], name, ins, outs, fields)
                for n in new.nodes:
                    self._origin_tree(n, u.node)
                return new
            # an output's type: the input it came in as, or the literal it started from
            starts = {n: t for p in u.before if (t := literal_type(p)) is not None
                      for n in scope_names(code([p]))[1]}  # type: ignore[list-item]  # fmt: skip
            passthrough = tuple(starts.get(o) or (ins.index(o) if o in ins else None)
                                for o in outs)  # fmt: skip
            if escapes(src) == YIELDS:  # rows: the island returns them, the call site yields
                new = self._yielding(u, nodes, name, ins, outs, fields, passthrough)
                for n in new.nodes:
                    self._origin_tree(n, u.node)
                return new
            ret = ("return " + ", ".join(outs) + "\n") if outs else ""
            made = self._define(name, ins, src + ret, returns, u.before[0] if u.before else s)
            made.__looplift_island_passthrough__ = passthrough
            self._record(name, u.kind, s, u.diag, ins, outs, u.before, fields=fields)
            call = f"{name}({', '.join(fields.get(n, n) for n in ins)})"
            lhs = f"{', '.join(outs)} = " if outs else ""
            if len(outs) == 1 and returns:
                lhs = f"{outs[0]}: {returns} = "
            new = cst.parse_statement(f"{lhs}{call}\n")
        self._origin_tree(new, u.node)
        return new

    def _continuing(self, u: Unit, stmt: cst.CSTNode, name: str, ins: list[str], outs: list[str],
                    fields: dict[str, str]) -> Any:  # fmt: skip
        """A statement that may ``continue`` the loop around it: the island returns whether
        it did and the outputs; ``if <flag>: continue`` follows its call."""
        body = stmt.visit(ContinueAsReturn(outs))
        vals = ", ".join(["False", *outs])
        types_ = [self.annotations.get(o) for o in outs]
        returns = f"tuple[{', '.join(['bool', *types_])}]" if all(types_) else None  # type: ignore[list-item]
        made = self._define(name, ins, code([body]) + f"return ({vals},)\n", returns,  # type: ignore[list-item]
                            u.stmt)
        made.__looplift_island_passthrough__ = (-1, *(ins.index(o) if o in ins else None
                                                      for o in outs))  # fmt: skip
        self._record(name, u.kind, u.stmt, u.diag, ins, outs, fields=fields)
        flag = f"{ISLAND_PREFIX}continue_{name[len(ISLAND_PREFIX):]}"
        args = ", ".join(fields.get(n, n) for n in ins)
        lines = cst.parse_module(f"{', '.join([flag, *outs])} = {name}({args})\n"
                                 f"if {flag}:\n    continue\n")  # fmt: skip
        return cst.FlattenSentinel(lines.body)

    def _yielding(self, u: Unit, nodes: list[cst.CSTNode], name: str, ins: list[str],
                  outs: list[str], fields: dict[str, str], passthrough: tuple) -> Any:  # fmt: skip
        """A statement that yields rows: the island collects them in a list and returns it
        (first, then the outputs); ``for <row> in <the list>: yield <row>`` follows its call.
        The rows' types are those of the yielded expressions, read by the backend's host
        typing (``__looplift_island_rows__``)."""
        body = [n.visit(YieldAsAppend()) for n in nodes]
        vals = f"({', '.join([ROWS, *outs])},)" if outs else ROWS
        made = self._define(name, ins, f"{ROWS} = []\n" + code(body) + f"return {vals}\n",  # type: ignore[arg-type]
                            None, u.before[0] if u.before else u.stmt)
        made.__looplift_island_rows__ = ROWS
        made.__looplift_island_passthrough__ = passthrough
        self._record(name, u.kind, u.stmt, u.diag, ins, outs, u.before, yields=True,
                     fields=fields)
        rows = f"{ROWS}_{name[len(ISLAND_PREFIX):]}"
        args = ", ".join(fields.get(n, n) for n in ins)
        n = yielded_arity([u.stmt])
        item = ", ".join(f"{ISLAND_PREFIX}y{i}" for i in range(n)) if n else f"{ISLAND_PREFIX}y"
        lhs = f"{', '.join([rows, *outs])}" if outs else rows
        lines = cst.parse_module(f"{lhs} = {name}({args})\n"
                                 f"for {item} in {rows}:\n    yield {item}\n")  # fmt: skip
        return cst.FlattenSentinel(lines.body)

    def _origin_tree(self, new: cst.CSTNode, at: cst.CSTNode) -> None:
        for n in walk(new):
            self.origins.setdefault(n, at)
