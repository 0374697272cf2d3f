"""What each operator of the dataflow graph is: one frozen payload class per kind.

A graph :class:`~.graph.Node` carries one of these as ``node.op``; the backend
visits them (``visit_<ClassName>``). Every payload has the source ``span`` of
the construct it comes from, so a backend limit is reported at the user's line.

Frames: every value lives in the frame of its scope, named by a
:data:`FrameKey`: :data:`ROWS` (one row per input row), a :class:`GroupFrame`
of the enclosing ``group_by`` loops (one row per key), or :data:`GLOBAL` (the
group frame of no loops: a single row).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import ClassVar

from ..analysis import Analysis, Bound, Loop, LoopKind
from ..ir.nodes import Expr, Span
from ..operators import StateOperator
from ..program import YieldSite

__all__ = [
    "NodeKind",
    "Op",
    "Source",
    "Param",
    "GroupBy",
    "Iterate",
    "StateOp",
    "AdditiveState",
    "ActionState",
    "OrderedState",
    "Scalar",
    "HostCall",
    "Yield",
    "Return",
    "RowsFrame",
    "GroupFrame",
    "FrameKey",
    "ROWS",
    "GLOBAL",
    "frame_key",
]


class NodeKind(enum.Enum):
    """What a node of the graph is (one per payload class family of :mod:`.payloads`)."""

    SOURCE = "source"
    PARAM = "param"
    GROUP_BY = "group_by"
    ITERATE = "iterate"
    STATE = "state"
    SCALAR = "scalar"
    HOST = "host"
    YIELD = "yield"
    RETURN = "return"

    def __str__(self) -> str:
        return self.value


# -- frame keys -----------------------------------------------------------------------


@dataclass(frozen=True)
class RowsFrame:
    """The frame of per-row values: one row per input row."""

    def text(self) -> str:
        return "rows"


@dataclass(frozen=True)
class GroupFrame:
    """One row per key of the given ``group_by`` loops (outermost first); no loops: global."""

    loops: tuple[str, ...]

    @property
    def is_global(self) -> bool:
        return not self.loops

    def text(self) -> str:
        return "global" if not self.loops else f"[{', '.join(self.loops)}]"


FrameKey = RowsFrame | GroupFrame
ROWS = RowsFrame()
GLOBAL = GroupFrame(())


def frame_key(a: Analysis, loops: tuple[str, ...]) -> FrameKey:
    """The frame of a value computed inside ``loops``."""
    if any(a.loops[x].kind == LoopKind.ROWS for x in loops):
        return ROWS
    return GroupFrame(tuple(x for x in loops if a.loops[x].kind == LoopKind.GROUP))


# -- operators ------------------------------------------------------------------------


@dataclass(frozen=True)
class Op:
    """Base of every payload: where it comes from."""

    KIND: ClassVar[NodeKind]
    span: Span


@dataclass(frozen=True)
class Source(Op):
    """A RowStream parameter: the input relation."""

    KIND: ClassVar[NodeKind] = NodeKind.SOURCE
    name: str
    types: tuple[str, ...]


@dataclass(frozen=True)
class Param(Op):
    """A scalar parameter of the algorithm (a named Python value in the plan)."""

    KIND: ClassVar[NodeKind] = NodeKind.PARAM
    name: str
    type: str


@dataclass(frozen=True)
class GroupBy(Op):
    """A loop over the groups of ``group_by``: its scope key is the loop's key fields."""

    KIND: ClassVar[NodeKind] = NodeKind.GROUP_BY
    loop: Loop


@dataclass(frozen=True)
class Iterate(Op):
    """A loop over rows (of the input or of a group)."""

    KIND: ClassVar[NodeKind] = NodeKind.ITERATE
    loop: Loop


@dataclass(frozen=True)
class StateOp(Op):
    """A fused state operator: map part per row, reduce part per scope key."""

    KIND: ClassVar[NodeKind] = NodeKind.STATE
    operator: StateOperator


@dataclass(frozen=True)
class AdditiveState(StateOp):
    """States whose actions are sums of projections: native ``sum`` per scope key."""


@dataclass(frozen=True)
class ActionState(StateOp):
    """A state with a Python reducer: actions chosen natively, reduced per scope key."""


@dataclass(frozen=True)
class OrderedState(StateOp):
    """An ordered loop's states: one native fold per scope key (the loop body is its step
    function), or the loop body in Python per scope key, in order (the node's recorded
    strategy says which, and why)."""


@dataclass(frozen=True)
class Scalar(Op):
    """A native value (a SQL expression) in the frame of its scope."""

    KIND: ClassVar[NodeKind] = NodeKind.SCALAR
    name: str
    binding: Bound


@dataclass(frozen=True)
class HostCall(Op):
    """A value computed by a host (Python) function."""

    KIND: ClassVar[NodeKind] = NodeKind.HOST
    name: str
    binding: Bound


@dataclass(frozen=True)
class Yield(Op):
    """A ``yield`` of a table algorithm: 1:1, 1:n or a filter."""

    KIND: ClassVar[NodeKind] = NodeKind.YIELD
    index: int
    site: YieldSite


@dataclass(frozen=True)
class Return(Op):
    """The result: the yielded rows (tables) or the returned value (aggregates)."""

    KIND: ClassVar[NodeKind] = NodeKind.RETURN
    returns: str  # "rows" | "value" (the function's returns)
    value: Expr | None  # the returned expression (aggregates and scalars)
