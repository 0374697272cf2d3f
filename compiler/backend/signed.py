"""The signed plan of an algorithm of additive states: its batch plan over signed rows.

What ``f.stream`` runs natively (:mod:`looplift.streaming`): the batch plan's map
phase, its additive sums weighted by each row's own ``_sign`` (``sum(v * _sign)``, and
``sum(_sign)`` as the key's live row count ``_live``), and its exit projection, so
Spark's streaming aggregation keeps the sums in its state store, with no Python.

Transforms this (the batch plan of ``average``)::

    rows_2 = ll.entry(rows, 'rows', ['int', 'int'], names=['k_2', 'value'])
    sums = rows_2.groupBy('k_2').agg(sum((1L)) ...)
    ...
    out = by_k_2.select(k_2 AS k, ... AS avg)

into::

    rows_2 = ll.entry(rows, 'rows', ['int', 'int'], keep=['_sign'], names=['k_2', 'value'])
    sums = rows_2.groupBy('k_2').agg(sum((1L) * _sign) ..., sum(_sign) AS _live)
    ...  (every reader NULL where _live = 0: a key without rows computes nothing)
    out = by_k_2.select(k_2 AS k, ... AS avg, k_2 AS _key, _live)

Assumes: the input DataFrame has the RowStream's fields, then ``_sign`` (+1/−1).
Guarantees: one aggregate (of additive states, over the rows frame), its frame's
projections, and one output row per scope key, unconditional; anything else (action,
ordered or container states, host functions, joins between scopes, a filtered or
per-row output) is :class:`NotSigned` with the construct named, and ``f.stream`` keeps
the per-key Python form for it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..dataflow.payloads import (
    GLOBAL,
    ROWS,
    ActionState,
    FrameKey,
    HostCall,
    OrderedState,
    Return,
)
from ..names import user_name
from ..operators import OperatorKind
from .frame import Frame
from .plan import PlanModule, Planner, planned_or

if TYPE_CHECKING:
    from ..operators import StateOperator
    from .context import Compiled

__all__ = ["NotSigned", "signed_plan"]

SIGN = "_sign"
LIVE = "_live"
KEY = "_key"


class NotSigned(Exception):
    """The algorithm has no native signed plan (the message says what needs Python)."""


def signed_plan(compiled: Compiled) -> PlanModule:
    """The signed plan module of a table or aggregate algorithm of additive states
    (``plan(spark, rows, *scalars)``, ``rows`` carrying ``_sign``); raises
    :class:`NotSigned` when a part of it needs more than native sums per scope key."""
    return planned_or(NotSigned, compiled, SignedPlanner)


class SignedPlanner(Planner):
    """:class:`Planner` over signed rows, refusing what a streaming aggregation cannot keep."""

    aggregates: list[tuple[str, ...]]
    keep = (SIGN,)
    nan_keys = False  # incremental: a NaN key row is matched by its value
    group_windows = False  # the aggregate per key is what a view keeps
    partial_aggregation = False  # (the same: one aggregate per key)

    def run(self) -> PlanModule:
        self.aggregates = []
        out = super().run()
        if out.pycalls or out.python_ops:
            raise NotSigned("Python runs in " + ", ".join(
                [*out.python_ops, *(c.ref for c in out.pycalls)]))  # fmt: skip
        return out

    # -- what runs Python, or keeps more than sums ------------------------------------
    def visit_ActionState(self, op: ActionState) -> None:
        raise NotSigned(f"state `{user_name(op.operator.name)}` is not additive (a streaming "
                        "aggregation keeps sums only)")  # fmt: skip

    def visit_OrderedState(self, op: OrderedState) -> None:
        raise NotSigned("an ordered loop (`order_by`) runs over each key's sorted rows")

    def visit_HostCall(self, op: HostCall) -> None:
        raise NotSigned("a host function runs Python")

    def session_key_column(self, f: int, loop: str, others: tuple[int, ...]) -> None:
        raise NotSigned("a `session(...)` key: a row's session depends on the other rows of "
                        "its key (a delete can split a session); stream it with event_time=")  # fmt: skip

    def materialize_op(self, op: StateOperator) -> None:
        if op.kind != OperatorKind.ADDITIVE and op.name not in self.op_done:
            raise NotSigned(f"state `{user_name(op.name)}` is not additive")
        super().materialize_op(op)

    def frame(self, fk: FrameKey) -> Frame:
        if fk not in self.frames and fk != ROWS:
            based = any(self.frame_key(op.scope) == fk and op.actions and self._independent(op)
                        for op in self.ops)  # fmt: skip
            if not based:  # distinct keys or the one global row: not an aggregate of sums
                raise NotSigned(f"scope {self.scope_text(fk)} has no additive state of its own")
        return super().frame(fk)

    def step(self, fk: FrameKey, code: str, comment: str = "") -> None:
        if ".join(" in code or "join_on_keys(" in code or ".crossJoin(" in code:
            raise NotSigned(f"scope {self.scope_text(fk)} joins the values of another scope")
        super().step(fk, code, comment)

    def import_into(self, fk: FrameKey, home: FrameKey, name: str) -> None:
        if name not in self.frame(fk).cols:
            raise NotSigned(f"`{user_name(name)}` of scope {self.scope_text(home)} is used in "
                            f"scope {self.scope_text(fk)} (a join)")  # fmt: skip
        super().import_into(fk, home, name)

    # -- the sign and the live count (hooks of the additive sums) --------------------------
    def signed_rows(self, var: str, fk: FrameKey) -> str:
        if fk != ROWS:
            raise NotSigned(f"an additive state is updated once per scope {self.scope_text(fk)}")
        return var

    def signed_term(self, sql: str) -> str:
        return f"({sql}) * `{SIGN}`"

    def live_sums(self, keys: tuple[str, ...]) -> list[str]:
        if self.aggregates:
            raise NotSigned("the states of two scopes are two aggregates (joined)")
        self.aggregates.append(keys)
        msg = ("looplift: a scope key has more deletes than inserts "
               "(a delete of a row that is not live)")  # fmt: skip
        sql = f"CASE WHEN sum(`{SIGN}`) < 0 THEN raise_error('{msg}') ELSE sum(`{SIGN}`) END"
        return [f"E({sql!r}).alias({LIVE!r})"]

    def live_columns(self, keys: tuple[str, ...]) -> list[str]:
        return [f"F.col({LIVE!r})"]

    def live_reader(self, sql: str, keys: tuple[str, ...]) -> str:
        # a key whose rows were all deleted has no output: its readers are NULL, so the
        # exit projection computes nothing of them (no division by a zero count)
        return f"CASE WHEN `{LIVE}` > 0 THEN {sql} END" if keys else sql

    # -- the output: one row per scope key, with the key and its live count -----------------
    def visit_Return(self, op: Return) -> None:
        if self.out.ordered or self.fold_rows_col:
            raise NotSigned("rows are yielded inside an ordered loop")
        if op.returns == "rows":
            if len(self.out.parts) != 1:
                raise NotSigned("more than one `yield`")
            index, fk, _exprs, guard = self.out.parts[0]
            if guard is not None:
                raise NotSigned("the `yield` is conditional (a key may have no row)")
            if index in self.out.exploded or fk == ROWS:
                raise NotSigned("rows are yielded per input row or per container value")
        else:
            fk = GLOBAL
        if not self.aggregates or self.frame(fk).keys != self.aggregates[0]:
            raise NotSigned("the output is not read from the scope of the additive states")
        super().visit_Return(op)
        keys = self.frames[fk].keys
        extra = [f"F.col({LIVE!r})"]
        if len(keys) == 1:
            extra.insert(0, f"F.col({keys[0]!r}).alias({KEY!r})")
        elif keys:
            inner = ", ".join(f"'_{i + 1}', `{k}`" for i, k in enumerate(keys))
            extra.insert(0, f"E({f'named_struct({inner})'!r}).alias({KEY!r})")
        last = self.lines[-1]
        assert last.startswith("    out = ") and last.endswith(")"), last
        self.lines[-1] = last[:-1] + ", " + ", ".join(extra) + ")"
