"""Session windows as group key parts (``group_by(lambda c: (c.user_id, session(c.ts,
gap=GAP)), clicks)``): the key part's column, natively, with the rule of
``looplift.windows.group_rows`` (a mixin of the planner, beside ``loops.py``).

Over the rows of one partition (the enclosing scopes' keys and the key's other parts,
NaN parts each a partition of their own as in Python), in time order, a row whose time is
at least ``gap`` past the previous row's (or the first row) starts a session; each row's
session start is then the latest start at or before its time::

    start = CASE WHEN <gap from lag(ts) OVER w, or no previous row> THEN ts END
    key   = max(start) OVER (PARTITION BY ... ORDER BY ts)    -- RANGE frame: ties agree

Two window passes over one sort (the second keeps the first's order). Equal times are
one session whatever their order. The gap test is exact: epoch microseconds
(``unix_micros``, no overflow) for datetimes, and for ints ``lag <= ts - gap`` where
``ts - gap`` cannot overflow (below ``-2**63 + gap`` only the first row starts a session).
A None time raises TypeError, as ``session(None, ...)`` does.

Not Spark's ``session_window`` in a groupBy: it keeps a row exactly ``gap`` after the
previous in the session (its windows merge when they touch), takes timestamps only, and
gives no per-row key for a loop body that reads the rows. With the gap a microsecond
shorter it is exact for timestamps (the event-time stream uses it: ``eventtime.py``);
``tests/perf/session_keys.py`` times it against this plan and a session-id window plan.
"""

from __future__ import annotations

import datetime
from typing import Any

from ..dataflow.payloads import ROWS
from ..errtext import raise_sql
from ..ir.nodes import Apply, Lit, Prim, Var
from ..primitives.windows import NATIVE_MAX
from .errors import BackendError
from .frame import SRC
from .rules import rule
from .sql import quote_ident

__all__ = ["SessionsMixin", "is_session", "session_start_sql"]

_INT_MIN = -(2**63)


def is_session(e: Any) -> bool:
    """Is a computed key part ``session(...)``?"""
    return isinstance(e, Apply) and e.fn == Prim("win.session")


def session_start_sql(t: str, ts_type: str, gap: int, window: str) -> str:
    """The row's time where it starts a session, else NULL (``window``: the OVER clause).

    >>> session_start_sql("ts", "datetime", 60, "(ORDER BY ts)")
    'CASE WHEN coalesce(unix_micros(ts) - unix_micros(lag(ts) OVER (ORDER BY ts)) >= 60L, true) THEN ts END'
    """
    prev = f"lag({t}) OVER {window}"
    if ts_type == "datetime":
        test = f"coalesce(unix_micros({t}) - unix_micros({prev}) >= {gap}L, true)"
    else:
        low = _INT_MIN + gap
        test = f"(CASE WHEN {t} < {low}L THEN {prev} IS NULL ELSE coalesce({prev} <= {t} - {gap}L, true) END)"
    return f"CASE WHEN {test} THEN {t} END"


class SessionsMixin:
    def session_key_column(self, f: int, loop: str, others: tuple[int, ...]) -> None:
        """The column of key part ``f``, ``session(ts, gap=...)``: each row's session start
        among the rows with the same enclosing keys and other key parts ``others``."""
        assert self.source is not None  # type: ignore[attr-defined]
        expr, ts_type = self.a.virtual[f]  # type: ignore[attr-defined]
        assert isinstance(expr, Apply)
        ts, gap, kind = expr.args
        assert isinstance(gap, Lit) and isinstance(kind, Lit)
        want = {"datetime": "td", "int": "int"}.get(ts_type)
        if want is None:
            raise BackendError("session(...) needs a timestamp typed datetime or int")
        if kind.value != want:
            raise BackendError(f"the gap of session(...) must be {'a timedelta' if want == 'td' else 'an int'} "
                               f"for {'a datetime' if ts_type == 'datetime' else 'an int'} timestamp (CPython raises TypeError)")  # fmt: skip
        if not 0 < gap.value <= NATIVE_MAX:
            raise BackendError("the gap of session(...) must be positive and at most 2**62")
        col = self.field_col(f)  # type: ignore[attr-defined]
        sql, nullable = self.key_sql(ts)  # type: ignore[attr-defined]
        if isinstance(ts, Var) and ts.name.startswith("_kf.") and not nullable:
            tcol = self.field_col(int(ts.name[4:]))  # type: ignore[attr-defined]  # a field
        else:
            tcol = f"{col}_time"
            if nullable:
                err = raise_sql("TypeError", "session() timestamp must be datetime.datetime or int, not NoneType")
                sql = f"CASE WHEN {sql} IS NULL THEN {err} ELSE {sql} END"
            self.step(ROWS, f"{SRC}.withColumn({tcol!r}, E({sql!r}))",  # type: ignore[attr-defined]
                      "the time of session(...)")
        chain = self.loop_chain(loop)  # type: ignore[attr-defined]
        parts = list(self.key_cols(self.frame_key(chain[:-1])))  # type: ignore[attr-defined]
        for o in others:
            for c in (self.field_col(o), self.nan_key_col(o)):  # type: ignore[attr-defined]
                if c is not None and c not in parts:
                    parts.append(c)
        t = quote_ident(tcol)
        part = f"PARTITION BY {', '.join(quote_ident(c) for c in parts)} " if parts else ""
        window = f"({part}ORDER BY {t})"
        start = session_start_sql(t, ts_type, gap.value, window)
        self.step(ROWS, f"{SRC}.withColumn({col!r}, E({start!r}))",  # type: ignore[attr-defined]
                  f"where a session starts: {_gap_text(gap.value, kind.value)} or more after the previous time (window)")
        key = f"max({quote_ident(col)}) OVER {window}"
        self.step(ROWS, f"{SRC}.withColumn({col!r}, E({key!r}))",  # type: ignore[attr-defined]
                  "each row's session start: the last start at or before its time (window)")


def _gap_text(gap: int, kind: Any) -> str:
    """``0:30:00`` (a timedelta's text) or ``1800``."""
    return str(datetime.timedelta(microseconds=gap)) if kind == "td" else str(gap)


@rule("win.session")
def session_rule(r: Any, op: str, args: Any, ts: Any, x: Any) -> str:
    """``session(...)`` anywhere but as a group key part: refused (its value depends on the
    other rows of the group)."""
    raise BackendError("session(...) is only meaningful as a part of a group_by key")
