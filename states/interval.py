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

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from typing import Any, ClassVar, Self

from looplift import action

from ._base import (
    LibraryState,
    apply_net_counts,
    code_indices,
    count_out,
    net_counts,
)
from ._interval_bulk import build_numpy, closed_intervals, grouped_average_closed_size
from ._interval_pack import (
    PICKLE_V1,
    PICKLE_V2,
    counts_from,
    fits,
    from_bytes,
    item_counts,
    repeats_in_order,
    to_bytes,
)

__all__ = ["IntervalSequence", "closed_intervals", "grouped_average_closed_size"]


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
            self._opens = counts_from(self._los, self._lo_rep)
        return self._opens

    @opens.setter
    def opens(self, value: dict[Any, int]) -> None:
        self._opens, self._lo_rep = value, None

    @property
    def closes(self) -> dict[Any, int]:
        """The multiset of close timestamps (timestamp -> count)."""
        if self._closes is None:
            self._closes = counts_from(self._his, self._hi_rep)
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
        return item_counts(self._items)

    # -- maintenance -------------------------------------------------------------

    def _count(self, code: int, t: Any) -> int:
        """How many times the event ``(code, t)`` is in the state."""
        if code == 2:
            return bisect_right(self._items, t) - bisect_left(self._items, t)
        return (self.opens if code == 0 else self.closes).get(t, 0)

    def _admit(self, t: Any) -> None:
        """Before ``t`` is added: a packed state that cannot hold it is unpacked."""
        if self._packed and not fits(t):
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
        lo_rep = self._lo_rep if self._opens is None else repeats_in_order(self._opens, self._los)
        hi_rep = self._hi_rep if self._closes is None else repeats_in_order(self._closes, self._his)
        if self._packed:
            n = len(self._items)
            return (PICKLE_V2, to_bytes(self._los), lo_rep, to_bytes(self._his), hi_rep,
                    to_bytes(self._items), to_bytes(self._clo), to_bytes(self._chi),
                    to_bytes(self._csz, (0, n)))  # fmt: skip
        return (PICKLE_V1, self._los, lo_rep, self._his, hi_rep, self._items, self._clo,
                self._chi, self._csz)  # fmt: skip

    def __setstate__(self, state: Any) -> None:
        if isinstance(state, dict):  # a pickle from before the maintained structures
            self.opens = dict(state["opens"])
            self.closes = dict(state["closes"])
            self._rebuild(state["inserts"])
            return
        if not (isinstance(state, tuple) and state and state[0] in (PICKLE_V1, PICKLE_V2)):
            raise ValueError(f"IntervalSequence: unknown pickled form ({type(state).__name__})")
        tag, los, lo_rep, his, hi_rep, items, clo, chi, csz = state
        self._packed = tag == PICKLE_V2
        if self._packed:
            los, his, items, clo, chi, csz = map(from_bytes, (los, his, items, clo, chi, csz))
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
        if empty and build_numpy(target, idx, args, signs):
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


#: batch_apply on a state re-sorts when the batch has more than 1/8 of its events.
_REBUILD_RATIO = 8
