"""The frame of a boundary-position fold (:mod:`..boundary`) in a plan: the scope's rows
sorted and collected as for the aggregate fold, the segment starts, then the ``_fold``
struct the aggregate fold would give (``_rows``, ``r<i>``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...dataflow.payloads import GLOBAL
from ...ir.nodes import Var
from ..boundary import boundary_of, boundary_sql
from ..fold_model import ROW, Fold
from ..sql import sql_literal
from ..types import spark_type
from .ordered_rows import fold_groups, fold_source

if TYPE_CHECKING:
    from ...operators import StateOperator
    from ..context import PlanContext

__all__ = ["boundary_frame"]


def boundary_frame(p: PlanContext, op: StateOperator, fold: Fold, readers: bool) -> str:
    """The frame of scope keys and ``_fold`` for ordered loop ``op``, whose recorded
    strategy is the boundary-position fold; ``readers``: with the loop's readers."""
    keys = p.key_cols(p.frame_key(op.scope))
    src = fold_source(p, op, fold, keys)

    def value_of(e: Any) -> str:
        if isinstance(e, Var) and e.name in fold.free:
            return src.row(f"{ROW}._v{fold.free.index(e.name)}")
        return p.renderer(GLOBAL).expr(e)

    init, types = {}, {}
    for c in fold.carries:
        types[c.field] = spark_type(c.type)
        init[c.field] = value_of(c.init) if c.member is None else sql_literal(c.init)
        if c.member in ("max", "min"):
            init[c.field] = "NULL"
    reader_types = [spark_type(p.ty.types.get(res, "any")) for res, _ in fold.readers]
    if not readers:
        fold = _no_readers(fold)
        reader_types = []
    st, r0, sql = boundary_sql(fold, boundary_of(fold), src.row, init, types, reader_types)
    grouped = fold_groups(p, src, keys)
    starts = p.py.fresh("segments")
    first = f".withColumn('_r0', E({r0!r}))" if r0 is not None else ""
    p.emit(f"{starts} = {grouped}.withColumn('_st', E({st!r})){first}"
           "  # segment starts: where the carries reset")  # fmt: skip
    out = p.py.fresh("folded")
    line = p.a.loops[op.name.removeprefix("ordered.")].span.line
    what = "readers and rows yielded" if readers else "rows yielded"
    p.emit(f"{out} = {starts}.select({', '.join(f'F.col({k!r})' for k in keys)}"
           f"{', ' if keys else ''}E({sql!r}).alias('_fold'))"
           f"  # {what} in the ordered loop at line {line}: boundary-position fold per scope key")  # fmt: skip
    return out


def _no_readers(fold: Fold) -> Fold:
    import dataclasses

    return dataclasses.replace(fold, readers=())
