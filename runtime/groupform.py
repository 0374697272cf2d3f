"""Which form brings a group's values to its rows, chosen from Spark's statistics of the
input when the plan runs (``compiler/backend/group_windows.py`` makes both forms).

A group loop that reads its group's sums per row (per-group centering, a share of the
group total) compiles to window aggregates over the rows (``sum(v) OVER (PARTITION BY
k)``: one shuffle and a sort of every row) or to an aggregate per key joined back on the
key. Neither is the faster one at every size (docs/performance.md, "Group values used
per row"). When the aggregate is small enough to broadcast, the join wins: the rows are
neither shuffled nor sorted (native, the join's time over the window's: 0.28 at 5M rows
and 10k keys, 0.66 at 1M rows and 10k keys, 0.82 at 2M rows and 100k keys). When it is
not, the join shuffles both sides (2M rows, 1M keys: 2.2x the window's time).

So a plan holding both forms asks :func:`few_large_groups` which to build. It reads the
number of rows and of distinct keys from the input's logical plan statistics: a cached
DataFrame knows its rows once materialized, and ``ANALYZE TABLE <view> COMPUTE STATISTICS
FOR COLUMNS <key>`` (on a cached temporary view, or a catalog table with
``spark.sql.cbo.planStats.enabled``) gives its distinct keys. Without both numbers the plan
keeps the window, whose worst case measured is the smaller.

The Spark setting ``spark.looplift.groupValues`` overrides the choice: ``window``,
``join``, or ``auto`` (the default).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["GroupStatistics", "few_large_groups", "group_statistics", "CONF"]

log = logging.getLogger("looplift")

#: the Spark setting that overrides the choice: window, join or auto
CONF = "spark.looplift.groupValues"
#: rows a key from which the aggregate joined back is chosen (it won at 20 rows a key, 2M rows)
MIN_ROWS_PER_KEY = 20
#: rows below which the window is kept (one job; the join's second job and its broadcast
#: cost more than they save)
MIN_ROWS = 1_000_000
#: bytes of one aggregated row in the broadcast (the key and a few sums, as Spark sizes it)
BYTES_PER_KEY = 64


@dataclass(frozen=True)
class GroupStatistics:
    """What Spark's statistics say of an input: its rows and its distinct keys (a product
    over the key's columns), each None where Spark does not know it."""

    rows: int | None
    keys: int | None


def group_statistics(df: Any, columns: Sequence[str]) -> GroupStatistics:
    """Rows and distinct values of ``columns`` (their product) of ``df``, from the
    statistics of the leaves of its analyzed logical plan, cached data in place (no
    optimizing: 4 ms less per build), that hold those columns unchanged (a column
    computed or renamed on the way has none). The rows are the leaf's,
    or fewer where Spark knows the plan's own (a limit); a filter's are not known, so they
    are an upper bound."""
    jdf = getattr(df, "_jdf", None)
    if jdf is None:  # Spark Connect: no statistics reach the client
        return GroupStatistics(None, None)
    got = _jvm_statistics(df, jdf, columns)
    return got if got is not None else _walked_statistics(jdf, columns)


def _walked_statistics(jdf: Any, columns: Sequence[str]) -> GroupStatistics:
    """:func:`group_statistics` through Py4J, one call of the JVM a value."""
    try:
        qe = jdf.queryExecution()
        output = qe.analyzed().output()
        ids = {}
        for i in range(output.size()):
            attr = output.apply(i)
            ids.setdefault(attr.name(), attr.exprId().id())
        wanted = {ids[c] for c in columns if c in ids}
        rows, distinct = None, {}
        plan = qe.withCachedData()  # (cheaper than optimizing: the leaves are the same)
        leaves = plan.collectLeaves().iterator()
        while leaves.hasNext():
            stats = leaves.next().stats()
            it = stats.attributeStats().iterator()
            here = False
            while it.hasNext():
                kv = it.next()
                eid = kv._1().exprId().id()
                count = kv._2().distinctCount()
                if eid in wanted and count.isDefined():
                    distinct[eid] = _int(count.get())
                    here = True
            if here and stats.rowCount().isDefined():
                rows = max(rows or 0, _int(stats.rowCount().get()))
        top = plan.stats().rowCount()  # (known above a limit; a filter's rows are not)
        if rows is not None and top.isDefined():
            rows = min(rows, _int(top.get()))
    except Exception as e:  # noqa: BLE001 - no statistics: the default form
        log.debug("looplift: no statistics of the input (%s)", e)
        return GroupStatistics(None, None)
    keys = None
    if len(wanted) == len(columns) and wanted <= distinct.keys():
        keys = 1
        for eid in wanted:
            keys *= max(1, distinct[eid])
    return GroupStatistics(rows, keys)


def _jvm_statistics(df: Any, jdf: Any, columns: Sequence[str]) -> GroupStatistics | None:
    """:func:`group_statistics` by looplift's jar in one call of the JVM
    (``looplift.kernels.Stats``; the walk below costs about 40); None without the jar."""
    try:
        got = df.sparkSession._jvm.looplift.kernels.Stats.groupStatistics(
            jdf.queryExecution(), list(columns))
        rows, keys = (int(x) for x in got.split())
    except Exception:  # noqa: BLE001 - no jar on the driver (a Py4J package, not a class)
        return None
    return GroupStatistics(None if rows < 0 else rows, None if keys < 0 else keys)


def _int(big: Any) -> int:
    """A Scala ``BigInt`` of the statistics (py4j converts some to ``int`` itself)."""
    return big if isinstance(big, int) else int(big.toString())


def _broadcast_limit(spark: Any) -> int:
    """Spark's size limit of a side it broadcasts on its own
    (``spark.sql.autoBroadcastJoinThreshold``, in bytes; -1: none)."""
    return int(spark._jsparkSession.sessionState().conf().autoBroadcastJoinThreshold())


def few_large_groups(df: Any, keys: Sequence[Sequence[int | str]]) -> bool:
    """Should a plan join each group's values back by key rather than compute them by
    window aggregates over the rows? ``keys``: each windowed scope's key, as the fields of
    the input (a position, or a column name for a named row type). True when, by Spark's
    statistics (or the setting :data:`CONF`), every scope has few large groups: at least
    :data:`MIN_ROWS` rows, :data:`MIN_ROWS_PER_KEY` a key, and an aggregate small enough
    for Spark to broadcast."""
    spark = df.sparkSession
    setting = str(spark.conf.get(CONF, "auto") or "auto").strip().lower()
    if setting in ("window", "join"):
        return setting == "join"
    if setting != "auto":
        raise ValueError(f"looplift: {CONF} is {setting!r}; expected 'auto', 'window' or 'join'")
    for key in keys:
        columns = [df.columns[f] if isinstance(f, int) else f for f in key]
        st = group_statistics(df, columns)  # (none on Spark Connect: the windows)
        ok = (st.rows is not None and st.keys is not None and st.rows >= MIN_ROWS
              and st.rows >= MIN_ROWS_PER_KEY * st.keys
              and st.keys * BYTES_PER_KEY <= _broadcast_limit(spark))  # fmt: skip
        form = "an aggregate joined back" if ok else "windows over the rows"
        log.info("looplift: group values by %s (key %s: %s rows, %s keys by Spark's statistics)",
                 form, columns, st.rows, st.keys)  # fmt: skip
        if not ok:
            return False
    return bool(keys)
