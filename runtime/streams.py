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

    __slots__ = ("_rows", "_signs")

    def __init__(self, rows: Iterable[Any], signs: list[int] | None = None):
        self._rows = [tuple(r) if not isinstance(r, tuple) else r for r in rows]
        # incremental replay only (looplift.delta): the sign of each row
        self._signs = signs

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        if self._signs is None:
            return iter(self._rows)
        return self._signed()

    def _signed(self) -> Iterator[tuple[Any, ...]]:
        from .delta import current_sign, set_sign

        before = current_sign()
        try:
            for r, s in zip(self._rows, self._signs, strict=True):
                set_sign(s)
                yield r
        finally:
            set_sign(before)

    def __len__(self) -> int:
        return len(self._rows)

    def __repr__(self) -> str:
        return f"Rows({self._rows!r})"

    def project(self, *fields: int) -> Rows:
        """The substream of the chosen fields, in the given order."""
        return Rows((tuple(r[i] for i in fields) for r in self._rows), self._signs)

    def sorted_by(self, field: int) -> Rows:
        n = len(self._rows[0]) if self._rows else 0
        order = [field] + [i for i in range(n) if i != field]
        idx = sorted(range(len(self._rows)),
                     key=lambda j: tuple(_sort_key(self._rows[j][i]) for i in order))  # fmt: skip
        signs = [self._signs[j] for j in idx] if self._signs is not None else None
        return Rows([self._rows[j] for j in idx], signs)


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
    groups: dict[Any, list[tuple[Any, ...]]] = {}
    signs: dict[Any, list[int]] | None = (
        {} if isinstance(stream, Rows) and stream._signs is not None else None
    )
    for j, row in enumerate(stream._rows if signs is not None else stream):  # type: ignore[union-attr]
        k = tuple(row[i] for i in key) if isinstance(key, tuple) else row[key]
        groups.setdefault(k, []).append(row)
        if signs is not None:
            signs.setdefault(k, []).append(stream._signs[j])  # type: ignore[union-attr,index]
    for k, rows in groups.items():
        sub = Rows(rows, signs[k] if signs is not None else None)
        yield k, (sub.sorted_by(order_by) if order_by is not None else sub)
