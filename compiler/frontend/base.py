"""What every translator shares: the module's globals, spans, diagnostics, fresh names."""

from __future__ import annotations

import builtins
from typing import Any

import libcst as cst

from ..errors import Diagnostic
from ..ir.nodes import UNKNOWN, Span
from .env import Stop
from .reject import diagnostic, rule_for
from .syntax import MISSING

__all__ = ["Context", "OriginTransformer"]


class Context:
    """Base of the translator mixins (statements, loops, expressions, calls)."""

    def __init__(self, globals_: dict[str, Any], positions: Any = None):
        self.globals = globals_
        self.positions = positions  # a ParsedModule (or None: no source positions)
        self.diags: list[Diagnostic] = []
        self.refs: dict[str, Any] = {}
        self.counter = 0
        self.open_loops: list[Any] = []  # the `for` statements being translated, outermost first
        self.ordered_containers: dict[str, bool] = {}  # containers filled in an ordered loop
        self.container_modes: dict[str, str] = {}  # dict accumulations: sum | max | min
        self.unordered_to_host: dict[int, str] = {}  # depth -> the unordered list a host got
        self.counter_names: set[str] = set()  # the dict accumulators made by Counter()
        self.container_zero: dict[str, int | float] = {}  # defaultdict(int), Counter(): d[k] of a missing k
        self.envs: dict[cst.CSTNode, dict[str, Any]] = {}  # user statement -> names bound there

    def note_env(self, s: cst.CSTNode, env: Any) -> None:
        """Remember what is bound where the user's statement ``s`` is translated (the
        outliner reads it: an island's inputs must be plain values)."""
        from .islands import LOOP_LOCAL

        if self.positions is not None:
            while s in self.positions.origins:
                s = self.positions.origins[s]
        if s not in self.envs:
            names = dict(env.names)
            for n in env.loop_locals:
                names.setdefault(n, LOOP_LOCAL)
            self.envs[s] = names

    def span(self, node: cst.CSTNode) -> Span:
        if self.positions is None:
            return UNKNOWN
        try:
            return self.positions.span(node)
        except KeyError:
            return UNKNOWN

    def error(self, node: cst.CSTNode | Span, message: str, hint: str = "") -> Stop:
        sp = node if isinstance(node, Span) else self.span(node)
        self.diags.append(Diagnostic(sp, message, hint))
        return Stop()

    def reject(self, node: cst.CSTNode, parent: cst.CSTNode | None = None) -> Stop:
        """Report ``node`` by its rule in the rejection table (see ``reject.py``)."""
        rule = rule_for(node, parent) or rule_for(node, parent, always=True)
        assert rule is not None, type(node).__name__
        self.diags.append(diagnostic(rule, node, parent, self.span))
        return Stop()

    def origin(self, new: Any, old: cst.CSTNode) -> Any:
        """Record that a node the frontend built stands for the user's ``old`` (positions)."""
        if self.positions is not None and new is not old:
            self.positions.origins[new] = old
        return new

    def origin_tree(self, nodes: list[Any], at: cst.CSTNode) -> None:
        """Give every node built here under ``nodes`` (not the user's own, which keep their
        position) the position of ``at``."""
        if self.positions is None:
            return
        stack = list(nodes)
        while stack:
            n = stack.pop()
            if n in self.positions.positions:
                continue
            self.positions.origins.setdefault(n, at)
            stack.extend(n.children)

    def hidden_name(self, base: str, env: Any) -> str:
        """A local name for the frontend's own variables, unused in this function."""
        self.counter += 1
        name = f"_{base}_{self.counter}"
        while name in env.names:
            name += "_"
        return name

    def fresh(self, base: str) -> str:
        self.counter += 1
        return f"_{base}.{self.counter}"

    def as_lambda(self, node: cst.BaseExpression) -> cst.BaseExpression:
        """``operator.itemgetter(i, ...)`` (constant indices) as the ``lambda`` it stands for,
        ``lambda _row: _row[i]`` (a tuple for several); any other node as it is."""
        import operator

        if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Name)
                and self.global_obj(node.func.value) is operator.itemgetter and node.args
                and all(a.keyword is None and a.star == "" and isinstance(a.value, cst.Integer)
                        for a in node.args)):  # fmt: skip
            return node
        reads = [cst.Subscript(cst.Name("_row"), [cst.SubscriptElement(cst.Index(a.value))])
                 for a in node.args]  # fmt: skip
        body: cst.BaseExpression = (reads[0] if len(reads) == 1
                                    else cst.Tuple([cst.Element(r) for r in reads]))  # fmt: skip
        lam = cst.Lambda(params=cst.Parameters(params=[cst.Param(cst.Name("_row"))]), body=body)
        self.origin_tree([lam], node)
        return lam

    def global_obj(self, n: str) -> Any:
        if n in self.globals:
            return self.globals[n]
        if hasattr(builtins, n):
            return getattr(builtins, n)
        return MISSING


class OriginTransformer(cst.CSTTransformer):
    """A libcst transformer whose rebuilt nodes keep the position of the user's node they
    replace (``ctx.origin``)."""

    def __init__(self, ctx: Context):
        self.ctx = ctx

    def on_leave(self, original_node: Any, updated_node: Any) -> Any:
        out = super().on_leave(original_node, updated_node)
        if out is not original_node and isinstance(out, cst.CSTNode):
            self.ctx.origin(out, original_node)
        return out
