"""Closed intervals computed in bulk: an empty state built from one numeric batch with
numpy, the intervals of three multisets from scratch, and the average closed size of
many keys at once (the grouped reader of ``average_closed_size``)."""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ._base import _has_int_arg
from ._interval_pack import packed

if TYPE_CHECKING:
    from .interval import IntervalSequence

#: Below this many distinct timestamps the readers stay in pure Python.
NUMPY_THRESHOLD = 256


def build_numpy(
    target: IntervalSequence, codes: Sequence[int], args: Sequence[Any], signs: Sequence[int] | None
) -> bool:
    """Build an empty state from a numeric batch with numpy: count, sort and derive the
    closed intervals vectorized. False (nothing changed) if the batch is not numeric
    (or mixes Python ints and floats, kept exact in Python)."""
    import numpy as np

    n = len(codes)
    if len(args) != n or (signs is not None and len(signs) != n) or n == 0:
        return False  # net_counts reports the lengths; an empty batch has nothing to build
    try:
        a = np.asarray(args)
        c = np.asarray(codes)
    except (TypeError, ValueError):
        return False
    if a.ndim != 1 or a.dtype.kind not in "iuf" or c.dtype.kind not in "iu":
        return False
    if a.dtype.kind == "f" and not isinstance(args, np.ndarray) and _has_int_arg(args):
        return False
    s = np.sign(np.asarray(signs, dtype=np.int64)) if signs is not None else None
    built = []
    for code in (0, 1, 2):
        mask = c == code
        if s is None:
            values, counts = np.unique(a[mask], return_counts=True)
        else:
            values, inverse = np.unique(a[mask], return_inverse=True)
            counts = np.bincount(inverse.ravel(), weights=s[mask], minlength=len(values))
            counts = counts.astype(np.int64)
            bad = np.flatnonzero(counts < 0)
            if bad.size:
                name = type(target).action_codes[code]
                raise ValueError(
                    f"IntervalSequence.{name}.undo: cannot undo {values[bad[0]].item()!r} "
                    f"{-int(counts[bad[0]])} more time(s) than it was applied "
                    f"(it is in the state 0 time(s))"
                )
            keep = counts > 0
            values, counts = values[keep], counts[keep]
        built.append((values, counts))
    (lo_v, lo_c), (hi_v, hi_c), (it_v, it_c) = built
    target.opens = dict(zip(lo_v.tolist(), lo_c.tolist(), strict=True))
    target.closes = dict(zip(hi_v.tolist(), hi_c.tolist(), strict=True))
    items = it_v if it_v.size == int(it_c.sum()) else np.repeat(it_v, it_c)
    pack = a.dtype.kind == "i"  # (int64 timestamps: the state is packed)
    to_seq = packed if pack else (lambda v: v.tolist())
    target._packed = pack
    target._los, target._his, target._items = to_seq(lo_v), to_seq(hi_v), to_seq(items)
    if lo_v.size and hi_v.size:
        k = np.searchsorted(hi_v, lo_v, side="left")
        has_close = k < hi_v.size
        hi = hi_v[np.minimum(k, hi_v.size - 1)]
        before_next = np.ones(lo_v.size, dtype=bool)
        before_next[:-1] = hi[:-1] < lo_v[1:]
        closed = has_close & before_next
        lo, hi = lo_v[closed], hi[closed]
        sizes = np.searchsorted(items, hi, side="left") - np.searchsorted(items, lo, side="left")
        target._clo, target._chi = to_seq(lo), to_seq(hi)
        target._csz = to_seq(sizes.astype(np.int64))
        target._total = int(sizes.sum())
    elif pack:
        target._clo, target._chi, target._csz = array("q"), array("q"), array("q")
    return True


def closed_intervals(
    opens: dict[Any, int],
    closes: dict[Any, int],
    inserts: dict[Any, int],
    *,
    use_numpy: bool | None = None,
) -> list[tuple[Any, Any, int]]:
    """The closed intervals ``(lo, hi, size)`` of the given event multisets.

    ``use_numpy`` forces (True) or forbids (False) the vectorized path; by
    default it is used for numeric states of at least ``NUMPY_THRESHOLD``
    distinct timestamps. Both paths give the same result.
    """
    if not opens or not closes:
        return []
    if use_numpy is None:
        use_numpy = len(opens) + len(closes) + len(inserts) >= NUMPY_THRESHOLD
    if use_numpy:
        fast = _closed_intervals_numpy(opens, closes, inserts)
        if fast is not None:
            return fast
    return _closed_intervals_python(opens, closes, inserts)


def _closed_intervals_python(
    opens: dict[Any, int], closes: dict[Any, int], inserts: dict[Any, int]
) -> list[tuple[Any, Any, int]]:
    los = sorted(opens)
    his = sorted(closes)
    items = sorted(inserts)
    cum = [0]  # cum[i] = number of inserts at the first i distinct timestamps
    for t in items:
        cum.append(cum[-1] + inserts[t])
    out = []
    for j, lo in enumerate(los):
        k = bisect_left(his, lo)  # first close at or after lo (open < close at equal ts)
        if k == len(his):
            break  # no close at or after lo, so none after any later open either
        hi = his[k]
        if j + 1 < len(los) and not hi < los[j + 1]:
            continue  # the next open comes first: this interval is never closed
        out.append((lo, hi, cum[bisect_left(items, hi)] - cum[bisect_left(items, lo)]))
    return out


def _closed_intervals_numpy(
    opens: dict[Any, int], closes: dict[Any, int], inserts: dict[Any, int]
) -> list[tuple[Any, Any, int]] | None:
    """Vectorized twin of the Python path; None if the timestamps are not plain numbers."""
    import numpy as np

    los = np.array(list(opens))
    his = np.array(list(closes))
    items = np.array(list(inserts))
    kinds = {a.dtype for a in (los, his, items) if a.size}
    if len(kinds) != 1 or next(iter(kinds)).kind not in "iuf":
        return None  # mixed ints/floats, big ints, datetimes, ...: stay exact in Python
    order = np.argsort(items, kind="stable")
    items = items[order]
    weights = np.fromiter(inserts.values(), dtype=np.int64, count=len(inserts))[order]
    cum = np.concatenate(([0], np.cumsum(weights)))
    los.sort()
    his.sort()
    k = np.searchsorted(his, los, side="left")
    has_close = k < his.size
    hi = his[np.minimum(k, his.size - 1)]
    before_next = np.ones(los.size, dtype=bool)
    before_next[:-1] = hi[:-1] < los[1:]
    closed = has_close & before_next
    lo, hi = los[closed], hi[closed]
    if items.size:
        sizes = (
            cum[np.searchsorted(items, hi, side="left")]
            - cum[np.searchsorted(items, lo, side="left")]
        )
    else:
        sizes = np.zeros(lo.size, dtype=np.int64)
    return list(zip(lo.tolist(), hi.tolist(), sizes.tolist(), strict=True))


def grouped_average_closed_size(keys: Any, codes: Any, times: Any) -> tuple[Any, Any]:
    """``average_closed_size()`` of a fresh IntervalSequence per key, for many keys at once.

    ``keys``, ``codes`` (0 open, 1 close, 2 insert) and ``times`` are parallel
    numeric numpy arrays holding the events of every key (all inserts, no
    deletes). Returns ``(unique keys, averages)`` with NaN where a key has no
    closed interval. One lexicographic sort and a few segmented scans: no
    Python per key. Equal to building each key's state event by event.
    """
    import numpy as np

    keys = np.asarray(keys)
    codes = np.asarray(codes, dtype=np.int64)
    times = np.asarray(times)
    order = np.lexsort((codes, times, keys))  # by key, time, then open < close < insert
    k, c, t = keys[order], codes[order], times[order]
    n = len(k)
    ukeys, kidx = np.unique(k, return_inverse=True)
    if n == 0:
        return ukeys, np.zeros(0, dtype=np.float64)
    pos = np.arange(n)
    new_key = np.ones(n, dtype=bool)
    new_key[1:] = k[1:] != k[:-1]
    is_open = c == 0
    # opens at the same (key, time) are one lower bound
    dup_open = np.zeros(n, dtype=bool)
    dup_open[1:] = is_open[1:] & is_open[:-1] & (t[1:] == t[:-1]) & ~new_key[1:]
    starts = is_open & ~dup_open
    # the interval of each row: the last lower bound at or before it, within its key
    last_start = np.where(starts, pos, -1)
    np.maximum.accumulate(last_start, out=last_start)
    key_start = np.where(new_key, pos, 0)
    np.maximum.accumulate(key_start, out=key_start)
    seg = np.where(last_start >= key_start, last_start, -1)
    # the first close of each interval closes it
    close_rows = (c == 1) & (seg >= 0)
    first_close = np.full(n, n, dtype=np.int64)
    if close_rows.any():
        segs_c, first_idx = np.unique(seg[close_rows], return_index=True)
        first_close[segs_c] = pos[close_rows][first_idx]
    # inserts in an interval before its first close count towards its size
    ins = (c == 2) & (seg >= 0)
    counted = ins & (pos < first_close[np.maximum(seg, 0)])
    sizes = np.bincount(seg[counted], minlength=n)
    closed_segs = np.flatnonzero(starts & (first_close < n))
    total = np.bincount(kidx[closed_segs], weights=sizes[closed_segs], minlength=len(ukeys))
    count = np.bincount(kidx[closed_segs], minlength=len(ukeys))
    with np.errstate(invalid="ignore", divide="ignore"):
        avg = np.where(count > 0, total / np.maximum(count, 1), np.nan)
    return ukeys, avg
