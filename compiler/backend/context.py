"""What a state strategy's planner receives: the plan being built (a protocol).

The :class:`~.plan.Planner` implements it; the planners of :mod:`.strategies` are
written against it and never import the planner. A plan variant (signed, bulk)
overrides the hooks at the end (``signed_rows``, ``live_*``), which the additive
planner calls.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..analysis import Analysis
    from ..dataflow.graph import DataflowGraph
    from ..dataflow.payloads import FrameKey, Source
    from ..dataflow.strategy import Choice, Strategy
    from ..operators import StateClassInfo, StateOperator
    from ..program import Program
    from .frame import Frame
    from .naming import ColumnNames, Namer
    from .sql import PyCall, SqlRenderer
    from .types import Typing

__all__ = ["Compiled", "PlanContext"]


class Compiled(Protocol):
    """A compiled algorithm as the backend reads it (``pipeline.Compiled``)."""

    @property
    def program(self) -> Program: ...

    @property
    def graph(self) -> DataflowGraph: ...

    @property
    def kind(self) -> str: ...


class PlanContext(Protocol):
    """The plan under construction, as a state strategy's planner sees it."""

    # what is compiled
    prog: Program
    graph: DataflowGraph
    a: Analysis
    ty: Typing
    refs: dict[str, Any]
    classes: dict[str, StateClassInfo]
    ops: tuple[StateOperator, ...]
    scalar_params: set[str]
    source: Source | None
    # what is generated so far
    py: Namer
    columns: ColumnNames
    frames: dict[FrameKey, Frame]
    reducers: list[str]  # module-level reducer definitions
    pycalls: dict[str, PyCall]
    python_ops: list[str]
    python_states: list[str]
    field_of_col: dict[str, int]
    entry: str  # the entry's call, without its closing parenthesis
    entry_var: str
    broadcast_frames: frozenset[FrameKey]
    op_done: dict[str, list[str]]  # state operator -> the read binders it made
    read_home: dict[str, FrameKey]  # read binder -> the frame holding it
    # what the ordered loops made that the rest of the plan reads: their Python functions
    # (the module), why a loop is not a fold (--explain), the rows column of a fold (outputs)
    ordered_fns: dict[str, Any]
    fold_reasons: dict[str, str]
    fold_rows_col: dict[str, tuple[str, Any]]
    partial_aggregation: bool

    # the recorded strategies, and what was made
    def strategy_of(self, op: StateOperator) -> Choice: ...
    def made_with(self, op: StateOperator, strategy: Strategy) -> None: ...

    # code and frames
    def emit(self, line: str) -> None: ...
    def step(self, fk: FrameKey, code: str, comment: str = "") -> None: ...
    def frame(self, fk: FrameKey) -> Frame: ...
    def windowed(self, fk: FrameKey) -> bool: ...
    def frame_key(self, loops: tuple[str, ...]) -> FrameKey: ...
    def key_cols(self, fk: FrameKey) -> tuple[str, ...]: ...
    def join_keys(self, keys: tuple[str, ...], home: FrameKey | None = None) -> str: ...
    def renderer(self, fk: FrameKey) -> SqlRenderer: ...
    def col_for(self, name: str) -> str: ...
    def field_col(self, i: int) -> str: ...
    def nan_key_col(self, f: int) -> str | None: ...
    def union(self, selects: list[str]) -> str: ...
    def is_constant(self, name: str) -> bool: ...
    def loop_chain(self, loop: str) -> tuple[str, ...]: ...

    # the user's classes and host functions, imported by the module
    def import_class(self, cref: str) -> str: ...
    def all_class_aliases(self) -> dict[str, str]: ...
    def host_aliases(self) -> dict[str, str]: ...

    # hooks of a plan variant (signed plans override them)
    def signed_rows(self, var: str, fk: FrameKey) -> str: ...
    def signed_term(self, sql: str) -> str: ...
    def live_sums(self, keys: tuple[str, ...]) -> list[str]: ...
    def live_columns(self, keys: tuple[str, ...]) -> list[str]: ...
    def live_reader(self, sql: str, keys: tuple[str, ...]) -> str: ...
