"""The text of the errors a compiled plan raises, in one place.

Every ``raise_error`` of a plan's native SQL is made here, in the form of
:func:`looplift.errors.format_error`::

    ValueError: invalid literal for int() with base 10: 'x' (at parse.py:14 in parse_logs)

The place is the span of the IR node being rendered: the expression emitter and the
planner enter :func:`at` for each node they render (the innermost known span wins), and
the message sites, which know the class and CPython's message but not the node, ask
:func:`where`. The enclosing function is read from the source (the ``def`` around the
line), so inlined ``@dataflow`` calls and state methods name their own function.

>>> from looplift.compiler.ir.nodes import Span
>>> with at(Span("/home/me/jobs/parse.py", 14, 5)):
...     raise_sql("ValueError", "bad value")
"raise_error('ValueError: bad value (at parse.py:14)')"
>>> raise_sql("KeyError", Sql("k"))
"raise_error(concat('KeyError: ', coalesce(k, 'None')))"
"""

from __future__ import annotations

import contextvars
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from looplift.errors import enclosing_function, location
from looplift.sqltext import sql_string
from sqlglot import exp

from .ir.nodes import Span

__all__ = [
    "Sql", "at", "message", "py_repr_sql", "raise_placed_sql", "raise_sql", "raise_tree", "where",
]  # fmt: skip

_SPAN: contextvars.ContextVar[Span | None] = contextvars.ContextVar("looplift_span", default=None)


@dataclass(frozen=True, slots=True)
class Sql:
    """A part of a message that is a SQL string expression (None shows as ``None``)."""

    text: str


Part = str | Sql


@contextmanager
def at(span: Span | None) -> Iterator[None]:
    """Messages made inside the block are placed at ``span`` (unless it is unknown, or a
    node inside the block has a span of its own)."""
    if span is None or span.line <= 0:
        yield
        return
    token = _SPAN.set(span)
    try:
        yield
    finally:
        _SPAN.reset(token)


def where() -> str | None:
    """``parse.py:14 in parse_logs`` for the node being rendered, or None."""
    span = _SPAN.get()
    if span is None:
        return None
    return location(span.path, span.line, enclosing_function(span.path, span.line))


def message(cls: str, text: str, detail: str = "") -> str:
    """The whole message, for a site that cannot put SQL into it."""
    from looplift.errors import format_error

    return format_error(cls, text, where(), detail)


def _pieces(cls: str, parts: Sequence[Part], detail: Sequence[Part]) -> list[Part]:
    place = where()
    out: list[Part] = [f"{cls}: ", *parts]
    if place is not None:
        out += [" (", *detail, " " if detail else "", f"at {place})"]
    elif detail:
        out += [" (", *detail, ")"]
    merged: list[Part] = []
    for p in out:
        if isinstance(p, str) and merged and isinstance(merged[-1], str):
            merged[-1] += p
        elif p != "":
            merged.append(p)
    return merged


def raise_sql(cls: str, *parts: Part, detail: Sequence[Part] = ()) -> str:
    """``raise_error(...)`` of ``cls: parts (detail at where)`` as Spark SQL text: the
    literal parts as escaped string literals, the :class:`Sql` parts as they are."""
    pieces = [sql_string(p) if isinstance(p, str) else f"coalesce({p.text}, 'None')"
              for p in _pieces(cls, parts, detail)]  # fmt: skip
    if len(pieces) == 1:
        return f"raise_error({pieces[0]})"
    return f"raise_error(concat({', '.join(pieces)}))"


def raise_tree(cls: str, *parts: str | exp.Expression,
               detail: Sequence[str | exp.Expression] = ()) -> exp.Expression:  # fmt: skip
    """The same as a sqlglot tree (the table of primitives' lowerings): expression parts
    are string-valued trees."""
    wrapped = [Sql("") if isinstance(p, exp.Expression) else p for p in (*parts, *detail)]
    trees = iter([p for p in (*parts, *detail) if isinstance(p, exp.Expression)])
    pieces = _pieces(cls, wrapped[: len(parts)], wrapped[len(parts):])
    args = [exp.Literal.string(p) if isinstance(p, str) else next(trees) for p in pieces]
    fn = args[0] if len(args) == 1 else exp.Anonymous(this="concat", expressions=args)
    return exp.Anonymous(this="raise_error", expressions=[fn])


#: a message placed already (by the Python worker, at the user's frame)
_PLACED = r" \(at [^()]*:[0-9]+( in [^()]*)?\)$"


def raise_placed_sql(text: str) -> str:
    """``raise_error`` of a whole message made at run time (a Python function's error,
    ``Cls: message``, placed by the worker where the user's code raised): placed here
    where the worker found no frame of the user's (a primitive's Python reference)."""
    place = where()
    if place is None:
        return f"raise_error({text})"
    suffix = sql_string(f" (at {place})")
    return f"raise_error(IF({text} RLIKE {sql_string(_PLACED)}, {text}, concat({text}, {suffix})))"


_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|`[^`]*`")


def py_repr_sql(s: str) -> str:
    """Spark SQL for CPython's ``repr`` of the str ``s`` (quotes, and the escapes of a
    backslash, a quote, ``\\n``, ``\\r`` and ``\\t``; other unprintable characters are
    shown as they are).

    ``s`` is read four times: any ``s`` but a plain name is bound once first (a lambda
    over a one-element array), so that a repr of a repr's operand does not copy it, and
    nested conversions (``int(float(s.strip()))``) stay linear in size."""
    if not _PLAIN_NAME.fullmatch(s):
        return f"transform(array({s}), _rv -> {py_repr_sql('_rv')})[0]"
    esc = s
    for ch, rep in (("\\", "\\\\"), ("\n", "\\n"), ("\r", "\\r"), ("\t", "\\t")):
        esc = f"replace({esc}, {sql_string(ch)}, {sql_string(rep)})"
    double = f"(instr({s}, {sql_string(chr(39))}) > 0 AND instr({s}, {sql_string(chr(34))}) = 0)"
    single = f"replace({esc}, {sql_string(chr(39))}, {sql_string(chr(92) + chr(39))})"
    return (f"CASE WHEN {double} THEN concat('\"', {esc}, '\"') "
            f"ELSE concat({sql_string(chr(39))}, {single}, {sql_string(chr(39))}) END")  # fmt: skip
