"""Signed replay: run an algorithm's reference code over signed rows on restored states.

The per-scope-key step of incremental maintenance (:mod:`looplift.incremental`):

- *state mode* — for algorithms whose states all live in the scope of one top-level
  ``group_by`` and are fed by one loop over its rows (the thesis' shape, e.g. the
  clickstream), and for aggregates whose states are fed by loops over all rows (one
  global key): the reference function runs over the delta rows of one key only.
  Every action must run per row (an action outside the loops would run again on
  each replay) and rows must be yielded after the loop, not inside it.
  Inside :func:`replay` (a :class:`ReplayContext`), every ``State`` the code constructs
  is the stored one (by construction order within the key), iterating the
  :class:`SignedRows` sets the current row's sign, and an action under sign −1 runs its
  undo. The code
  after the loop then reads the updated states: the key's new output rows. Work is
  proportional to the delta, whatever the key's history.
- *rows mode* — everything else (loop-carried locals, ordered loops, nested
  ``group_by``, code over all rows next to a ``group_by``): the key's live rows are
  kept and the reference recomputes the key's output from them. A map over rows (a
  loop over all rows yielding, no state) is keyed by the whole row.

Which mode and key an algorithm gets is decided by the compiler
(:mod:`looplift.compiler.incremental_shape`) and read here from the compiled
:class:`~looplift.registry.Algorithm` (:func:`shape_of`).
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

    def __init__(self, states: list[Any], batch: bool = False, actions: bool = True) -> None:
        self.stored = list(states)
        self.built: list[Any] = []
        self.restored: set[int] = set()
        self.sign = 1
        self._prev: ReplayContext | None = None
        # batch mode (a bulk load: fresh states, every sign +1): actions on states with a
        # vectorized ``batch_apply`` are collected and applied at once when the loop over
        # the rows ends, or before any reader of the state runs
        self.batch = batch
        self.pending: dict[int, tuple[Any, list[str], list[Any]]] = {}
        # actions=False (a natively built key read by its code): every action is skipped
        self.actions = actions

    def defer(self, state: Any, name: str, args: tuple) -> bool:
        """Collect an action for :meth:`flush` (True), or say it must run now (False)."""
        cls = type(state)
        vec = _VECTORIZED.get(cls)
        if vec is None:
            vec = _VECTORIZED[cls] = _vectorized(cls)
            if vec:
                _flush_before_readers(cls)
        if not vec or self.sign < 0:
            return False
        entry = self.pending.get(id(state))
        if entry is None:
            entry = self.pending[id(state)] = (state, [], [])
        entry[1].append(name)
        entry[2].append(args[0] if len(args) == 1 else (args or None))
        return True

    def flush(self, state: Any = None) -> None:
        """Apply the collected actions (of ``state``, or of every state)."""
        if not self.pending:
            return
        keys = [id(state)] if state is not None else list(self.pending)
        for k in keys:
            entry = self.pending.pop(k, None)
            if entry is not None:
                obj, names, args = entry
                type(obj).batch_apply(names, args, None, state=obj)

    def __enter__(self) -> ReplayContext:
        _install()
        self._prev = active()
        _LOCAL.replay = self
        return self

    def __exit__(self, *exc: Any) -> None:
        _LOCAL.replay = self._prev
        self.pending.clear()

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
                ctx.flush()


def replay(fn: Any, rows: list[tuple], signs: list[int], states: list[Any], args: list[Any],
           rows_index: int, batch: bool = False, actions: bool = True) -> tuple[list[Any], Any]:  # fmt: skip
    """Run ``fn`` (a ``@dataflow``) over signed ``rows`` with ``states`` restored; returns
    (the states after, in construction order; the function's result). ``batch``: fresh
    states and inserts only, library states' actions applied in batches (a bulk load).
    ``actions=False``: no action runs (the states are complete: the code only reads them)."""
    row_cls = _row_class_at(fn, rows_index)
    if row_cls is not None:  # RowStream[Click]: the rows as Click tuples (c.user_id)
        from .rowtypes import as_row

        rows = [as_row(row_cls, r) for r in rows]
    with ReplayContext(states, batch=batch and not states, actions=actions) as ctx:
        call = list(args)
        call.insert(rows_index, SignedRows(rows, signs))
        result = fn(*call)
        ctx.flush()
    return ctx.built, result


def _row_class_at(fn: Any, index: int) -> Any:
    """The row class of ``fn``'s named RowStream parameter at ``index``, else None."""
    from .streams import stream_kind

    sig = getattr(fn, "signature", None)
    params = list(sig.parameters.values()) if sig is not None else []
    if index >= len(params):
        return None
    kind = stream_kind(params[index].annotation, fn.fn)
    return kind if isinstance(kind, type) else None


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
            return (
                plain_new(cls) if plain_new is object.__new__ else plain_new(cls, *args, **kwargs)
            )
        _keep_restored_contents(cls)
        restored = ctx.new_state(cls)
        if restored is not None:
            return restored
        obj = object.__new__(cls)
        ctx.created(obj)
        return obj

    def call(self: Any, *args: Any) -> None:
        ctx = active()
        if ctx is not None and not ctx.actions:
            return
        if ctx is not None and ctx.sign < 0:  # a deleted row: take its action back
            self.undo(*args)
            return
        if ctx is not None and ctx.batch and ctx.defer(self.state, self.action.name, args):
            return
        plain_call(self, *args)

    State.__new__ = staticmethod(new)  # type: ignore[method-assign,assignment]
    BoundAction.__call__ = call  # type: ignore[method-assign]
    _INSTALLED = True


_VECTORIZED: dict[type, bool] = {}


def _vectorized(cls: type) -> bool:
    """A library state whose ``batch_apply`` is its own (not one action at a time)."""
    from looplift.states._base import LibraryState

    return (
        isinstance(cls, type)
        and issubclass(cls, LibraryState)
        and getattr(cls.batch_apply, "__func__", None) is not LibraryState.batch_apply.__func__
    )


_FLUSHING = "_looplift_flush_readers"


def _flush_before_readers(cls: type) -> None:
    """Wrap ``cls``'s readers (once) so that a reader called in batch mode first applies
    the actions collected for its state."""
    for name, fn in cls.readers().items():
        if getattr(cls.__dict__.get(name), _FLUSHING, False):
            continue

        @functools.wraps(fn)
        def wrapped(self: Any, *args: Any, _fn: Any = fn, **kw: Any) -> Any:
            ctx = active()
            if ctx is not None and ctx.pending:
                ctx.flush(self)
            return _fn(self, *args, **kw)

        setattr(wrapped, _FLUSHING, True)
        setattr(cls, name, wrapped)


def _keep_restored_contents(cls: type) -> None:
    """Wrap ``cls.__init__`` (once) so that a restored state keeps its contents.

    Whether it is wrapped is marked on the wrapper, not the class: a class pickled by
    value (a script's, shipped to a worker) may arrive with the class's attributes but
    its plain ``__init__``."""
    if getattr(cls.__dict__.get("__init__"), _WRAPPED_INIT, False):
        return
    init = cls.__init__

    @functools.wraps(init)
    def wrapped(self: Any, *args: Any, **kw: Any) -> None:
        ctx = active()
        if ctx is not None and ctx.is_restored(self):
            return
        init(self, *args, **kw)

    setattr(wrapped, _WRAPPED_INIT, True)
    cls.__init__ = wrapped  # type: ignore[misc]


# -- which mode an algorithm allows ---------------------------------------------------------------


@dataclass(frozen=True)
class Shape:
    kind: str  # table | aggregate
    key: tuple[int, ...]  # fields of the top-level group_by key; () = one global key
    mode: str  # "state" | "rows"
    rows_index: int  # position of the RowStream parameter
    why: str  # why rows mode (for explain)


def shape_of(dataflow: Any) -> Shape:
    """The scope key incremental maintenance partitions by, and the mode it can use, as
    the compiler recorded it in the algorithm (:mod:`looplift.compiler.incremental_shape`;
    a build's manifest carries it)."""
    alg = dataflow.algorithm() if hasattr(dataflow, "algorithm") else dataflow
    d = alg.shape
    if d is None:
        raise TypeError(f"`{alg.name}` was compiled without its incremental shape; rebuild it")
    if d.get("error"):
        raise TypeError(d["error"])
    return Shape(d["kind"], tuple(d["key"]), d["mode"], d["rows_index"], d["why"])


# -- one key's step -----------------------------------------------------------------------------


def outputs(kind: str, result: Any) -> list[tuple]:
    if kind == "aggregate":
        return [(result,)]
    return list(result)
