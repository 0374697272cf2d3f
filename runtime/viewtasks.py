"""The work of the Spark store's tasks: an apply's part (:func:`apply_keys`, in the
driver process, a view helper or a Spark task) and a bulk load's replay writer
(:class:`BulkWriter`). :mod:`looplift.sparkview` is the view that schedules them and
commits what they write; :mod:`looplift.viewfiles` the records and files they read and
write."""

from __future__ import annotations

import pickle
from collections import Counter
from collections.abc import Iterator
from typing import Any

from .deltarows import DeltaError, DeltaRows
from .viewcore import diff_rows, dumps
from .viewfiles import (
    BucketFiles,
    encode_live,
    hash_delta,
    key_hash,
    live_count,
    new_record,
    read_records,
    update_live,
    write_records,
)

__all__ = ["BulkWriter", "apply_keys", "error_row", "merge_jobs", "result_batch"]


def error_row(bucket: int, exc: BaseException) -> tuple[int, str, bytes]:
    try:
        blob = pickle.dumps(exc)
        pickle.loads(blob)
    except Exception:  # noqa: BLE001 - an exception that does not travel: its text does
        blob = pickle.dumps(RuntimeError(f"{type(exc).__name__}: {exc}"))
    return bucket, "raise", blob


def apply_keys(step: Any, data: str, job: dict) -> list[tuple[int, str, bytes]]:
    """An apply's part: its keys' records read, checked, stepped and written as one new
    log file. Returns (-1, kind, payload) rows: ``log`` (the new file's name),
    ``changes`` (pickled), ``error`` / ``raise``.

    ``job``: ``buckets`` (how many), ``files`` (the files of each bucket of its keys),
    ``log`` (the view's log files), ``deltas`` ``{key bytes: (key, {row: n})}`` and, for
    the hash live format (``live``), ``hashes`` ``{row: row hash}`` of the delta's rows.

    Keys are stepped part by part as their records are read (:func:`_read_parts`).
    Every delete is checked before anything is written, and a bad delete fails the
    apply before an exception of the user's code does, whichever key comes first."""
    deltas: dict[bytes, tuple[Any, Counter]] = job["deltas"]
    hashes: dict | None = job.get("hashes") if job.get("live") == "hash" else None
    wanted = {kb: key_hash(kb) for kb in deltas}
    global_key = step.shape.key == ()
    new_records, changes = [], []
    failed: BaseException | None = None
    for records, keys in _read_parts(data, job, wanted):
        for kb in keys:
            d = deltas[kb][1]
            rec = records.get(kb)
            if rec is not None and rec["gone"]:
                rec = None
            checked = _checked_live(rec, d, hashes)
            if isinstance(checked, str):
                return [(-1, "error", checked.encode())]
            if failed is not None:
                continue  # (only the deletes are checked now)
            try:
                if rec is not None:
                    states = pickle.loads(rec["states"]) if rec["states"] else []
                    old = pickle.loads(rec["out"])
                else:
                    states, old = [], (step.initial_output() if global_key else [])
                if hashes is not None:  # (state mode: the step asks only whether rows are left)
                    blob, count = checked
                    live = Counter({"_": 1}) if count else Counter()
                else:
                    live = blob = checked
                new_states, new = step.run(live, states, d)
                if not live and not global_key:
                    new_records.append({"h": wanted[kb], "k": kb, "live": b"", "states": None,
                                        "out": b"", "gone": True})  # fmt: skip
                else:
                    new_records.append(new_record(wanted[kb], kb, blob, new_states, new))
                changes.extend(diff_rows(old, new))
            except Exception as e:  # noqa: BLE001 - raised by the user's code: the apply fails
                failed = e
    if failed is not None:
        return [error_row(-1, failed)]
    out = [(-1, "log", write_records(data, "log", new_records).encode())] if new_records else []
    return [*out, (-1, "changes", pickle.dumps(changes, protocol=4))]


def _read_parts(data: str, job: dict, wanted: dict[bytes, int]) -> Iterator[tuple[dict, list]]:
    """(records, their keys) in parts: the keys whose newest record is in the log (it is
    newer than every bucket file), then the other keys bucket by bucket. (Reading the
    buckets in a thread while the caller steps keys was no faster: the reads' Python
    part and the steps contend for the interpreter.)"""
    found = read_records(data, job["log"], wanted)
    yield found, [kb for kb in wanted if kb in found]
    rest: dict[int, dict[bytes, int]] = {}
    for kb, h in wanted.items():
        if kb not in found:
            rest.setdefault(h % job["buckets"], {})[kb] = h
    for b, keys in sorted(rest.items()):
        yield read_records(data, job["files"].get(b, []), keys), list(keys)


def _checked_live(rec: dict | None, d: Counter, hashes: dict | None) -> Any:
    """A key's live rows after its delta ``d`` (``rec``: its record, None when it has no
    live rows): (blob, count) in the hash format, else a Counter; or the message of a
    delete of a row that is not live."""
    if hashes is not None:
        dh, dn = hash_delta(d, hashes)
        got = update_live(rec["live"] if rec else b"", dh, dn)
        if not isinstance(got, int):
            return got
        h = int(dh[got])
        r, n = next((r, n) for r, n in d.items() if hashes[r] == h and n < 0)
        live_n = live_count(rec["live"] if rec else b"", h)
        return (f"delete of a row that is not live: {r!r} ({-n} deleted, "
                f"{live_n} live); nothing was applied")  # fmt: skip
    live = Counter(pickle.loads(rec["live"])) if rec else Counter()
    for r, n in d.items():
        if n < 0 and live[r] + n < 0:
            return (f"delete of a row that is not live: {r!r} ({-n} deleted, "
                    f"{live[r]} live); nothing was applied")  # fmt: skip
    for r, n in d.items():  # (in place: the key's other rows are untouched)
        left = live[r] + n
        if left > 0:
            live[r] = left
        else:
            del live[r]
    return live


def merge_jobs(parts: list[dict], log: list[str], buckets: int, live: str) -> dict:
    """One :func:`apply_keys` job of per-bucket ``parts`` (``files``, ``deltas``,
    ``hashes`` each)."""
    job: dict = {"buckets": buckets, "log": log, "live": live, "files": {}, "deltas": {},
                 "hashes": {}}  # fmt: skip
    for part in parts:
        for name in ("files", "deltas", "hashes"):
            job[name].update(part.get(name, {}))
    return job


def result_batch(out: list[tuple[int, str, bytes]]) -> Any:
    import pyarrow as pa

    return pa.RecordBatch.from_arrays(
        [pa.array([o[0] for o in out], pa.int32()),
         pa.array([o[1] for o in out], pa.string()),
         pa.array([o[2] for o in out], pa.binary())],
        names=["bucket", "kind", "payload"],
    )  # fmt: skip


class BulkWriter:
    """One bulk-load task by replay: rows sorted by scope key in, one record per key
    (:class:`~looplift.viewfiles.BucketFiles`).

    ``hashed``: the batches carry each row's hash after the sign column, and the live
    rows are stored in the hash format (:func:`encode_live`)."""

    def __init__(self, step: Any, norm: DeltaRows, data: str, buckets: int,
                 hashed: bool = False) -> None:  # fmt: skip
        self.step, self.norm, self.hashed = step, norm, hashed
        self.files = BucketFiles(data, buckets)

    def run(self, batches: Iterator[Any]) -> list[tuple[int, str, bytes]]:
        key, nf = self.step.shape.key, len(self.norm.fields)
        current: tuple | None = None
        live: Counter = Counter()
        hashes: dict = {}
        try:
            for batch in batches:
                columns = [batch.column(i).to_pylist() for i in range(nf + 1)]
                signs = self.norm.signs_of(columns[nf])
                rows = self.norm.rows_of_columns(columns[:nf])
                hs = batch.column(nf + 1).to_pylist() if self.hashed else None
                for j, (r, s) in enumerate(zip(rows, signs, strict=True)):
                    k = tuple(r[i] for i in key)
                    if k != current:
                        if current is not None:
                            self._key(dumps(current), live, hashes)
                        current, live, hashes = k, Counter(), {}
                    live[r] += s
                    if hs is not None:
                        hashes[r] = hs[j]
            if current is not None:
                self._key(dumps(current), live, hashes)
            self.files.flush()
        except DeltaError as e:
            return [(-1, "error", str(e).encode())]
        except Exception as e:  # noqa: BLE001 - the user's code raised: the load fails
            return [error_row(-1, e)]
        return self.files.out

    def _key(self, kb: bytes, live: Counter, hashes: dict) -> None:
        bad = [r for r, n in live.items() if n < 0]
        if bad:
            raise DeltaError(f"delete of a row that is not live: {bad[0]!r}; nothing was applied")
        live = +live
        if not live:
            return
        new_states, out = self.step.run(live, [], live, batch=True)
        stored: Counter | bytes = live
        if self.hashed:
            dh, dn = hash_delta(live, hashes)
            stored = encode_live(dh, dn)
        self.files.add(new_record(key_hash(kb), kb, stored, new_states, out))
