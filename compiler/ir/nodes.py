"""The lambda IR: a small, effectful let-calculus in the style of Ohua's ALang.

Five term forms (``Var``, ``Lit``, ``Let``, ``Apply``, ``Lambda``) plus the
kinds of *function literal* an ``Apply`` can call:

- ``Prim(op)``: a pure builtin operator (``add``, ``floordiv``, ``eq``, ``abs``,
  ``math.sqrt``, ``tuple``, ``nth`` ...);
- ``Builtin(name, attrs)``: control and stream forms — ``if`` (branches are
  nullary lambdas, evaluated lazily), ``smap`` (a loop: a lambda over a
  stream), ``group_by``, ``project``, ``yield``;
- ``StateNew(cls)`` and ``StateCall(state, method)`` — the thesis's ``s#f``;
  loop-carried locals are states of the pseudo class ``carry`` until the
  reductions pass turns them into library states;
- ``Host(ref)``: an opaque, importable Python function;
- ``CallDataflow(ref)``: a call of another ``@dataflow`` function (inlined).

Effects (state actions, ``yield``) are bound to ``_`` in a ``Let``; the
order of effects carries no meaning (the state laws make it irrelevant),
except inside ordered loops.

Every node carries a :class:`Span` that takes no part in equality.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "ParamKind",
    "UNKNOWN",
    "Apply",
    "Builtin",
    "CallDataflow",
    "Expr",
    "Function",
    "Host",
    "Lambda",
    "Let",
    "Lit",
    "Param",
    "Prim",
    "Span",
    "StateCall",
    "StateNew",
    "Var",
    "attr",
    "CARRY",
    "UNIT",
]


@dataclass(frozen=True, slots=True)
class Span:
    """A source range; ``line``/``col`` are 1-based, ``end_col`` exclusive."""

    path: str
    line: int
    col: int
    end_line: int = 0
    end_col: int = 0

    def __str__(self) -> str:
        return f"{self.line}:{self.col}"


UNKNOWN = Span("<unknown>", 0, 0, 0, 0)

_span = field(default=UNKNOWN, compare=False, repr=False, kw_only=True)


@dataclass(frozen=True, slots=True)
class Expr:
    """Base of every IR term."""

    span: Span = _span


@dataclass(frozen=True, slots=True)
class Var(Expr):
    name: str


@dataclass(frozen=True, slots=True)
class Lit(Expr):
    value: Any


UNIT = Lit(None)


@dataclass(frozen=True, slots=True)
class Let(Expr):
    """``let name = value in body`` (``name`` may be ``_`` for an effect)."""

    name: str
    value: Expr
    body: Expr


@dataclass(frozen=True, slots=True)
class Apply(Expr):
    fn: Expr
    args: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Lambda(Expr):
    params: tuple[str, ...]
    body: Expr


# -- function literals -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Prim(Expr):
    """A pure operator; see ``looplift.compiler.ir.prims`` for the table."""

    op: str


@dataclass(frozen=True, slots=True)
class Builtin(Expr):
    """A control or stream form. ``attrs`` is a sorted tuple of (key, value) pairs."""

    name: str
    attrs: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True, slots=True)
class StateNew(Expr):
    """Constructor of a state class (``cls`` is ``module:QualName`` or ``carry``)."""

    cls: str


CARRY = "carry"


@dataclass(frozen=True, slots=True)
class StateCall(Expr):
    """``state#method``: an action or a reader of the state bound to ``state``."""

    state: str
    method: str


@dataclass(frozen=True, slots=True)
class Host(Expr):
    """An opaque importable Python function, ``module:qualname``."""

    ref: str


@dataclass(frozen=True, slots=True)
class CallDataflow(Expr):
    """A call of another ``@dataflow`` function, ``module:qualname``."""

    ref: str


def attr(b: Builtin, key: str, default: Any = None) -> Any:
    """Look up an attribute of a :class:`Builtin`."""
    for k, v in b.attrs:
        if k == key:
            return v
    return default


# -- functions ------------------------------------------------------------------


class ParamKind(enum.StrEnum):
    """What a parameter is (a str, equal to its value)."""

    ROWS = "rows"  # a RowStream: the input relation, one type per field
    SCALAR = "scalar"  # a scalar value


@dataclass(frozen=True, slots=True)
class Param:
    """A parameter: a RowStream (``ParamKind.ROWS``, one type per field) or a scalar."""

    name: str
    kind: ParamKind
    types: tuple[str, ...]
    span: Span = _span
    # a named row type (``RowStream[Click]``): its field names, bound to columns by name,
    # and the class's name; positional streams have none
    fields: tuple[str, ...] = ()
    row_type: str = ""

    def type_text(self) -> str:
        if self.kind == ParamKind.ROWS and self.fields:
            named = ", ".join(f"{f}: {t}" for f, t in zip(self.fields, self.types, strict=True))
            return f"RowStream[{self.row_type}({named})]"
        if self.kind == ParamKind.ROWS:
            return f"RowStream[{', '.join(self.types)}]"
        return self.types[0]


@dataclass(frozen=True, slots=True)
class Function:
    """A ``@dataflow`` function in IR form."""

    ref: str  # module:qualname
    name: str
    params: tuple[Param, ...]
    body: Expr
    returns: str  # "value" (scalar/aggregate) or "rows" (table: yields)
    columns: tuple[str, ...] | None = None
    return_type: str | None = None
    span: Span = _span
    # the units outlined into Python islands (``frontend/islands.py``'s ``Island``)
    islands: tuple[Any, ...] = field(default=(), compare=False)

    @property
    def stream_params(self) -> tuple[Param, ...]:
        return tuple(p for p in self.params if p.kind == ParamKind.ROWS)
