"""The rows an ordered loop yields as window functions, in a plan.

Where the fold's carries are window functions (:mod:`..fold_window`; the strategy
recorded is the window one), each carry's value before a row is a column over the
scope's rows in the loop's order (:func:`.ordered_rows.ordered_input`): a ``lag``, a
running ``sum``, the ``last`` value set under a condition, a running ``max`` / ``min``,
or a running total that resets (:func:`_reset_steps`, and in one sort where the yields
read it after the row only: :func:`_reset_after_steps`); the yields then read those
columns. The aggregate fold and the Python loop are :mod:`.ordered`'s, the
boundary-position fold :mod:`.boundary_plan`'s.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ...dataflow.payloads import GLOBAL, ROWS
from ...ir.nodes import Var
from ...names import user_name
from ..fold_model import ACC_REF, ROW, Fold, WindowForm
from ..sql import quote_ident, sql_literal
from ..types import spark_type
from .ordered_rows import ordered_input, plain_field, sort_order

if TYPE_CHECKING:
    from ...operators import StateOperator
    from ..context import PlanContext

__all__ = ["window_rows"]

_FREE = re.compile(r"\b_v\d+\b")


def window_rows(p: PlanContext, op: StateOperator, fold: Fold, names: list[str]) -> str:
    """The rows an ordered loop yields as window functions over the scope's rows in order:
    each carry's value before a row is a ``lag``, a running ``sum``, the ``last`` value
    set under a condition, a running ``max`` / ``min`` of the rows before it, or a running
    total that resets where a condition holds."""
    assert fold.window is not None
    keys = p.key_cols(p.frame_key(op.scope))
    order = sort_order(p, op, keys)
    r = p.renderer(ROWS)
    subs = {}  # free values that are a scope key's column: read there, not carried along
    for j, n in enumerate(fold.free):
        col = r.expr(Var(n))
        key = next((k for k in keys if col in (k, quote_ident(k))), None)
        if key is not None:
            subs[f"_v{j}"] = quote_ident(key)
    free = {j for j in range(len(fold.free)) if f"_v{j}" not in subs}
    frame = ordered_input(p, fold, keys, order, free)
    by = ", ".join(f"_f{i} {'DESC NULLS LAST' if d else 'ASC NULLS FIRST'}" for i, d in order
                   if p.field_col(i) not in keys) or f"_f{order[0][0]}"  # fmt: skip
    part = f"PARTITION BY {', '.join(quote_ident(k) for k in keys)} " if keys else ""
    before = f"OVER ({part}ORDER BY {by} ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)"
    lag = f"OVER ({part}ORDER BY {by})"

    def cols_of(sql: str) -> str:
        sql = ACC_REF.sub(r"_b\1", sql).replace(f"{ROW}.", "")
        return _FREE.sub(lambda m: subs.get(m.group(0), m.group(0)), sql)

    def init_of(wc: Any) -> str:
        c = wc.carry
        if c.member in ("max", "min"):
            return "NULL"
        if c.member is not None:
            return sql_literal(c.init)
        if isinstance(c.init, Var) and c.init.name in fold.free:
            return cols_of(f"_v{fold.free.index(c.init.name)}")
        return p.renderer(GLOBAL).expr(c.init)

    line = p.a.loops[op.name.removeprefix("ordered.")].span.line
    p.emit(f"# rows yielded in the ordered loop at line {line}: window functions over each "
           "scope's rows in order")  # fmt: skip
    afters = _reset_afters(fold)  # reset carries the yields read after the row only

    def yielded(sql: str) -> str:
        for text, token in afters.items():
            sql = sql.replace(text, token)
        return cols_of(sql)

    for wc in fold.window.carries:
        k, t = wc.carry.field, spark_type(wc.carry.type)
        init = init_of(wc)
        what = ""
        if wc.kind is WindowForm.KEEP:
            steps = [("_b" + k, f"CAST({init} AS {t})")]
        elif wc.kind is WindowForm.SET and plain_field(p, cols_of(wc.sql)):
            steps = [(f"_b{k}", f"CAST(lag({cols_of(wc.sql)}, 1, {init}) {lag} AS {t})")]
            what = "set on every row: the previous row's value"
        elif wc.kind is WindowForm.SET:
            steps = [(f"_e{k}", cols_of(wc.sql)),
                     (f"_p{k}", f"lag(named_struct('v', _e{k})) {lag}"),
                     (f"_b{k}", f"CAST(CASE WHEN _p{k} IS NULL THEN {init} ELSE _p{k}.v END AS {t})")]  # fmt: skip
            what = "set on every row: the previous row's value"
        elif wc.kind is WindowForm.ADD:
            steps = [(f"_d{k}", cols_of(wc.sql)),
                     (f"_b{k}", f"CAST({init} + coalesce(sum(_d{k}) {before}, 0) AS {t})")]  # fmt: skip
            what = "a running sum of the rows before"
        elif wc.kind is WindowForm.CSET:
            steps = [(f"_s{k}", f"CASE WHEN {cols_of(wc.cond)} THEN named_struct('v', {cols_of(wc.sql)}) END"),
                     (f"_p{k}", f"last(_s{k}, true) {before}"),
                     (f"_b{k}", f"CAST(CASE WHEN _p{k} IS NULL THEN {init} ELSE _p{k}.v END AS {t})")]  # fmt: skip
            what = "set where a condition holds: the last such value before"
        elif wc.kind is WindowForm.RESET and wc.after in afters:
            steps = _reset_after_steps(k, t, init, cols_of(wc.cond), cols_of(wc.start),
                                       cols_of(wc.sql), [quote_ident(x) for x in keys], by)  # fmt: skip
            what = ("reset where a condition holds, then a sum: after each row, the running "
                    "sum plus its offset at the last reset (one sort)")  # fmt: skip
        elif wc.kind is WindowForm.RESET:
            steps = _reset_steps(k, t, init, cols_of(wc.cond), cols_of(wc.start),
                                 cols_of(wc.sql), [quote_ident(x) for x in keys], by, before)  # fmt: skip
            what = ("reset where a condition holds, then a sum: the value after the last "
                    "reset plus a running sum of the rows since (one window per segment)")  # fmt: skip
        else:
            steps = [
                (f"_x{k}", cols_of(wc.sql)),
                (f"_b{k}", f"CAST({wc.kind}(_x{k}) {before} AS {t})"),
            ]
            what = f"a running {wc.kind} of the rows before"
        name = user_name(wc.carry.state) + (f".{wc.carry.member}" if wc.carry.member not in (None, "max", "min") else "")  # fmt: skip
        comment = f"  # {name}: {what}" if what else f"  # {name}: never changes"
        for i, (col, sql) in enumerate(steps):
            nxt = p.py.fresh("windowed")
            if isinstance(col, tuple):  # independent window functions: one Window operator
                cols = ", ".join(f"{c!r}: E({x!r})" for c, x in zip(col, sql, strict=True))
                p.emit(f"{nxt} = {frame}.withColumns({{{cols}}}){comment if i == 0 else ''}")
            else:
                p.emit(
                    f"{nxt} = {frame}.withColumn({col!r}, E({sql!r})){comment if i == 0 else ''}"
                )
            frame = nxt
    out = p.py.fresh("yielded")
    sites = fold.window.yields
    if len(sites) == 1:
        cond, items = sites[0]
        where = "" if cond == "TRUE" else f".where(E({yielded(cond)!r}))"
        sel = ", ".join(
            f"E({yielded(x)!r}).alias({n!r})" for x, n in zip(items, names, strict=True)
        )
        p.emit(f"{out} = {frame}{where}.select({sel})")
        return out
    rows = []
    for cond, items in sites:
        fields = ", ".join(f"'o{i}', {yielded(x)}" for i, x in enumerate(items))
        rows.append(f"CASE WHEN {yielded(cond)} THEN named_struct({fields}) END")
    sql = f"filter(array({', '.join(rows)}), _y -> _y IS NOT NULL)"
    sel = ", ".join(f"F.col('o{i}').alias({n!r})" for i, n in enumerate(names))
    p.emit(f"{out} = {frame}.select(F.inline(E({sql!r}))).select({sel})")
    return out


def _reset_afters(fold: Fold) -> dict[str, str]:
    """{its value after the row (SQL): ``_a<k>``} of each ``reset`` carry that the yields
    read only after the row's update and no other carry reads: those need no value
    before the row (:func:`_reset_after_steps`)."""
    assert fold.window is not None
    out: dict[str, str] = {}
    others = " ".join(f"{w.sql} {w.cond} {w.start}" for w in fold.window.carries)
    for wc in fold.window.carries:
        k = wc.carry.field
        if wc.kind is not WindowForm.RESET or not wc.after or f"_fa.{k}" in others:
            continue
        texts = [x for cond, items in fold.window.yields for x in (cond, *items)]
        if not any(f"_fa.{k}" in x.replace(wc.after, "") for x in texts):
            out[wc.after] = f"_a{k}"
    return dict(sorted(out.items(), key=lambda kv: -len(kv[0])))  # longest first


def _reset_after_steps(
    k: str, t: str, init: str, cond: str, start: str, d: str, keys: list[str], by: str,
) -> list[tuple[Any, Any]]:
    """The window steps of an int carry set to ``start`` where ``cond`` holds, then
    ``+= d`` on every row, read after each row only. With ``_r`` the running sum of
    ``d`` over the scope's rows up to and including the row, its value after row ``i``
    is ``_r(i)`` plus, at the last reset ``j <= i``, ``start(j) - (_r(j) - d(j))``
    (``init`` before the first reset): one sort, two Window operators over the same
    order (the second needs the first's ``_r``, Spark sorts once). Exact for ints while
    a scope's running sum fits 64 bits; beyond it Spark's ANSI error (an intermediate
    Python does not overflow: SPEC §4 allows it where the inputs hold ints past 32
    bits). ``start`` and ``d`` are never None (the carry holds no None)."""
    upto = "ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
    part = f"PARTITION BY {', '.join(keys)} " if keys else ""
    over = f"OVER ({part}ORDER BY {by} {upto})"
    base = f"last(CASE WHEN {cond} THEN {start} - (_r{k} - {d}) END, true) {over}"
    return [
        (f"_r{k}", f"sum({d}) {over}"),
        (f"_a{k}", f"CAST(coalesce({base}, {init}) + _r{k} AS {t})"),
    ]  # fmt: skip


def _reset_steps(
    k: str, t: str, init: str, cond: str, start: str, d: str, keys: list[str], by: str,
    before: str,
) -> list[tuple[Any, Any]]:
    """The window steps of an int carry set to ``start`` where ``cond`` holds, then
    ``+= d`` on every row: its value before a row is the value after the last reset
    before it (``start + d`` there; ``init`` when none) plus the sum of ``d`` over the
    rows after that reset and before this row. Those rows are the ones with as many
    resets before them: ``_g`` (a running count over the rows before) names the
    segment, and the sum is one running ``sum`` per (scope key, ``_g``): the scope's
    rows are already partitioned by key, so the second window only sorts. ``_g`` and
    ``_s`` are one Window operator (each operator buffers a key's rows). ``start`` and
    ``d`` are never None (the carry holds no None), so a null ``last`` is "no reset
    before". Exact for ints: the same additions in another grouping (an intermediate
    beyond 64 bits raises, as the fold's can, SPEC §4)."""
    seg = f"OVER (PARTITION BY {', '.join([*keys, f'_g{k}'])} "
    return [
        ((f"_g{k}", f"_s{k}"),
         (f"coalesce(count(CASE WHEN {cond} THEN 1 END) {before}, 0L)",
          f"last(CASE WHEN {cond} THEN {start} + {d} END, true) {before}")),
        (f"_b{k}", f"CAST(coalesce(_s{k}, {init}) + coalesce(sum({d}) {seg}ORDER BY {by} "
                   f"ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0L) AS {t})"),
    ]  # fmt: skip
