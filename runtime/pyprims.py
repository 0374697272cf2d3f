"""Python implementations of primitives the plans run as Python where Spark has no exact
native expression, apart from the string ones (``looplift.strings``): the references of
the compiler's table entries (``compiler/primitives/``) and what the generated plans call
(``looplift.spark.register_pycalls``, ordered loops' Python). The runtime never imports
the compiler, so they live here.

>>> merge_sums([("a", 0), ("b", 0)], [("c", 2), ("a", 3)])
[('a', 3), ('b', 0), ('c', 2)]
>>> strftime(strptime("2024-02-29", "%Y-%m-%d"), "%d.%m.%Y")
'29.02.2024'
"""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

from .windows import hop_prim, tumble_prim

__all__ = ["IMPLS", "merge_sums", "strftime", "strptime", "unpacked"]


def merge_sums(init: Any, items: Any) -> list[tuple[Any, Any]]:
    """A dict of sums that starts with ``init`` (``{"a": 0, "b": 0}``, distinct constant keys)
    and gains the per-key sums ``items``: Python's dict, whose order is its insertion order
    (the starting keys first, then the others in ``items``' order)."""
    out = dict(init)
    for k, v in items:
        out[k] = out[k] + v if k in out else v
    return list(out.items())


def strptime(s: str, fmt: str) -> datetime.datetime:
    """``datetime.datetime.strptime(s, fmt)``."""
    return datetime.datetime.strptime(s, fmt)


def strftime(t: datetime.date, fmt: str) -> str:
    """``t.strftime(fmt)``."""
    return t.strftime(fmt)


def unpacked(x: Any, n: int) -> Any:
    """``x`` when ``a, b, ... = x`` (``n`` names) unpacks it, else CPython's ValueError."""
    if len(x) > n:
        raise ValueError(f"too many values to unpack (expected {n})")
    if len(x) < n:
        raise ValueError(f"not enough values to unpack (expected {n}, got {len(x)})")
    return x


IMPLS: dict[str, Callable[..., Any]] = {
    "c_merge_sums": merge_sums,
    "c_unpack": unpacked,
    "dt.strptime": strptime,
    "dt.strftime": strftime,
    "win.tumble": tumble_prim,
    "win.hop": hop_prim,
}
