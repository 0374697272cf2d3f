"""IntervalSequence: the reversible state of the clickstream analysis.

Events on a timeline — lower bounds (``open``), upper bounds (``close``) and
items (``insert``) — arrive in any order and may be deleted again; the state
keeps them as three multisets keyed by timestamp and derives the closed
intervals and their sizes from those multisets alone (Ohua/Noria thesis
§6.2.1, SPEC §3).

>>> seq = IntervalSequence()
>>> seq.close(12); seq.insert(11); seq.open(10)      # any arrival order
>>> seq.closed_sizes(), seq.average_closed_size()
([1], 1.0)
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from typing import Any, ClassVar, Self

from looplift import action

from ._base import LibraryState, batch_counts, count_in, count_out

__all__ = ["IntervalSequence"]

#: Below this many distinct timestamps the readers stay in pure Python.
NUMPY_THRESHOLD = 256


class IntervalSequence(LibraryState):
    """Intervals between ``open`` and ``close`` events, counting ``insert`` items.

    Actions (each with an explicit undo, ``seq.open.undo(t)`` etc.):
    ``open(t)`` adds a lower bound, ``close(t)`` an upper bound, ``insert(t)``
    an item at timestamp ``t`` (any mutually comparable, hashable values:
    ints, floats, datetimes). Undoing an event that is not in the state
    raises ValueError. Action codes for batches: open 0, close 1, insert 2.

    Semantics. Events are ordered by timestamp, and at equal timestamps
    open < close < insert. Then:

    * every distinct open timestamp ``lo`` is the lower bound of an interval;
    * that interval is *closed* iff there is a close ``hi`` with
      ``lo <= hi < next_lo`` (``next_lo``: the next larger open timestamp,
      infinity if none) — an upper bound after its lower bound with no other
      lower bound between. Its upper bound is the smallest such ``hi``;
      further closes before ``next_lo`` are ignored. A close at ``next_lo``
      itself comes after that open, so it belongs to the next interval;
    * an item at ``t`` belongs to the interval with the largest lower bound
      ``lo <= t`` (an insert at an open's timestamp comes after the open, so
      it belongs to that interval); the *size* of a closed interval is the
      number of inserts, with multiplicity, with ``lo <= t < hi`` (an insert
      at the close's timestamp comes after the close, so it is not counted).
      Items before the first open, after a close and before the next open, or
      in an interval that is never closed, count for no closed interval;
    * the state is a multiset of events: two opens (or two closes) at the same
      timestamp act like one — the extra open would start an empty interval
      immediately superseded by its twin, the extra close would follow the
      first one and be ignored — and stay in force until every copy is
      undone; two inserts at the same timestamp are two items.

    Readers (pure functions of the three multisets, O(E log E) in the number
    E of distinct timestamps; numpy-vectorized for large numeric states):

    * ``closed_sizes()`` — the sizes of the closed intervals ordered by lower
      bound ([] when none is closed);
    * ``closed_intervals()`` — ``(lo, hi, size)`` of each closed interval,
      ordered by lower bound;
    * ``average_closed_size()`` — the mean size as a float, None when no
      interval is closed.

    >>> s = IntervalSequence()
    >>> for t in (1, 2, 2): s.insert(t)
    >>> s.open(1); s.close(3); s.open(5); s.insert(6); s.close(8); s.close(9)
    >>> s.closed_intervals()
    [(1, 3, 3), (5, 8, 1)]
    >>> s.open(2)            # splits [1, 3): [1, 2) is no longer closed
    >>> s.closed_intervals(), s.average_closed_size()
    ([(2, 3, 2), (5, 8, 1)], 1.5)
    """

    action_codes: ClassVar[tuple[str, ...]] = ("open", "close", "insert")

    def __init__(self) -> None:
        self.opens: dict[Any, int] = {}
        self.closes: dict[Any, int] = {}
        self.inserts: dict[Any, int] = {}

    @action
    def open(self, t: Any) -> None:
        count_in(self.opens, t)

    @open.undo
    def open(self, t: Any) -> None:
        count_out(self.opens, t, f"IntervalSequence.open.undo({t!r})")

    @action
    def close(self, t: Any) -> None:
        count_in(self.closes, t)

    @close.undo
    def close(self, t: Any) -> None:
        count_out(self.closes, t, f"IntervalSequence.close.undo({t!r})")

    @action
    def insert(self, t: Any) -> None:
        count_in(self.inserts, t)

    @insert.undo
    def insert(self, t: Any) -> None:
        count_out(self.inserts, t, f"IntervalSequence.insert.undo({t!r})")

    # -- readers -----------------------------------------------------------------

    def closed_intervals(self) -> list[tuple[Any, Any, int]]:
        """``(lo, hi, size)`` of every closed interval, ordered by ``lo``."""
        return closed_intervals(self.opens, self.closes, self.inserts)

    def closed_sizes(self) -> list[int]:
        """Sizes of the closed intervals ordered by lower bound ([] when none)."""
        return [size for _, _, size in self.closed_intervals()]

    def average_closed_size(self) -> float | None:
        """Mean size of the closed intervals, or None when no interval is closed."""
        sizes = self.closed_sizes()
        return sum(sizes) / len(sizes) if sizes else None

    # -- batches -----------------------------------------------------------------

    @classmethod
    def grouped_reader(cls, reader: str) -> Any:
        """A function computing ``reader`` of a fresh state per key for many keys at once
        (``(keys, codes, args) -> (unique keys, values)``, NaN for None), or None."""
        return grouped_average_closed_size if reader == "average_closed_size" else None

    @classmethod
    def batch_apply(
        cls,
        codes: Sequence[int | str],
        args: Sequence[Any],
        signs: Sequence[int] | None = None,
        *,
        state: Self | None = None,
        ctor_args: tuple[Any, ...] = (),
    ) -> Self:
        """Apply a batch of signed events at once (numpy-counted).

        Codes: 0 open, 1 close, 2 insert (or the names). Same contract as
        :meth:`LibraryState.batch_apply`: the batch is netted per event first;
        an event whose count would go negative raises ValueError before the
        state changes.

        >>> IntervalSequence.batch_apply([0, 2, 1], [10, 11, 12]).closed_sizes()
        [1]
        """
        target = cls(*ctor_args) if state is None else state
        tables = {
            0: ("open", target.opens),
            1: ("close", target.closes),
            2: ("insert", target.inserts),
        }
        batch_counts(cls, target, tables, codes, args, signs)
        return target


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
