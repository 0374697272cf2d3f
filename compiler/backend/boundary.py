"""The boundary-position fold: an ordered loop whose carries reset at boundaries (sessions,
runs, intervals), read from the positions of the boundaries instead of folding every row.

Transforms this (a session number per event and one summary per session)::

    for _uid, ts in user_events:
        if prev is None or ts - prev > gap:   # B: the boundary
            n += 1; start = ts; count = 0
        count += 1; prev = ts
        yield ...

from the fold's forms (:class:`~.fold_model.Fold`, one per carry) into, per scope key::

    _all = sort_array(collect_list(ts))                        -- the rows in order
    _st  = filter(sequence(0, size(_all) - 1), i -> i = 0 OR B(i))   -- segment starts
    transform(_st, (_b, _k) -> <the yields at the boundary _b>)   -- one per segment
    flatten(transform(_st, (_b, _k) -> transform(slice(_all, _b + 1, len), (_x, _j) -> ...)))

where every carry's value before a row has a closed form in its position ``i``, its
segment ``_k`` and the segment's start ``_st[_k]``:

- ``lag``: set to a row expression on every row: that expression of row ``i - 1``;
- ``count``: ``+= d`` (an int literal) on every row or at every boundary: ``init + d * i``,
  ``init + d * (boundaries before i)``;
- ``start``: set at a boundary: its value at the last boundary before ``i``;
- ``reset``: set at a boundary, then ``+= d`` on every row: its value at the last
  boundary plus ``d * (rows since)`` (an int literal ``d``), else the boundary's value
  summed over the rows since (``aggregate`` over that segment only: at segment ends).

``B`` reads the row and the lag carries only, so the starts are one ``filter``. Yields
whose condition is a disjunct of ``B`` fire at boundaries only (one ``transform`` over
the starts, the loop's readers at the end); others are evaluated per row. Exact as the
fold: the same SQL per value, and ``+ d * m`` for an int literal ``d`` (at most 2**31 in
magnitude, ``m`` an array index) is the value ``m`` additions give; a sum of other
addends runs as the fold does, row by row, over its segment.

Assumes: the fold's carries, forms, yield sites and readers (:mod:`.fold`); a scope key
(every group has a row). Guarantees: the struct the aggregate fold gives
(``_rows``, ``r<i>``), so the plan around it does not change.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from looplift.kernels import builtins_in_lambdas

from ..ir.nodes import ParamKind
from ..names import user_name
from .fold import _yield_width, fold_free, fold_of
from .fold_model import ACC_REF, Fold, NotFoldable
from .types import infer_types

__all__ = ["Boundary", "boundary_check", "boundary_of", "boundary_sql"]

#: choose the boundary-position fold where it applies; False compiles the window chain or
#: the aggregate() fold instead (the benchmarks' alternative plans, and a way out for a
#: scope key too large for one task's memory: those plans sort and spill)
PREFER = True

_INT = re.compile(r"\(?-? ?\d+L?\)?")  # an int literal addend, as the fold renders it
_SMALL = 2**31


@dataclass(frozen=True)
class Boundary:
    """How each carry of a fold reads from the boundary positions."""

    cond: str  # B over ``_fr`` and the lag carries (``_fa.c<k>``)
    kinds: tuple[tuple, ...]  # per carry: ("keep",) ("lag", f) ("count", terms) ("start", v)
    #                           ("reset", a, d)
    at_boundaries: bool  # every yield fires at a boundary: one row per segment at most
    why: str  # what --explain says


def boundary_of(fold: Fold) -> Boundary:
    """The boundary-position form of ``fold`` (a fold of the rows it yields); raises
    :class:`NotFoldable` with the reason when its carries do not reset at one boundary."""
    if fold.out_type is None or not fold.forms:
        raise NotFoldable("it yields no rows inside the loop")
    lags = {c.field for c, f in zip(fold.carries, fold.forms, strict=True)
            if f[0] == "set" and not ACC_REF.search(f[1])}  # fmt: skip
    conds = set()
    for f in fold.forms:
        if f[0] in ("cset", "reset"):
            conds.add(f[1])
        elif f[0] == "add":
            conds |= {t for t, _ in f[2] if t != "TRUE"}
    if len(conds) != 1:
        raise NotFoldable("no carry resets at one boundary condition" if not conds else
                          "its carries reset under different conditions")  # fmt: skip
    (cond,) = conds
    if not set(ACC_REF.findall(cond)) <= lags:
        raise NotFoldable("the boundary reads a carry that is not the previous row's value")
    kinds: list[tuple] = []
    for c, f in zip(fold.carries, fold.forms, strict=True):
        name = user_name(c.state)
        refs = set()
        if f[0] == "keep":
            kinds.append(("keep",))
        elif c.field in lags:
            kinds.append(("lag", f[1]))
        elif f[0] == "add" and c.type == "int" and all(_small(d) for _, d in f[2]):
            kinds.append(("count", f[2]))
        elif f[0] == "cset":
            refs = set(ACC_REF.findall(f[2]))
            kinds.append(("start", f[2]))
        elif f[0] == "reset" and c.type in ("int", "float"):
            refs = set(ACC_REF.findall(f"{f[2]} {f[3]}"))
            kinds.append(("reset", f[2], f[3]))
        else:
            raise NotFoldable(f"`{name}` is not reset at the boundary, counted, or the previous "
                              "row's value")  # fmt: skip
        if not refs <= lags:
            raise NotFoldable(f"`{name}` is set from another carry's running value")
    disjuncts = set(_disjuncts(cond))
    at_boundaries = all(_strip(y) in disjuncts or y == cond for y, _ in fold.sites)
    for (kind, *rest), c in zip(kinds, fold.carries, strict=True):
        if kind == "reset" and not at_boundaries and not (c.type == "int" and _small(rest[1])):
            raise NotFoldable(f"`{user_name(c.state)}` sums row values since the last "
                              "boundary, and the loop yields on rows that are not boundaries")  # fmt: skip
    where = "yields at boundaries only: one transform over the starts" if at_boundaries else \
        "yields on every row: one transform per segment"  # fmt: skip
    said = {"lag": "the previous row's value", "count": "counted per row or boundary",
            "start": "set at the boundary", "reset": "reset at the boundary, then summed"}  # fmt: skip
    parts = [f"{user_name(c.state)} {said[k[0]]}" for c, k in zip(fold.carries, kinds, strict=True)
             if k[0] in said]  # fmt: skip
    why = (
        f"the carries reset at boundary rows ({'; '.join(parts)}): the boundaries' positions "
        f"(one filter over the sorted rows) give every carried value in closed form; {where}"
    )
    return Boundary(cond, tuple(kinds), at_boundaries, why)


def boundary_check(prog: Any, op: Any) -> tuple[Boundary | None, str]:
    """(the boundary-position form of ordered loop ``op`` of ``prog`` or None, why either
    way); ``op`` is a native fold (:func:`.fold.fold_check`)."""
    if not PREFER:
        return (
            None,
            "the boundary-position fold is switched off (looplift.compiler.backend.boundary.PREFER)",
        )
    if not op.scope:
        return None, "a loop over all rows (no scope key): the aggregate fold handles no rows"
    a = prog.analysis
    width = _yield_width(a, op)
    if not width:
        return None, "it yields no rows inside the loop"
    ty = infer_types(a, prog.refs, strict=False)
    scalars = {p.name for p in prog.fn.params if p.kind == ParamKind.SCALAR}
    try:
        fold = fold_of(a, ty, prog.refs, prog.kinds.classes, op, fold_free(a, op, scalars),
                       out_types=["bigint"] * width)  # fmt: skip
        b = boundary_of(fold)
    except NotFoldable as e:
        return None, f"not a boundary-position fold: {e.reason}"
    return b, b.why


def _small(d: str) -> bool:
    if not _INT.fullmatch(d.strip()):
        return False
    return abs(int(re.sub(r"[()L ]", "", d))) <= _SMALL


# -- SQL ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _At:
    """A point of the scope's rows: position ``i`` (SQL), its segment ``k``, whether ``i``
    is that segment's start (``TRUE``, ``FALSE`` or SQL), and the row's SQL."""

    i: str
    k: str
    start: str
    row: str


def boundary_sql(
    fold: Fold,
    b: Boundary,
    row: Any,
    init: dict[str, str],
    types: dict[str, str],
    reader_types: list[str],
) -> tuple[str, str | None, str]:
    """(the segment starts ``_st``, the first row's boundary ``_r0`` or None when it is
    always one, the ``_fold`` struct) over a frame with ``_all``; ``row`` rewrites fold SQL
    to read ``_all``'s elements as ``_fr``; ``init``: each carry's initial SQL."""
    return _Sql(fold, b, row, init, types).build(reader_types)


class _Sql:
    def __init__(self, fold: Fold, b: Boundary, row: Any, init: dict[str, str],
                 types: dict[str, str]) -> None:  # fmt: skip
        self.fold, self.b, self.row, self.types = fold, b, row, types
        self.init = {f: f"CAST({v} AS {types[f]})" for f, v in init.items()}
        self.kinds = {c.field: k for c, k in zip(fold.carries, b.kinds, strict=True)}
        self.r0_static = self._first_is_boundary()

    def build(self, reader_types: list[str]) -> tuple[str, str | None, str]:
        first = self._at_pos(self.b.cond, "0", "_all[0]")
        bnd = self._at_pos(self.b.cond, "_i", "_all[_i]")
        st = f"filter(sequence(0, size(_all) - 1), _i -> _i = 0 OR {bnd})"
        rows = self._rows()
        end = _At("size(_all)", "(size(_st) - 1)", "FALSE", "NULL")
        parts = [f"'_rows', {rows}"]
        parts += [f"'r{j}', CAST({self._eval(sql, end)} AS {t})"
                  for j, ((_, sql), t) in enumerate(zip(self.fold.readers, reader_types, strict=True))]  # fmt: skip
        out = f"named_struct({', '.join(parts)})"
        # (kernels that are Spark's functions are those functions in lambdas: see sql.py)
        return (builtins_in_lambdas(st), None if self.r0_static else builtins_in_lambdas(first),
                builtins_in_lambdas(out))

    # rows at boundaries, or every row
    def _rows(self) -> str:
        fields = [
            tuple(f"'o{j}', {x}" for j, x in enumerate(items)) for _, items in self.fold.sites
        ]
        if self.b.at_boundaries:
            at = _At("_b", "_k", "TRUE", "_all[_b]")
        else:
            at = _At("(_b + _j)", "_k", "(_j = 0)", "_x")
        real = self._real("_k")
        isb = (
            None
            if self.b.at_boundaries
            else "(_j = 0)"
            if real == "TRUE"
            else f"(_j = 0 AND {real})"
        )
        made = []
        for (cond, _), f in zip(self.fold.sites, fields, strict=True):
            struct = self._eval(f"named_struct({', '.join(f)})", at, isb)
            made.append((cond, struct, self._eval(cond, at, isb)))
        if len(made) == 1 and made[0][0] == "TRUE":
            per = made[0][1]
            one = True
        else:
            per = "filter(array(" + ", ".join(f"CASE WHEN {c} THEN {s} END" for _, s, c in made) + "), _y -> _y IS NOT NULL)"  # fmt: skip
            one = False
        if self.b.at_boundaries:
            out = f"transform(_st, (_b, _k) -> {per})"
            return out if one else f"flatten({out})"
        seg = "slice(_all, _b + 1, coalesce(get(_st, _k + 1), size(_all)) - _b)"
        out = f"flatten(transform(_st, (_b, _k) -> transform({seg}, (_x, _j) -> {per})))"
        return out if one else f"flatten({out})"

    # values at a point
    def _eval(self, sql: str, at: _At, isb: str | None = None) -> str:
        """Fold SQL (over ``_fa`` before the row and ``_fr``) at point ``at``."""
        if isb is not None:
            sql = sql.replace(self.b.cond, isb)  # B at row i: i starts a segment that is real
        vals = {c.field: self._before(c.field, at) for c in self.fold.carries}
        return self._subst(sql, at.row, vals)

    def _subst(self, sql: str, row: str, vals: dict[str, str]) -> str:
        sql = re.sub(r"\b_fr\b", row, self.row(sql))
        return ACC_REF.sub(lambda m: f"({vals[m.group(1)]})", sql)

    def _at_pos(self, sql: str, p: str, row: str) -> str:
        """SQL reading only the row and lag carries, at position ``p``."""
        vals = {f: self._lag(f, p) for f, k in self.kinds.items() if k[0] == "lag"}
        return self._subst(sql, row, vals)

    def _lag(self, f: str, p: str) -> str:
        prev = self._subst(self.kinds[f][1], f"_all[{p} - 1]", {})
        return f"CASE WHEN {p} = 0 THEN {self.init[f]} ELSE CAST({prev} AS {self.types[f]}) END"

    def _real(self, k: str) -> str:
        return "TRUE" if self.r0_static else f"({k} > 0 OR _r0)"

    def _before(self, f: str, at: _At) -> str:
        kind, *rest = self.kinds[f]
        t, init = self.types[f], self.init[f]
        if kind == "keep":
            return init
        if kind == "lag":
            return self._lag(f, at.i)
        jx = {"TRUE": f"({at.k} - 1)", "FALSE": at.k}.get(
            at.start, f"(CASE WHEN {at.start} THEN {at.k} - 1 ELSE {at.k} END)"
        )  # the segment of the last boundary before i
        valid = f"{jx} >= 0" if self.r0_static else f"({jx} > 0 OR ({jx} = 0 AND _r0))"
        jp = f"_st[{jx}]"
        if kind == "count":
            cnt = f"({jx} + 1)" if self.r0_static else f"(CASE WHEN {jx} < 0 THEN 0 ELSE {jx} + IF(_r0, 1, 0) END)"  # fmt: skip
            terms = [cnt_ if d.strip("()") == "1L" else f"{d} * {cnt_}"
                     for c, d in rest[0] for cnt_ in [at.i if c == "TRUE" else cnt]]  # fmt: skip
            if init != f"CAST(0L AS {t})":
                terms.insert(0, init)
            return f"CAST({' + '.join(terms)} AS {t})"
        if kind == "start":
            return f"CASE WHEN {valid} THEN CAST({self._at_pos(rest[0], jp, f'_all[{jp}]')} AS {t}) ELSE {init} END"  # fmt: skip
        a, d = rest
        base = f"CAST({self._at_pos(a, jp, f'_all[{jp}]')} AS {t})"
        if t == "bigint" and _small(d):
            return (f"CASE WHEN {valid} THEN CAST({base} + {d} * ({at.i} - {jp}) AS {t}) "
                    f"ELSE CAST({init} + {d} * {at.i} AS {t}) END")  # fmt: skip
        step = f"(_s, _m) -> CAST(_s + {self._at_pos(d, '_m', '_all[_m]')} AS {t})"
        return (f"CASE WHEN {valid} THEN aggregate(sequence({jp}, {at.i} - 1), {base}, {step}) "
                f"WHEN {at.i} = 0 THEN {init} ELSE aggregate(sequence(0, {at.i} - 1), {init}, {step}) END")  # fmt: skip

    def _first_is_boundary(self) -> bool:
        """Is B true on the first row whatever it holds (a lag carry that starts as None
        and B's disjunct ``that carry IS NULL``)?"""
        for d in _disjuncts(self.b.cond):
            m = re.fullmatch(r"_fa\.(c\d+) IS NULL", d)
            if (
                m
                and self.kinds[m.group(1)][0] == "lag"
                and self.init[m.group(1)].startswith("CAST(NULL AS")
            ):
                return True
        return False


# -- conditions -------------------------------------------------------------------------


def _strip(sql: str) -> str:
    """``sql`` without parentheses around all of it."""
    sql = sql.strip()
    while sql.startswith("(") and _closing(sql, 0) == len(sql) - 1:
        sql = sql[1:-1].strip()
    return sql


def _closing(sql: str, i: int) -> int:
    depth = 0
    quote = False
    for j in range(i, len(sql)):
        ch = sql[j]
        if ch == "'":
            quote = not quote
        elif quote:
            continue
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return j
    return -1


def _top_split(sql: str, sep: str) -> list[str]:
    parts, depth, quote, last = [], 0, False, 0
    j = 0
    while j < len(sql):
        ch = sql[j]
        if ch == "'":
            quote = not quote
        elif not quote and ch == "(":
            depth += 1
        elif not quote and ch == ")":
            depth -= 1
        elif not quote and depth == 0 and sql.startswith(sep, j):
            parts.append(sql[last:j])
            last = j + len(sep)
            j = last
            continue
        j += 1
    parts.append(sql[last:])
    return parts


def _disjuncts(sql: str) -> list[str]:
    """The top-level disjuncts of a condition, each without outer parentheses;
    ``(CASE WHEN p THEN NULL ELSE x END) IS NULL`` is ``p OR x IS NULL``."""
    sql = _strip(sql)
    parts = _top_split(sql, " OR ")
    if len(parts) > 1:
        return [d for p in parts for d in _disjuncts(p)]
    if sql.endswith(" IS NULL"):
        inner = _strip(sql[: -len(" IS NULL")])
        if inner.startswith("CASE WHEN ") and inner.endswith(" END"):
            body = inner[len("CASE WHEN ") : -len(" END")]
            halves = _top_split(body, " THEN NULL ELSE ")
            if (
                len(halves) == 2
                and " WHEN " not in halves[1]
                and " THEN " not in _top_level(halves[0])
            ):
                return [*_disjuncts(halves[0]), f"{_strip(halves[1])} IS NULL"]
    return [sql]


def _top_level(sql: str) -> str:
    """The characters of ``sql`` outside parentheses."""
    out, depth = [], 0
    for ch in sql:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return "".join(out)
