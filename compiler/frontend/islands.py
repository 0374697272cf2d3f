"""Python islands: what the frontend has no exact native lowering for runs as Python.

When translation refuses a construct that has a meaning in parallel (a bare ``try``, a
``while`` loop, a comprehension over ``s.split()``, ``Counter(words)``, ...), the smallest
enclosing unit that can run in Python is *outlined*: a libcst rewrite lifts it into a
generated function (an *island*) of a synthetic module, and the call site becomes an
ordinary host-function call, which the backend already runs as a vectorized Arrow function
on the call's path only. The units, smallest first:

- a statement (with what it nests): its free locals in, the names it assigns that the
  function reads elsewhere out (``a, b = _island_f_L7(x, y)``);
- the value of a ``return`` (``return _island_f_L9(words)``);
- the whole function, for a scalar algorithm (``return _island_f(s)``).

A unit can be outlined only when it runs the same in Python on one row's values: its free
locals are plain values (not streams, states or containers), it does not ``return`` or
``yield`` out of itself, ``break``/``continue`` nothing outside it, and writes no global
or shared object (``global``, ``CONFIG[k] = v``, ``items.append(x)`` of an input). What
has no meaning in parallel stays refused with its diagnostic: order-dependent updates, a
state escaping its scope and cyclic state dependencies are found by the passes after the
frontend, and are never outlined.

The island sees the values Python would have seen (None, big ints) and raises what Python
raises: it is the user's own code, executed in the user module's globals.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import libcst as cst

from ..errors import Diagnostic
from ..ir.nodes import UNKNOWN, Span
from .env import Carry, MaybeUnbound, Poison, Value
from .island_make import IslandMaker, Unit, flatten_rows, literal_type
from .island_syntax import (
    CONTINUES,
    COST,
    ISLAND_PREFIX,
    YIELDS,
    Island,
    annotations,
    code,
    defines,
    escapes,
    is_stmt,
    island_module,
    scope_names,
    writes_outside,
)
from .syntax import code_of, walk

__all__ = ["COST", "ISLAND_PREFIX", "LOOP_LOCAL", "Island", "Outliner", "island_module"]

_NOT_OUTLINED = (
    "unknown name",
    "parameter `",
    "@dataflow",
    "columns",
    "`global`",
    "`nonlocal`",
    "async",
    "await",
    "yield",
    "not importable",
    "reassigned",
    "syntax error",
    "argument",
    "state action",
    "state `",
    "scope",
    "created inside",
    "recursion",
    "format has",
    "has no field",
)
# order problems: with rows, what they say has no meaning in parallel; a scalar algorithm has
# no rows, so its order is Python's (a list filled from `s.split()`), which an island keeps
_ORDER = ("no order", "no defined order", "on the order", "unordered")
_PLAIN = (Value, Carry, Poison, MaybeUnbound)


def _block_of(fn: cst.FunctionDef, stmt: cst.CSTNode) -> list[cst.CSTNode] | None:
    """The statements of the block that holds ``stmt``."""
    for n in walk(fn):
        body = getattr(n, "body", None)
        if isinstance(body, (list, tuple)) and any(b is stmt for b in body):
            return list(body)
    return None


def _simple_assignment(s: cst.CSTNode) -> bool:
    """A line of one assignment to plain names (``x = int(code)``, ``s = 0``, ``n += 1``)."""
    if not (isinstance(s, cst.SimpleStatementLine) and len(s.body) == 1):
        return False
    small = s.body[0]
    if isinstance(small, cst.Assign):
        targets = [t.target for t in small.targets]
    elif isinstance(small, (cst.AugAssign, cst.AnnAssign)) and small.value is not None:
        targets = [small.target]
    else:
        return False
    names = [e.value if isinstance(t, cst.Tuple) else e
             for t in targets for e in (t.elements if isinstance(t, cst.Tuple) else [t])]  # fmt: skip
    if not all(isinstance(n, cst.Name) for n in names):
        return False
    return not any(isinstance(n, (cst.Yield, cst.Await, cst.NamedExpr)) for n in walk(s))


# -- the outliner -------------------------------------------------------------------------------


LOOP_LOCAL = object()  # a name bound inside a loop that has ended (order-dependent to read)


class Outliner(IslandMaker):
    """Rewrites a function, round after round, until its refusals are islands.

    ``span`` places a node of the (rewritten) tree in the user's source; ``origins`` is the
    parsed module's table of built nodes → the user's nodes they stand for; ``envs`` maps a
    user statement to the names bound where the translator met it (``Env.names``).
    """

    def __init__(self, obj: Any, user_fn: cst.FunctionDef, span: Callable[[cst.CSTNode], Span],
                 origins: dict[cst.CSTNode, cst.CSTNode]) -> None:  # fmt: skip
        self.obj = obj
        self.user_fn = user_fn
        self.span = span
        self.origins = origins
        self.module = obj.fn.__module__
        self.globals = obj.fn.__globals__
        self.islands: list[Island] = []
        self.functions: dict[str, Any] = {}
        self.annotations = annotations(user_fn)
        ps = user_fn.params
        params = [p.name.value for p in [*ps.posonly_params, *ps.params, *ps.kwonly_params]]
        params += [p.name.value for p in (ps.star_arg, ps.star_kwarg) if isinstance(p, cst.Param)]
        try:
            _, assigned, _ = scope_names(code(list(user_fn.body.body)))
        except SyntaxError:
            assigned = set()
        self.locals = assigned | set(params)  # every local name of the user's function
        self.whole = False

    # -- choosing units --------------------------------------------------------------------------
    def outline(self, fn: cst.FunctionDef, diags: list[Diagnostic],
                envs: dict[cst.CSTNode, dict[str, Any]]) -> cst.FunctionDef | None:  # fmt: skip
        """``fn`` with the units of ``diags`` outlined, or None when none can be."""
        if self.whole:
            return None
        chains = self._chains(fn)
        units: dict[int, Unit] = {}
        whole: Diagnostic | None = None
        refused = _NOT_OUTLINED if self._scalar() else _NOT_OUTLINED + _ORDER
        for d in diags:
            if d.span is UNKNOWN or not d.span.line or any(k in d.message for k in refused):
                continue
            chain = self._chain_at(chains, d.span)
            if not chain:
                continue
            unit = self._unit(chain, d, envs)
            if unit is None:
                whole = whole or d
                continue
            units.setdefault(id(unit.node), unit)
        if whole is not None and self._scalar():
            return self._whole(whole)
        if not units:
            return None

        def above(u: Unit) -> tuple[cst.CSTNode, ...]:
            outer = self._ancestors(chains, u.stmt)
            return outer if u.node is u.stmt else (*outer, u.stmt)

        # an outlined statement's own nested units go with it
        chosen = [u for u in units.values() if not any(id(a) in units for a in above(u))]
        taken = {id(u.stmt) for u in units.values()}
        replace: dict[int, Any] = {}
        for u in chosen:
            if u.kind == "statement":
                u.before = self._absorbed(fn, u, envs, taken)
                taken |= {id(p) for p in u.before}
            replace[id(u.node)] = self._replace(u, fn, envs)
            replace.update({id(p): cst.RemovalSentinel.REMOVE for p in u.before})
        return self._rewrite(fn, replace)

    def _absorbed(self, fn: cst.FunctionDef, u: Unit, envs: dict,
                  taken: set[int]) -> tuple[cst.CSTNode, ...]:  # fmt: skip
        """The simple assignments just before statement unit ``u`` (in its block, nearest
        first, stopping at the first that does not qualify) that the island takes in:
        each assigns only names that nothing but the island reads (or that the island
        assigns again), reads plain values, and taking it adds no input to the island.
        ``x = int(code)`` before a ``while`` over ``x``: the island parses ``code`` in
        Python instead of the plan parsing it natively (with Python's checks) and shipping
        the int across."""
        block = _block_of(fn, u.stmt)
        if block is None:
            return ()
        at = next(i for i, b in enumerate(block) if b is u.stmt)
        out: list[cst.CSTNode] = []
        later = scope_names(code([u.stmt]))[1]  # type: ignore[list-item]
        ins = self._inputs(fn, [u.stmt], envs)
        for p in reversed(block[:at]):
            if id(p) in taken or not _simple_assignment(p) or self._is_island_call(p):
                break
            nodes = [p, *out, u.stmt]
            env = self._env(p, envs)
            if env is None or not self._block_ok(nodes, env):
                break
            assigned = scope_names(code([p]))[1]
            elsewhere = self._read_elsewhere(fn, nodes)
            if any(t in elsewhere and t not in later for t in assigned):
                break
            if any(t in elsewhere for t in assigned) and literal_type(p) is None:
                break  # an output whose type the island's caller could not know
            more = self._inputs(fn, nodes, envs)
            if more is None or ins is None or len(more) > len(ins):
                break
            out.insert(0, p)
            later |= assigned
            ins = more
        return tuple(out)

    def _inputs(self, fn: cst.FunctionDef, nodes: list[cst.CSTNode], envs: dict) -> list[str] | None:
        env = self._env(nodes[0], envs)
        if env is None:
            return None
        nodes, fields = flatten_rows(nodes, env, self.locals)
        free, assigned, _ = scope_names(code(nodes))  # type: ignore[arg-type]
        return [n for n in sorted(free | (assigned & set(env))) if n in env or n in fields]

    def _chains(self, fn: cst.FunctionDef) -> list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]]:
        """Every statement of the body with its enclosing statements (outermost first)."""
        out: list[tuple[cst.CSTNode, tuple[cst.CSTNode, ...]]] = []

        def visit(n: cst.CSTNode, above: tuple[cst.CSTNode, ...]) -> None:
            for c in n.children:
                if is_stmt(c):
                    out.append((c, above))
                    visit(c, (*above, c))
                elif not isinstance(c, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
                    visit(c, above)

        visit(fn.body, ())
        return out

    def _ancestors(self, chains: list, stmt: cst.CSTNode) -> tuple[cst.CSTNode, ...]:
        for s, above in chains:
            if s is stmt:
                return above
        return ()

    def _inside(self, node: cst.CSTNode, at: Span) -> bool:
        sp = self.span(node)
        if sp is UNKNOWN or not sp.line:
            return False
        pos = (at.line, at.col)
        return (sp.line, sp.col) <= pos <= (sp.end_line or sp.line, sp.end_col or 10**9)

    def _chain_at(self, chains: list, at: Span) -> list[cst.CSTNode]:
        """The statements around ``at``, innermost first."""
        best: tuple[cst.CSTNode, tuple] | None = None
        for s, above in chains:
            if self._inside(s, at) and (best is None or len(above) >= len(best[1])):
                best = (s, above)
        if best is None:
            return []
        return [best[0], *reversed(best[1])]

    def _unit(self, chain: list[cst.CSTNode], d: Diagnostic, envs: dict) -> Unit | None:
        for s in chain:
            if self._is_island_call(s):
                continue
            env = self._env(s, envs)
            if env is None:
                continue
            got = self._value(s, d.span)
            if got is not None:
                expr, kind, returns = got
                if self._expr_ok(expr, env):
                    return Unit(expr, s, kind, d, returns)
                if kind == "return value":
                    continue
            if self._block_ok(s, env):
                return Unit(s, s, "statement", d)
        return None

    def _env(self, s: cst.CSTNode, envs: dict) -> dict[str, Any] | None:
        first = s.body[0] if isinstance(s, cst.SimpleStatementLine) and s.body else s
        for n in (first, s):
            while True:
                if n in envs:
                    return envs[n]
                if n not in self.origins:
                    break
                n = self.origins[n]
        return None

    def _is_island_call(self, s: cst.CSTNode) -> bool:
        return any(isinstance(n, cst.Name) and n.value.startswith(ISLAND_PREFIX) for n in walk(s))

    def _value(self, s: cst.CSTNode, at: Span) -> tuple[cst.BaseExpression, str, str | None] | None:
        """The expression of a simple statement that holds ``at`` and can be an island on its
        own: a returned value, an assigned value, a yielded value (or one of its items)."""
        if not (isinstance(s, cst.SimpleStatementLine) and len(s.body) == 1):
            return None
        small = s.body[0]
        if isinstance(small, cst.Return) and small.value is not None:
            if self.user_fn.returns is None:
                return None
            return small.value, "return value", self._returns()
        value: cst.BaseExpression | None = None
        returns = None
        if isinstance(small, cst.Assign) and len(small.targets) == 1:
            value = small.value
        elif isinstance(small, cst.AugAssign) and isinstance(small.target, cst.Name):
            value = small.value
        elif isinstance(small, cst.AnnAssign) and small.value is not None:
            value = small.value
            returns = code_of(small.annotation.annotation).strip()
        elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Yield):
            value = small.value.value
            if isinstance(value, cst.Tuple):
                value = next((e.value for e in value.elements
                              if not isinstance(e, cst.StarredElement)
                              and self._inside(e.value, at)), None)  # fmt: skip
        if value is None or not self._inside(value, at):
            return None
        return value, "expression", returns

    def _inputs_ok(self, names: set[str], env: dict[str, Any]) -> bool:
        """Every local the unit reads or rebinds is a plain value bound here (a name of the
        function not bound here is a scope problem, or unbound: Python's error, kept)."""
        for n in names:
            if n in env:
                if not isinstance(env[n], _PLAIN):
                    return False
            elif n in self.locals:
                return False
        return True

    def _expr_ok(self, value: cst.BaseExpression, env: dict[str, Any]) -> bool:
        if any(isinstance(n, (cst.Yield, cst.Await, cst.NamedExpr)) for n in walk(value)):
            return False
        (value,), _ = flatten_rows([value], env, self.locals)  # a named row's fields
        try:
            free, _, declared = scope_names(f"_v = {code_of(value)}\n")
        except SyntaxError:
            return False
        return not declared and self._inputs_ok(free, env)

    def _block_ok(self, s: cst.CSTNode | list[cst.CSTNode], env: dict[str, Any]) -> bool:
        nodes, _ = flatten_rows(s if isinstance(s, list) else [s], env, self.locals)
        src = code(nodes)  # type: ignore[arg-type]  (a named row's fields as names)
        try:
            if escapes(src) not in (None, CONTINUES, YIELDS):
                return False
            free, assigned, declared = scope_names(src)
        except SyntaxError:
            return False
        if declared or defines(src) & assigned:
            return False  # a def, class or import: the names they bind are not values
        bound = set(env)
        if not self._inputs_ok(free | (assigned & bound), env):
            return False
        return not writes_outside(src, assigned - bound)

    def _scalar(self) -> bool:
        """Can the whole function be one island: a scalar algorithm (no RowStream parameter,
        no yield, no global or nonlocal)?"""
        from looplift.streams import is_rowstream

        sig = self.obj.signature.parameters.values()
        if any(is_rowstream(p.annotation, self.obj.fn) for p in sig):
            return False
        ps = self.user_fn.params
        if ps.kwonly_params or isinstance(ps.star_arg, cst.Param) or isinstance(ps.star_kwarg, cst.Param):
            return False
        return not any(isinstance(n, (cst.Yield, cst.Global, cst.Nonlocal, cst.Await))
                       for n in walk(self.user_fn.body))  # fmt: skip

    def _read_elsewhere(self, fn: cst.FunctionDef, s: cst.CSTNode | list[cst.CSTNode]) -> set[str]:
        """The function's names outside ``s`` (a comprehension's or lambda's own names are
        not the function's)."""
        out: set[str] = set()
        skip = {id(n) for n in (s if isinstance(s, list) else [s])}

        def visit(n: cst.CSTNode, own: frozenset[str]) -> None:
            if id(n) in skip:
                return
            if isinstance(n, cst.Name):
                if n.value not in own:
                    out.add(n.value)
                return
            if isinstance(n, (cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.DictComp)):
                targets = {t.value for c in walk(n) if isinstance(c, cst.CompFor)
                           for t in walk(c.target) if isinstance(t, cst.Name)}  # fmt: skip
                own = own | targets
            elif isinstance(n, cst.Lambda):
                own = own | {p.name.value for p in n.params.params}
            for c in n.children:
                visit(c, own)

        visit(fn.body, frozenset())
        return out

    def _rewrite(self, fn: cst.FunctionDef, replace: dict[int, cst.CSTNode]) -> cst.FunctionDef:
        origins = self.origins

        elifs: set[int] = set()  # the `elif`s: their slot takes an If or an Else only

        class T(cst.CSTTransformer):
            def on_visit(self, node: Any) -> bool:
                if isinstance(node, cst.If) and isinstance(node.orelse, cst.If):
                    elifs.add(id(node.orelse))
                return super().on_visit(node)

            def on_leave(self, original: Any, updated: Any) -> Any:
                got = replace.get(id(original))
                if got is not None:
                    if id(original) in elifs and not isinstance(got, (cst.If, cst.Else)):
                        # an `elif` outlined as statements: the `else` block's statements
                        body = list(got.nodes) if isinstance(got, cst.FlattenSentinel) else [got]
                        return cst.Else(body=cst.IndentedBlock(body=body))
                    return got
                out = super().on_leave(original, updated)
                if out is not original and isinstance(out, cst.CSTNode):
                    origins.setdefault(out, original)
                return out

        return fn.visit(T())  # type: ignore[return-value]
