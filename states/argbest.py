"""ArgBest: the value that goes with the best key, the "keep the newest row" shape.

The compiler turns a conditional update of loop-carried locals in an
unordered loop::

    best_ts, best = None, None
    for k, ts, v in rows:
        if best_ts is None or ts > best_ts:
            best_ts, best = ts, v

into one ``ArgBest`` per carried name (here ``ArgBest(None, None, "gt")`` fed
``offer(ts, row, ts)`` and ``offer(ts, row, v)``), so the loop no longer depends
on row order. ``mode`` is the comparison of the new key against the best so far
(``gt``, ``ge``, ``lt``, ``le``). Ties between rows with the best key go as
CPython's loop over a stream goes (rows in canonical, ascending order): ``gt`` /
``lt`` keep the first row (the smallest), ``ge`` / ``le`` the last (the largest).
The starting value is kept unless some row beats the starting key.

Multiset-backed and reversible, like :class:`~looplift.states.Max`.

>>> s = ArgBest(None, None, "gt")
>>> s.offer(3, (1, 3), "a"); s.offer(7, (2, 7), "b"); s.offer(7, (0, 7), "c"); s.get()
'c'
>>> s.offer.undo(7, (0, 7), "c"); s.get()
'b'
>>> t = ArgBest("none", 5, "gt"); t.offer(4, (4,), "x"); t.get()
'none'
"""

from __future__ import annotations

from typing import Any, ClassVar

from looplift import action, merge

from ._base import LibraryState, count_in, count_out, merge_counts

__all__ = ["ArgBest"]

_MODES = ("gt", "ge", "lt", "le")


def _key(v: Any) -> Any:
    """None first, tuples (row structs arrive as dicts) field by field."""
    if v is None:
        return (0, 0)
    if isinstance(v, dict):
        v = tuple(v.values())
    if isinstance(v, tuple):
        return (1, tuple(_key(x) for x in v))
    return (1, v)


def _hashable(v: Any) -> Any:
    return tuple(_hashable(x) for x in v.values()) if isinstance(v, dict) else v


class ArgBest(LibraryState):
    """The value offered with the best key (see the module docstring).

    Actions: ``offer(key, row, value)`` (undo: ``offer.undo(...)``). Reader:
    ``get()`` — the value of the best offer, or ``init`` when no offer beats
    ``init_key`` (or there is none).
    """

    action_codes: ClassVar[tuple[str, ...]] = ("offer",)

    def __init__(self, init: Any = None, init_key: Any = None, mode: str = "gt") -> None:
        if mode not in _MODES:
            raise ValueError(f"ArgBest mode must be one of {_MODES}, not {mode!r}")
        self.init, self.init_key, self.mode = init, init_key, mode
        self.counts: dict[Any, int] = {}

    @action
    def offer(self, key: Any, row: Any, value: Any) -> None:
        count_in(self.counts, (key, _hashable(row), _hashable(value)))

    @offer.undo
    def offer(self, key: Any, row: Any, value: Any) -> None:
        item = (key, _hashable(row), _hashable(value))
        count_out(self.counts, item, f"ArgBest.offer.undo{item!r}")

    @merge
    def merge(self, other: ArgBest) -> None:
        """Add ``other``'s offers to this state's (both built alike)."""
        if (other.init, other.init_key, other.mode) != (self.init, self.init_key, self.mode):
            raise ValueError("ArgBest.merge: the states were built with different arguments")
        merge_counts(self.counts, other.counts)

    def get(self) -> Any:
        """The value of the best offer, else the starting value."""
        if not self.counts:
            return self.init
        best_key = (max if self.mode in ("gt", "ge") else min)(
            (k for k, _, _ in self.counts), key=_key
        )
        tied = [(r, v) for k, r, v in self.counts if _key(k) == _key(best_key)]
        pick = (min if self.mode in ("gt", "lt") else max)(tied, key=lambda rv: _key(rv[0]))
        if self.init_key is not None:
            beats = {
                "gt": _key(best_key) > _key(self.init_key),
                "ge": _key(best_key) >= _key(self.init_key),
                "lt": _key(best_key) < _key(self.init_key),
                "le": _key(best_key) <= _key(self.init_key),
            }[self.mode]
            if not beats:
                return self.init
        return pick[1]
