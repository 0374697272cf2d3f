"""The packed, pickled form of an :class:`~looplift.states.interval.IntervalSequence`.

A state whose timestamps are all 64-bit ints keeps its sorted lists as ``array("q")``
and pickles each as the bytes of the narrowest int type that holds it; counts are kept
only where an event repeats.
"""

from __future__ import annotations

import sys
from array import array
from collections import Counter
from typing import Any

#: First element of the pickled form (a tuple); old pickles are the three dicts.
PICKLE_V1 = "iseq1"
#: The packed form: the same tuple, its six sorted lists as :func:`to_bytes`.
PICKLE_V2 = "iseq2"
_INT64 = (-(2**63), 2**63 - 1)


def fits(t: Any) -> bool:
    """Whether a packed state can hold ``t`` (an int, not a bool, of 64 bits)."""
    return type(t) is int and _INT64[0] <= t <= _INT64[1]


#: the narrowest little-endian int type a packed list is pickled as
_WIDTHS = (("<i1", 2**7), ("<i2", 2**15), ("<i4", 2**31), ("<i8", 2**63))


def to_bytes(values: array, bounds: tuple[int, int] | None = None) -> tuple[str, bytes]:
    """A packed list as (numpy type, bytes) of the narrowest int type that holds its
    ``bounds`` (default: its first and last value: the list is sorted). A short list,
    or one that needs 64 bits, is its bytes as they are (no numpy call)."""
    lo, hi = bounds if bounds is not None else (values[0], values[-1]) if values else (0, 0)
    dtype = next(t for t, lim in _WIDTHS if -lim <= lo and hi < lim)
    if _LITTLE and (dtype == "<i8" or len(values) < _NARROW_MIN):
        return "<i8", values.tobytes()
    import numpy as np

    return dtype, np.frombuffer(values, "=i8").astype(dtype).tobytes()


def from_bytes(form: tuple[str, bytes]) -> array:
    """The ``array("q")`` of :func:`to_bytes`'s form."""
    dtype, data = form
    if _LITTLE and dtype == "<i8":
        out = array("q")
        out.frombytes(data)
        return out
    import numpy as np

    return packed(np.frombuffer(data, dtype))


_LITTLE = sys.byteorder == "little"
_NARROW_MIN = 32  # (a shorter list is not narrowed: the numpy call costs more than it saves)


def packed(values: Any) -> array:
    """An int64 numpy array as ``array("q")`` (one byte copy)."""
    out = array("q")
    out.frombytes(values.astype("=i8", copy=False).tobytes())
    return out


def repeats_in_order(counts: dict[Any, int], keys: list[Any]) -> list[int] | None:
    """The counts in the order of ``keys``, or None when every event occurs once."""
    if len(counts) == len(keys) and sum(counts.values()) == len(keys):  # (counts are >= 1)
        return None
    return [counts[t] for t in keys]


def counts_from(keys: list[Any], repeats: list[int] | None) -> dict[Any, int]:
    return dict.fromkeys(keys, 1) if repeats is None else dict(zip(keys, repeats, strict=True))


def item_counts(items: list[Any]) -> dict[Any, int]:
    """The multiset of a sorted list with repetitions (no sorting, one pass)."""
    out = dict.fromkeys(items, 1)
    if len(out) < len(items):
        out = dict(Counter(items))
    return out
