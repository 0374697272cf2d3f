"""Event-time streams under test: files of clicks arriving in shuffled order, the query,
and what CPython says the stream must emit (issue 28, item 2).

The expectation is computed here from the definitions, not from Spark's output:
micro-batch ``k`` reads file ``k`` (one file per trigger, files ordered by their
modification time, data batches back to back); its watermark is the largest event time
of the files before it minus the delay (the epoch before any); a row is late for a
window of its key, and then does not count in it, when at or before the watermark of the
batch before (Spark's watermark for late rows; a window the current batch's watermark
makes final is emitted with the rows that came in time) are: the window's end (the
native form: Spark's windowed aggregation) or the row's event time (the per-window
form: Spark's transformWithState drops rows by their event time). A window's rows are CPython's over the rows that count in it, and it is final
once the watermark after the last file (the largest event time minus the delay) is at
or past its end.
"""

from __future__ import annotations

import datetime
import os
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from looplift.windows import group_keys

EPOCH = datetime.datetime(1970, 1, 1)
US = datetime.timedelta(microseconds=1)


def micros(t: Any) -> int:
    """An event time (a datetime, or int epoch seconds) in epoch microseconds."""
    return (t - EPOCH) // US if isinstance(t, datetime.datetime) else t * 1_000_000


def write_batch(path: Path, rows: list[tuple], mtime: float, kind: str = "td") -> None:
    """``(user_id, ts)`` rows, each inserted (``_sign`` 1), as one parquet file."""
    ts_type = pa.timestamp("us", tz="UTC") if kind == "td" else pa.int64()
    ts = [t.replace(tzinfo=datetime.UTC) if kind == "td" else t for _, t in rows]
    table = pa.table({"user_id": pa.array([u for u, _ in rows], pa.int64()),
                      "ts": pa.array(ts, ts_type),
                      "_sign": pa.array([1] * len(rows), pa.int32())})  # fmt: skip
    tmp = path.with_name("." + path.name)
    pq.write_table(table, tmp)
    os.utime(tmp, (mtime, mtime))
    tmp.rename(path)


class EventRun:
    """One event-time stream of ``algo`` over files of ``(user_id, ts)`` clicks."""

    def __init__(self, spark: Any, algo: Any, root: Path, kind: str = "td") -> None:
        self.spark, self.algo, self.kind = spark, algo, kind
        self.src, self.ckpt = root / "src", root / "ck"
        self.src.mkdir(parents=True)
        self.files: list[list[tuple]] = []
        self.batches: list[list[dict]] = []
        self.query: Any = None

    def add(self, batches: list[list[tuple]]) -> None:
        base = time.time() - 3600
        for rows in batches:
            n = len(self.files)
            write_batch(self.src / f"part-{n:04d}.parquet", rows, base + n, self.kind)
            self.files.append(rows)

    def run(self, mode: str, watermark: str = "10 minutes", **kw: Any) -> Any:
        ddl = "user_id bigint, ts " + ("timestamp" if self.kind == "td" else "bigint") + \
            ", _sign int"  # fmt: skip
        sdf = self.spark.readStream.schema(ddl).option("maxFilesPerTrigger", 1) \
            .parquet(str(self.src))  # fmt: skip
        out = self.algo.stream(sdf, event_time="ts", watermark=watermark, **kw)

        def sink(df: Any, _batch: int) -> None:
            self.batches.append([r.asDict() for r in df.collect()])

        self.query = (out.writeStream.outputMode(mode).foreachBatch(sink)
                      .option("checkpointLocation", str(self.ckpt))
                      .trigger(availableNow=True).start())  # fmt: skip
        self.query.awaitTermination(600)
        if self.query.exception() is not None:
            raise self.query.exception()
        return self.query

    def rows(self, columns: list[str]) -> list[tuple]:
        return [tuple(r[c] for c in columns) for b in self.batches for r in b]

    def state_rows(self) -> int:
        return sum(op["numRowsTotal"] for op in self.query.lastProgress["stateOperators"])

    def dropped(self) -> int:
        return sum(op["numRowsDroppedByWatermark"] for p in self.query.recentProgress
                   for op in p["stateOperators"])  # fmt: skip


class Expected:
    """CPython's windows over the files as they arrive (see the module docs)."""

    def __init__(self, algo: Any, files: list[list[tuple]], key: Any, size_us: int,
                 delay_us: int, window_col: int, lag: int = 1, by_row: bool = False,
                 restarts: frozenset[int] = frozenset()) -> None:  # fmt: skip
        """``key(row)``: the row's window starts (``group_keys`` of its window part);
        ``window_col``: the output column holding the window's start; ``lag``: 1 where a
        row is late by the previous batch's watermark (Spark's), 0 by its own; ``by_row``:
        late by the row's event time (the per-window form), not its window's end;
        ``restarts``: the files a restarted query reads first (a batch with no data ran
        before them, at the watermark they are judged by)."""
        self.algo, self.window_col = algo, window_col
        self.windows: dict[Any, list[tuple]] = {}  # window start -> rows that count in it
        self.late = 0  # (row, window) pairs dropped
        high = None
        marks = [-(2**62)]  # the watermark of each batch so far
        for i, rows in enumerate(files):
            marks.append(-(2**62) if high is None else max(marks[-1], high - delay_us))
            wm = marks[-1] if i in restarts else marks[-1 - lag]
            for r in rows:
                for w in group_keys(key(r)):
                    if (micros(r[1]) if by_row else micros(w) + size_us) <= wm:
                        self.late += 1
                    else:
                        self.windows.setdefault(w, []).append(r)
            top = max((micros(t) for _, t in rows), default=None)
            if top is not None:
                high = top if high is None else max(high, top)
        self.final_wm = -(2**62) if high is None else high - delay_us
        self.size_us = size_us
        self.out: dict[Any, list[tuple]] = {
            w: [o for o in algo(rows) if o[window_col] == w] for w, rows in self.windows.items()
        }

    def final(self, w: Any) -> bool:
        return micros(w) + self.size_us <= self.final_wm

    def appended(self) -> Counter:
        return Counter(o for w, outs in self.out.items() if self.final(w) for o in outs)

    def current(self) -> Counter:
        return Counter(o for outs in self.out.values() for o in outs)

    def open_windows(self) -> list[Any]:
        return [w for w in self.out if not self.final(w)]
