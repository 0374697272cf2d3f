"""Arg-max / arg-min states in a plan: one aggregate (or a window), no Python.

An ``ArgBest`` operator (the frontend's rewrite of ``if k > best_k: best_k, best =
k, v``) offers ``(key, row, value)`` per row under the guards of its ``if``. The best
row is the first in the order ``<guard first>, key DESC|ASC, row fields ASC|DESC`` —
ties as CPython's loop over the canonical row order breaks them (fields that are scope
keys, or the key itself, cannot break a tie and are left out). Natively, per scope key:

- **struct form** (the key a number or a bool, every value a field, the key or a scope
  key): ``min``/``max(named_struct(<key turned>, <row fields>))`` (Spark orders a struct
  field by field, ascending, nulls first; a descending int key is ``~key``, exact), only
  over the offered rows: one sort-based aggregate, partial before the shuffle, the
  shape of a hand-written ``min(struct(-ts, ...))``;
- else a rank column ``row_number() OVER (PARTITION BY <scope key> ORDER BY ...)`` and
  the row ranked 1 (``WHERE rank = 1``: the QUALIFY shape, which Spark pre-limits to one
  row per key before the shuffle with a ``WindowGroupLimit``); several orderings in one
  fused group, or no scope key (a global arg-max gives one row also for no input), keep
  ``max(CASE WHEN rank = 1 AND guard THEN named_struct(value, key) END)``;
- the reader: the best row's value where it beats the starting key, else the starting
  value;
- a key that may be None, from a starting key of None (``if K is None or x < K``): a
  None key offered after the first row that set ``K`` (in the canonical row order) is a
  TypeError in CPython's comparison; two more aggregates per scope key (the largest row
  offered None, the smallest offered a key) raise it where the first comes after the
  second (``_late_none``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...dataflow.payloads import ROWS
from ...dataflow.strategy import Strategy
from ...errtext import raise_sql
from ...ir.nodes import Apply, Lit, Prim, Var
from ...names import user_name
from ..errors import BackendError
from ..frame import SRC
from ..sql import quote_ident, sql_literal
from ..states import constructor_args
from .registry import Reduced, StatePlanner, register

if TYPE_CHECKING:
    from ...operators import StateOperator
    from ..context import PlanContext

__all__ = ["ArgBestPlanner"]

_BEATS = {"gt": ">", "ge": ">=", "lt": "<", "le": "<="}


@register(Strategy.ARG_BEST)
class ArgBestPlanner(StatePlanner):
    """Native arg-best readers (``Strategy.ARG_BEST``)."""

    #: the min/max-of-a-struct form where it exists (off: the window forms, to compare)
    struct_form = True

    def reduce(self, group: list[StateOperator], keys: tuple[str, ...]) -> Reduced:
        return self.arg_best_readers(group, keys)

    def arg_best_readers(
        self, group: list[StateOperator], keys: tuple[str, ...]
    ) -> tuple[str, list[str]]:
        """The readers of fused ArgBest operators: one window per ordering, then the first
        row per scope key (a filter, or an aggregate where a filter cannot do)."""
        r = self.p.renderer(ROWS)
        ranks: dict[str, str] = {}  # window SQL -> rank column
        offers: list[_Offer] = []
        for op in group:
            (act,) = op.actions
            init, init_key, mode = constructor_args(op, self.p.a, self.p.scalar_params)
            if not (isinstance(mode, Lit) and mode.value in _BEATS):
                raise BackendError("ArgBest needs a constant mode", act.span)
            key_x, row_x, value_x = act.args
            guard = r.guards(act.guards)
            key = r.expr(_through_names(self.p, key_x))
            kept = {quote_ident(k) for k in keys} | {key}
            fields = [f for f in _row_fields(self.p, row_x) if f not in kept]
            kdir = "DESC NULLS LAST" if mode.value in ("gt", "ge") else "ASC NULLS LAST"
            rdir = "ASC NULLS FIRST" if mode.value in ("gt", "lt") else "DESC NULLS LAST"
            first = [] if guard == "TRUE" else [f"CASE WHEN {guard} THEN 0 ELSE 1 END"]
            order = ", ".join([*first, f"{key} {kdir}", *(f"{f} {rdir}" for f in fields)])
            part = f"PARTITION BY {', '.join(quote_ident(k) for k in keys)} " if keys else ""
            window = f"row_number() OVER ({part}ORDER BY {order})"
            start = sql_literal(init.value) if isinstance(init, Lit) else r.expr(init)
            beats = None
            if not (isinstance(init_key, Lit) and init_key.value is None):
                ik = sql_literal(init_key.value) if isinstance(init_key, Lit) else r.expr(init_key)
                beats = f"{_BEATS[mode.value]} {ik}"
            results = [rd.result for rd in op.reads if rd.result != "_" and rd.method == "get"]
            value = r.expr(value_x)
            pick = _struct_pick(mode.value, key, self.p.ty.of(key_x), self.p.ty.may_be_null(key_x),
                                fields, value, keys)  # fmt: skip
            late = None
            if beats is None and self.p.ty.may_be_null(key_x):
                row = [f for f in _row_fields(self.p, row_x) if f not in {quote_ident(k) for k in keys}]
                late = _late_none(guard, key, row, mode.value, self.p.ty.of(key_x))
            offers.append(
                _Offer(op, mode.value, window, guard, key, value, start, beats, results, pick, late)
            )
        names = ", ".join(user_name(o.name) for o in group)
        if self.struct_form and all(o.pick is not None for o in offers):
            return self._best_structs(offers, keys, names)
        for o in offers:
            if o.window not in ranks:
                ranks[o.window] = self.p.columns.get(f"{o.op.name}:rank", "best_rank")
                self.p.step(ROWS, f"{SRC}.withColumn({ranks[o.window]!r}, E({o.window!r}))",
                            f"arg-{'max' if o.mode in ('gt', 'ge') else 'min'}: the best row "
                            "first (window)")  # fmt: skip
        if keys and len(ranks) == 1 and not any(o.late for o in offers):
            return self._first_rows(offers, keys, names, ranks)
        return self._aggregate(offers, keys, names, ranks)

    def _best_structs(self, offers: list[_Offer], keys: tuple[str, ...], names: str
                      ) -> tuple[str, list[str]]:  # fmt: skip
        """Per scope key (or once), ``min``/``max`` of a struct whose order is the window's:
        one sort-based aggregate, no window (the row fields ride along in the struct)."""
        structs: dict[str, str] = {}  # aggregate SQL -> its column
        aggs = []
        for o in offers:
            assert o.pick is not None
            agg_sql = o.pick.agg if o.guard == "TRUE" else o.pick.agg_where(o.guard)
            if agg_sql not in structs:
                structs[agg_sql] = self.p.columns.get(f"{o.op.name}:best", f"best{len(structs)}")
                aggs.append(f"E({agg_sql!r}).alias({structs[agg_sql]!r})")
        lates = self._late_columns(offers, aggs)
        agg = self.p.py.fresh("best")
        grouping = f".groupBy({', '.join(repr(k) for k in keys)})" if keys else ""
        fns = "/".join(sorted({o.pick.fn for o in offers if o.pick is not None}))
        self.p.emit(f"{agg} = {self.p.frame(ROWS).var}{grouping}.agg({', '.join(aggs)})"
                    f"  # arg-best {names}: the best row per scope key, {fns}() of a struct")  # fmt: skip
        out = self.p.py.fresh("agg")
        sel = [f"F.col({k!r})" for k in keys]
        reads = []
        for o in offers:
            assert o.pick is not None
            b = f"`{structs[o.pick.agg if o.guard == 'TRUE' else o.pick.agg_where(o.guard)]}`"
            then = o.pick.value(b)
            if o.beats is None:
                sql = f"CASE WHEN {b} IS NULL THEN {o.start} ELSE {then} END"
            else:
                sql = (f"CASE WHEN {b} IS NOT NULL AND {o.pick.key(b)} {o.beats} "
                       f"THEN {then} ELSE {o.start} END")  # fmt: skip
            sql = _raise_late(o, lates, sql)
            for res in o.results:
                sel.append(f"E({sql!r}).alias({self.p.col_for(res)!r})")
                reads.append(res)
        self.p.emit(f"{out} = {agg}.select({', '.join(sel)})")
        return out, reads

    def _late_columns(self, offers: list[_Offer], aggs: list[str]) -> dict[str, str]:
        """The aggregates of each offer's late-None check (appended to ``aggs``): the
        largest row offered a None key and the smallest offered a key, per scope key."""
        cols: dict[str, str] = {}  # aggregate SQL -> its column
        for o in offers:
            for a in o.late[:2] if o.late else ():
                if a not in cols:
                    cols[a] = self.p.columns.get(f"{o.op.name}:late{len(cols)}", f"late{len(cols)}")
                    aggs.append(f"E({a!r}).alias({cols[a]!r})")
        return cols

    def _first_rows(self, offers: list[_Offer], keys: tuple[str, ...], names: str,
                    ranks: dict[str, str]) -> tuple[str, list[str]]:  # fmt: skip
        """The row ranked 1 of each scope key (every key has one: the guard only orders),
        its values read where it was offered and beats the starting key."""
        out = self.p.py.fresh("best")
        sel = [f"F.col({k!r})" for k in keys]
        reads = []
        for o in offers:
            cond = " AND ".join(c for c in (
                "" if o.guard == "TRUE" else f"({o.guard})",
                "" if o.beats is None else f"{o.key} {o.beats}") if c)  # fmt: skip
            sql = o.value if not cond else f"CASE WHEN {cond} THEN {o.value} ELSE {o.start} END"
            for res in o.results:
                sel.append(f"E({sql!r}).alias({self.p.col_for(res)!r})")
                reads.append(res)
        self.p.emit(f"{out} = {self.p.frame(ROWS).var}.where({f'`{ranks[offers[0].window]}` = 1'!r})"
                    f".select({', '.join(sel)})  # arg-best {names}: the row ranked 1 per scope key")  # fmt: skip
        return out, reads

    def _aggregate(self, offers: list[_Offer], keys: tuple[str, ...], names: str,
                   ranks: dict[str, str]) -> tuple[str, list[str]]:  # fmt: skip
        """Per scope key (or once), ``max`` of the value and key of the row ranked 1 where
        it was offered; the starting value where there is none or it does not beat."""
        aggs: list[str] = []
        readers: list[tuple[str, str]] = []  # (result binder, reader SQL over the aggregate)
        for o in offers:
            best = self.p.columns.get(f"{o.op.name}:best",
                                      f"{user_name(o.op.states[0], keep_callee=False)}_best")  # fmt: skip
            pick = f"named_struct('v', {o.value}, 'k', {o.key})"
            when = f"`{ranks[o.window]}` = 1" + ("" if o.guard == "TRUE" else f" AND {o.guard}")
            aggs.append(f"E({f'max(CASE WHEN {when} THEN {pick} END)'!r}).alias({best!r})")
            then = f"`{best}`.`v`"
            if o.beats is None:
                sql = f"CASE WHEN `{best}` IS NULL THEN {o.start} ELSE {then} END"
            else:
                sql = (f"CASE WHEN `{best}` IS NOT NULL AND `{best}`.`k` {o.beats} "
                       f"THEN {then} ELSE {o.start} END")  # fmt: skip
            readers.extend((res, sql) for res in o.results)
        lates = self._late_columns(offers, aggs)
        readers = [(res, _raise_late(o, lates, sql)) for o in offers
                   for res, sql in readers if res in o.results]  # fmt: skip
        agg = self.p.py.fresh("best")
        grouping = f".groupBy({', '.join(repr(k) for k in keys)})" if keys else ""
        self.p.emit(f"{agg} = {self.p.frame(ROWS).var}{grouping}.agg({', '.join(aggs)})"
                  f"  # arg-best {names}: native, per scope key")  # fmt: skip
        out = self.p.py.fresh("agg")
        sel = [f"F.col({k!r})" for k in keys]
        reads = []
        for res, sql in readers:
            sel.append(f"E({sql!r}).alias({self.p.col_for(res)!r})")
            reads.append(res)
        self.p.emit(f"{out} = {agg}.select({', '.join(sel)})")
        return out, reads


@dataclass(frozen=True, slots=True)
class _Offer:
    """One ArgBest operator's offer, rendered over the rows frame."""

    op: StateOperator
    mode: str  # gt / ge / lt / le
    window: str  # its rank's window SQL
    guard: str  # SQL: where the row is offered ("TRUE": every row)
    key: str  # SQL of the offered key
    value: str  # SQL of the offered value
    start: str  # SQL of the starting value
    beats: str | None  # "> <starting key>" (None: any offer beats a starting key of None)
    results: list[str]  # the binders of its get() reads
    pick: _StructPick | None  # the same choice as min/max of a struct, where one exists
    late: tuple[str, str, str] | None = None  # see _late_none


def _through_names(p: PlanContext, x: object) -> object:
    """A name bound unconditionally to another name or a row field: that (the key's
    temporary is its field, and a field that is the key cannot break a tie)."""
    for _ in range(20):
        b = p.a.bound.get(x.name) if isinstance(x, Var) else None
        if b is None or b.guards or not isinstance(b.value, Var):
            return x
        x = b.value
    return x


def _row_fields(p: PlanContext, row: object) -> list[str]:
    """The SQL of each field of an offer's row tuple."""
    while isinstance(row, Var) and row.name in p.a.bound and p.a.bound[row.name].value is not None:
        row = p.a.bound[row.name].value
    if not (isinstance(row, Apply) and isinstance(row.fn, Prim) and row.fn.op == "tuple"):
        raise BackendError("ArgBest offers need the row as a tuple of fields")
    r = p.renderer(ROWS)
    return [r.expr(x) for x in row.args]


# -- the struct form --------------------------------------------------------------------

#: how a key of each type sorts descending (NULLS LAST) under an ascending struct order:
#: the components and the key back from them (``~`` and ``-`` are exact and never overflow
#: a bigint or a double; NaN, greatest in Spark, first)
_FLIP = {
    "int": (lambda k: [f"~{k}"], lambda b: f"~{b}.`k0`"),
    "float": (lambda k: [f"NOT isnan({k})", f"-{k}"], lambda b: f"-{b}.`k1`"),
    "bool": (lambda k: [f"NOT {k}"], lambda b: f"NOT {b}.`k0`"),
}


@dataclass(frozen=True, slots=True)
class _StructPick:
    """``min``/``max`` of ``named_struct(<null flag>, <key parts>, <row fields>)``: the same
    row as the window's first (Spark orders a struct field by field, ascending, nulls
    first), its fields read back from the struct."""

    fn: str  # min / max
    parts: tuple[tuple[str, str], ...]  # (field name, SQL), in order
    key_of: str  # SQL of the key over the struct (with {b} for it)
    value_of: str  # SQL of the value over the struct (with {b}), or a scope key column

    @property
    def agg(self) -> str:
        return f"{self.fn}({self._struct()})"

    def agg_where(self, guard: str) -> str:
        return f"{self.fn}(CASE WHEN {guard} THEN {self._struct()} END)"

    def _struct(self) -> str:
        return "named_struct(" + ", ".join(f"'{n}', {x}" for n, x in self.parts) + ")"

    def key(self, b: str) -> str:
        return self.key_of.replace("{b}", b)

    def value(self, b: str) -> str:
        return self.value_of.replace("{b}", b)


def _struct_pick(mode: str, key: str, key_t: str, nullable: bool, fields: list[str],
                 value: str, keys: tuple[str, ...]) -> _StructPick | None:  # fmt: skip
    """The struct form of an offer's choice, or None: the key must be turnable into the
    direction of the fields (ties go to the first row for ``gt``/``lt``: fields ascending
    under ``min``; to the last for ``ge``/``le``: fields descending under ``max``), and the
    value must be a row field, the key or a scope key (an expression would be computed on
    every row, where Python computes it only for the rows that win)."""
    fn = "min" if mode in ("gt", "lt") else "max"
    flip = mode in ("gt", "le")  # the key's direction is the opposite of the fields'
    parts: list[tuple[str, str]] = []
    if nullable:  # a null key is never best: last in the window's order
        parts.append(("kn", f"{key} IS NULL" if fn == "min" else f"{key} IS NOT NULL"))
    if flip:
        if key_t not in _FLIP:
            return None
        turn, back = _FLIP[key_t]
        ks = turn(key)
        key_of = back("{b}")
        parts.extend((f"k{i}", x) for i, x in enumerate(ks))
    else:
        parts.append(("k0", key))
        key_of = "{b}.`k0`"
    parts.extend((f"f{i}", f) for i, f in enumerate(fields))
    if value == key:
        value_of = key_of
    elif value in fields:
        value_of = f"{{b}}.`f{fields.index(value)}`"
    elif value.strip("`") in keys and value == quote_ident(value.strip("`")):
        value_of = value
    else:
        return None
    return _StructPick(fn, tuple(parts), key_of, value_of)


# -- a None key after the first key --------------------------------------------------

_OP = {"gt": ">", "ge": ">", "lt": "<", "le": "<"}


def _late_none(guard: str, key: str, row: list[str], mode: str, key_t: str
               ) -> tuple[str, str, str]:  # fmt: skip
    """``if K is None or x < K`` (and ``x if K is None else min(K, x)``) offered a None key
    after a row that set ``K``: CPython compares None and raises TypeError. The rows go in
    the canonical order (ascending by their fields, None first), so it raises exactly when
    the largest row offered a None key comes after the smallest offered a key: (that
    aggregate, this one, the error's SQL). Before the first key a None key sets ``K`` to
    None again, as if not offered."""
    struct = "named_struct(" + ", ".join(f"'f{i}', {f}" for i, f in enumerate(row)) + ")"
    where = "" if guard == "TRUE" else f"({guard}) AND "
    typ = {"int": "int", "float": "float", "str": "str", "bool": "bool"}.get(key_t, key_t)
    err = raise_sql("TypeError", f"'{_OP[mode]}' not supported between instances of "
                    f"'NoneType' and '{typ}'")  # fmt: skip
    return (f"max(CASE WHEN {where}{key} IS NULL THEN {struct} END)",
            f"min(CASE WHEN {where}{key} IS NOT NULL THEN {struct} END)", err)


def _raise_late(o: _Offer, cols: dict[str, str], sql: str) -> str:
    """``sql``, raising where ``o``'s late-None check holds."""
    if o.late is None:
        return sql
    nulls, keyed, err = o.late
    return f"CASE WHEN `{cols[nulls]}` > `{cols[keyed]}` THEN {err} ELSE {sql} END"
