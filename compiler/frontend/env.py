"""The translation environment: what each local name denotes.

A binding is one frozen class per kind; the translators dispatch on the class
(``match`` / ``isinstance``). ``kind`` is only the word used in messages.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..ir.nodes import UNKNOWN, Span

__all__ = [
    "Binding", "Value", "Rows", "StateVar", "Carry", "Container", "Poison", "MaybeUnbound",
    "SelfFields", "RowValue", "Pattern", "Env", "Stop",
]  # fmt: skip


@dataclass(frozen=True)
class Binding:
    """What a local name denotes during translation."""

    var: str  # IR variable holding it (for a carry: the carry state variable)
    span: Span = UNKNOWN
    depth: int = 0  # loop depth where bound
    kind: ClassVar[str] = "name"


@dataclass(frozen=True)
class Value(Binding):
    """A scalar or tuple value (``types``: its field type when bound by a loop)."""

    types: tuple[str, ...] = ()
    # a named row held whole (``best = max(g, key=...)``, ``r = c``): ``best.page`` reads it
    row_names: tuple[str, ...] = ()
    row_type: str = ""
    kind: ClassVar[str] = "value"


@dataclass(frozen=True)
class Rows(Binding):
    """A RowStream: a parameter, a group, or a projection."""

    arity: int = 0
    types: tuple[str, ...] = ()
    ordered: bool = False  # iterated in order
    # ranked: ``sorted(g, key=...)[start:stop]`` / ``enumerate(sorted(...))``: a loop over it
    # gets each row's rank (1-based, a native window function) and runs for start < rank <= stop
    window: tuple[int, int | None] | None = None
    # a named row type (``RowStream[Click]``): the field names and the class's name
    names: tuple[str, ...] = ()
    row_type: str = ""
    kind: ClassVar[str] = "rows"


@dataclass(frozen=True)
class StateVar(Binding):
    """A state object; ``cls`` is its State subclass."""

    cls: Any = None
    kind: ClassVar[str] = "state"


@dataclass(frozen=True)
class Carry(Binding):
    """A loop-carried local: ``var`` is its carry state."""

    ordered: bool = False
    kind: ClassVar[str] = "carry"


@dataclass(frozen=True)
class Container(StateVar):
    """A local list / dict / set used as an accumulator: a state of
    ``looplift.states.containers`` (``ctype``: ``dict``, ``list`` or ``set``)."""

    ctype: str = "list"
    # the IR variable holding the starting elements (``seen = {"EUR"}``), else None: the
    # state holds what the loop adds, a read merges the two (``c_union``, ``c_merge_sums``)
    init: str | None = None
    kind: ClassVar[str] = "container"


@dataclass(frozen=True)
class Pattern(Binding):
    """``pat = re.compile(CONST)`` in the function: the pattern, compiled by the compiler
    (its methods are the ``re`` functions with that constant pattern)."""

    pattern: Any = None
    kind: ClassVar[str] = "compiled pattern"


@dataclass(frozen=True)
class RowValue(Binding):
    """A whole row bound by ``for row in rows:``: ``fields`` are its field variables."""

    fields: tuple[str, ...] = ()
    types: tuple[str, ...] = ()
    names: tuple[str, ...] = ()  # a named row's field names (``c.user_id``)
    row_type: str = ""
    kind: ClassVar[str] = "row"


@dataclass(frozen=True)
class Poison(Binding):
    """Bound by a statement already reported: uses are silent."""

    kind: ClassVar[str] = "poison"


@dataclass(frozen=True)
class MaybeUnbound(Binding):
    """Assigned in only one branch of an ``if``."""

    kind: ClassVar[str] = "maybe"


@dataclass(frozen=True)
class SelfFields(Binding):
    """``self`` inside a state-class method: ``self.f`` is ``Var("self.f")``."""

    fields: frozenset[str] = frozenset()
    kind: ClassVar[str] = "self"


@dataclass
class Env:
    names: dict[str, Binding] = field(default_factory=dict)
    # names bound inside an already-closed loop: reading them later is an error
    loop_locals: dict[str, tuple[Binding, Span]] = field(default_factory=dict)
    depth: int = 0
    ordered: bool = False  # inside an ordered loop

    def copy(self) -> Env:
        return Env(dict(self.names), dict(self.loop_locals), self.depth, self.ordered)


class Stop(Exception):
    """Abandon translating the current statement after a diagnostic."""
