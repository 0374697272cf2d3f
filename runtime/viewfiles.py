"""The Spark store's records and their files (:mod:`looplift.sparkview` keeps the view).

A *record* is one scope key's state in the store: its hash ``h``, its pickled key ``k``,
its live rows (``live``: :func:`encode_live` hashes and counts, or a pickled ``{row:
count}``), its pickled states and output rows, and ``gone`` for a tombstone, stored as
one binary value (:func:`pack`). A record file holds records sorted by ``h`` in small
row groups: one bucket's (``b<bucket>-<id>.parquet``), or, in the view's log, an
apply's records of every bucket (``log-<id>.parquet``). Files are written once, whole
(renamed into place, or one object-store PUT) and never changed, so a process may cache
their index. ``data``, the directory of the files, is a
:class:`~looplift.viewstorage.Location` (a local path or an ``s3://`` prefix; a path
string is taken as one). Everything here runs in a task (on an executor, or in the
driver for a small apply).
"""

from __future__ import annotations

import bisect
import hashlib
import pickle
import struct
import sys
import uuid
from collections import Counter
from typing import Any

from .deltarows import row_hashable
from .viewcore import dumps
from .viewstorage import Location

MAX_SEGMENTS = 4  # files per bucket before its newer files are merged (an apply reads each)
MAX_LOG = 8  # log files (one per apply) before the log is flushed into the buckets
ROW_GROUP_BYTES = 16 * 1024  # target row group size: a task reads a key's group only


def version_files(files: dict[int, list[str]], log: list[str]) -> list[str]:
    """Every file a version's manifest names: the log's, then the buckets'."""
    return [*log, *(f for fs in files.values() for f in fs)]


def key_hash(kb: bytes) -> int:
    """A key's stable 64-bit hash (of its pickled bytes), the same in every process."""
    return int.from_bytes(hashlib.blake2b(kb, digest_size=8).digest(), "little", signed=True)


#: the first int64 of an :func:`encode_live` blob (a blob of an earlier looplift, whose
#: first int64 is its smallest row hash, starts with it with probability 2**-64)
_LIVE_MAGIC = -0x6C6F6F706C696674  # "looplift"


def encode_live(hashes: Any, counts: Any) -> bytes:
    """A key's live rows as stored for a view whose rows have a
    :func:`~looplift.deltarows.row_hash`, as little-endian int64s: a marker, the number
    of distinct rows ``n`` and of rows with more than one copy ``k``, the ``n`` hashes
    ascending, then the ``k`` positions and counts of the repeated ones (most rows occur
    once: the blob is about 8 bytes per row, not 16)."""
    import numpy as np

    hashes = np.asarray(hashes, "<i8")
    counts = np.asarray(counts, "<i8")
    extra = np.flatnonzero(counts != 1)
    head = np.array([_LIVE_MAGIC, len(hashes), len(extra)], "<i8")
    return b"".join((head.tobytes(), hashes.tobytes(), extra.astype("<i8").tobytes(),
                     counts[extra].tobytes()))  # fmt: skip


def decode_live(blob: bytes) -> tuple[Any, Any]:
    """(hashes, counts) of :func:`encode_live` (the hashes a read-only view of ``blob``;
    a blob of the earlier form, hashes then every count, is read too)."""
    import numpy as np

    a = np.frombuffer(blob, "<i8")
    if len(a) < 3 or a[0] != _LIVE_MAGIC:  # (the earlier form: hashes, then counts)
        n = len(a) // 2
        return a[:n], a[n:]
    n, k = int(a[1]), int(a[2])
    counts = np.ones(n, "<i8")
    if k:
        counts[a[3 + n : 3 + n + k]] = a[3 + n + k : 3 + n + 2 * k]
    return a[3 : 3 + n], counts


#: how a record holds a key's live rows: ``"hash"``, :func:`encode_live` of the rows'
#: :func:`~looplift.deltarows.row_hash` (a view in state mode whose fields have one);
#: ``"pickle"``, a pickled ``{row: count}`` (other views, and stores written before the
#: hash format, whose ``view.pickle`` has no ``live`` entry)
LIVE_FORMATS = ("hash", "pickle")


def live_format(shape: Any, fields: tuple[str, ...]) -> str:
    """The live-row format of a new view: hashes when the rows serve only to check
    deletes and to know a key is empty (state mode) and every field has a row hash."""
    return "hash" if shape.mode == "state" and row_hashable(fields) else "pickle"


def hash_delta(d: Counter, hashes: dict) -> tuple[list[int], list[int]]:
    """A key's delta ``{row: n}`` as (distinct row hashes ascending, net counts), the
    rows' hashes given by ``hashes`` (rows equal in a row hash are one row)."""
    net: dict[int, int] = {}
    for r, n in d.items():  # (a key's delta is a few rows: Python, not numpy)
        h = hashes[r]
        net[h] = net.get(h, 0) + n
    hs = sorted(net)
    return hs, [net[h] for h in hs]


def update_live(blob: bytes, dh: Any, dn: Any) -> tuple[bytes, int] | int:
    """A key's live rows (:func:`encode_live` ``blob``, empty for a new key) after the
    delta (``dh`` ascending hashes, ``dn`` net counts): (the new blob, its row count), or
    the index in ``dh`` of a delete of more copies than are live."""
    import numpy as np

    dh = dh.tolist() if hasattr(dh, "tolist") else list(dh)
    dn = dn.tolist() if hasattr(dn, "tolist") else list(dn)
    fast = _update_unique(blob, dh, dn)
    if fast is not None:
        return fast
    dh, dn = np.array(dh, "<i8"), np.array(dn, "<i8")
    h, c = decode_live(blob) if blob else (np.empty(0, "<i8"), np.empty(0, "<i8"))
    pos = np.searchsorted(h, dh)
    found = h[np.minimum(pos, len(h) - 1)] == dh if len(h) else np.zeros(len(dh), bool)
    have = np.where(found, c[np.minimum(pos, len(c) - 1)] if len(c) else 0, 0)
    left = have + dn
    if (left < 0).any():
        return int(np.flatnonzero(left < 0)[0])
    c = c.copy()
    c[pos[found]] = left[found]
    new = ~found & (dn != 0)
    if new.any():
        h, c = np.insert(h, pos[new], dh[new]), np.insert(c, pos[new], dn[new])
    if (left == 0).any():
        keep = c > 0
        h, c = h[keep], c[keep]
    return encode_live(h, c), len(h)


_LIVE_HEAD = struct.Struct("<qqq")  # marker, distinct rows, repeated rows


def _update_unique(blob: bytes, dh: list[int], dn: list[int]) -> tuple[bytes, int] | None:
    """:func:`update_live` when every row occurs once before and after (no repeated
    rows, each delta row +1 for a new row or -1 for a live one: the common case), on the
    blob's bytes without decoding it (a small delta of a large key is a few bisections
    and one copy); None when that does not hold (:func:`update_live` decodes)."""
    if sys.byteorder != "little":  # (the blob's int64s are read in place, as native)
        return None
    if blob:
        if len(blob) < _LIVE_HEAD.size:
            return None
        magic, n, k = _LIVE_HEAD.unpack_from(blob)
        if magic != _LIVE_MAGIC or k:
            return None
        hashes = memoryview(blob)[_LIVE_HEAD.size : _LIVE_HEAD.size + 8 * n].cast("q")
    else:
        n, hashes = 0, memoryview(b"").cast("q")
    pieces, at, lo = [], 0, 0  # (at: the first live hash not yet copied)
    for h, d in zip(dh, dn, strict=True):
        lo = bisect.bisect_left(hashes, h, lo)
        found = lo < n and hashes[lo] == h
        if d == 1 and not found:
            pieces += (hashes[at:lo], _I8.pack(h))
            at = lo
        elif d == -1 and found:
            pieces.append(hashes[at:lo])
            at = lo + 1
        elif d != 0:
            return None
    pieces.append(hashes[at:n])
    body = b"".join(pieces)
    m = len(body) // 8
    return _LIVE_HEAD.pack(_LIVE_MAGIC, m, 0) + body, m


_I8 = struct.Struct("<q")


def _record_schema() -> Any:
    import pyarrow as pa

    return pa.schema([("h", pa.int64()), ("rec", pa.binary())])


_HEAD = struct.Struct("<?iiii")  # gone, then the lengths of k, live, states (-1: None), out


def pack(rec: dict) -> bytes:
    """A record's stored form: one binary value (a file then has two columns, ``h`` and
    ``rec``, and a read of a key's row group decodes one column chunk, not five)."""
    k, live, states, out = rec["k"], rec["live"] or b"", rec["states"], rec["out"] or b""
    head = _HEAD.pack(bool(rec["gone"]), len(k), len(live),
                      -1 if states is None else len(states), len(out))  # fmt: skip
    return b"".join((head, k, live, states or b"", out))


def unpack(h: int, blob: bytes) -> dict:
    """The record :func:`pack` stored."""
    gone, nk, nl, ns, no = _HEAD.unpack_from(blob)
    at = _HEAD.size
    k = blob[at : at + nk]
    at += nk
    live = blob[at : at + nl]
    at += nl
    states = None if ns < 0 else blob[at : at + ns]
    at += max(ns, 0)
    return {"h": h, "k": k, "live": live, "states": states, "out": blob[at : at + no],
            "gone": gone}  # fmt: skip


_OLD_COLUMNS = ("k", "live", "states", "out", "gone")  # (files written before ``rec``)


# -- files (read and written by tasks) ---------------------------------------------------------


def read_records(
    data: Location | str, files: list[str], wanted: dict[bytes, int] | None,
    part: tuple[int, int] | None = None,
) -> dict[bytes, dict]:  # fmt: skip
    """The newest record of each wanted key (``{key bytes: hash}``; None: every key, or
    with ``part`` = (bucket, buckets) every key of that bucket) in ``files`` (oldest
    first); tombstones included (``gone``).

    Per file (newest first), only the keys not found yet are looked for: the file's ``h``
    column (cached per process: files never change) says which rows hold one, and only
    their row groups are read, only those rows decoded."""
    import numpy as np

    data = Location.of(data)
    found: dict[bytes, dict] = {}
    left = None if wanted is None else np.unique(np.fromiter(wanted.values(), "<i8", len(wanted)))
    for name in reversed(files):
        if left is not None and not len(left):
            break
        meta, hs, ends = file_index(data, name)
        if left is not None:
            rows = np.flatnonzero(np.isin(hs, left))
        elif part is not None:
            rows = np.flatnonzero(hs % part[1] == part[0])
        else:
            rows = None
        if rows is not None and not len(rows):
            continue
        for rec in _read_rows(data.open(name), meta, hs, ends, rows):
            kb = rec["k"]
            if kb in found or (wanted is not None and kb not in wanted):
                continue
            found[kb] = rec
        if wanted is not None:  # (a hash two wanted keys share stays until both are found)
            left = np.unique(np.fromiter((h for kb, h in wanted.items() if kb not in found), "<i8"))
    return found


def _read_rows(path: Any, meta: Any, hs: Any, ends: Any, rows: Any) -> list[dict]:
    """The records in rows ``rows`` (ascending; None: all) of a file: only their row
    groups are read (no pre-buffering: a few small groups of a large file)."""
    import numpy as np
    import pyarrow.parquet as pq

    new = "rec" in meta.schema.names
    columns = ["rec"] if new else list(_OLD_COLUMNS)
    pf = pq.ParquetFile(path, metadata=meta, pre_buffer=False)
    if rows is None or len(rows) == len(hs):
        table, rows = pf.read(columns=columns), np.arange(len(hs))
    else:
        g_of = np.searchsorted(ends, rows, side="right")  # each row's group
        groups = np.unique(g_of)
        begins = np.concatenate([[0], ends[:-1]])
        sizes = ends[groups] - begins[groups]
        table = pf.read_row_groups(groups.tolist(), columns=columns)
        # a row's place in the table of the groups read
        at = (np.cumsum(sizes) - sizes)[np.searchsorted(groups, g_of)] + rows - begins[g_of]
        if len(at) < table.num_rows:
            table = table.take(at)
    hl = hs[rows].tolist()
    if new:
        return [unpack(h, b) for h, b in zip(hl, table.column(0).to_pylist(), strict=True)]
    cols = [table.column(c).to_pylist() for c in _OLD_COLUMNS]
    return [{"h": h, **dict(zip(_OLD_COLUMNS, vals, strict=True))}
            for h, *vals in zip(hl, *cols, strict=True)]  # fmt: skip


_FILE_INDEX: dict[str, tuple[Any, Any, Any]] = {}
_FILE_INDEX_MAX = 4096  # files whose footer and key hashes a process keeps


def file_index(data: Location | str, name: str) -> tuple[Any, Any, Any]:
    """(Parquet footer, the ``h`` column, each row group's end row) of record file
    ``name`` in ``data``, cached: a file is written once and never changed."""
    data = Location.of(data)
    path = data.uri_of(name)
    got = _FILE_INDEX.get(path)
    if got is None:
        import pyarrow.parquet as pq

        pf = pq.ParquetFile(data.open(name), pre_buffer=False)
        got = _cache_index(path, pf.metadata, pf.read(columns=["h"]).column(0).to_numpy())
    return got


def _cache_index(path: str, meta: Any, hs: Any) -> tuple[Any, Any, Any]:
    """Keep a file's index (footer, key hashes, row groups' end rows) in the cache."""
    import numpy as np

    ends = np.cumsum([meta.row_group(g).num_rows for g in range(meta.num_row_groups)])
    if len(_FILE_INDEX) >= _FILE_INDEX_MAX:
        _FILE_INDEX.pop(next(iter(_FILE_INDEX)))
    got = _FILE_INDEX[path] = (meta, hs, ends)
    return got


def write_records(data: Location | str, part: int | str, records: list[dict]) -> str:
    """Write ``records`` (any order) as a new file of bucket ``part`` (an int) or of the
    view's log (``"log"``: an apply's records, of every bucket); returns its name."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    data = Location.of(data)
    records = sorted(records, key=lambda r: (r["h"], r["k"]))
    prefix = f"b{part:05d}" if isinstance(part, int) else part
    name = f"{prefix}-{uuid.uuid4().hex[:16]}.parquet"
    blobs = [pack(r) for r in records]
    table = pa.Table.from_arrays(
        [pa.array(np.fromiter((r["h"] for r in records), "<i8", len(records))),
         pa.array(blobs, pa.binary())],
        schema=_record_schema(),
    )  # fmt: skip
    size = sum(map(len, blobs))
    per_group = max(1, int(ROW_GROUP_BYTES * len(records) / max(size, 1)))
    # (lz4: reads and writes faster than zstd, ~10% larger, on records of row hashes;
    # a log file, read a few times before it is flushed, is not compressed: 20% faster
    # to write) (no dictionary and no statistics for ``rec``: distinct, large values)
    # (a file is whole or absent)
    data.write_parquet(name, table, row_group_size=per_group,
                       compression="none" if part == "log" else "lz4",
                       use_dictionary=False, write_statistics=["h"])  # fmt: skip
    # (indexed now: the key hashes this process wrote are at hand)
    _cache_index(data.uri_of(name), pq.read_metadata(data.open(name)),
                 table.column(0).to_numpy())  # fmt: skip
    return name


class BucketFiles:
    """A task's new records, written per bucket in files of at most :data:`CHUNK_BYTES`
    (each sorted by key hash); :attr:`out` lists the files as (bucket, "file", name)."""

    CHUNK_BYTES = 32 * 1024 * 1024

    def __init__(self, data: Location | str, buckets: int) -> None:
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


def compact(data: Location | str, bucket: int, files: list[str]) -> list[str]:
    """The bucket's files after merging its newest ones (when there are too many).

    Size-tiered: the newest two files are merged with each older one no bigger than
    what is merged so far, so a file is rewritten about log(its size / an apply's) times,
    not at every compaction (a big base, e.g. a bulk load's files, stays as is). When
    every file is merged, tombstones go."""
    if len(files) <= MAX_SEGMENTS:
        return files
    data = Location.of(data)
    sizes = [data.size(f) for f in files]
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
    live_b = live if isinstance(live, bytes) else dumps(dict(live))
    return {"h": h, "k": kb, "live": live_b, "states": dumps(states) if states else None,
            "out": dumps(out), "gone": False}  # fmt: skip


def output_rows(
    data: Location | str, files: list[str], part: tuple[int, int] | None = None
) -> list[tuple]:
    """The output rows of every live key in ``files`` (of bucket ``part``'s keys only)."""
    out: list[tuple] = []
    for rec in read_records(data, files, None, part).values():
        if not rec["gone"]:
            out.extend(pickle.loads(rec["out"]))
    return out


def upkeep(data: Location | str, buckets: int, log: list[str], files: dict[int, list[str]]
           ) -> dict[int, list[str]]:  # fmt: skip
    """The log flushed into the buckets (``files``: each bucket's files): the files of
    each bucket the log touches, its new file appended and the bucket compacted."""
    return {b: compact(data, b, [*files.get(b, []), name])
            for b, name in flush_log(data, buckets, log).items()}  # fmt: skip


def flush_log(data: Location | str, buckets: int, log: list[str]) -> dict[int, str]:
    """The log's newest records (tombstones too) written as one new file per bucket they
    fall in: ``{bucket: file}``, to be appended to the buckets' files."""
    by_bucket: dict[int, list[dict]] = {}
    for rec in read_records(data, log, None).values():
        by_bucket.setdefault(rec["h"] % buckets, []).append(rec)
    return {b: write_records(data, b, recs) for b, recs in sorted(by_bucket.items())}
