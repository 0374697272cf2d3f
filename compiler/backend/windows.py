"""Time windows in Spark SQL with the semantics of ``looplift.windows``: the rules of the
table's ``win.tumble`` and ``win.hop`` (``primitives/windows.py``: types, references,
partiality).

A datetime is a TIMESTAMP (naive UTC): its epoch microseconds are ``unix_micros(ts)``,
exact for the years 1..9999; a window start goes back with ``timestamp_micros``. With the
offset reduced modulo the step at compile time (``o``, ``0 <= o < step``), the window
start is ``t - pmod(t - o, step)`` (``pmod`` floors as Python's ``%``); for an int ``t``
the subtraction is ``pmod(pmod(t, step) - o, step)``, which cannot overflow, and the
result's overflow beyond 64 bits is Spark's ANSI error (OverflowError). ``hop``'s starts
run from ``first = last - ((size - r - 1) div slide) * slide`` to the last start, where
``r = t - last`` (none where ``size <= r``), ascending: ``sequence(first, last, slide)``.

>>> tumble_sql("ts", "datetime", 300000000, 0)
'timestamp_micros(unix_micros(ts) - pmod(unix_micros(ts), 300000000L))'
>>> tumble_sql("x", "int", 10, 3)
'(x - pmod(pmod(x, 10L) - 3L, 10L))'
"""

from __future__ import annotations

from typing import Any

from ..errtext import raise_sql
from ..ir.nodes import Expr, Lit
from ..primitives import PRIMITIVES
from ..primitives.windows import MIN_US, native_window
from .guarded import PyCallKind
from .rules import Emitter, rule
from .typevocab import spark_type

__all__ = ["hop_sql", "tumble_sql", "window_rule"]


@rule("win.tumble", "win.hop")
def window_rule(r: Emitter, op: str, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
    """A window call: natively where the table says the lowering is exact, else the
    reference as a vectorized Python function; TypeError for a None ``ts``."""
    lits = [a.value if isinstance(a, Lit) else None for a in args[1:]]
    *durations, kind = lits
    entry = PRIMITIVES[op]
    if not native_window(ts[0], durations, kind):
        return r._pycall(PyCallKind.PRIM, op, args, rtype=spark_type(entry.result_type(ts)))
    *steps, off = durations
    if op == "win.tumble":
        sql = r.bind([x[0]], lambda v: _checked_start(tumble_sql(v[0], ts[0], steps[0], off), ts[0]))
    else:
        sql = r.bind([x[0]], lambda v: hop_sql(v[0], ts[0], steps[0], steps[1], off, f"_w{r.depth}"))
    if not r.ty.may_be_null(args[0]):
        return sql
    name = op[4:]
    msg = raise_sql("TypeError", f"{name}() timestamp must be datetime.datetime or int, not NoneType")
    return f"(CASE WHEN {x[0]} IS NULL THEN {msg} ELSE {sql} END)"


def _epoch(v: str, t: str) -> str:
    return f"unix_micros({v})" if t == "datetime" else v


def _rest(v: str, t: str, step: int, off: int) -> str:
    """How far ``v`` is past its last window start (``0 <= rest < step``)."""
    o = off % step
    u = _epoch(v, t)
    if t == "datetime":  # |unix_micros| < 2**58: no overflow
        return f"pmod({u} - {o}L, {step}L)" if o else f"pmod({u}, {step}L)"
    return f"pmod(pmod({u}, {step}L) - {o}L, {step}L)" if o else f"pmod({u}, {step}L)"


def _last(v: str, t: str, step: int, off: int) -> str:
    """The last window start at or before ``v`` (epoch microseconds for a datetime)."""
    u = _epoch(v, t)
    last = f"{u} - {_rest(v, t, step, off)}"
    return last if t == "datetime" else f"({last})"


def tumble_sql(v: str, t: str, size: int, off: int) -> str:
    last = _last(v, t, size, off)
    return f"timestamp_micros({last})" if t == "datetime" else last


def _checked_start(sql: str, t: str) -> str:
    """A datetime start before ``datetime.min`` is OverflowError, as Python's arithmetic."""
    if t != "datetime":
        return sql
    err = raise_sql("OverflowError", "date value out of range")
    inner = sql.removeprefix("timestamp_micros(").removesuffix(")")
    return f"(CASE WHEN {inner} < {MIN_US}L THEN {err} ELSE {sql} END)"


def hop_sql(v: str, t: str, size: int, slide: int, off: int, w: str = "_w") -> str:
    u = _epoch(v, t)
    r = _rest(v, t, slide, off)
    last = f"({u} - {r})"
    first = f"({last} - (({size}L - {r} - 1L) div {slide}L) * {slide}L)"  # n - 1 steps back
    seq = f"sequence({first}, {last}, {slide}L)"
    if t == "datetime":
        err = raise_sql("OverflowError", "date value out of range")
        starts = f"transform({seq}, {w} -> timestamp_micros({w}))"
        return (f"(CASE WHEN {r} >= {size}L THEN CAST(array() AS ARRAY<TIMESTAMP>) "
                f"WHEN {first} < {MIN_US}L THEN {err} ELSE {starts} END)")  # fmt: skip
    return f"(CASE WHEN {r} >= {size}L THEN CAST(array() AS ARRAY<BIGINT>) ELSE {seq} END)"
