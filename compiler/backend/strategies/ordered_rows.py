"""The scope's rows in an ordered loop's order, as the plan's native lowerings read them.

The order a loop sees its rows in (:func:`loop_order`, ties broken as the runtime breaks
them), the scope's rows with their fields and free values as columns
(:func:`ordered_input`: the window functions' frame, :mod:`.window_plan`), and those rows
sorted and collected per scope key (:func:`fold_source`, :func:`fold_groups`: what the
``aggregate()`` fold of :mod:`.ordered` and the boundary-position fold of
:mod:`.boundary_plan` run over). ``array_sort``'s :func:`comparator` of rows in that
order serves the container loops too (:mod:`.container`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...dataflow.payloads import ROWS
from ...ir.nodes import Var
from ..errors import BackendError
from ..fold_model import ROW, Fold
from ..frame import spark_col
from ..sql import quote_ident

if TYPE_CHECKING:
    from ...operators import StateOperator
    from ..context import PlanContext

__all__ = [
    "CHUNK",
    "FoldSource",
    "comparator",
    "fold_groups",
    "fold_source",
    "loop_order",
    "loop_order_of",
    "ordered_input",
    "plain_field",
    "sort_order",
]

CHUNK = 32  # the fewest rows per chunk of a fold that yields rows (else about sqrt(n))
_FIELD = re.compile(r"_f\d+")
_ROW_FIELD = re.compile(rf"\b{ROW}\._f(\d+)\b")
_ROW_MEMBER = re.compile(rf"\b{ROW}\.(_[fv]\d+)\b")


def loop_order(a: Any, lp: Any, nfields: int) -> list[tuple[int, bool]] | None:
    """The order an ordered loop sees its rows in, as (source field, descending) pairs: its
    given order (``sorted_by``'s, else its group's ``order_by``), then the remaining fields
    of the stream that was sorted, ascending, as the runtime breaks ties (``sorted_by`` of
    ``g.project(2, 1)`` breaks them by field 2, not by the source's field 0), then the
    source's other fields (rows equal on the stream's fields are equal to the loop).
    None: the loop has no order."""
    group = a.loops[lp.parent] if lp.parent else None
    if lp.order_by is not None:
        order, sorted_fields = lp.order_by, lp.fields
    elif group is not None and group.order_by is not None:
        order, sorted_fields = group.order_by, group.fields
    else:
        return None
    given = {i for i, _ in order}
    ties = [i for i in dict.fromkeys(sorted_fields) if i < nfields and i not in given]
    rest = [i for i in range(nfields) if i not in given and i not in ties]
    return [*order, *((i, False) for i in (*ties, *rest))]


def loop_order_of(p: PlanContext, op: StateOperator) -> list[tuple[int, bool]]:
    """The order ordered loop ``op`` sees the plan's source rows in (:func:`loop_order`); a
    diagnostic where it has none."""
    loop_name = op.name.removeprefix("ordered.")
    lp = p.a.loops[loop_name]
    assert p.source is not None
    order = loop_order(p.a, lp, len(p.source.types))
    if order is None:
        raise BackendError("an ordered loop must iterate a group of group_by(..., order_by=) or "
                           "sorted_by(...)", lp.span)  # fmt: skip
    return order


def sort_order(
    p: PlanContext, op: StateOperator, keys: tuple[str, ...]
) -> list[tuple[int, bool]]:
    """The loop's order without the fields of the scope key (the same on every row of a
    scope: they break no tie), then those fields."""
    order = loop_order_of(p, op)
    varying = [(i, d) for i, d in order if p.field_col(i) not in keys]
    return (
        varying + [(i, d) for i, d in order if p.field_col(i) in keys] if varying else order
    )


def ordered_input(
    p: PlanContext, fold: Fold, keys: tuple[str, ...], order: list, free: Any = None
) -> str:
    """The scope's rows with their fields as ``_f<i>`` and free values as ``_v<j>`` (those
    of ``free`` only, when given)."""
    r = p.renderer(ROWS)
    cols = [f"F.col({k!r})" for k in keys]
    cols += [f"F.col({p.field_col(i)!r}).alias('_f{i}')" for i, _ in order]
    cols += [f"{spark_col(r.expr(Var(n)))}.alias('_v{j}')" for j, n in enumerate(fold.free)
             if free is None or j in free]  # fmt: skip
    inp = p.py.fresh("ordered_input")
    p.emit(f"{inp} = {p.frame(ROWS).var}.select({', '.join(cols)})")
    return inp


def plain_field(p: PlanContext, col: str) -> bool:
    """A non-Optional source field (``_f<i>``): never NULL, so ``lag``'s default marks the
    first row."""
    assert p.source is not None
    if not _FIELD.fullmatch(col):
        return False
    i = int(col[2:])
    return i < len(p.source.types) and not p.source.types[i].startswith("Optional[")


@dataclass(frozen=True)
class FoldSource:
    """The rows a fold runs over (:func:`fold_source`)."""

    inp: str  # the scope's rows: ``_f<i>`` fields, ``_v<j>`` free values
    agg: tuple[str, ...]  # per scope key: ``_all``, the rows sorted; per-scope free values
    row: Any  # rewrites a fold's SQL over ``_fr`` to read what ``_all`` and the scope hold


def fold_source(
    p: PlanContext, op: StateOperator, fold: Fold, keys: tuple[str, ...]
) -> FoldSource:
    """The scope's rows collected in the loop's order, one array ``_all`` per scope key,
    holding only what the fold reads of them.

    Fields of the scope key and the loop's free values are the same on every row of a
    scope: the fold reads them from the scope's row, not from each element. Trailing
    fields of the order that the fold never reads are left out (rows that differ only
    there fold alike). One non-Optional field left is collected bare (``collect_list``
    drops None): an array of longs sorts and folds faster than one of structs."""
    order = sort_order(p, op, keys)
    used = {int(i) for i in _ROW_FIELD.findall(fold.step)}
    members = [(i, d) for i, d in order if p.field_col(i) not in keys] or order[:1]
    while len(members) > 1 and members[-1][0] not in used:
        members.pop()
    subs: dict[str, str] = {}
    for i, _ in order:
        if p.field_col(i) in keys:
            subs[f"_f{i}"] = quote_ident(p.field_col(i))
    r = p.renderer(ROWS)
    extra, scoped = [], set()
    for j, n in enumerate(fold.free):
        col = r.expr(Var(n))
        key = next((k for k in keys if col in (k, quote_ident(k))), None)
        if key is not None:
            subs[f"_v{j}"] = quote_ident(key)
        else:
            subs[f"_v{j}"] = f"_v{j}"
            extra.append(f"F.first('_v{j}').alias('_v{j}')")
            scoped.add(j)
    inp = ordered_input(p, fold, keys, members, scoped)
    if len(members) == 1 and plain_field(p, f"_f{members[0][0]}"):  # never None
        ((m, desc),) = members
        subs[f"_f{m}"] = ROW
        rows = f"sort_array(collect_list(_f{m}){', false' if desc else ''})"
    else:
        rows = f"collect_list(struct({', '.join(f'_f{i}' for i, _ in members)}))"
        if any(d for _, d in members):
            rows = f"array_sort({rows}, {comparator(members)})"
        else:
            rows = f"sort_array({rows})"  # ascending, None first: Python's order

    def row(sql: str) -> str:
        return _ROW_MEMBER.sub(lambda m: subs.get(m.group(1), m.group(0)), sql)

    return FoldSource(inp, (f"E({rows!r}).alias('_all')", *extra), row)


def fold_groups(
    p: PlanContext, src: FoldSource, keys: tuple[str, ...], chunked: bool = False
) -> str:
    """The scope keys' sorted rows (``_all``) and per-scope free values: one row per key;
    ``chunked``: with ``_chunk``, the rows per chunk of a fold that yields rows."""
    grouped = p.py.fresh("grouped")
    grouping = f".groupBy({', '.join(repr(k) for k in keys)})" if keys else ""
    chunk = (f".withColumn('_chunk', E('greatest({CHUNK}, CAST(ceil(sqrt(size(_all))) AS INT))'))"
             if chunked else "")  # fmt: skip
    p.emit(f"{grouped} = {src.inp}{grouping}.agg({', '.join(src.agg)}){chunk}")
    return grouped


def comparator(order: list[tuple[int, bool]]) -> str:
    """An ``array_sort`` comparator of rows in ``order``: None first ascending, last
    descending (as ``ll.sort_rows``)."""
    expr = "0"
    for i, desc in reversed(order):
        x, y = f"_l._f{i}", f"_m._f{i}"
        lt, gt = ("1", "-1") if desc else ("-1", "1")
        expr = (
            f"CASE WHEN {x} <=> {y} THEN {expr} WHEN {x} IS NULL THEN {lt} WHEN {y} IS NULL "
            f"THEN {gt} WHEN {x} < {y} THEN {lt} ELSE {gt} END"
        )
    return f"(_l, _m) -> {expr}"
