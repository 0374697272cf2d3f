"""The Spark store's records and their files (:mod:`looplift.sparkview` keeps the view).

A *record* is one scope key's state in the store: its hash ``h``, its pickled key ``k``,
its live rows (``live``: :func:`encode_live` hashes and counts, or a pickled ``{row:
count}``), its pickled states and output rows, and ``gone`` for a tombstone. A record
file holds one bucket's records sorted by ``h`` in small row groups; files are written
once (renamed into place) and never changed, so a process may cache their index.
Everything here runs in a task (on an executor, or in the driver for a small apply).
"""

from __future__ import annotations

import hashlib
import os
import pickle
import uuid
from collections import Counter
from typing import Any

from .deltarows import row_hashable

MAX_SEGMENTS = 8  # files per bucket before its newer files are merged
ROW_GROUP_BYTES = 64 * 1024  # target row group size: a task reads a key's group only


def key_hash(kb: bytes) -> int:
    """A key's stable 64-bit hash (of its pickled bytes), the same in every process."""
    return int.from_bytes(hashlib.blake2b(kb, digest_size=8).digest(), "little", signed=True)


def encode_live(hashes: Any, counts: Any) -> bytes:
    """A key's live rows as stored for a view whose rows have a
    :func:`~looplift.deltarows.row_hash`: the distinct rows' hashes, ascending, then their
    counts (all positive), as little-endian int64s."""
    import numpy as np

    return np.concatenate([np.asarray(hashes, "<i8"), np.asarray(counts, "<i8")]).tobytes()


def decode_live(blob: bytes) -> tuple[Any, Any]:
    """(hashes, counts) of :func:`encode_live` (read-only numpy views of ``blob``)."""
    import numpy as np

    a = np.frombuffer(blob, "<i8")
    n = len(a) // 2
    return a[:n], a[n:]


#: how a record holds a key's live rows: ``"hash"``, :func:`encode_live` of the rows'
#: :func:`~looplift.deltarows.row_hash` (a view in state mode whose fields have one);
#: ``"pickle"``, a pickled ``{row: count}`` (other views, and stores written before the
#: hash format, whose ``view.pickle`` has no ``live`` entry)
LIVE_FORMATS = ("hash", "pickle")


def live_format(shape: Any, fields: tuple[str, ...]) -> str:
    """The live-row format of a new view: hashes when the rows serve only to check
    deletes and to know a key is empty (state mode) and every field has a row hash."""
    return "hash" if shape.mode == "state" and row_hashable(fields) else "pickle"


def hash_delta(d: Counter, hashes: dict) -> tuple[Any, Any]:
    """A key's delta ``{row: n}`` as (distinct row hashes ascending, net counts), the
    rows' hashes given by ``hashes`` (rows equal in a row hash are one row)."""
    import numpy as np

    hs = np.fromiter((hashes[r] for r in d), "<i8", len(d))
    ns = np.fromiter(d.values(), "<i8", len(d))
    u, inv = np.unique(hs, return_inverse=True)
    return u, np.bincount(inv, weights=ns, minlength=len(u)).astype("<i8")


def update_live(blob: bytes, dh: Any, dn: Any) -> tuple[bytes, int] | int:
    """A key's live rows (:func:`encode_live` ``blob``, empty for a new key) after the
    delta (``dh`` ascending hashes, ``dn`` net counts): (the new blob, its row count), or
    the index in ``dh`` of a delete of more copies than are live."""
    import numpy as np

    h, c = decode_live(blob) if blob else (np.empty(0, "<i8"), np.empty(0, "<i8"))
    pos = np.searchsorted(h, dh)
    found = pos < len(h)
    found[found] = h[pos[found]] == dh[found]
    have = np.zeros(len(dh), "<i8")
    have[found] = c[pos[found]]
    bad = np.flatnonzero(have + dn < 0)
    if len(bad):
        return int(bad[0])
    c = c.copy()
    c[pos[found]] += dn[found]
    new = ~found & (dn != 0)
    h, c = np.insert(h, pos[new], dh[new]), np.insert(c, pos[new], dn[new])
    keep = c > 0
    if not keep.all():
        h, c = h[keep], c[keep]
    return encode_live(h, c), len(h)


def _record_schema() -> Any:
    import pyarrow as pa

    return pa.schema([
        ("h", pa.int64()), ("k", pa.binary()), ("live", pa.binary()),
        ("states", pa.binary()), ("out", pa.binary()), ("gone", pa.bool_()),
    ])  # fmt: skip


# -- files (read and written by tasks) ---------------------------------------------------------


def read_records(data: str, files: list[str], wanted: dict[bytes, int] | None) -> dict[bytes, dict]:
    """The newest record of each wanted key (``{key bytes: hash}``; None: every key) in
    ``files`` (oldest first); tombstones included (``gone``).

    Per file (newest first), only the keys not found yet are looked for: the file's ``h``
    column (cached per process: files never change) says which rows hold one, and only
    their row groups are read, only those rows decoded (a small newer file's groups span
    every hash: chosen by statistics, each would be read whole)."""
    import numpy as np
    import pyarrow.parquet as pq

    found: dict[bytes, dict] = {}
    left = None if wanted is None else np.unique(np.fromiter(wanted.values(), "<i8", len(wanted)))
    for name in reversed(files):
        if wanted is not None and (len(found) == len(wanted) or not len(left)):
            break
        path = os.path.join(data, name)
        if left is None:
            table = pq.read_table(path)
        else:
            meta, hs, ends = _file_index(path)
            hit = np.flatnonzero(np.isin(hs, left))
            if not len(hit):
                continue
            g_of = np.searchsorted(ends, hit, side="right")  # each hit row's group
            groups = np.unique(g_of)
            begins = np.concatenate([[0], ends[:-1]])
            sizes = ends[groups] - begins[groups]
            table = pq.ParquetFile(path, metadata=meta).read_row_groups(groups.tolist())
            # a hit row's place in the table of the groups read
            at = (np.cumsum(sizes) - sizes)[np.searchsorted(groups, g_of)] + hit - begins[g_of]
            table = table.take(at)
        cols = {c: table.column(c).to_pylist() for c in ("h", "k", "live", "states", "out", "gone")}
        for i, kb in enumerate(cols["k"]):
            if kb in found or (wanted is not None and kb not in wanted):
                continue
            found[kb] = {c: cols[c][i] for c in cols}
        if wanted is not None:  # (a hash two wanted keys share stays until both are found)
            left = np.unique(np.fromiter((h for kb, h in wanted.items() if kb not in found), "<i8"))
    return found


_FILE_INDEX: dict[str, tuple[Any, Any, Any]] = {}
_FILE_INDEX_MAX = 4096  # files whose footer and key hashes a process keeps


def _file_index(path: str) -> tuple[Any, Any, Any]:
    """(Parquet footer, the ``h`` column, each row group's end row) of a record file,
    cached: a file is written once (renamed into place) and never changed."""
    got = _FILE_INDEX.get(path)
    if got is None:
        import numpy as np
        import pyarrow.parquet as pq

        pf = pq.ParquetFile(path)
        meta = pf.metadata
        hs = pf.read(columns=["h"]).column(0).to_numpy()
        ends = np.cumsum([meta.row_group(g).num_rows for g in range(meta.num_row_groups)])
        if len(_FILE_INDEX) >= _FILE_INDEX_MAX:
            _FILE_INDEX.pop(next(iter(_FILE_INDEX)))
        got = _FILE_INDEX[path] = (meta, hs, ends)
    return got


def write_records(data: str, bucket: int, records: list[dict]) -> str:
    """Write ``records`` (any order) as a new file of ``bucket``; returns its name."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    records = sorted(records, key=lambda r: (r["h"], r["k"]))
    name = f"b{bucket:05d}-{uuid.uuid4().hex[:16]}.parquet"
    table = pa.Table.from_pylist(records, schema=_record_schema())
    size = sum(len(r["live"] or b"") + len(r["states"] or b"") + len(r["out"] or b"")
               for r in records)  # fmt: skip
    per_group = max(1, int(ROW_GROUP_BYTES * len(records) / max(size, 1)))
    tmp = os.path.join(data, f".{name}.tmp")
    # (lz4: reads and writes faster than zstd, ~10% larger, on records of row hashes)
    pq.write_table(table, tmp, row_group_size=per_group, compression="lz4")
    os.replace(tmp, os.path.join(data, name))  # a file is whole or absent
    return name


class BucketFiles:
    """A task's new records, written per bucket in files of at most :data:`CHUNK_BYTES`
    (each sorted by key hash); :attr:`out` lists the files as (bucket, "file", name)."""

    CHUNK_BYTES = 32 * 1024 * 1024

    def __init__(self, data: str, buckets: int) -> None:
        self.data, self.buckets = data, buckets
        self.pending: dict[int, list[dict]] = {}
        self.sizes: Counter = Counter()
        self.out: list[tuple[int, str, bytes]] = []

    def add(self, rec: dict) -> None:
        b = rec["h"] % self.buckets
        self.pending.setdefault(b, []).append(rec)
        self.sizes[b] += len(rec["live"]) + len(rec["out"]) + len(rec["states"] or b"")
        if self.sizes[b] >= self.CHUNK_BYTES:
            self.flush(b)

    def flush(self, b: int | None = None) -> None:
        """Write bucket ``b``'s pending records (None: every bucket's)."""
        for bucket in list(self.pending) if b is None else [b]:
            recs = self.pending.pop(bucket, [])
            self.sizes.pop(bucket, None)
            if recs:
                self.out.append((bucket, "file", write_records(self.data, bucket, recs).encode()))


def compact(data: str, bucket: int, files: list[str]) -> list[str]:
    """The bucket's files after merging its newest ones (when there are too many).

    Size-tiered: the newest two files are merged with each older one no bigger than
    what is merged so far, so a file is rewritten about log(its size / an apply's) times,
    not at every compaction (a big base, e.g. a bulk load's files, stays as is). When
    every file is merged, tombstones go."""
    if len(files) <= MAX_SEGMENTS:
        return files
    sizes = [os.path.getsize(os.path.join(data, f)) for f in files]
    i, merged_size = len(files), 0
    while i > 0 and (len(files) - i < 2 or sizes[i - 1] <= merged_size):
        i -= 1
        merged_size += sizes[i]
    whole = i == 0
    merged = read_records(data, files[i:], None)
    keep = [r for r in merged.values() if not (whole and r["gone"])]
    new = write_records(data, bucket, keep) if keep else None
    return files[:i] + ([new] if new else [])


def live_count(blob: bytes, h: int) -> int:
    """How many copies of the row with hash ``h`` an :func:`encode_live` blob holds."""
    import numpy as np

    if not blob:
        return 0
    hs, cs = decode_live(blob)
    i = int(np.searchsorted(hs, h))
    return int(cs[i]) if i < len(hs) and hs[i] == h else 0


def new_record(h: int, kb: bytes, live: Counter | bytes, states: list, out: list) -> dict:
    """A key's record; ``live``: its live rows (a Counter, pickled) or their encoded form."""
    from .incremental import _dumps

    live_b = live if isinstance(live, bytes) else _dumps(dict(live))
    return {"h": h, "k": kb, "live": live_b, "states": _dumps(states) if states else None,
            "out": _dumps(out), "gone": False}  # fmt: skip


def output_rows(data: str, files: list[str]) -> list[tuple]:
    out: list[tuple] = []
    for rec in read_records(data, files, None).values():
        if not rec["gone"]:
            out.extend(pickle.loads(rec["out"]))
    return out
