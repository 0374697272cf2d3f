"""Time windows (``looplift.windows``): ``tumble`` and ``hop`` as entries of the table
(their SQL is the rule of ``backend/windows.py``).

The frontend reads the durations of a call at compile time (literals, module-level
constants, ``timedelta(...)`` of those) and passes them as int literals:
``win.tumble(ts, size, offset, kind)`` and ``win.hop(ts, size, slide, offset, kind)``, in
microseconds where ``kind`` is ``"td"`` (timedeltas, for a datetime ``ts``) and as they
are where it is ``"int"`` (for an int ``ts``). The references are the runtime's
(``looplift.windows.tumble_prim`` / ``hop_prim``, which call ``tumble`` / ``hop``).

Types: ``tumble`` returns the type of ``ts`` (a datetime or an int), ``hop`` a list of
them, ascending; neither is None.

Partiality, in the order CPython checks (``looplift.windows``):

- ``ts`` None (or neither a datetime nor an int): TypeError ("tumble() timestamp must be
  datetime.datetime or int, not NoneType");
- durations of the other kind (timedeltas for an int ``ts``): TypeError;
- a size (or slide) that is not positive: ValueError ("tumble() size must be positive");
- a datetime window starting before ``datetime.min``: OverflowError ("date value out of
  range"); an int start beyond 64 bits: OverflowError (SPEC §4).

The native lowering covers a ``ts`` typed datetime with ``"td"`` durations and one typed
int with ``"int"`` durations, sizes from 1 to 2**62; other calls run the reference as a
vectorized Python function (the same answer and errors, slower).

>>> from looplift.compiler.primitives import PRIMITIVES
>>> PRIMITIVES["win.hop"].result_type(["datetime", "int", "int", "int", "str"])
('list', 'datetime')
>>> PRIMITIVES["win.tumble"].raises((None, 5, 0, "int")).cls
'TypeError'
"""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from typing import Any

from looplift.windows import EPOCH, hop_prim, tumble_prim

from .base import Primitive
from .partiality import Pred, Raises

__all__ = ["WINDOWS", "NATIVE_MAX", "native_window", "window_call"]

#: the largest size, slide and offset the native lowering takes (no 64-bit overflow in
#: ``unix_micros(ts) - pmod(...)``, nor in ``ts - pmod(pmod(ts, size) - offset, size)``)
NATIVE_MAX = 2**62
_WANT = {"datetime": "td", "int": "int"}
MIN_US = -62_135_596_800_000_000  # datetime.min in epoch microseconds
US = datetime.timedelta(microseconds=1)


def native_window(ts_type: Any, durations: Sequence[Any], kind: Any) -> bool:
    """Is the native lowering exact for a ``ts`` of this type and these constant
    durations (size[, slide], offset)?"""
    if _WANT.get(ts_type) != kind or not all(type(d) is int for d in durations):
        return False
    *steps, off = durations
    return all(0 < s <= NATIVE_MAX for s in steps) and abs(off) <= NATIVE_MAX


def _kind_bad(ts: Any, *rest: Any) -> bool:
    kind = rest[-1]
    if isinstance(ts, datetime.datetime):
        return kind != "td"
    return isinstance(ts, int) and not isinstance(ts, bool) and kind != "int"


def _ts_bad(ts: Any, *_: Any) -> bool:
    return not isinstance(ts, datetime.datetime) and (not isinstance(ts, int) or isinstance(ts, bool))


def _clauses(fn: str, steps: tuple[str, ...]) -> tuple[Raises, ...]:
    out = [Raises("TypeError", f"{fn}() timestamp must be datetime.datetime or int, not NoneType",
                  Pred(_ts_bad, "ts None, or neither a datetime nor an int")),
           Raises("TypeError", f"{fn}() durations must be timedelta for a datetime timestamp",
                  Pred(_kind_bad, "durations of the other kind than ts"))]  # fmt: skip
    for i, name in enumerate(steps, start=1):
        out.append(Raises("ValueError", f"{fn}() {name} must be positive",
                          Pred(lambda *xs, i=i: xs[i] <= 0, f"{name} <= 0")))  # fmt: skip
    out.append(Raises("OverflowError", "date value out of range",
                      Pred(_before_min, "a window starting before datetime.min")))  # fmt: skip
    return tuple(out)


def _before_min(ts: Any, *xs: Any) -> bool:
    """The (first) window of a datetime ``ts`` starts before ``datetime.min``."""
    if not isinstance(ts, datetime.datetime):
        return False
    *steps, off, _kind = xs
    step = steps[-1]  # tumble's size, hop's slide
    us = (ts - EPOCH) // US
    last = us - (us - off) % step
    if len(steps) == 2:  # hop: the first of the windows that hold ts
        size = steps[0]
        n = -((last - us + size) // -step)
        last -= max(n - 1, 0) * step
    return last < MIN_US


def _tumble_type(ts: Sequence[Any]) -> Any:
    return ts[0] if ts and ts[0] in _WANT else "any"


def _hop_type(ts: Sequence[Any]) -> Any:
    return ("list", _tumble_type(ts))


_T = datetime.datetime
_US5 = 300_000_000
_EDGES_TUMBLE = (
    (_T(1969, 12, 31, 23, 59, 59, 999_999), _US5, 0, "td"), (_T(1970, 1, 1), _US5, 0, "td"),
    (_T(1, 1, 1), 7 * 86_400_000_000, 0, "td"), (_T(9999, 12, 31, 23, 59, 59, 999_999), 1, 0, "td"),
    (_T(2024, 5, 1, 9, 7), _US5, -1, "td"), (-1, 10, 0, "int"), (-(2**63), 10, 3, "int"),
    (2**63 - 1, 10, 0, "int"), (None, 10, 0, "int"), (5, 0, 0, "int"), (5, 10, 0, "td"),
)  # fmt: skip
_EDGES_HOP = (
    (_T(1970, 1, 1), 3_600_000_000, _US5, 0, "td"), (_T(1, 1, 1), 2 * _US5, _US5, 0, "td"),
    (-3, 2, 5, 0, "int"), (-5, 2, 5, 0, "int"), (0, 7, 3, 0, "int"), (None, 2, 1, 0, "int"),
    (1, 1, 0, 0, "int"),
)  # fmt: skip

WINDOWS: tuple[Primitive, ...] = (
    Primitive("win.tumble", (4, 4), "any", "any", tumble_prim, _clauses("tumble", ("size",)),
              None, True, edges=_EDGES_TUMBLE, type_rule=_tumble_type,
              null_rule=lambda ts, nulls: False, lowering="rule", domain="window",
              notes="ts - pmod(ts - offset, size) on epoch microseconds (unix_micros), "
                    "back with timestamp_micros"),
    Primitive("win.hop", (5, 5), "any", "list", hop_prim,
              _clauses("hop", ("size", "slide")), None, True, edges=_EDGES_HOP,
              type_rule=_hop_type, null_rule=lambda ts, nulls: False, lowering="rule",
              domain="window",
              notes="the last start as tumble's, then sequence(first, last, slide)"),
)  # fmt: skip


def window_call(op: str, ts: str, lits: Sequence[Any]) -> str:
    """The call as the user spells it (for ``--explain``):
    ``tumble(ts, size=timedelta(microseconds=300000000))``."""
    *durations, kind = lits
    names = {"win.tumble": ("size", "offset"), "win.hop": ("size", "slide", "offset"),
             "win.session": ("gap",)}[op]  # fmt: skip

    def dur(v: Any) -> str:
        return f"timedelta(microseconds={v})" if kind == "td" else repr(v)

    parts = [f"{n}={dur(v)}" for n, v in zip(names, durations, strict=True)
             if not (n == "offset" and v == 0)]  # fmt: skip
    return f"{op[4:]}({', '.join([ts, *parts])})"
