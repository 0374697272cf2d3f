"""Group values used per row: window aggregates over the rows, not an aggregate joined back.

A group loop that first sums over its group and then loops over the group again,
reading the sums per row (per-group centering, a share of the group total) needs the
group's values on every row of the group. The aggregate form makes one row per key
and joins it back on the key; when nothing but the group's rows reads those values,
``sum(x) OVER (PARTITION BY key)`` puts them on the rows directly: the same sums (the
same ``sum`` expressions, so ANSI overflow errors and NULL handling are the aggregate's),
one shuffle of the rows, no join.

Transforms this (``n``, ``total`` additive at scope ``[k]``, read only per row)::

    sums = rows.groupBy(k).agg(sum(1) AS n, sum(v) AS total)
    rows = join_on_keys(rows, sums.select(k, ..., mean), [k])

into::

    rows = rows.withColumns({n: sum(1) OVER (PARTITION BY k), total: sum(v) OVER (...)})
    rows = rows.withColumn(mean, ...)          # the group's values, computed per row

A ``Min`` or ``Max`` read natively is one aggregate too: ``min(v) OVER (PARTITION BY
key)`` (the range of a group, a value's distance to its group's maximum).

Assumes: the operator is additive (its reduce part is native sums), or a native ``Min`` /
``Max``.
Guarantees: ``window_check`` says yes only when every value of the operator's scope is
consumed at the scope itself or per row of the same input, every operator of that scope
is additive or a native ``Min``/``Max`` with its actions per row (or an ordered loop that
only yields rows), and
no yield or action is at the scope itself (the
scope's frame is then the rows frame; it has one row per input row, not per key).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..analysis import SiteKind
from ..dataflow.payloads import ROWS, GroupFrame, frame_key
from ..ir.traverse import free_vars
from ..names import user_name
from ..operators import OperatorKind
from ..program import AlgorithmKind

if TYPE_CHECKING:
    from ..analysis import Analysis
    from ..operators import StateOperator
    from ..program import Program

__all__ = ["window_check", "statistics_key"]


def window_check(prog: Program, op: StateOperator) -> tuple[bool, str | None]:
    """Is additive ``op`` computed as window aggregates over the rows? With the reason
    (None for a global aggregate: one row, crossed into the rows by a broadcast)."""
    a = prog.analysis
    fk = frame_key(a, op.scope)
    if not isinstance(fk, GroupFrame) or fk.is_global:
        return False, None
    if not _read_per_row(prog, op, fk):
        return False, None  # an aggregate per key: nothing to join back, nothing to say
    if not any(a.loops[x].key for x in fk.loops):
        return False, "group_by(()) is one group of the whole input (broadcast)"
    if prog.kind != AlgorithmKind.TABLE:
        return False, "the algorithm returns one value, not rows"
    if len(prog.fn.stream_params) != 1:
        return False, "more than one input"
    mates = [o for o in prog.operators if frame_key(a, o.scope) == fk]
    used = set().union(*a.deps.values(), *(free_vars(x) for st in a.sites for x in st.args))
    for o in mates:
        if _yields_only(a, o, used):
            continue  # an ordered loop's rows are made from the rows frame anyway
        if not o.actions or not (o.kind == OperatorKind.ADDITIVE or _min_max(prog, o)):
            return False, (f"`{user_name(o.name)}` of the same scope is not an additive state, "
                           "a minimum or a maximum")  # fmt: skip
        if any(frame_key(a, act.loops) != ROWS for act in o.actions):
            return False, f"`{user_name(o.name)}` receives actions at the scope itself"
    for o in prog.operators:
        if any(frame_key(a, act.loops) == fk for act in o.actions):
            return False, f"`{user_name(o.name)}` receives actions per key of the scope"
    at_scope = {
        n for n, b in a.bound.items() if b.value is not None and frame_key(a, b.loops) == fk
    }
    for o in mates:
        at_scope |= {r.result for r in o.reads if r.result != "_"}
    for site in a.sites:
        here = frame_key(a, site.loops)
        if site.kind == SiteKind.YIELD and here == fk:
            return False, f"a row per key is yielded at line {site.span.line}"
        if here not in (ROWS, fk) and _reads(site.args, at_scope):
            return False, f"the scope's values are used outside it (line {site.span.line})"
    for n, b in a.bound.items():
        if b.value is None or n in at_scope:
            continue
        here = frame_key(a, b.loops)
        if here not in (ROWS, fk) and a.deps.get(n, frozenset()) & at_scope:
            return False, f"the scope's values are used outside it (line {b.span.line})"
    return True, "its values are read only per row of the scope's rows"


def statistics_key(prog: Program, op: StateOperator) -> tuple[int, ...] | None:
    """The input fields of ``op``'s scope key, when each is a field of the input (Spark's
    statistics of the input can then count its keys, and the plan also holds the aggregate
    joined back, chosen at run time by ``looplift.spark.few_large_groups``); None for a
    computed key part, and where an ordered loop of the scope sorts the rows by the key
    anyway (a join would save no shuffle)."""
    a = prog.analysis
    fk = frame_key(a, op.scope)
    if not isinstance(fk, GroupFrame):
        return None
    fields = tuple(f for loop in fk.loops for f in a.loops[loop].key)
    if not fields or any(f in a.virtual for f in fields):
        return None
    if any(o.kind == OperatorKind.ORDERED for o in prog.operators if frame_key(a, o.scope) == fk):
        return None  # an ordered loop of the scope shuffles and sorts the rows by key anyway
    return fields


def _min_max(prog: Program, op: StateOperator) -> bool:
    """A ``Min`` or ``Max`` read natively: one aggregate, ``min(v) OVER (...)`` per row."""
    from .sequence import OVER_ROWS, native_sequence

    seq = native_sequence(op, prog.analysis, prog.refs)
    return seq is not None and seq.cls_name in OVER_ROWS


def _read_per_row(prog: Program, op: StateOperator, fk: Any) -> bool:
    """Does a row of the scope read a value of ``op``'s scope (what a window or a join back
    brings to the rows)?"""
    a = prog.analysis
    at_scope = {r.result for r in op.reads if r.result != "_"}
    at_scope |= {n for n, b in a.bound.items()
                 if b.value is not None and frame_key(a, b.loops) == fk}  # fmt: skip
    if any(frame_key(a, st.loops) == ROWS and _reads(st.args, at_scope) for st in a.sites):
        return True
    return any(b.value is not None and frame_key(a, b.loops) == ROWS
               and a.deps.get(n, frozenset()) & at_scope for n, b in a.bound.items())  # fmt: skip


def _yields_only(a: Analysis, op: StateOperator, used: set[str]) -> bool:
    """An ordered loop whose states are read only inside it (it only yields rows)."""
    return op.kind == OperatorKind.ORDERED and all(
        r.result not in used or frame_key(a, r.loops) == ROWS for r in op.reads
    )


def _reads(args: tuple, names: set[str]) -> bool:
    return any(free_vars(x) & names for x in args)
