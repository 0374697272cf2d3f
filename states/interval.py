"""IntervalSequence: the reversible state of the clickstream analysis.

Events on a timeline — lower bounds (``open``), upper bounds (``close``) and
items (``insert``) — arrive in any order and may be deleted again; the state
keeps them as three multisets keyed by timestamp, and the closed intervals
and their sizes are a function of those multisets alone (Ohua/Noria thesis
§6.2.1, SPEC §3). The state maintains them per action (sorted events, the
closed intervals, the sum of their sizes), so that an action costs O(log E)
and ``average_closed_size()`` O(1); ``closed_intervals(opens, closes,
inserts)`` below derives them from scratch.

>>> seq = IntervalSequence()
>>> seq.close(12); seq.insert(11); seq.open(10)      # any arrival order
>>> seq.closed_sizes(), seq.average_closed_size()
([1], 1.0)
"""

from __future__ import annotations

import sys
from array import array
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Sequence
from typing import Any, ClassVar, Self

from looplift import action

from ._base import (
    LibraryState,
    _has_int_arg,
    apply_net_counts,
    code_indices,
    count_out,
    net_counts,
)

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

    Maintained structures. Besides the multisets of opens and closes
    (``opens``, ``closes``: timestamp -> count) the state keeps the sorted
    distinct open and close timestamps, the sorted inserts (with repetitions,
    so that the number of items in ``[lo, hi)`` is two bisections; the
    ``inserts`` multiset is derived from them on demand), the closed intervals
    ordered by lower bound and the sum of their sizes. An action or undo
    costs O(log E) bisections plus a list insert/delete, and re-derives only
    the intervals it can change: an open or close the interval around its
    timestamp (and the one before a new or removed open), an insert the one
    interval holding it. Readers:

    * ``closed_sizes()`` — the sizes of the closed intervals ordered by lower
      bound ([] when none is closed), O(number of closed intervals);
    * ``closed_intervals()`` — ``(lo, hi, size)`` of each closed interval,
      ordered by lower bound;
    * ``average_closed_size()`` — the mean size as a float, None when no
      interval is closed, O(1).

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
    native_build: ClassVar[bool] = True  # (its structures are sorted: order-free)

    def __init__(self) -> None:
        self.opens = {}
        self.closes = {}
        self._clear_maintained()

    # ``opens`` and ``closes`` of a loaded state are made from the sorted lists when first
    # used (a replay that only inserts items never builds them): None until then, the
    # counts of the repeated events in ``_lo_rep`` / ``_hi_rep``
    @property
    def opens(self) -> dict[Any, int]:
        """The multiset of open timestamps (timestamp -> count)."""
        if self._opens is None:
            self._opens = _counts(self._los, self._lo_rep)
        return self._opens

    @opens.setter
    def opens(self, value: dict[Any, int]) -> None:
        self._opens, self._lo_rep = value, None

    @property
    def closes(self) -> dict[Any, int]:
        """The multiset of close timestamps (timestamp -> count)."""
        if self._closes is None:
            self._closes = _counts(self._his, self._hi_rep)
        return self._closes

    @closes.setter
    def closes(self, value: dict[Any, int]) -> None:
        self._closes, self._hi_rep = value, None

    def _clear_maintained(self) -> None:
        self._los: list[Any] = []  # sorted distinct open timestamps
        self._his: list[Any] = []  # sorted distinct close timestamps
        self._items: list[Any] = []  # sorted insert timestamps, with repetitions
        self._clo: list[Any] = []  # closed intervals by lower bound: lo,
        self._chi: list[Any] = []  # hi
        self._csz: list[int] = []  # and size
        self._total = 0  # sum of self._csz
        # the six sorted lists are ``array("q")`` (packed) while every timestamp is a
        # Python int of 64 bits: such a state pickles and loads as six byte copies
        # (a list of 1,000 ints takes 25 us to pickle, an array 2), and an action with
        # another timestamp turns them into lists first (:meth:`_unpack`)
        self._packed = False

    @action
    def open(self, t: Any) -> None:
        opens = self.opens
        if t in opens:
            opens[t] += 1
            return
        self._admit(t)
        opens[t] = 1
        los = self._los
        j = bisect_left(los, t)
        los.insert(j, t)
        self._refresh(j)
        if j:
            self._refresh(j - 1)  # its next lower bound moved closer

    @open.undo
    def open(self, t: Any) -> None:
        count_out(self.opens, t, f"IntervalSequence.open.undo({t!r})")
        if t in self.opens:
            return  # another copy keeps the lower bound
        los = self._los
        j = bisect_left(los, t)
        self._set_closed(t, None)
        del los[j]
        if j:
            self._refresh(j - 1)  # its next lower bound moved away

    @action
    def close(self, t: Any) -> None:
        closes = self.closes
        if t in closes:
            closes[t] += 1
            return
        self._admit(t)
        closes[t] = 1
        his = self._his
        his.insert(bisect_left(his, t), t)
        self._refresh_around(t)

    @close.undo
    def close(self, t: Any) -> None:
        count_out(self.closes, t, f"IntervalSequence.close.undo({t!r})")
        if t in self.closes:
            return
        his = self._his
        del his[bisect_left(his, t)]
        self._refresh_around(t)

    @action
    def insert(self, t: Any) -> None:
        self._admit(t)
        items = self._items
        items.insert(bisect_right(items, t), t)
        self._refresh_around(t)

    @insert.undo
    def insert(self, t: Any) -> None:
        items = self._items
        i = bisect_left(items, t)
        if i == len(items) or t < items[i]:
            count_out({}, t, f"IntervalSequence.insert.undo({t!r})")  # raises
        del items[i]
        self._refresh_around(t)

    @property
    def inserts(self) -> dict[Any, int]:
        """The multiset of insert timestamps (timestamp -> count), in ascending order."""
        return _item_counts(self._items)

    # -- maintenance -------------------------------------------------------------

    def _count(self, code: int, t: Any) -> int:
        """How many times the event ``(code, t)`` is in the state."""
        if code == 2:
            return bisect_right(self._items, t) - bisect_left(self._items, t)
        return (self.opens if code == 0 else self.closes).get(t, 0)

    def _admit(self, t: Any) -> None:
        """Before ``t`` is added: a packed state that cannot hold it is unpacked."""
        if self._packed and not _fits(t):
            self._unpack()

    def _unpack(self) -> None:
        """The sorted lists as Python lists (before a timestamp that is not an int64)."""
        self._los, self._his, self._items = list(self._los), list(self._his), list(self._items)
        self._clo, self._chi, self._csz = list(self._clo), list(self._chi), list(self._csz)
        self._packed = False

    def _refresh_around(self, t: Any) -> None:
        """Re-derive the interval of the largest lower bound at or before ``t``: the
        only one a close or an insert at ``t`` can change (an earlier open's next
        lower bound is at or before ``t``, so ``t`` cannot close it or lie in it)."""
        j = bisect_right(self._los, t) - 1
        if j >= 0:
            self._refresh(j)

    def _refresh(self, j: int) -> None:
        """Re-derive whether the interval of the ``j``-th lower bound is closed, and how."""
        los, his = self._los, self._his
        lo = los[j]
        k = bisect_left(his, lo)  # first close at or after lo (open < close at equal ts)
        if k == len(his) or (j + 1 < len(los) and not his[k] < los[j + 1]):
            self._set_closed(lo, None)
            return
        hi = his[k]
        items = self._items
        self._set_closed(lo, (hi, bisect_left(items, hi) - bisect_left(items, lo)))

    def _set_closed(self, lo: Any, value: tuple[Any, int] | None) -> None:
        """Make ``(hi, size)`` (None: not closed) the closed interval at ``lo``."""
        clo = self._clo
        c = bisect_left(clo, lo)
        present = c < len(clo) and not lo < clo[c]
        if value is None:
            if present:
                self._total -= self._csz[c]
                del clo[c], self._chi[c], self._csz[c]
            return
        hi, size = value
        if present:
            self._total += size - self._csz[c]
            self._chi[c] = hi
            self._csz[c] = size
        else:
            clo.insert(c, lo)
            self._chi.insert(c, hi)
            self._csz.insert(c, size)
            self._total += size

    def _rebuild(self, inserts: dict[Any, int]) -> None:
        """Derive every maintained structure from the three multisets (one sort each)."""
        self._clear_maintained()
        self._los = sorted(self.opens)
        self._his = sorted(self.closes)
        keys = sorted(inserts)
        if len(inserts) == sum(inserts.values()):
            self._items = keys
        else:
            self._items = [t for t in keys for _ in range(inserts[t])]
        self._derive_closed()

    def _derive_closed(self) -> None:
        """The closed intervals from the sorted lists, in one pass over the lower bounds."""
        los, his, items = self._los, self._his, self._items
        clo, chi, csz = [], [], []
        if his:
            n, m = len(los), len(his)
            for j, lo in enumerate(los):
                k = bisect_left(his, lo)
                if k == m:
                    break  # no close at or after lo, so none after any later open either
                hi = his[k]
                if j + 1 < n and not hi < los[j + 1]:
                    continue  # the next open comes first: this interval is never closed
                clo.append(lo)
                chi.append(hi)
                csz.append(bisect_left(items, hi) - bisect_left(items, lo))
        self._clo, self._chi, self._csz, self._total = clo, chi, csz, sum(csz)

    # -- pickling ----------------------------------------------------------------

    def __getstate__(self) -> tuple[Any, ...]:
        """A compact form: the sorted lists (counts only where an event repeats) and
        the closed intervals, so that loading sorts nothing and recounts nothing
        (packed: as arrays, a byte copy each way)."""
        lo_rep = self._lo_rep if self._opens is None else _repeats(self._opens, self._los)
        hi_rep = self._hi_rep if self._closes is None else _repeats(self._closes, self._his)
        if self._packed:
            n = len(self._items)
            return (_PICKLE_V2, _to_bytes(self._los), lo_rep, _to_bytes(self._his), hi_rep,
                    _to_bytes(self._items), _to_bytes(self._clo), _to_bytes(self._chi),
                    _to_bytes(self._csz, (0, n)))  # fmt: skip
        return (_PICKLE_V1, self._los, lo_rep, self._his, hi_rep, self._items, self._clo,
                self._chi, self._csz)  # fmt: skip

    def __setstate__(self, state: Any) -> None:
        if isinstance(state, dict):  # a pickle from before the maintained structures
            self.opens = dict(state["opens"])
            self.closes = dict(state["closes"])
            self._rebuild(state["inserts"])
            return
        if not (isinstance(state, tuple) and state and state[0] in (_PICKLE_V1, _PICKLE_V2)):
            raise ValueError(f"IntervalSequence: unknown pickled form ({type(state).__name__})")
        tag, los, lo_rep, his, hi_rep, items, clo, chi, csz = state
        self._packed = tag == _PICKLE_V2
        if self._packed:
            los, his, items, clo, chi, csz = map(_from_bytes, (los, his, items, clo, chi, csz))
        self._los, self._his, self._items = los, his, items
        self._clo, self._chi, self._csz, self._total = clo, chi, csz, sum(csz)
        self._opens, self._lo_rep = None, lo_rep  # (made when first used)
        self._closes, self._hi_rep = None, hi_rep

    # -- readers -----------------------------------------------------------------

    def closed_intervals(self) -> list[tuple[Any, Any, int]]:
        """``(lo, hi, size)`` of every closed interval, ordered by ``lo``."""
        return list(zip(self._clo, self._chi, self._csz, strict=True))

    def closed_sizes(self) -> list[int]:
        """Sizes of the closed intervals ordered by lower bound ([] when none)."""
        return list(self._csz)

    def average_closed_size(self) -> float | None:
        """Mean size of the closed intervals, or None when no interval is closed."""
        n = len(self._csz)
        return self._total / n if n else None

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
        """Apply a batch of signed events at once.

        Codes: 0 open, 1 close, 2 insert (or the names). Same contract as
        :meth:`LibraryState.batch_apply`: the batch is netted per event first;
        an event whose count would go negative raises ValueError before the
        state changes. An empty state is built in one pass (numpy-counted and
        sorted for numeric batches); a batch that is small next to the state
        is applied event by event to the maintained structures, a large one
        to the multisets, which are then sorted again.

        >>> IntervalSequence.batch_apply([0, 2, 1], [10, 11, 12]).closed_sizes()
        [1]
        """
        target = cls(*ctor_args) if state is None else state
        idx = code_indices(cls, codes)
        empty = not (target.opens or target.closes or target._items)
        if empty and _build_numpy(target, idx, args, signs):
            return target
        net = net_counts(idx, args, signs)
        size = len(target.opens) + len(target.closes) + len(target._items)
        if empty or len(net) * _REBUILD_RATIO > size:
            opens, closes, inserts = dict(target.opens), dict(target.closes), target.inserts
            tables = {0: ("open", opens), 1: ("close", closes), 2: ("insert", inserts)}
            apply_net_counts(cls.__name__, tables, net)  # validates before changing
            target.opens, target.closes = opens, closes
            target._rebuild(inserts)
            return target
        for (code, value), k in net.items():  # validate first: the state stays unchanged
            name = cls.action_codes[code]
            have = target._count(code, value)
            if have + k < 0:  # raises the error of the multiset path
                apply_net_counts(cls.__name__, {code: (name, {value: have})}, {(code, value): k})
        acts = (target.open, target.close, target.insert)
        for (code, value), k in net.items():  # one entry per event: any order
            act = acts[code]
            for _ in range(abs(k)):
                act.apply(1 if k > 0 else -1, value)
        return target


#: First element of the pickled form (a tuple); old pickles are the three dicts.
_PICKLE_V1 = "iseq1"
#: The packed form: the same tuple, its six sorted lists as :func:`_to_bytes`.
_PICKLE_V2 = "iseq2"
_INT64 = (-(2**63), 2**63 - 1)


def _fits(t: Any) -> bool:
    """Whether a packed state can hold ``t`` (an int, not a bool, of 64 bits)."""
    return type(t) is int and _INT64[0] <= t <= _INT64[1]


#: the narrowest little-endian int type a packed list is pickled as
_WIDTHS = (("<i1", 2**7), ("<i2", 2**15), ("<i4", 2**31), ("<i8", 2**63))


def _to_bytes(values: array, bounds: tuple[int, int] | None = None) -> tuple[str, bytes]:
    """A packed list as (numpy type, bytes) of the narrowest int type that holds its
    ``bounds`` (default: its first and last value: the list is sorted). A short list,
    or one that needs 64 bits, is its bytes as they are (no numpy call)."""
    lo, hi = bounds if bounds is not None else (values[0], values[-1]) if values else (0, 0)
    dtype = next(t for t, lim in _WIDTHS if -lim <= lo and hi < lim)
    if _LITTLE and (dtype == "<i8" or len(values) < _NARROW_MIN):
        return "<i8", values.tobytes()
    import numpy as np

    return dtype, np.frombuffer(values, "=i8").astype(dtype).tobytes()


def _from_bytes(packed: tuple[str, bytes]) -> array:
    """The ``array("q")`` of :func:`_to_bytes`'s form."""
    dtype, data = packed
    if _LITTLE and dtype == "<i8":
        out = array("q")
        out.frombytes(data)
        return out
    import numpy as np

    return _packed(np.frombuffer(data, dtype))


_LITTLE = sys.byteorder == "little"
_NARROW_MIN = 32  # (a shorter list is not narrowed: the numpy call costs more than it saves)


def _packed(values: Any) -> array:
    """An int64 numpy array as ``array("q")`` (one byte copy)."""
    out = array("q")
    out.frombytes(values.astype("=i8", copy=False).tobytes())
    return out


#: batch_apply on a state re-sorts when the batch has more than 1/8 of its events.
_REBUILD_RATIO = 8


def _repeats(counts: dict[Any, int], keys: list[Any]) -> list[int] | None:
    """The counts in the order of ``keys``, or None when every event occurs once."""
    if len(counts) == len(keys) and sum(counts.values()) == len(keys):  # (counts are >= 1)
        return None
    return [counts[t] for t in keys]


def _counts(keys: list[Any], repeats: list[int] | None) -> dict[Any, int]:
    return dict.fromkeys(keys, 1) if repeats is None else dict(zip(keys, repeats, strict=True))


def _item_counts(items: list[Any]) -> dict[Any, int]:
    """The multiset of a sorted list with repetitions (no sorting, one pass)."""
    out = dict.fromkeys(items, 1)
    if len(out) < len(items):
        out = dict(Counter(items))
    return out


def _build_numpy(
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
                name = IntervalSequence.action_codes[code]
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
    to_seq = _packed if pack else (lambda v: v.tolist())
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
