"""The bulk plan of a state-mode view: each scope key's state inputs, aggregated natively.

What the Spark store's native bulk load runs (:mod:`looplift.bulkload`). Over the
view's first batch (the fields, then the kept columns ``__s``, the sign, and ``__h``, the
row hash), one aggregate per scope key computes:

- ``__hi``: the inserted rows' hashes (the key's live rows, netted per hash with the
  deletes afterwards);
- for each action state with a native build (``native_build`` on its class, e.g.
  ``IntervalSequence``): the class's action code each inserted row takes and its
  argument, packed as one long (``arg * 2**bits + code``; the batch plan's map part,
  :func:`.states.action_map`), and, rarely, as (code, arg, sign) structs: deleted rows,
  and arguments too large to pack;
- per field of each additive state (``Sum``, ``Count``, ``Average``, ``Variance``):
  ``sum(term * __s)``, the batch plan's projection weighted by the sign
  (:func:`.states.additive_terms`), and ``sum(CASE WHEN guard THEN __s ELSE 0 END)``, how
  many live rows took an action on it (none: the field keeps its initial value);
- ``__r0``, ``__r1``, ...: the fields of one row of the key, ``first`` of each (the
  reference code runs on it once, with no action, to read the states: the key's output
  rows; only its key fields matter); ``__del``: the deleted rows' hashes and fields
  (netted with ``__hi``; they name a delete that has no live row to take back).

Per key, Python then builds each state (``batch_apply`` of the collected actions on a
fresh state, as replay's batch mode does; the additive fields set from the sums) in the
order of the compiler's operators. Anything else is :class:`NotNative` with the reason,
and the view loads by replay.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..dataflow.payloads import GLOBAL, ROWS, GroupBy, Iterate, Param, Source
from ..names import user_name
from ..operators import OperatorKind
from .plan import PlanModule, Planner, planned_or
from .states import action_map, additive_terms, exclusive, field_init

if TYPE_CHECKING:
    from ..operators import StateOperator
    from .context import Compiled

__all__ = ["BulkPlan", "NotNative", "bulk_plan"]

KEEP = ("__s", "__h")


class NotNative(Exception):
    """The view has no native bulk build (the message says which part needs replay)."""


@dataclass(frozen=True)
class BulkPlan:
    """The generated module and how to read its row per key.

    ``states``: per state, in the compiler's operator order, ``("action", class, code
    bits, column)`` (the packed actions in ``column``, the others in ``column + "x"``) or
    ``("additive", class, ((field,
    initial value, sum column, taken column), ...))``. ``key_fields``: the source fields of
    the scope key."""

    module: PlanModule
    states: tuple[tuple[Any, ...], ...]
    key_fields: tuple[int, ...]


def bulk_plan(compiled: Compiled) -> BulkPlan:
    """The bulk plan of a table or aggregate algorithm whose states all build natively;
    raises :class:`NotNative` naming what does not."""
    return planned_or(NotNative, compiled, BulkPlanner, "bulk")


class BulkPlanner(Planner):
    """:class:`Planner` visiting only the rows and loops, then emitting the key aggregate."""

    keep = KEEP  # the sign and the row hash, after the fields
    nan_keys = False  # incremental: a NaN key row is matched by its value
    group_windows = False  # the aggregate per key is what a view keeps
    partial_aggregation = False  # (the same: one aggregate per key)

    def bulk(self) -> BulkPlan:
        for node in self.graph.nodes():
            if isinstance(node.op, (Source, Param, GroupBy, Iterate)):
                self.visit(node.op)
        if self.source is None:
            raise NotNative("the algorithm reads no rows")
        if not self.ops:
            raise NotNative("the algorithm keeps no state")
        scopes = {self.frame_key(op.scope) for op in self.ops}
        if len(scopes) != 1:
            raise NotNative("its states live in different scopes")
        (fk,) = scopes
        keys = self.key_cols(fk)
        if fk != GLOBAL and not keys:
            raise NotNative("its scope has no key columns")
        r = self.renderer(ROWS)
        self.frame(ROWS)
        fields = [self.field_col(i) for i in range(len(self.source.types))]
        quoted = ", ".join(f"`{c}`" for c in fields)
        per_row: dict[str, tuple[str, str]] = {  # column -> (its SQL per row, aggregate)
            "__hi": ("CASE WHEN `__s` > 0 THEN `__h` END", "collect_list"),
            "__del": (f"CASE WHEN `__s` < 0 THEN struct(`__h`, {quoted}) END", "collect_list"),
        }
        states: list[tuple[Any, ...]] = []
        for op in self.ops:
            if op.kind == OperatorKind.ACTION and not op.ordered:
                states.append(self._action_state(op, r, per_row))
            elif op.kind == OperatorKind.ADDITIVE:
                states.extend(self._additive_states(op, r, per_row))
            else:
                raise NotNative(f"state `{user_name(op.name)}` is {op.kind or 'not classified'}")
        src = self.frames[ROWS].var  # after rendering: the guards' columns are on it
        # each value once per row, in a (code-generated) projection; then plain aggregates
        sel = [*(f"F.col({c!r})" for c in dict.fromkeys([*keys, *fields])),
               *(f"E({sql!r}).alias({n!r})" for n, (sql, _) in per_row.items())]  # fmt: skip
        aggs = [*(f"F.first({c!r}).alias('__r{i}')" for i, c in enumerate(fields)),
                *(f"F.{fn}({n!r}).alias({n!r})" for n, (_, fn) in per_row.items())]  # fmt: skip
        grouping = f".groupBy({', '.join(repr(k) for k in keys)})" if keys else ""
        self.emit(f"out = {src}.select({', '.join(sel)}){grouping}.agg({', '.join(aggs)})"
                  "  # per scope key: row hashes, actions, sums, one row")  # fmt: skip
        self.columns_out = (*keys, *(f"__r{i}" for i in range(len(fields))), *per_row)
        module = PlanModule(self.fn.name, self.prog.kind, self.render_module(), self.columns_out,
                            tuple(self.pycalls.values()), tuple(self.python_ops))  # fmt: skip
        if module.pycalls or module.python_ops:
            raise NotNative("Python runs in its map part")
        return BulkPlan(module, tuple(states), tuple(self.field_of_col[k] for k in keys))

    def visit_GroupBy(self, op: GroupBy) -> None:
        if any(f in self.a.virtual for f in op.loop.key):
            raise NotNative("a group_by key is computed")
        super().visit_GroupBy(op)

    def materialize_op(self, op: StateOperator) -> None:
        raise NotNative(f"state `{user_name(op.name)}` is read inside a loop over rows")

    # -- the states ---------------------------------------------------------------------------
    def _rows_actions(self, op: StateOperator) -> None:
        for act in op.actions:
            if self.frame_key(act.loops) != ROWS:
                raise NotNative(
                    f"state `{user_name(op.name)}` is updated outside the loop over rows"
                )

    def _action_state(self, op: StateOperator, r: Any, per_row: dict) -> tuple[Any, ...]:
        """Its inserted rows' actions as ``arg * 2**bits + code`` (``__a<i>``); the deleted
        rows' and those whose argument does not fit as (code, arg, sign) (``__a<i>x``)."""
        name = user_name(op.name)
        (s,) = op.states
        cref = op.classes[0]
        cls = self.refs.get(cref)
        if not getattr(cls, "native_build", False):
            cname = getattr(cls, "__name__", cref)
            raise NotNative(f"state `{name}` ({cname}) has no native build")
        if self.a.states[s].args:
            raise NotNative(f"state `{name}` takes constructor arguments")
        self._rows_actions(op)
        codes = cls.codes()
        bits = max(1, (len(codes) - 1).bit_length())
        col = f"__a{len(per_row)}"
        if not op.actions:
            per_row[col] = per_row[col + "x"] = ("CAST(NULL AS BIGINT)", "collect_list")
            return ("action", cls, bits, col)
        if not (exclusive(op.actions) and all(len(a.args) == 1 for a in op.actions)):
            raise NotNative(f"state `{name}`: a row may take several actions")
        for a in op.actions:
            if self.ty.of(a.args[0]) != "int" or self.ty.may_be_null(a.args[0]):
                raise NotNative(f"state `{name}`: an action argument is not an int")
        whens = " ".join(f"WHEN {r.guards(a.guards)} THEN {codes.index(a.method)}"
                         for a in op.actions)  # fmt: skip
        code, arg = f"(CASE {whens} END)", f"({action_map(op, r).columns[1]})"
        lim = 2 ** (63 - bits) - 1
        fits = f"{arg} BETWEEN {-lim} AND {lim}"
        packed = (f"CASE WHEN `__s` > 0 AND {code} IS NOT NULL AND {fits} "
                  f"THEN {arg} * {1 << bits} + {code} END")  # fmt: skip
        other = (f"CASE WHEN {code} IS NOT NULL AND (`__s` < 0 OR NOT {fits}) "
                 f"THEN struct({code} AS c, {arg} AS a, `__s` AS s) END")  # fmt: skip
        per_row[col] = (packed, "collect_list")
        per_row[col + "x"] = (other, "collect_list")
        return ("action", cls, bits, col)

    def _additive_states(self, op: StateOperator, r: Any, per_row: dict) -> list[tuple[Any, ...]]:
        self._rows_actions(op)
        terms = additive_terms(op, self.classes, lambda act: r, self.ty)
        out = []
        for s, cref in zip(op.states, op.classes, strict=True):
            if self.a.states[s].args:
                raise NotNative(f"state `{user_name(s)}` takes constructor arguments")
            fields = []
            for fname, init in self.classes[cref].fields:
                mine = [t for t in terms if t.state == s and t.field == fname]
                col = f"__f{len(per_row)}"
                value = " + ".join(f"({t.sql})" for t in mine) or "0"
                taken = (
                    " + ".join(
                        f"CASE WHEN {r.guards(t.act.guards)} THEN 1 ELSE 0 END" for t in mine
                    )
                    or "0"
                )
                per_row[col] = (f"({value}) * `__s`", "sum")
                per_row[col + "t"] = (f"({taken}) * `__s`", "sum")
                fields.append((fname, field_init(init), col, col + "t"))
            out.append(("additive", self.refs[cref], tuple(fields)))
        return out
