"""The unit the passes transform: one algorithm's IR plus the typed analyses made so far.

Each analysis pass returns a new :class:`Program` with its result in a field of
its own (frozen, typed): ``fuse_states`` sets :attr:`Program.analysis` and
:attr:`Program.operators`, ``analyze_scopes`` sets :attr:`Program.scopes`,
``classify_operators`` sets :attr:`Program.kinds` (and re-sets the operators
with their kinds). Reading a result before its pass ran is a compiler bug and
raises :class:`MissingAnalysis` naming the pass.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from .analysis import LoopKind
from .ir.nodes import Function

if TYPE_CHECKING:
    from .analysis import Analysis, Site
    from .operators import StateClassInfo, StateOperator

__all__ = ["Program", "Scope", "Scopes", "Kinds", "YieldSite", "MissingAnalysis", "scope_of"]


class MissingAnalysis(AssertionError):
    """An analysis was read before the pass that makes it ran (a compiler bug)."""


@dataclass(frozen=True)
class Scope:
    """A binder's scope: its enclosing loops and the scope key they make (thesis §4.3)."""

    loops: tuple[str, ...]
    key: tuple[str, ...]  # e.g. ("clicks[0]",) or ("clicks[0]", "row")
    key_vars: tuple[str, ...]  # the group key parameters that hold it

    def text(self) -> str:
        return "global" if not self.loops else f"[{', '.join(self.key)}]"

    def is_prefix_of(self, other: Scope) -> bool:
        return other.loops[: len(self.loops)] == self.loops


def scope_of(a: Analysis, loops: tuple[str, ...]) -> Scope:
    """The scope of a value computed inside ``loops`` (the keys of its ``group_by`` loops,
    and ``row`` for a loop over rows)."""
    key: list[str] = []
    key_vars: list[str] = []
    for name in loops:
        lp = a.loops[name]
        if lp.kind == LoopKind.GROUP:
            key.extend(f"{lp.source}[{i}]" for i in lp.key)
            key_vars.append(lp.params[0])
        else:
            key.append("row")
    return Scope(loops, tuple(key), tuple(key_vars))


@dataclass(frozen=True)
class Scopes:
    """``analyze_scopes``: the scope of every binder and of every state operator."""

    of_binder: Mapping[str, Scope]
    of_operator: Mapping[str, Scope]


YieldForm = Literal["1:1", "1:n", "filter"]
CodeKind = Literal["scalar", "host"]
class AlgorithmKind(enum.StrEnum):
    """What a ``@dataflow`` function is, by what it returns."""

    SCALAR = "scalar"  # a value per call, no RowStream
    AGGREGATE = "aggregate"  # a value from a RowStream
    TABLE = "table"  # rows (it yields)


@dataclass(frozen=True)
class YieldSite:
    """A ``yield`` and the form it takes: 1:1 (once per scope key), 1:n (per row) or a filter."""

    site: Site
    form: YieldForm


@dataclass(frozen=True)
class Kinds:
    """``classify_operators``: the algorithm's kind, its state classes, code kinds, yields."""

    kind: AlgorithmKind
    classes: Mapping[str, StateClassInfo]  # state class ref -> what its source says
    code: Mapping[str, CodeKind]  # binder -> native scalar or Python host call
    yields: tuple[YieldSite, ...]


@dataclass(frozen=True)
class Program:
    """An algorithm on its way through the pipeline.

    Attributes:
        fn: the IR of the algorithm (callees inlined after ``inline_dataflow``).
        refs: ``module:qualname`` → Python object (state classes, host functions,
            callee ``Dataflow`` objects).
        load: translates another ``@dataflow`` function (by ref) into IR.
        analysis: loops, binders and call sites (``fuse_states``).
        operators: one fused operator per state (``fuse_states``; kinds set by
            ``classify_operators``).
        scopes: scope of every binder and operator (``analyze_scopes``).
        kinds: kind of the algorithm, classes, code kinds, yields (``classify_operators``).
    """

    fn: Function
    refs: dict[str, Any] = field(default_factory=dict, compare=False)
    load: Callable[[str], Function] | None = field(default=None, compare=False)
    analysis_: Analysis | None = field(default=None, compare=False)
    operators: tuple[StateOperator, ...] = field(default=(), compare=False)
    scopes_: Scopes | None = field(default=None, compare=False)
    kinds_: Kinds | None = field(default=None, compare=False)

    def with_fn(self, fn: Function) -> Program:
        return dataclasses.replace(self, fn=fn)

    def with_(self, **changes: Any) -> Program:
        return dataclasses.replace(self, **changes)

    @property
    def analysis(self) -> Analysis:
        return _need(self.analysis_, "fuse_states")

    @property
    def scopes(self) -> Scopes:
        return _need(self.scopes_, "analyze_scopes")

    @property
    def kinds(self) -> Kinds:
        return _need(self.kinds_, "classify_operators")

    @property
    def kind(self) -> AlgorithmKind:
        return self.kinds.kind


def _need(value: Any, made_by: str) -> Any:
    if value is None:
        raise MissingAnalysis(f"read before `{made_by}` ran")
    return value
