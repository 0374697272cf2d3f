"""The contract between the SQL emitter and the renderers of primitives.

The emitter (:class:`.sql.SqlRenderer`) renders the IR; what one primitive becomes in
SQL is a *rule*, registered here by the module that knows the primitive's domain
(``strsql`` for strings, ``datetimes``, ``containers``, ...). A renderer module imports
this module and the table of primitives, never the emitter: it sees the emitter only
through the :class:`Emitter` protocol. The emitter imports the renderer modules (which
registers their rules) and dispatches every primitive through :func:`rule_for`.

A rule receives the emitter, the primitive's name, its IR arguments, their types and
their SQL text (already bound: an operand the rule repeats is computed once), and
returns the SQL text of the primitive with CPython's semantics.

>>> @rule("demo.twice")
... def _twice(r, op, args, ts, x):
...     return f"({x[0]} * 2)"
>>> rule_for("demo.twice") is _twice
True
>>> del RULES["demo.twice"]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..analysis import Analysis
    from ..ir.nodes import Expr
    from .types import Typing

__all__ = ["Emitter", "FORMS", "OVERLOADS", "form", "form_for", "RULES", "PREFIX_RULES", "Rule", "overload", "overload_for",
           "rule", "rule_for"]  # fmt: skip


class Emitter(Protocol):
    """What a rule may ask of the emitter."""

    a: Analysis
    ty: Typing
    depth: int
    resolve: Callable[[str], str | None]
    conds: list[str]

    def expr(self, e: Expr) -> str:
        """The SQL of an IR value."""
        ...

    def cond(self, e: Expr) -> str:
        """Python truthiness of an IR value as a SQL boolean."""
        ...

    def bind(self, x: list[str], build: Callable[[list[str]], str]) -> str:
        """``build(x)`` with each composite operand computed once."""
        ...

    # the emitter's internals the string rules (``strsql``) still call
    def _t(self, e: Expr) -> Any:
        """The type of an IR value."""
        ...

    def _expr(self, e: Expr) -> str:
        """The SQL of an IR value (counted against the scalar's budget)."""
        ...

    def _prim(self, op: str, args: tuple[Expr, ...]) -> str:
        """The SQL of another primitive applied to ``args``."""
        ...

    def _raise_if_null(self, args: tuple[Expr, ...], sql: str, what: str) -> str:
        """``sql``, raising Python's TypeError where one of ``args`` is None."""
        ...

    def _pycall(self, kind: str, ref: str, args: tuple[Expr, ...], rtype: str | None = None,
                total: bool = False) -> str:  # fmt: skip
        """A call of a Python function (``kind`` ``"prim"``: a primitive's reference)."""
        ...

    def _op_str(self, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
        """``str(x)``."""
        ...

    def _op_int(self, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
        """``int(x)``."""
        ...


Rule = Callable[["Emitter", str, tuple[Any, ...], list[Any], list[str]], str]

RULES: dict[str, Rule] = {}
PREFIX_RULES: dict[str, Rule] = {}  # "str." -> the rule for every str method without its own


def rule(*names: str, prefix: Sequence[str] = ()) -> Callable[[Rule], Rule]:
    """Register the decorated function as the rule of ``names`` (and of every primitive
    whose name starts with one of ``prefix``). A name registered twice is a bug."""

    def register(f: Rule) -> Rule:
        for n in names:
            if n in RULES:
                raise ValueError(f"two SQL rules for primitive {n!r}")
            RULES[n] = f
        for p in prefix:
            if p in PREFIX_RULES:
                raise ValueError(f"two SQL rules for primitives {p!r}*")
            PREFIX_RULES[p] = f
        return f

    return register


def rule_for(op: str) -> Rule | None:
    """The rule that renders ``op``: its own, else the longest registered prefix."""
    found = RULES.get(op)
    if found is not None:
        return found
    best = ""
    for p in PREFIX_RULES:
        if op.startswith(p) and len(p) > len(best):
            best = p
    return PREFIX_RULES[best] if best else None


# -- overloads: a rule for a primitive on some operand types only -----------------------

#: (names, the operand types it takes, the rule): ``+`` of datetimes is ``datetimes``'
OVERLOADS: list[tuple[frozenset[str], Callable[[list[Any]], bool], Rule]] = []


def overload(*names: str, when: Callable[[list[Any]], bool]) -> Callable[[Rule], Rule]:
    """Register the decorated function as the rule of ``names`` on the operand types
    ``when`` accepts (checked before the primitive's own rule)."""

    def register(f: Rule) -> Rule:
        OVERLOADS.append((frozenset(names), when, f))
        return f

    return register


def overload_for(op: str, ts: list[Any]) -> Rule | None:
    for names, when, f in OVERLOADS:
        if op in names and when(ts):
            return f
    return None


# -- special forms: IR builtins that are not primitives (``fold``, ``sort_by``, ``each``) --

Form = Callable[["Emitter", Any], str]
FORMS: dict[str, Form] = {}


def form(*names: str) -> Callable[[Form], Form]:
    """Register the decorated function as the SQL of the builtin forms ``names`` (it
    receives the emitter and the whole application)."""

    def register(f: Form) -> Form:
        for n in names:
            if n in FORMS:
                raise ValueError(f"two SQL renderers for form {n!r}")
            FORMS[n] = f
        return f

    return register


def form_for(name: str) -> Form | None:
    return FORMS.get(name)
