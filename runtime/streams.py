"""Row streams on plain Python data: the reference semantics of SPEC §2.

``RowStream[T1, ..., Tn]`` annotates a parameter that receives a relation of
n-field rows. Called on Python data, a ``@dataflow`` function sees a
:class:`Rows` object: iterable, projectable, groupable.

>>> rows = Rows([(1, 0, 10), (2, 1, 11), (1, 1, 12)])
>>> [(k, list(g.project(2))) for k, g in group_by(0, rows)]
[(1, [(10,), (12,)]), (2, [(11,)])]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

__all__ = ["RowStream", "Rows", "group_by"]


class _RowStreamAlias:
    """What ``RowStream[int, str]`` evaluates to: remembers the field types."""

    __slots__ = ("fields",)

    def __init__(self, fields: tuple[Any, ...]):
        self.fields = fields

    def __repr__(self) -> str:
        names = ", ".join(getattr(t, "__name__", repr(t)) for t in self.fields)
        return f"RowStream[{names}]"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _RowStreamAlias) and other.fields == self.fields

    def __hash__(self) -> int:
        return hash(self.fields)


class _RowStreamMeta(type):
    def __getitem__(cls, item: Any) -> _RowStreamAlias:
        fields = item if isinstance(item, tuple) else (item,)
        return _RowStreamAlias(fields)


class RowStream(metaclass=_RowStreamMeta):
    """Type marker for a relation parameter: ``RowStream[int, float, str]``."""


class Rows:
    """A finite stream of tuples (the Python reference representation)."""

    __slots__ = ("_rows",)

    def __init__(self, rows: Iterable[Any]):
        self._rows = [tuple(r) if not isinstance(r, tuple) else r for r in rows]

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        return iter(self._rows)

    def __len__(self) -> int:
        return len(self._rows)

    def __repr__(self) -> str:
        return f"Rows({self._rows!r})"

    def _take(self, rows: list[tuple[Any, ...]], idx: list[int]) -> Rows:
        """The stream of ``rows`` that stand for this stream's rows at ``idx`` (a
        projection, a group, an order): a subclass keeps what it attaches to rows."""
        return Rows(rows)

    def project(self, *fields: int) -> Rows:
        """The substream of the chosen fields, in the given order."""
        return self._take([tuple(r[i] for i in fields) for r in self._rows],
                          list(range(len(self._rows))))  # fmt: skip

    def sorted_by(self, field: int) -> Rows:
        n = len(self._rows[0]) if self._rows else 0
        order = [field] + [i for i in range(n) if i != field]
        idx = sorted(range(len(self._rows)),
                     key=lambda j: tuple(_sort_key(self._rows[j][i]) for i in order))  # fmt: skip
        return self._take([self._rows[j] for j in idx], idx)


def _sort_key(v: Any) -> tuple[int, Any]:
    # None sorts first, like Spark's ascending NULLS FIRST.
    return (0, 0) if v is None else (1, v)


def group_by(
    key: int | tuple[int, ...], stream: Iterable[Any], order_by: int | None = None
) -> Iterator[tuple[Any, Rows]]:
    """Group ``stream`` by field ``key`` (or a tuple of fields).

    Yields ``(key_value, substream)``; substream rows keep all fields. With
    ``order_by=i`` each substream is sorted by field ``i`` (ties broken by the
    remaining fields).
    """
    rows = stream._rows if isinstance(stream, Rows) else [tuple(r) for r in stream]
    groups: dict[Any, list[int]] = {}
    for j, row in enumerate(rows):
        k = tuple(row[i] for i in key) if isinstance(key, tuple) else row[key]
        groups.setdefault(k, []).append(j)
    for k, idx in groups.items():
        picked = [rows[j] for j in idx]
        sub = stream._take(picked, idx) if isinstance(stream, Rows) else Rows(picked)
        yield k, (sub.sorted_by(order_by) if order_by is not None else sub)
