"""Operator records made by the passes and consumed by the dataflow graph.

A *state operator* is everything that touches one state (thesis §5.1.1):
its constructor, the per-row code that decides which action to apply with
which arguments (the *map part*, native-capable), and the readers evaluated
once per scope key after the input is consumed (the *reduce part*).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from .ir.nodes import Expr, Span

__all__ = ["ActionSite", "ReadSite", "StateOperator", "StateClassInfo", "AdditiveAction",
           "OperatorKind"]  # fmt: skip


class OperatorKind(enum.StrEnum):
    """What a state operator is (set by ``classify_operators``); a str, equal to its value."""

    ADDITIVE = "additive"  # every state's actions are sums of projections
    ACTION = "action"  # a state class with a Python reducer
    CONTAINER = "container"  # a local dict / list / set (looplift.states.containers)
    ORDERED = "ordered"  # the states of an ordered loop

Guard = tuple[str, bool]


@dataclass(frozen=True)
class ActionSite:
    state: str
    method: str
    code: int  # the action's number within its state class
    args: tuple[Expr, ...]
    guards: tuple[Guard, ...]
    loops: tuple[str, ...]
    span: Span


@dataclass(frozen=True)
class ReadSite:
    state: str
    method: str
    result: str
    args: tuple[Expr, ...]
    loops: tuple[str, ...]
    span: Span


@dataclass(frozen=True)
class StateOperator:
    """One fused state operator (n:1 reducer at its scope)."""

    name: str
    states: tuple[str, ...]
    classes: tuple[str, ...]  # class ref of each state, or "carry"
    scope: tuple[str, ...]  # enclosing loops of the creation = the scope stack
    inputs: tuple[str, ...]  # loops whose rows carry the actions
    actions: tuple[ActionSite, ...]
    reads: tuple[ReadSite, ...]
    map_code: tuple[str, ...]  # per-row binders computing action arguments and guards
    free: tuple[str, ...]  # values it needs from outside its input loops
    ordered: bool = False
    kind: OperatorKind | str = ""  # set by classify_operators
    fusable_with: tuple[str, ...] = ()

    @property
    def arg_best(self) -> bool:
        """A recognized arg-max / arg-min (``looplift.states.ArgBest``, one offer per row
        loop): natively a ``row_number()`` window and a ``max`` per scope key."""
        return (
            self.kind == OperatorKind.ACTION
            and not self.ordered
            and len(self.states) == 1
            and self.classes[0].endswith(":ArgBest")
            and len(self.actions) == 1
        )


@dataclass(frozen=True)
class AdditiveAction:
    """``self.field ±= expr`` updates of one additive action (exprs over its params)."""

    method: str
    params: tuple[str, ...]
    updates: tuple[tuple[str, str, str], ...]  # (field, '+'|'-', source text, for display)
    # the same increments as IR: ``self.f`` is ``Var("self.f")``, a parameter ``p`` is ``Var("p")``
    update_exprs: tuple[tuple[str, str, Expr], ...] = ()


@dataclass(frozen=True)
class StateClassInfo:
    """What the compiler read from a state class's source."""

    ref: str
    name: str
    additive: bool
    actions: tuple[str, ...]
    readers: tuple[str, ...]
    fields: tuple[tuple[str, str], ...] = ()  # (field, initial value text) for additive states
    additive_actions: tuple[AdditiveAction, ...] = ()
    reader_exprs: tuple[tuple[str, str], ...] = ()  # (reader, source text, for display)
    reader_irs: tuple[tuple[str, Expr], ...] = ()  # (reader, IR of the same expression)
    why: str = ""  # why it is not additive
    undo: tuple[tuple[str, str], ...] = field(default=())  # (action, explicit|derived)
