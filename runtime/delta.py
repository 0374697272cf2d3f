"""Signed replay: run an algorithm's reference code over signed rows on restored states.

The per-scope-key step of incremental maintenance (:mod:`looplift.incremental`):

- *state mode* — for algorithms whose states all live in the scope of one top-level
  ``group_by`` and are fed by one loop over its rows (the thesis' shape, e.g. the
  clickstream), and for aggregates whose states are fed by loops over all rows (one
  global key): the reference function runs over the delta rows of one key only.
  Every action must run per row (an action outside the loops would run again on
  each replay) and rows must be yielded after the loop, not inside it.
  Inside :func:`replay`, every ``State`` the code constructs is the stored one (by
  construction order within the key), iterating a signed :class:`~looplift.Rows`
  sets the current row's sign, and an action under sign −1 runs its undo. The code
  after the loop then reads the updated states: the key's new output rows. Work is
  proportional to the delta, whatever the key's history.
- *rows mode* — everything else (loop-carried locals, ordered loops, nested
  ``group_by``, code over all rows next to a ``group_by``): the key's live rows are
  kept and the reference recomputes the key's output from them. A map over rows (a
  loop over all rows yielding, no state) is keyed by the whole row.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .state import BoundAction, State
from .streams import Rows

__all__ = ["ReplayContext", "Shape", "SignedRows", "replay", "shape_of"]

_LOCAL = threading.local()


class ReplayContext:
    """One replay: the stored states (by construction order), the states the code built,
    and the sign of the row being iterated.

    While a context is active (``with ctx:``, on this thread), constructing a ``State``
    gives the next stored state of its class (its contents kept) and an action called
    under sign −1 runs its undo. The reference classes (:mod:`looplift.state`,
    :mod:`looplift.streams`) know nothing of this: :func:`_install` wraps ``State`` and
    ``BoundAction`` once, and the wrappers defer to the active context, if any.
    """

    def __init__(self, states: list[Any]) -> None:
        self.stored = list(states)
        self.built: list[Any] = []
        self.restored: set[int] = set()
        self.sign = 1
        self._prev: ReplayContext | None = None

    def __enter__(self) -> ReplayContext:
        _install()
        self._prev = active()
        _LOCAL.replay = self
        return self

    def __exit__(self, *exc: Any) -> None:
        _LOCAL.replay = self._prev

    def new_state(self, cls: type) -> Any:
        """The next stored state if it is of class ``cls`` (restored), else None."""
        i = len(self.built)
        if i < len(self.stored) and type(self.stored[i]) is cls:
            obj = self.stored[i]
            self.restored.add(id(obj))
            self.built.append(obj)
            return obj
        return None

    def created(self, obj: Any) -> None:
        if id(obj) not in self.restored:
            self.built.append(obj)

    def is_restored(self, obj: Any) -> bool:
        return id(obj) in self.restored


def active() -> ReplayContext | None:
    return getattr(_LOCAL, "replay", None)


class SignedRows(Rows):
    """Rows with a sign each: iterating sets the active replay's sign row by row."""

    __slots__ = ("_signs",)

    def __init__(self, rows: list[tuple], signs: list[int]) -> None:
        super().__init__(rows)
        self._signs = list(signs)

    def _take(self, rows: list[tuple[Any, ...]], idx: list[int]) -> Rows:
        return SignedRows(rows, [self._signs[j] for j in idx])

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        return self._signed()

    def _signed(self) -> Iterator[tuple[Any, ...]]:
        ctx = active()
        before = ctx.sign if ctx is not None else 1
        try:
            for r, s in zip(self._rows, self._signs, strict=True):
                if ctx is not None:
                    ctx.sign = s
                yield r
        finally:
            if ctx is not None:
                ctx.sign = before


def replay(fn: Any, rows: list[tuple], signs: list[int], states: list[Any], args: list[Any],
           rows_index: int) -> tuple[list[Any], Any]:  # fmt: skip
    """Run ``fn`` (a ``@dataflow``) over signed ``rows`` with ``states`` restored; returns
    (the states after, in construction order; the function's result)."""
    with ReplayContext(states) as ctx:
        call = list(args)
        call.insert(rows_index, SignedRows(rows, signs))
        result = fn(*call)
    return ctx.built, result


# -- the wrappers a replay needs around the reference classes ---------------------------------

_INSTALLED = False
_WRAPPED_INIT = "_looplift_replay_init"


def _install() -> None:
    """Wrap ``State.__new__`` and ``BoundAction.__call__`` (once): under an active replay,
    states are restored and actions follow the row's sign; otherwise they are unchanged."""
    global _INSTALLED
    if _INSTALLED:
        return
    plain_new = State.__new__
    plain_call = BoundAction.__call__

    def new(cls: type, *args: Any, **kwargs: Any) -> Any:
        ctx = active()
        if ctx is None:
            return plain_new(cls) if plain_new is object.__new__ else plain_new(cls, *args, **kwargs)
        _keep_restored_contents(cls)
        restored = ctx.new_state(cls)
        if restored is not None:
            return restored
        obj = object.__new__(cls)
        ctx.created(obj)
        return obj

    def call(self: Any, *args: Any) -> None:
        ctx = active()
        if ctx is not None and ctx.sign < 0:  # a deleted row: take its action back
            self.undo(*args)
            return
        plain_call(self, *args)

    State.__new__ = staticmethod(new)  # type: ignore[method-assign,assignment]
    BoundAction.__call__ = call  # type: ignore[method-assign]
    _INSTALLED = True


def _keep_restored_contents(cls: type) -> None:
    """Wrap ``cls.__init__`` (once) so that a restored state keeps its contents."""
    if cls.__dict__.get(_WRAPPED_INIT):
        return
    init = cls.__init__

    @functools.wraps(init)
    def wrapped(self: Any, *args: Any, **kw: Any) -> None:
        ctx = active()
        if ctx is not None and ctx.is_restored(self):
            return
        init(self, *args, **kw)

    cls.__init__ = wrapped  # type: ignore[misc]
    setattr(cls, _WRAPPED_INIT, True)


# -- which mode an algorithm allows ---------------------------------------------------------------


@dataclass(frozen=True)
class Shape:
    kind: str  # table | aggregate
    key: tuple[int, ...]  # fields of the top-level group_by key; () = one global key
    mode: str  # "state" | "rows"
    rows_index: int  # position of the RowStream parameter
    why: str  # why rows mode (for explain)


def shape_of(dataflow: Any) -> Shape:
    """The scope key incremental maintenance partitions by, and the mode it can use."""
    compiled = dataflow.compile()
    prog = compiled.program
    kind = compiled.kind
    if kind == "scalar":
        raise TypeError(f"`{dataflow.name}` is a scalar algorithm: nothing to maintain")
    a = prog.analysis
    params = [p for p in prog.fn.params]
    rows_index = next(i for i, p in enumerate(params) if p.kind == "rows")
    if sum(1 for p in params if p.kind == "rows") != 1:
        raise TypeError(f"`{dataflow.name}` takes several RowStreams")
    tops = [lp for lp in a.loops.values() if lp.parent is None]
    yields = [y.site for y in prog.kinds.yields]
    top = tops[0] if len(tops) == 1 else None
    ops = prog.operators
    flat = all(lp.parent is None and lp.kind == "rows" and not lp.ordered
               for lp in a.loops.values())  # fmt: skip
    carry = any(o.ordered or o.name.endswith(".carry") or "carry" in o.classes for o in ops)
    # an action outside the loops over rows (``s.add(10)`` before the loop) would run
    # again on every replay: only per-row actions can be replayed
    per_row = all(any(a.loops[lp].kind == "rows" for lp in site.loops if lp in a.loops)
                  for o in ops for site in getattr(o, "actions", ()))  # fmt: skip
    if kind == "aggregate" and a.loops and flat and ops and not carry and per_row \
            and all(o.scope == () for o in ops):  # fmt: skip
        # unordered loops over all rows feeding states, read after the loops: the
        # states are restored and the delta replayed (one global key)
        return Shape(kind, (), "state", rows_index, "")
    if kind == "table" and top is not None and top.kind == "rows" and not top.ordered \
            and flat and not ops and yields:  # fmt: skip
        # a map over rows (each row's outputs depend on it alone): one key per row
        nfields = len(dataflow.algorithm().fields)
        return Shape(kind, tuple(range(nfields)), "rows", rows_index, "a map over rows")
    if kind != "table" or top is None or top.kind != "group" or top.ordered:
        return Shape(kind, (), "rows", rows_index, "no single top-level group_by: one global key")
    if not yields or any(not s.loops or s.loops[0] != top.name for s in yields):
        return Shape(kind, (), "rows", rows_index, "rows are yielded outside the group_by")
    below = [lp for lp in a.loops.values() if lp.parent == top.name]
    why = ""
    if not below or any(lp.kind != "rows" or lp.ordered for lp in below):
        why = "nested or ordered loops inside the group_by"
    elif any(o.ordered or o.name.endswith(".carry") or "carry" in o.classes for o in ops):
        why = "loop-carried locals (only State objects can be restored)"
    elif any(tuple(s.loops) != (top.name,) for s in yields):
        why = "rows are yielded inside the loop over the group's rows"
    elif not per_row:
        why = "an action outside the loop over the group's rows"
    elif any(o.scope != (top.name,) for o in ops):
        why = "states outside the group_by's scope"
    elif any(lp.kind == "rows" and lp.parent is None for lp in a.loops.values()):
        why = "a loop over all rows"
    return Shape(kind, tuple(top.key), "rows" if why else "state", rows_index, why)


# -- one key's step -----------------------------------------------------------------------------


def outputs(kind: str, result: Any) -> list[tuple]:
    if kind == "aggregate":
        return [(result,)]
    return list(result)
