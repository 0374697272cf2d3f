"""What a native fold of an ordered loop is made of: its carried values, its SQL parts,
the names its SQL is written over, and the window functions its yielded rows can be
(:mod:`.fold` builds the fold, :mod:`.fold_window` its window functions)."""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import Any

from ..ir.nodes import Expr

__all__ = [
    "ACC",
    "ACC_REF",
    "ROW",
    "Carry",
    "Fold",
    "NotFoldable",
    "Window",
    "WindowCarry",
    "WindowForm",
]

ACC, ROW = "_fa", "_fr"  # the step function's parameters (no other lambda uses these names)
ACC_REF = re.compile(r"\b_fa\.(c\d+)\b")  # a carry's value before the row, in a fold's SQL


class NotFoldable(Exception):
    """The loop cannot be one native fold; ``reason`` says why (shown by ``--explain``)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Carry:
    field: str  # the accumulator's field
    state: str
    member: str | None  # an additive state's field, None for a carried local
    type: Any
    init: Expr | Any  # an IR value (carried local) or a Python constant (additive field)
    nullable: bool = True  # may it hold None


@dataclass(frozen=True)
class Fold:
    """The native fold of one ordered loop (the SQL parts; columns are the caller's)."""

    carries: tuple[Carry, ...]
    acc_type: str  # struct<...> DDL of the accumulator
    step: str  # SQL of the next accumulator (over `_fa` and `_fr`)
    readers: tuple[tuple[str, str], ...]  # (result binder, SQL over the final `_fa`)
    out_type: str | None  # struct<...> of a yielded row, when the loop yields
    free: tuple[str, ...]  # the free values each row carries (`_fr._v<i>`)
    window: Window | None = None  # the rows it yields as window functions, when they can be
    #: per carry, how one iteration updates it (``keep``, ``set``, ``add`` with its
    #: (condition, addend) terms, ``cset``, ``reset``, ``max``, ``min``, ``any``), over
    #: ``_fa`` (the carries before the row) and ``_fr`` (:mod:`.boundary` reads them)
    forms: tuple[tuple, ...] = ()
    sites: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (condition, the row's fields) per yield


class WindowForm(enum.StrEnum):
    """How a carry's value before a row is a window function (see :class:`WindowCarry`)."""

    KEEP = "keep"
    SET = "set"
    ADD = "add"
    CSET = "cset"
    MAX = "max"
    MIN = "min"
    RESET = "reset"


@dataclass(frozen=True)
class WindowCarry:
    """How one carry's value before each row is a window function of the rows before it.

    ``kind``: ``keep`` (never changes: its initial value), ``set`` (set on every row to
    ``sql``: the previous row's value, ``lag``), ``add`` (``sql`` added on every row: a
    running ``sum`` of the rows before), ``cset`` (set to ``sql`` where ``cond`` holds: the
    last such value before, ``last(..., true)``), ``max`` / ``min`` (a running extreme),
    ``reset`` (an int set to ``start`` where ``cond`` holds, then ``sql`` added on every row:
    the value after the last such row, ``last(..., true)``, plus a running ``sum`` of the
    rows since it, partitioned by the number of such rows before).
    SQL is over ``_fa.c<k>`` (other carries' values before the row) and ``_fr`` (the row)."""

    carry: Carry
    kind: WindowForm
    sql: str = "NULL"
    cond: str = "TRUE"
    start: str = "NULL"  # ``reset``: the value set where ``cond`` holds
    after: str = ""  # ``reset``: its value after the row (SQL as the yields spell it)


@dataclass(frozen=True)
class Window:
    carries: tuple[WindowCarry, ...]  # in dependency order
    yields: tuple[tuple[str, tuple[str, ...]], ...]  # (condition, the row's fields) per yield
