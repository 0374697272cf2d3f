"""Shared machinery of the library states: action codes and batched application.

A batch is three parallel sequences — action codes, arguments and delta
signs — the shape the Arrow reducer of SPEC §7 receives
(``apply(action code, arg, sign)``). :meth:`LibraryState.batch_apply` applies a
whole batch at once. Batches are multisets of signed actions: the result
equals applying the actions one at a time in any order in which every undo
finds the action it takes back (for instance all ``+1`` rows first).
"""

from __future__ import annotations

import inspect
from collections import Counter
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any, ClassVar, Self

from looplift import State

__all__ = [
    "LibraryState",
    "apply_net_counts",
    "batch_counts",
    "code_indices",
    "count_in",
    "count_out",
    "expand",
    "merge_counts",
    "net_counts",
    "sorted_items",
]


class LibraryState(State):
    """Base of the library states: adds action codes and :meth:`batch_apply`.

    ``action_codes`` lists the action names in code order: code ``i`` in a
    batch means action ``action_codes[i]``. Subclasses with a vectorized path
    override :meth:`batch_apply`; the default applies the batch one action at
    a time (all ``+1`` rows first, then the ``-1`` rows).
    """

    action_codes: ClassVar[tuple[str, ...]] = ()
    #: ``batch_apply`` of a key's int-argument actions on a fresh state gives the same
    #: state (and pickle) whatever their order: a view's bulk load may then build it from
    #: natively collected actions, one call per key (:mod:`looplift.bulkload`)
    native_build: ClassVar[bool] = False

    @classmethod
    def codes(cls) -> tuple[str, ...]:
        """The action names in code order (``action_codes`` or definition order)."""
        return cls.action_codes or tuple(cls.actions())

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
        """Apply a batch of signed actions and return the state.

        Args:
            codes: per row, the action code (index into :meth:`codes`) or name.
            args: per row, the action's argument (ignored by actions without
                parameters; a tuple for actions with several parameters).
            signs: per row, +1 (apply), -1 (undo) or 0 (skip); all +1 if omitted.
            state: the state to update; a fresh ``cls(*ctor_args)`` if omitted.
            ctor_args: constructor arguments of the fresh state.

        Returns:
            The updated state (``state`` itself when given).
        """
        target = cls(*ctor_args) if state is None else state
        names = _names(cls, codes)
        rows = list(zip(names, args, _signs(signs, len(names)), strict=True))
        arity = {name: _arity(act.fn) for name, act in cls.actions().items()}
        for positive in (True, False):
            for name, arg, sign in rows:
                if sign == 0 or (sign > 0) != positive:
                    continue
                bound = getattr(target, name)
                call_args = () if arity[name] == 0 else (arg if arity[name] > 1 else (arg,))
                bound.apply(sign, *call_args)
        return target


def _arity(fn: Any) -> int:
    return len(inspect.signature(fn).parameters) - 1


def _signs(signs: Sequence[int] | None, n: int) -> list[int]:
    if signs is None:
        return [1] * n
    return [int(s) for s in signs]


def _names(cls: type[LibraryState], codes: Sequence[int | str]) -> list[str]:
    table = cls.codes()
    known = set(table)
    out = []
    for code in codes:
        if isinstance(code, str):
            if code not in known:
                raise ValueError(f"{cls.__name__} has no action {code!r} (actions: {table})")
            out.append(code)
        else:
            i = int(code)
            if not 0 <= i < len(table):
                raise ValueError(f"{cls.__name__}: action code {i} out of range {table}")
            out.append(table[i])
    return out


# -- counter-backed states ------------------------------------------------------


def code_indices(cls: type[LibraryState], codes: Sequence[int | str]) -> Sequence[int]:
    """``codes`` as integer action codes (names mapped), range-checked.

    An integer numpy array is returned as is (checked with one vectorized
    comparison); anything else becomes a list of ints.
    """
    import numpy as np

    table = cls.codes()
    if isinstance(codes, np.ndarray) and codes.dtype.kind in "iu":
        if codes.size and (codes.min() < 0 or codes.max() >= len(table)):
            raise ValueError(f"{cls.__name__}: action code out of range {table}")
        return codes
    index = {name: i for i, name in enumerate(table)}
    return [index[name] for name in _names(cls, codes)]


def batch_counts(
    cls: type[LibraryState],
    state: LibraryState,
    tables: Mapping[int, tuple[str, dict[Any, int]]],
    codes: Sequence[int | str],
    args: Sequence[Any],
    signs: Sequence[int] | None,
) -> None:
    """The vectorized ``batch_apply`` of a counter-backed state."""
    net = net_counts(code_indices(cls, codes), args, signs)
    apply_net_counts(cls.__name__, tables, net)


def count_in(counts: dict[Any, int], key: Hashable) -> None:
    """Add one occurrence of ``key`` to a value->count dict."""
    counts[key] = counts.get(key, 0) + 1


def count_out(counts: dict[Any, int], key: Hashable, what: str) -> None:
    """Remove one occurrence of ``key``; ValueError naming ``what`` if absent."""
    c = counts.get(key, 0)
    if c <= 0:
        raise ValueError(
            f"{what}: cannot undo {key!r}, it is not in the state "
            f"(never applied, or already undone)"
        )
    if c == 1:
        del counts[key]
    else:
        counts[key] = c - 1


def net_counts(
    codes: Sequence[int], args: Sequence[Any], signs: Sequence[int] | None
) -> dict[tuple[int, Any], int]:
    """Net signed count of every ``(code, arg)`` pair of a batch (zeros dropped).

    Numeric batches are counted with numpy (``np.unique`` + ``bincount``);
    anything else with a :class:`collections.Counter`.
    """
    n = len(codes)
    if len(args) != n or (signs is not None and len(signs) != n):
        raise ValueError(
            f"batch columns differ in length: {n} codes, {len(args)} args, "
            f"{len(signs) if signs is not None else n} signs"
        )
    if n == 0:
        return {}
    fast = _net_counts_numpy(codes, args, signs)
    if fast is not None:
        return fast
    out: Counter[tuple[int, Any]] = Counter()
    for code, arg, sign in zip(codes, args, _signs(signs, n), strict=True):
        if sign:
            out[(int(code), arg)] += 1 if sign > 0 else -1
    return {k: v for k, v in out.items() if v}


def _net_counts_numpy(
    codes: Sequence[int], args: Sequence[Any], signs: Sequence[int] | None
) -> dict[tuple[int, Any], int] | None:
    import numpy as np

    try:
        a = np.asarray(args)
        c = np.asarray(codes)
    except (TypeError, ValueError):
        return None
    if a.ndim != 1 or a.dtype.kind not in "iuf" or c.dtype.kind not in "iu":
        return None
    if a.dtype.kind == "f" and not isinstance(args, np.ndarray) and _has_int_arg(args):
        return None  # mixed ints and floats: keep Python's exact ints
    s = np.sign(np.asarray(signs, dtype=np.int64)) if signs is not None else None
    out: dict[tuple[int, Any], int] = {}
    for code in np.unique(c).tolist():
        mask = c == code
        values, inverse = np.unique(a[mask], return_inverse=True)
        weights = s[mask] if s is not None else None
        net = np.bincount(inverse.ravel(), weights=weights, minlength=len(values))
        for value, k in zip(values.tolist(), net.astype(np.int64).tolist(), strict=True):
            if k:
                out[(int(code), value)] = k
    return out


def _has_int_arg(args: Sequence[Any]) -> bool:
    return any(isinstance(x, int) and not isinstance(x, bool) for x in args)


def apply_net_counts(
    owner: str, tables: Mapping[int, tuple[str, dict[Any, int]]], net: Mapping[tuple[int, Any], int]
) -> None:
    """Add net counts to the value->count dicts of a counter-backed state.

    ``tables[code] = (action name, counts dict)``. Every count is validated
    before any is changed: a count that would go negative raises ValueError
    and leaves the state untouched.
    """
    updates: list[tuple[dict[Any, int], Any, int]] = []
    for (code, value), k in net.items():
        if code not in tables:
            raise ValueError(f"{owner}: action code {code} out of range")
        name, counts = tables[code]
        new = counts.get(value, 0) + k
        if new < 0:
            raise ValueError(
                f"{owner}.{name}.undo: cannot undo {value!r} {-k} more time(s) than it "
                f"was applied (it is in the state {counts.get(value, 0)} time(s))"
            )
        updates.append((counts, value, new))
    for counts, value, new in updates:
        if new == 0:
            counts.pop(value, None)
        else:
            counts[value] = new


def merge_counts(into: dict[Any, int], other: Mapping[Any, int]) -> None:
    """Add the value->count dict ``other`` into ``into`` (the merge of two multisets)."""
    for value, n in other.items():
        into[value] = into.get(value, 0) + n


def sorted_items(counts: Mapping[Any, int]) -> list[tuple[Any, int]]:
    """The ``(value, count)`` pairs of a value->count dict in ascending value order, None
    first (as Spark sorts the native containers' arrays)."""
    return sorted(counts.items(), key=lambda kv: (kv[0] is not None, kv[0]))


def expand(items: Iterable[tuple[Any, int]]) -> list[Any]:
    """Expand ``(value, count)`` pairs into a list with repetitions."""
    return [v for v, c in items for _ in range(c)]
