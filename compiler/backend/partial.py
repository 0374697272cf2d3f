"""Partial aggregation of mergeable states: aggregate before the shuffle, merge after it.

A state with ``@merge`` (SPEC §3) may be reduced in two steps: a partial state per piece
of a scope key's rows, then the partials merged per scope key. Where the partial is
smaller than the rows (a top-k slice, a distinct set, sums per dict key) a key holding
many rows no longer sends them all to one task (issue 28 item 3, the skew case).

:func:`partial_form` decides, once, which form a state operator gets (recorded on the
graph as ``Choice.partial`` by ``passes/choose_strategy.py``; ``--explain`` prints it):

- Spark's own partial aggregates: additive sums (``partial_sum``), ``Min``/``Max``
  (``partial_min``/``partial_max``), the bitwise states, the dict containers (sums,
  maxima, minima per scope key and dict key) and sets (``partial_collect_set``) are
  already reduced before the shuffle by Spark's map-side aggregation;
- ``TopK(k)`` with a literal ``1 <= k <= 100000``: Spark's ``max_by(v, v, k)`` (4.2+), an
  aggregate whose partial buffer holds the k largest values (duplicates kept), so a
  scope key sends at most k values per input partition through the shuffle
  (:func:`topk_sql`; the plain form collects every value and sorts the list);
- ``Distinct`` reads ``collect_set``, which Spark aggregates partially: each input
  partition sends a scope key's distinct values only. (Deduplicating per (scope key,
  value) first, as Spark plans ``count(DISTINCT v)``, measured 1.9x slower at 2M rows,
  uniform and skewed alike: ``tests/perf/skew.py``.)

- a state reduced in Python whose class has ``@merge`` (alone in its scope): the
  partial/merge pair of :mod:`looplift.partials` — per input partition a state per
  scope key folded in Python (``mapInArrow``) and shipped pickled, then per scope key
  the partials merged and read in a grouped Arrow aggregate (:func:`pair_lines`).

Not partial: ``Median`` and ``IntervalSequence`` (their readers need every event,
sorted), lists (``collect_list`` ships every element), arg-best (a window over the rows)
and states reduced in Python without ``@merge``.

``Planner.partial_aggregation = False`` (a class attribute, like ``group_windows``)
plans the sequence states and containers with a recorded partial form without it:
every row goes through a ``repartition`` by the scope key to its key's task, then one
aggregate there. The skew benchmark (``tests/perf/skew.py``) compares the two.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..names import user_name
from ..operators import OperatorKind, StateOperator

if TYPE_CHECKING:
    from .context import PlanContext
    from .sequence import NativeSequence

__all__ = ["PAIR_TEXT", "TOPK_TEXT", "no_partial", "pair_lines", "partial_form", "topk_sql"]

_SPARK_PARTIAL = {
    "Min": "Spark's partial min() per scope key before the shuffle",
    "Max": "Spark's partial max() per scope key before the shuffle",
    "BitOr": "Spark's partial bit_or() per scope key before the shuffle",
    "BitAnd": "Spark's partial bit_and() per scope key before the shuffle",
    "BitXor": "Spark's partial bit_xor() per scope key before the shuffle",
    "Distinct": "Spark's partial collect_set() per scope key (duplicates dropped before the "
    "shuffle)",
}
_CONTAINER_PARTIAL = {
    "KeyedSums": "Spark's partial sum() per (scope key, dict key) before the shuffle",
    "KeyedMax": "Spark's partial max() per (scope key, dict key) before the shuffle",
    "KeyedMin": "Spark's partial min() per (scope key, dict key) before the shuffle",
    "ValueSet": "Spark's partial collect_set() per scope key (duplicates dropped before the "
    "shuffle)",
    "PySet": "Spark's partial collect_set() per scope key (duplicates dropped before the shuffle)",
}
PAIR_TEXT = ("per input partition, a state per scope key folded in Python (mapInArrow) and "
             "shipped pickled; merged per scope key by its @merge, then read (grouped Arrow "
             "aggregate)")  # fmt: skip
TOPK_TEXT = ("Spark's partial max_by(v, v, k) per scope key before the shuffle (the k largest "
             "values of each input partition), merged per scope key")  # fmt: skip
#: the largest k of Spark's max_by(x, ord, k)
_MAX_BY_K = 100_000


def partial_form(op: StateOperator, strategy: str, seq: NativeSequence | None,
                 fused: bool, mergeable: bool = False) -> str | None:  # fmt: skip
    """What runs before the shuffle for ``op`` (recorded for ``--explain``), or None.

    Args:
        op: the state operator.
        strategy: its strategy's name (``Strategy.name``).
        seq: its native sequence readers (``Strategy.SEQUENCE``), else None.
        fused: whether it shares one aggregate with other states of its scope (then it
            gets no partial form of its own).
        mergeable: whether its one state's class has ``@merge``.
    """
    if not op.actions:
        return None
    if strategy == "NATIVE_SUMS" and op.kind == OperatorKind.ADDITIVE:
        return "Spark's partial sum() per scope key before the shuffle (sums merge by adding)"
    if strategy == "CONTAINER":
        return _CONTAINER_PARTIAL.get(op.classes[0].rsplit(":", 1)[-1])
    if strategy == "ARG_BEST":  # strategies/argbest.py picks the form by the key's type
        return ("Spark's partial min()/max() of a struct per scope key before the shuffle, "
                "where the key is a number or a bool and the values are fields (else none: "
                "a row_number() window keeps each key's best row)")
    if strategy == "ARROW_REDUCER":
        return PAIR_TEXT if mergeable and not fused and len(op.states) == 1 else None
    if strategy != "SEQUENCE" or seq is None:
        return None
    if seq.cls_name in _SPARK_PARTIAL:
        return _SPARK_PARTIAL[seq.cls_name]
    if fused:
        return None
    k = getattr(seq.k, "value", None)
    if seq.cls_name == "TopK" and type(k) is int and 1 <= k <= _MAX_BY_K:
        return TOPK_TEXT
    return None


def no_partial(p: PlanContext, frame: str, keys: tuple[str, ...]) -> str:
    """``frame`` repartitioned by the scope key (``Planner.partial_aggregation`` off):
    every row goes through the shuffle to its key's task before any aggregate."""
    if not keys:
        return f"{frame}.coalesce(1)"
    return f"{frame}.repartition({', '.join(repr(k) for k in keys)})"


def topk_sql(event: str, k: int, spark_type: str) -> str:
    """A ``TopK(k)``'s ``values()`` as Spark's ``max_by`` with ``k`` (partially aggregated
    by Spark): the k largest of ``event`` (NULL on a row that adds nothing, skipped by
    ``max_by``), descending, duplicates kept; ``[]`` for a scope key with none."""
    return f"CAST(coalesce(max_by(`{event}`, `{event}`, {int(k)}), array()) AS {spark_type})"


def pair_lines(p: PlanContext, op: StateOperator, reducer: str, src: str, cols: list[str],
               keys: tuple[str, ...], col: str) -> str:  # fmt: skip
    """The Python partial/merge pair of a mergeable state reduced in Python: ``reducer``
    (its ActionReducer variable) folds ``cols`` (the action columns of ``src``) per
    input partition and scope key ``keys``; the merge makes the struct column ``col``
    of the readers per scope key. Returns the variable of the aggregate per scope key."""
    pair, part, agg = p.py.fresh("pair"), p.py.fresh("partial"), p.py.fresh("reduced")
    kcols = [f"F.col({k!r})" for k in keys]
    acols = [f"{c}.alias('_a{i}')" for i, c in enumerate(cols)]
    p.emit(f"{pair} = ll.import_ref('looplift.partials:PartialPair')({reducer}, {len(keys)})")
    p.emit(f"{part} = {src}.select({', '.join([*kcols, *acols])}).mapInArrow({pair}.partials, "
           f"{pair}.schema({src}.select({', '.join(kcols)}).schema))"
           f"  # {user_name(op.name)}: partial states per (input partition, scope key), Python")  # fmt: skip
    grouping = f".groupBy({', '.join(repr(k) for k in keys)})" if keys else ""
    p.emit(f"{agg} = {part}{grouping}.agg({pair}.udf(F.col('_st')).alias({col!r}))"
           "  # merged per scope key by the state's @merge, then read")  # fmt: skip
    return agg
