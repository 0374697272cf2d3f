"""What incremental maintenance needs of an algorithm (its :class:`IncrementalShape`),
computed from the compiled :class:`~looplift.compiler.program.Program`.

The runtime (:mod:`looplift.incremental`) reads it from the compiled result or from a
build's manifest, so a build package maintains views without the compiler.

- *state mode* — for algorithms whose states all live in the scope of one top-level
  ``group_by`` and are fed by one loop over its rows, and for aggregates whose states
  are fed by loops over all rows (one global key): the reference runs over the delta
  rows of one key only, on restored states.
- *rows mode* — everything else: the key's live rows are kept and the reference
  recomputes the key's output from them. A map over rows is keyed by the whole row.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .analysis import LoopKind
from .ir.nodes import ParamKind
from .operators import OperatorKind
from .program import AlgorithmKind, Program

__all__ = ["IncrementalShape", "incremental_shape"]


@dataclass(frozen=True)
class IncrementalShape:
    kind: str  # table | aggregate | scalar
    key: tuple[int, ...]  # fields of the top-level group_by key; () = one global key
    mode: str  # "state" | "rows" ("" when ``error``)
    rows_index: int  # position of the RowStream parameter
    why: str  # why rows mode (for explain)
    error: str = ""  # why the algorithm cannot be maintained (incremental() raises it)

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "key": list(self.key), "mode": self.mode,
                "rows_index": self.rows_index, "why": self.why, "error": self.error}  # fmt: skip

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> IncrementalShape:
        return cls(d["kind"], tuple(d["key"]), d["mode"], d["rows_index"], d["why"],
                   d.get("error", ""))  # fmt: skip


def incremental_shape(prog: Program) -> IncrementalShape:
    """The scope key incremental maintenance partitions by, and the mode it can use."""
    kind = prog.kind
    name = prog.fn.name
    params = list(prog.fn.params)
    rows = [i for i, p in enumerate(params) if p.kind == ParamKind.ROWS]
    if kind == AlgorithmKind.SCALAR or not rows:
        return IncrementalShape(kind, (), "", -1, "",
                                f"`{name}` is a scalar algorithm: nothing to maintain")  # fmt: skip
    rows_index = rows[0]
    if len(rows) != 1:
        return IncrementalShape(kind, (), "", rows_index, "", f"`{name}` takes several RowStreams")
    no_undo = _missing_undo(prog)
    if no_undo:
        return IncrementalShape(kind, (), "", rows_index, "", no_undo)
    a = prog.analysis
    tops = [lp for lp in a.loops.values() if lp.parent is None]
    yields = [y.site for y in prog.kinds.yields]
    top = tops[0] if len(tops) == 1 else None
    ops = prog.operators
    # a ranked loop (``sorted(g, ...)[:n]``) depends on its scope's other rows, like an ordered one
    flat = all(lp.parent is None and lp.kind == LoopKind.ROWS and not lp.ordered and lp.order_by is None
               for lp in a.loops.values())  # fmt: skip
    carry = any(o.ordered or o.name.endswith(".carry") or "carry" in o.classes for o in ops)
    # local containers are plain dicts / lists / sets in the reference: nothing to restore
    containers = any(o.kind == OperatorKind.CONTAINER for o in ops)
    # an action outside the loops over rows (``s.add(10)`` before the loop) would run
    # again on every replay: only per-row actions can be replayed
    per_row = all(any(a.loops[lp].kind == LoopKind.ROWS for lp in site.loops if lp in a.loops)
                  for o in ops for site in getattr(o, "actions", ()))  # fmt: skip
    if kind == AlgorithmKind.AGGREGATE and a.loops and flat and ops and not carry and not containers and per_row \
            and all(o.scope == () for o in ops):  # fmt: skip
        # unordered loops over all rows feeding states, read after the loops: the
        # states are restored and the delta replayed (one global key)
        return IncrementalShape(kind, (), "state", rows_index, "")
    if kind == AlgorithmKind.TABLE and top is not None and top.kind == LoopKind.ROWS and not top.ordered \
            and flat and not ops and yields:  # fmt: skip
        # a map over rows (each row's outputs depend on it alone): one key per row
        nfields = len(params[rows_index].types)
        return IncrementalShape(kind, tuple(range(nfields)), "rows", rows_index,
                                "a map over rows")  # fmt: skip
    if kind != AlgorithmKind.TABLE or top is None or top.kind != LoopKind.GROUP or top.ordered:
        return IncrementalShape(kind, (), "rows", rows_index,
                                "no single top-level group_by: one global key")  # fmt: skip
    if not yields or any(not s.loops or s.loops[0] != top.name for s in yields):
        return IncrementalShape(kind, (), "rows", rows_index,
                                "rows are yielded outside the group_by")  # fmt: skip
    below = [lp for lp in a.loops.values() if lp.parent == top.name]
    why = ""
    if not below or any(lp.kind != LoopKind.ROWS or lp.ordered or lp.order_by is not None for lp in below):
        why = "nested or ordered loops inside the group_by"
    elif carry:
        why = "loop-carried locals (only State objects can be restored)"
    elif containers:
        why = "local containers (plain dicts, lists and sets in the reference cannot be restored)"
    elif any(tuple(s.loops) != (top.name,) for s in yields):
        why = "rows are yielded inside the loop over the group's rows"
    elif not per_row:
        why = "an action outside the loop over the group's rows"
    elif any(o.scope != (top.name,) for o in ops):
        why = "states outside the group_by's scope"
    elif any(lp.kind == LoopKind.ROWS and lp.parent is None for lp in a.loops.values()):
        why = "a loop over all rows"
    nfields = len(params[rows_index].types)
    if any(i >= nfields for i in top.key):
        # a computed key part is not a field of the input rows: partition by the key's
        # plain fields (the whole input when there are none) and recompute from the rows
        plain = tuple(i for i in top.key if i < nfields)
        return IncrementalShape(kind, plain, "rows", rows_index,
                                why or "a computed group key: partitioned by its plain fields")  # fmt: skip
    return IncrementalShape(kind, tuple(top.key), "rows" if why else "state", rows_index, why)


def _missing_undo(prog: Program) -> str:
    """Why deletes cannot reach a state: one of its actions has no undo ("" when all do).

    Batch and SQL calls only ever apply actions, so they compile such a state (Flink's
    Top2, which keeps the two largest values, has no retract either); a view must take a
    deleted row's actions back.
    """
    from .names import user_name
    from .state_classes import check_undo

    for var, decl in prog.analysis.states.items():
        info = prog.kinds.classes.get(decl.cls)
        missing = [act for act, how in (info.undo if info else ()) if how == "missing"]
        if not missing:
            continue
        act = missing[0]
        where = next((f" ({d.span.path}:{d.span.line})" for d in check_undo(prog.refs[decl.cls])
                      if f"`{info.name}.{act}`" in d.message and d.span.line), "")  # fmt: skip
        return (
            f"`{prog.fn.name}` cannot be maintained incrementally: action `{info.name}.{act}`"
            f"{where} of state `{user_name(var)}` has no undo, so a deleted row's "
            f"`{act}` cannot be taken back; add `@{act}.undo` to `{info.name}` with its "
            f"inverse (batch DataFrame and SQL calls do not need one)"
        )
    return ""
