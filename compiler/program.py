"""The unit the passes transform: one algorithm's IR plus the facts derived so far."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .ir.nodes import Function

__all__ = ["Program"]


@dataclass(frozen=True)
class Program:
    """An algorithm on its way through the pipeline.

    Attributes:
        fn: the IR of the algorithm (callees inlined after ``inline_dataflow``).
        refs: ``module:qualname`` → Python object (state classes, host functions,
            callee ``Dataflow`` objects).
        load: translates another ``@dataflow`` function (by ref) into IR.
        facts: analysis results keyed by the pass that made them (``states``,
            ``loops``, ``operators``, ``scopes``, ``classes`` ...).
    """

    fn: Function
    refs: dict[str, Any] = field(default_factory=dict, compare=False)
    load: Callable[[str], Function] | None = field(default=None, compare=False)
    facts: dict[str, Any] = field(default_factory=dict, compare=False)

    def with_fn(self, fn: Function) -> Program:
        return dataclasses.replace(self, fn=fn)

    def with_facts(self, **facts: Any) -> Program:
        return dataclasses.replace(self, facts={**self.facts, **facts})
