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

__all__ = ["Context"]


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
        self.container_zero: dict[str, int | float] = {}  # defaultdict(int), Counter(): d[k] of a missing k

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
        rule = rule_for(node, parent)
        assert rule is not None, type(node).__name__
        self.diags.append(diagnostic(rule, node, parent, self.span))
        return Stop()

    def fresh(self, base: str) -> str:
        self.counter += 1
        return f"_{base}.{self.counter}"

    def global_obj(self, n: str) -> Any:
        if n in self.globals:
            return self.globals[n]
        if hasattr(builtins, n):
            return getattr(builtins, n)
        return MISSING
