"""Native readers of the library's sequence states: a sort and a scan in Spark SQL (SPEC §7).

The map part of an action state stays as it is (:func:`.states.action_map`: the
action code and argument of every row, native). For the library states whose
readers are a sort plus a scan — ``IntervalSequence``, ``Min``, ``Max``,
``Distinct``, ``Median``, ``TopK`` — the reduce part is no Python reducer but
one aggregate expression per reader over the group's collected events, the
same text in the DataFrame plan (``groupBy(keys).agg(...)``) and in an
aggregate expression (``f.agg``, ``looplift.sql``).

Transforms this (the clickstream's state, events of one user)::

    seq.open(ts) | seq.close(ts) | seq.insert(ts)  ->  average_closed_size()

into::

    aggregate(sort_array(collect_list(ts * 4 + code)), init, step, finish)

``ts * 4 + code`` packs an integer timestamp and the action code (open 0 <
close 1 < insert 2) into one long whose order is the state's event order; it
is used where it cannot overflow (datetimes as microseconds, dates as days,
ints within ±2**61 — larger ints go to a second list of structs, empty in
practice, and a group holding one is sorted as structs). Floats are sorted as
structs. The fold needs no netting: at equal timestamps a duplicate open
restarts an empty interval and a duplicate close finds none open, which is
the class contract ("two opens at the same timestamp act like one").

Multiset states read ``collect_list``/``collect_set`` of their values
(``min``/``max`` natively). Batch input has every sign +1; signed input (a
delta of inserts and deletes) is netted first per (scope key, code, value) by
:func:`netted_events`, which raises where a count goes negative, as the
Python state's undo does.

Assumes: the state's actions are exclusive and take one argument each (the
packed map part), arguments of one non-null type the readers can order.
Guarantees: the readers equal the Python state's on every such input (ints
stay ints, a median of an even count is a float, None where Python gives None).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..errtext import raise_sql
from ..ir.nodes import Lit, ParamKind, Var
from ..operators import OperatorKind, StateOperator
from .errors import BackendError
from .states import exclusive
from .types import Typing, spark_type

if TYPE_CHECKING:
    from ..analysis import Analysis

__all__ = ["OVER_ROWS", "NativeSequence", "native_sequence", "reader_sql", "netted_events",
           "window_reader", "window_text"]

_MODULES = ("looplift.states.interval", "looplift.states.multiset")

#: the readers computed natively, per library class
READERS: dict[str, frozenset[str]] = {
    "IntervalSequence": frozenset({"average_closed_size", "closed_sizes", "closed_intervals"}),
    "Min": frozenset({"value"}),
    "Max": frozenset({"value"}),
    "Distinct": frozenset({"count", "values"}),
    "Median": frozenset({"value"}),
    "TopK": frozenset({"values"}),
    "BitOr": frozenset({"value"}),
    "BitAnd": frozenset({"value"}),
    "BitXor": frozenset({"value"}),
    "Product": frozenset({"value"}),
}

#: the argument types each class reads natively (one type per state: mixed types stay Python)
_ORDERED = frozenset({"int", "float", "str", "datetime", "date", "bool"})
ARG_TYPES: dict[str, frozenset[str]] = {
    "IntervalSequence": frozenset({"int", "float", "datetime", "date"}),
    "Median": frozenset({"int", "float"}),
    **{c: frozenset({"int", "bool"}) for c in ("BitOr", "BitAnd", "BitXor")},
    "Product": frozenset({"int", "float"}),
}

#: the action codes of each class's actions (IntervalSequence: open 0, close 1, insert 2)
_CODES = {"open": 0, "close": 1, "insert": 2, "add": 0}

# packed int timestamps: ts * 4 + code stays within 64 bits for |ts| < 2**61
_PACK_LO, _PACK_HI = -(2**61), 2**61 - 1


@dataclass(frozen=True)
class NativeSequence:
    """A library sequence state whose readers run natively."""

    cls_name: str
    arg_type: str
    codes: tuple[int, ...]  # per action site, the class's action code
    k: Any = None  # TopK's k: a Lit, or a Var of a scalar parameter

    def describe(self) -> str:
        """What runs, for ``--explain``."""
        if self.cls_name == "IntervalSequence":
            if self.arg_type == "float":
                return ("per scope key, array_sort(collect_list(struct(ts, code))) folded by "
                        "aggregate() in event order")  # fmt: skip
            return (
                "per scope key, sort_array(collect_list(ts * 4 + code)) (long-packed, ints beyond "
                "±2**61 as structs); sizes from the positions of the opens and closes "
                "(filter/transform), intervals folded by aggregate() in event order"
            )
        return {
            "Min": "per scope key, Spark min() of the added values",
            "Max": "per scope key, Spark max() of the added values",
            "Distinct": "per scope key, collect_set() of the added values (sorted for values())",
            "Median": "per scope key, the middle of array_sort(collect_list(value))",
            "TopK": "per scope key, the first k of sort_array(collect_list(value), desc)",
            "BitOr": "per scope key, Spark bit_or() (bool_or() of bools) of the added values",
            "BitAnd": "per scope key, Spark bit_and() (bool_and() of bools) of the added values",
            "BitXor": "per scope key, Spark bit_xor() of the added values (of bools: the parity "
                      "of the true ones)",
            "Product": ("per scope key, aggregate() multiplying the collected values (of "
                        "floats in ascending order, as the state does; of ints 0 when one is "
                        "0, else ANSI products, exact or an overflow error)"),
        }[self.cls_name]


def native_sequence(op: StateOperator, a: Analysis, refs: dict[str, Any], ty: Typing | None = None
                    ) -> NativeSequence | None:  # fmt: skip
    """The native form of ``op``'s readers, or None (the Python reducer runs)."""
    if op.kind != OperatorKind.ACTION or op.ordered or op.arg_best or len(op.states) != 1:
        return None
    cls = refs.get(op.classes[0])
    name = getattr(cls, "__name__", "")
    if getattr(cls, "__module__", "") not in _MODULES or name not in READERS:
        return None
    acts = op.actions
    if not acts or not exclusive(acts) or any(len(x.args) != 1 for x in acts):
        return None
    if any(x.method not in _CODES for x in acts):
        return None
    for rd in op.reads:
        if rd.result != "_" and (rd.method not in READERS[name] or rd.args):
            return None
    if ty is None:
        from .types import infer_types

        try:
            ty = infer_types(a, refs, strict=False)
        except BackendError:
            return None
    arg_types = {ty.of(x.args[0]) for x in acts}
    if len(arg_types) != 1 or any(ty.may_be_null(x.args[0]) for x in acts):
        return None
    (arg_t,) = arg_types
    if arg_t not in ARG_TYPES.get(name, _ORDERED):
        return None
    if arg_t not in ("int", "float") and any(rd.method == "closed_intervals" for rd in op.reads):
        return None  # its (lo, hi, size) is typed from an annotation of Any: a double
    k = None
    if name == "TopK":
        decl = a.states[op.states[0]].args
        if len(decl) != 1:
            return None
        k = _through_names(decl[0], a)
        if isinstance(k, Lit):
            if isinstance(k.value, bool) or not isinstance(k.value, int) or k.value < 0:
                return None  # Python's constructor raises
        elif not (isinstance(k, Var) and ty.types.get(k.name) == "int"
                  and any(p.name == k.name and p.kind == ParamKind.SCALAR for p in a.fn.params)):  # fmt: skip
            return None
    elif a.states[op.states[0]].args:
        return None
    return NativeSequence(name, arg_t, tuple(_CODES[x.method] for x in acts), k)


def _through_names(x: Any, a: Analysis) -> Any:
    """A name bound unconditionally to a literal or a parameter: that value."""
    for _ in range(20):
        b = a.bound.get(x.name) if isinstance(x, Var) else None
        if b is None or b.guards or not isinstance(b.value, (Lit, Var)):
            return x
        x = b.value
    return x


# -- the readers' SQL -------------------------------------------------------------------------


def reader_sql(ns: NativeSequence, code: str, arg: str, readers: list[str], types: list[str],
               k_sql: str | None = None, count: str | None = None,
               row: Callable[[str], str] = lambda sql: sql) -> list[str]:  # fmt: skip
    """One aggregate expression per reader over the group's rows.

    ``code`` is the packed map part's site number (NULL: no action on that row), ``arg``
    its argument. ``count`` (netted input: the positive count of each distinct event)
    weighs inserts and multiset values; None means every row counts once (batch).
    ``row`` turns a per-row expression into what the aggregate reads: the plan makes it
    a column of the projection below the aggregate (codegen'd there, where Spark's
    ObjectHashAggregate evaluates its inputs row by row, interpreted).
    """
    kind = _kind(ns, code)
    if ns.cls_name == "IntervalSequence":
        return _interval(ns, kind, arg, readers, types, count, row)
    return [
        f"CAST({_multiset(ns, kind, arg, r, k_sql, count, row)} AS {t})"
        for r, t in zip(readers, types, strict=True)
    ]


def _kind(ns: NativeSequence, code: str) -> str:
    if list(ns.codes) == list(range(len(ns.codes))):
        return f"({code})"
    whens = " ".join(f"WHEN {i} THEN {c}" for i, c in enumerate(ns.codes))
    return f"(CASE ({code}) {whens} END)"


def _value(ns: NativeSequence, kind: str, arg: str) -> str:
    v = f"({arg})"
    if ns.arg_type == "float":  # Python's dict holds 0.0 and -0.0 as one key
        v = f"(CASE WHEN {v} = 0 THEN 0.0D ELSE {v} END)"
    return f"CASE WHEN {kind} IS NOT NULL THEN {v} END"


def _repeat(value: str, count: str | None) -> str:
    """collect_list of ``value`` with multiplicity."""
    if count is None:
        return f"collect_list({value})"
    return f"flatten(collect_list(array_repeat({value}, CAST({count} AS INT))))"


def _multiset(ns: NativeSequence, kind: str, arg: str, reader: str, k_sql: str | None,
              count: str | None, row: Callable[[str], str]) -> str:  # fmt: skip
    v = row(_value(ns, kind, arg))
    name = ns.cls_name
    if name == "Min":
        return f"min({v})"
    if name == "Max":
        return f"max({v})"
    if name in ("BitOr", "BitAnd", "BitXor"):
        return _bitwise(ns, name, v, count)
    if name == "Product":
        return _product(ns, v, count)
    if name == "Distinct":
        return f"size(collect_set({v}))" if reader == "count" else f"array_sort(collect_set({v}))"
    if name == "Median":
        s = "s"
        n = f"size({s})"
        mid = (
            f"CASE WHEN {n} = 0 THEN NULL WHEN {n} % 2 = 1 THEN CAST({s}[({n} - 1) div 2] AS DOUBLE) "
            f"ELSE (CAST({s}[{n} div 2 - 1] AS DOUBLE) + CAST({s}[{n} div 2] AS DOUBLE)) / 2 END"
        )
        return f"element_at(transform(array(array_sort({_repeat(v, count)})), {s} -> {mid}), 1)"
    # TopK: the k largest with duplicates, descending
    k = f"({k_sql})"
    msg = raise_sql("ValueError", "TopK(k) needs an integer k >= 0")
    top = f"slice(sort_array({_repeat(v, count)}, false), 1, CAST(least({k}, 2147483647) AS INT))"
    return top if isinstance(ns.k, Lit) else f"IF({k} < 0, {msg}, {top})"


#: the classes whose reader is one aggregate function of the added values, so it can be a
#: window aggregate over the rows (``backend/group_windows.py``)
OVER_ROWS = frozenset({"Min", "Max"})
_WINDOW_FN = {"Min": "min", "Max": "max"}


def window_text(ns: NativeSequence) -> str:
    """What runs for a :data:`OVER_ROWS` state read per row, for ``--explain``."""
    return f"Spark {_WINDOW_FN[ns.cls_name]}() OVER (PARTITION BY the scope key) on every row, no aggregate joined back"


def window_reader(ns: NativeSequence, code: str, arg: str, over: str) -> str:
    """The reader of a :data:`OVER_ROWS` state as a window aggregate (``over``: its
    ``OVER (...)`` clause): the same aggregate of the same values as :func:`reader_sql`."""
    return f"{_WINDOW_FN[ns.cls_name]}({_value(ns, _kind(ns, code), arg)}) {over}"


def _bitwise(ns: NativeSequence, name: str, v: str, count: str | None) -> str:
    """``|``, ``&``, ``^`` of the added values (NULL when none: the reader's None). A value
    counted ``count`` times: ``|`` and ``&`` are idempotent, ``^`` keeps odd counts (and
    is ``0``, ``False``, when every count is even)."""
    if name == "BitXor":
        odd = v if count is None else f"CASE WHEN ({count}) % 2 = 1 THEN {v} END"
        body = f"count_if({odd}) % 2 = 1" if ns.arg_type == "bool" else f"coalesce(bit_xor({odd}), 0L)"
        return f"IF(count({v}) = 0, NULL, {body})"
    if ns.arg_type == "bool":
        return f"{'bool_or' if name == 'BitOr' else 'bool_and'}({v})"
    return f"{'bit_or' if name == 'BitOr' else 'bit_and'}({v})"


def _product(ns: NativeSequence, v: str, count: str | None) -> str:
    """The product of the added values, 1 when none (``Product.value()``). Floats multiply
    in ascending order, as the state does (the same roundings); ints are exact in any
    order: 0 when one factor is 0, else every partial product is at most the final one in
    magnitude, so an ANSI overflow means Python's product is beyond 64 bits too."""
    values = _repeat(v, count)
    if ns.arg_type == "float":
        return f"aggregate(array_sort({values}), 1.0D, (p, x) -> p * x)"
    return f"IF(exists({values}, x -> x = 0), 0L, aggregate({values}, 1L, (p, x) -> p * x))"


# -- IntervalSequence -------------------------------------------------------------------------


def _interval(ns: NativeSequence, kind: str, arg: str, readers: list[str], types: list[str],
              count: str | None, row: Callable[[str], str]) -> list[str]:  # fmt: skip
    t = f"({arg})"
    elem = spark_type(ns.arg_type)
    need = set(readers)
    finish = {
        "average_closed_size": "a -> IF(a.cl = 0, NULL, a.tot / a.cl)",
        "closed_sizes": "a -> a.sizes",
        "closed_intervals": "a -> a.ivs",
    }
    out = []
    for r, rt in zip(readers, types, strict=True):
        fin = finish[r]
        if ns.arg_type == "float" or count is not None:
            # structs (ts, code[, count]) sorted by timestamp, then code
            cnt = f", 'n', CAST({count} AS BIGINT)" if count is not None else ""
            events = (
                "array_sort(collect_list("
                + row(
                    f"CASE WHEN {kind} IS NOT NULL THEN named_struct('t', {t}, 'c', "
                    f"CAST({kind} AS BIGINT){cnt}) END"
                )
                + "))"
            )
            sql = _fold(events, "e.c", "e.t", "e.n" if count is not None else "1L", elem, need, fin)
        else:
            to_long, from_long = {
                "int": (t, "shiftright(e, 2)"),
                "datetime": (f"unix_micros({t})", "timestamp_micros(shiftright(e, 2))"),
                "date": (f"unix_date({t})", "date_from_unix_date(CAST(shiftright(e, 2) AS INT))"),
            }[ns.arg_type]
            fits = f"{t} BETWEEN {_PACK_LO} AND {_PACK_HI}" if ns.arg_type == "int" else "TRUE"
            packed = f"collect_list({row(f'CASE WHEN {fits} THEN {to_long} * 4 + {kind} END')})"
            if r in _BY_POSITION:
                sql = _by_position(f"sort_array({packed})", r)
            else:
                sql = _fold(f"sort_array({packed})", "(e & 3)", from_long, "1L", elem, need, fin)
            if ns.arg_type == "int":
                big_row = (
                    f"CASE WHEN {kind} IS NOT NULL AND NOT ({fits}) THEN "
                    f"named_struct('t', {t}, 'c', CAST({kind} AS BIGINT)) END"
                )
                big = f"collect_list({row(big_row)})"
                merged = (
                    f"array_sort(concat(transform({packed}, e -> named_struct('t', "
                    f"shiftright(e, 2), 'c', e & 3)), {big}))"
                )
                slow = _fold(merged, "e.c", "e.t", "1L", elem, need, fin)
                sql = f"IF(size({big}) = 0, {sql}, {slow})"
        out.append(f"CAST({sql} AS {rt})")
    return out


#: readers of the closed intervals' sizes only, computed from event positions
_BY_POSITION = frozenset({"average_closed_size", "closed_sizes"})


def _by_position(events: str, reader: str) -> str:
    """The closed intervals' sizes from the positions of the opens and closes among the
    sorted packed events, no per-event accumulator: only an open directly followed by a
    close (among the opens and closes) closes an interval, and every event between them is
    an insert, so its size is the difference of their positions minus one. The same as
    :func:`_fold` (a second open restarts, a close with nothing open is ignored)."""
    bounds = (f"filter(transform({events}, (e, i) -> IF((e & 3) < 2, i * 2L + (e & 3), -1L)), "
              "b -> b >= 0)")  # fmt: skip
    sizes = (
        f"transform(array({bounds}), bs -> filter(transform(bs, (b, j) -> "
        "IF((b & 1) = 0 AND (get(bs, j + 1) & 1) = 1, "
        "shiftright(get(bs, j + 1), 1) - shiftright(b, 1) - 1, NULL)), s -> s IS NOT NULL))[0]"
    )
    if reader == "closed_sizes":
        return sizes
    return (
        f"transform(array({sizes}), s -> aggregate(s, 0L, (a, x) -> a + x) / NULLIF(size(s), 0))[0]"
    )


def _fold(events: str, code: str, ts: str, weight: str, elem: str, need: set[str], finish: str
          ) -> str:  # fmt: skip
    """``aggregate`` over the sorted events: the open interval's lower bound and size, the
    closed ones' total and count (and their sizes / intervals where a reader needs them)."""
    iv = f"struct<_1: {elem}, _2: {elem}, _3: bigint>"
    fields = [
        ("o", "false", "true", "false"),
        ("n", "0L", "0L", "0L"),
        ("tot", "0L", "a.tot", "a.tot + a.n"),
        ("cl", "0L", "a.cl", "a.cl + 1"),
    ]
    if "closed_sizes" in need:
        fields.append(("sizes", "CAST(array() AS array<bigint>)", "a.sizes",
                       "concat(a.sizes, array(a.n))"))  # fmt: skip
    if "closed_intervals" in need:
        fields.insert(1, ("lo", f"CAST(NULL AS {elem})", ts, "a.lo"))
        item = f"named_struct('_1', a.lo, '_2', {ts}, '_3', a.n)"
        fields.append(("ivs", f"CAST(array() AS array<{iv}>)", "a.ivs",
                       f"concat(a.ivs, array({item}))"))  # fmt: skip

    def struct(values: list[str]) -> str:
        return (
            "named_struct("
            + ", ".join(f"'{f[0]}', {v}" for f, v in zip(fields, values, strict=True))
            + ")"
        )

    init = struct([f[1] for f in fields])
    opened = struct([f[2] for f in fields])
    closed = struct([f[3] for f in fields])
    inserted = struct([f"a.n + {weight}" if f[0] == "n" else f"a.{f[0]}" for f in fields])
    step = (
        f"(a, e) -> CASE WHEN {code} = 2 THEN IF(a.o, {inserted}, a) WHEN {code} = 0 THEN {opened} "
        f"WHEN a.o THEN {closed} ELSE a END"
    )
    return f"aggregate({events}, {init}, {step}, {finish})"


# -- signed input --------------------------------------------------------------------------


def netted_events(src: str, keys: list[str], code: str, arg: str, sign: str, cls_name: str) -> str:
    """PySpark text of ``src``'s signed events netted per (scope key, code, argument):
    columns ``_c``, ``_a`` and ``_n`` (the net count, ``sum(sign)``), zero counts dropped;
    raises where a count goes negative (Python's undo of an event that is not in the
    state). The readers then take ``code="`_c`", arg="`_a`", count="`_n`"``."""
    msg = raise_sql("ValueError", f"{cls_name}: cannot undo an event that is not in the state "
                    "(never applied, or already undone)")
    checked = f"CASE WHEN `_n` < 0 THEN {msg} ELSE `_n` END AS `_n`"
    ks = [repr(k) for k in keys]
    inputs = [
        *ks,
        f"E({code!r}).alias('_c')",
        f"E({arg!r}).alias('_a')",
        f"E({sign!r}).alias('_s')",
    ]
    grouping = [*ks, "'_c'", "'_a'"]
    return (
        f"{src}.select({', '.join(inputs)}).where('_c IS NOT NULL')"
        f".groupBy({', '.join(grouping)}).agg(F.sum('_s').alias('_n'))"
        f".select({', '.join([*grouping, f'E({checked!r})'])}).where('_n > 0')"
    )
