"""The contract between the SQL emitter and the renderers of primitives.

The emitter (:class:`.sql.SqlRenderer`) renders the IR; what one primitive becomes in
SQL is a *rule*, registered here by the module that knows the primitive's domain
(``strsql`` for strings, ``datetimes``, ``containers``, ...). A renderer module imports
this module and the table of primitives, never the emitter: it sees the emitter only
through the :class:`Emitter` protocol (and the typing through :class:`TypeView`). The
emitter imports the renderer modules (which registers their rules) and dispatches every
primitive through :func:`rule_for`.

The typer (:mod:`.types`) reads this module too: the type rules of the special forms
(:func:`form_type`, beside their SQL) and of the readers of looplift's own state
classes (:func:`reader_type`) are registered here, so that the typer never imports the
modules that define them. A slot the typer expects (:data:`SPECIAL_FORMS`,
:data:`STATE_READERS`) that nothing filled is a :class:`LookupError`, not a silent
``any``; ``backend/__init__.py`` imports the registering modules.

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

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

if TYPE_CHECKING:
    from ..analysis import Analysis
    from ..ir.nodes import Expr

__all__ = ["Emitter", "FORMS", "FORM_TYPES", "OVERLOADS", "PREFIX_RULES", "READER_TYPES", "RULES",
           "Rule", "SPECIAL_FORMS", "STATE_READERS", "TypeView", "form", "form_for", "form_type",
           "form_type_for", "overload", "overload_for", "reader_type", "reader_type_for", "rule",
           "rule_for"]  # fmt: skip


class TypeView(Protocol):
    """What a rule may ask of the typing (:class:`.typevocab.Typing`)."""

    @property
    def types(self) -> Mapping[str, Any]:
        """The type of every binder."""
        ...

    def of(self, e: Expr) -> Any:
        """The type of an IR value."""
        ...

    def may_be_null(self, e: Expr) -> bool:
        """May the IR value be None?"""
        ...


class Emitter(Protocol):
    """What a rule may ask of the emitter."""

    a: Analysis
    depth: int
    resolve: Callable[[str], str | None]
    conds: list[str]

    @property
    def ty(self) -> TypeView:
        """The types of the values rendered."""
        ...

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

#: the IR builtins that are special forms: each has its SQL (:func:`form`) and its type
#: rule (:func:`form_type`), both registered by :mod:`.container_loops`
SPECIAL_FORMS = frozenset({"fold", "sort_by", "each"})

Form = Callable[["Emitter", Any], str]
FORMS: dict[str, Form] = {}

#: a form's type rule: (the application, the typing it completes, the typer's type of a
#: value) -> (type, nullable); it types the binders of the form's lambdas on the way
FormType = Callable[[Any, Any, Callable[[Any], tuple[Any, bool]]], tuple[Any, bool]]
FORM_TYPES: dict[str, FormType] = {}

_F = TypeVar("_F", bound=Callable[..., Any])


def _register(table: dict[Any, _F], keys: Sequence[Any], slots: frozenset[Any] | None,
              what: str) -> Callable[[_F], _F]:  # fmt: skip
    """Register the decorated function in ``table`` under ``keys`` (each one of ``slots``,
    when given). A key registered twice is a bug."""

    def register(f: _F) -> _F:
        for k in keys:
            if slots is not None and k not in slots:
                raise ValueError(f"{k!r} has no slot for a {what}")
            if k in table:
                raise ValueError(f"two {what}s for {k!r}")
            table[k] = f
        return f

    return register


def _registered(table: Mapping[Any, _F], key: Any, slots: frozenset[Any], what: str) -> _F | None:
    """What ``table`` holds for ``key``; None for a key of no slot; a :class:`LookupError`
    for a slot nothing filled (the module that registers it was not imported)."""
    found = table.get(key)
    if found is None and key in slots:
        raise LookupError(f"no {what} registered for {key!r}: is the module that defines it "
                          "imported (backend/__init__.py)?")  # fmt: skip
    return found


def form(*names: str) -> Callable[[Form], Form]:
    """Register the decorated function as the SQL of the builtin forms ``names`` (it
    receives the emitter and the whole application)."""
    return _register(FORMS, names, SPECIAL_FORMS, "SQL renderer of a form")


def form_for(name: str) -> Form | None:
    """The SQL of form ``name`` (None: ``name`` is no special form)."""
    return _registered(FORMS, name, SPECIAL_FORMS, "SQL renderer of a form")


def form_type(*names: str) -> Callable[[FormType], FormType]:
    """Register the decorated function as the type rule of the builtin forms ``names``."""
    return _register(FORM_TYPES, names, SPECIAL_FORMS, "type rule of a form")


def form_type_for(name: str) -> FormType | None:
    """The type rule of form ``name`` (None: ``name`` is no special form)."""
    return _registered(FORM_TYPES, name, SPECIAL_FORMS, "type rule of a form")


# -- readers of looplift's own state classes typed by a rule ----------------------------

#: (the state classes' module, reader) typed by a registered rule: the containers'
#: ``value()`` (:mod:`.containers`)
STATE_READERS = frozenset({("looplift.states.containers", "value")})

#: a reader's type rule: (state class name, the types seen for each argument of its
#: actions) -> (type, nullable), or None when the rule does not know the class
ReaderType = Callable[[str, list[list[Any]]], tuple[Any, bool] | None]
READER_TYPES: dict[tuple[str, str], ReaderType] = {}


def reader_type(module: str, method: str) -> Callable[[ReaderType], ReaderType]:
    """Register the decorated function as the type rule of reader ``method`` of the state
    classes of ``module``."""
    return _register(READER_TYPES, [(module, method)], STATE_READERS, "reader type rule")


def reader_type_for(module: str, method: str) -> ReaderType | None:
    """The type rule of reader ``method`` of ``module``'s state classes, if it has one."""
    return _registered(READER_TYPES, (module, method), STATE_READERS, "reader type rule")
