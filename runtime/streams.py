"""Row streams on plain Python data: the reference semantics of SPEC §2.

``RowStream[T1, ..., Tn]`` annotates a parameter that receives a relation of
n-field rows. Called on Python data, a ``@dataflow`` function sees a
:class:`Rows` object: iterable, projectable, groupable.

>>> rows = Rows([(1, 0, 10), (2, 1, 11), (1, 1, 12)])
>>> [(k, list(g.project(2))) for k, g in group_by(0, rows)]
[(1, [(10,), (12,)]), (2, [(11,)])]

Order (SPEC §2 "Order"): ``order_by=`` and :func:`sorted_by` take a field
index, a tuple of indices, or a negated index for descending (``-2``: field 2
descending); ``desc=True`` flips every given field (the only way to say
"field 0 descending"). Ties are broken by the remaining fields, ascending;
None sorts first ascending and last descending (Spark's defaults).

>>> list(sorted_by(Rows([(1, 5), (2, 7), (3, 5)]), (-1, 0)))
[(2, 7), (1, 5), (3, 5)]

A stream iterates its rows in a canonical order (ascending by all fields):
unordered loops cannot tell, and Python's stable ``sorted(g, key=...)`` then
breaks ties by the remaining fields, as compiled plans do.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, Protocol, TypeVarTuple

__all__ = ["RowStream", "Rows", "group_by", "sorted_by", "order_spec"]

Order = int | tuple[int, ...] | Callable[[tuple[Any, ...]], Any]
_Fields = TypeVarTuple("_Fields")


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
        if isinstance(item, int):  # also ends `for x in RowStream` (Python's old iteration)
            raise TypeError("RowStream[...] takes field types, e.g. RowStream[int, str]")
        fields = item if isinstance(item, tuple) else (item,)
        return _RowStreamAlias(fields)


if TYPE_CHECKING:  # for type checkers and IDEs: any iterable of rows

    class RowStream(Protocol[*_Fields]):
        """Type marker for a relation parameter: ``RowStream[int, float, str]``."""

        # (rows of Any: a RowStream[Click] of a NamedTuple or dataclass has Click rows,
        # RowStream[int, str] tuples; a type cannot tell the two apart)
        def __iter__(self) -> Iterator[Any]: ...

else:

    class RowStream(metaclass=_RowStreamMeta):
        """Type marker for a relation parameter: ``RowStream[int, float, str]``."""


class Rows:
    """A finite stream of tuples (the Python reference representation)."""

    __slots__ = ("_rows",)

    def __init__(self, rows: Iterable[Any]):
        self._rows = [tuple(r) if not isinstance(r, tuple) else r for r in rows]

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        return iter(sorted(self._rows, key=lambda r: tuple(_sort_key(v) for v in r)))

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

    def sorted_by(self, order: Order, desc: bool = False) -> Rows:
        """The stream in the given order (see the module docstring), as an ordered stream."""
        n = len(self._rows[0]) if self._rows else 0
        if callable(order):  # a key function: Python's stable sort of the canonical order
            canon = sort_indices(self._rows, order_spec((), False, n))
            idx = sorted(canon, key=lambda j: order(self._rows[j]), reverse=desc)
            return _Ordered(self._take([self._rows[j] for j in idx], idx))
        idx = sort_indices(self._rows, order_spec(order, desc, n))
        return _Ordered(self._take([self._rows[j] for j in idx], idx))


class _Ordered(Rows):
    """A stream iterated in its given order (wraps what ``_take`` made)."""

    __slots__ = ("_inner",)

    def __init__(self, inner: Rows):
        self._inner = inner
        self._rows = inner._rows

    def _take(self, rows: list[tuple[Any, ...]], idx: list[int]) -> Rows:
        return self._inner._take(rows, idx)

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        if type(self._inner).__iter__ is not Rows.__iter__:
            return iter(self._inner)  # e.g. signed rows: they set the sign as they go
        return iter(self._rows)

    def __getitem__(self, i: Any) -> Any:
        """A row by its position in the order (``rows[0]``, ``rows[-1]``), as in the sorted
        list it stands for."""
        return list(self)[i]


def _sort_key(v: Any) -> tuple[int, Any]:
    # None sorts first, like Spark's ascending NULLS FIRST.
    return (0, 0) if v is None else (1, v)


def order_spec(order: Order, desc: bool, nfields: int) -> list[tuple[int, bool]]:
    """(field, descending) for every field: the given ones, then the rest ascending.

    >>> order_spec((-2, 0), False, 3)
    [(2, True), (0, False), (1, False)]
    >>> order_spec(0, True, 2)
    [(0, True), (1, False)]
    """
    given = order if isinstance(order, tuple) else (order,)
    out = [(abs(i), (i < 0) != desc) for i in given]
    seen = {i for i, _ in out}
    return out + [(i, False) for i in range(nfields) if i not in seen]


def sort_indices(rows: list[tuple[Any, ...]], spec: list[tuple[int, bool]]) -> list[int]:
    """Indices of ``rows`` in ``spec`` order (stable passes, last field first)."""
    idx = list(range(len(rows)))
    for i, d in reversed(spec):
        idx.sort(key=lambda j: _sort_key(rows[j][i]), reverse=d)
    return idx


def sorted_by(stream: Iterable[Any], order: Order, desc: bool = False) -> Rows:
    """``stream`` ordered by ``order``: a loop over it is an ordered loop (SPEC §2).

    ``order`` is a field index, a tuple of them, a negated index for
    descending, or a key function of the row (``lambda r: (r[1], -r[2])``);
    ``desc=True`` flips every given field. Ties are broken by the remaining
    fields, ascending.

    >>> list(sorted_by([(1, "b"), (2, "a"), (3, "b")], (-1,)))
    [(1, 'b'), (3, 'b'), (2, 'a')]
    """
    rows = stream if isinstance(stream, Rows) else Rows(stream)
    return rows.sorted_by(order, desc)


def group_by(
    key: int | tuple[int, ...] | Callable[[tuple[Any, ...]], Any],
    stream: Iterable[Any],
    order_by: Order | None = None,
    desc: bool = False,
) -> Iterator[tuple[Any, Rows]]:
    """Group ``stream`` by field ``key`` (a tuple of fields; ``()`` is one group; or a
    function of the row, ``lambda r: (r[0], r[2] // 7)``, whose result is the key).

    Yields ``(key_value, substream)``; substream rows keep all fields. With
    ``order_by=`` each substream is iterated in that order (see
    :func:`sorted_by`; ties broken by the remaining fields).
    """
    rows = stream._rows if isinstance(stream, Rows) else [tuple(r) for r in stream]
    groups: dict[Any, list[int]] = {}
    for j, row in enumerate(rows):
        if callable(key):
            k = key(row)  # a computed key: the key value is what the function returns
        else:
            k = tuple(row[i] for i in key) if isinstance(key, tuple) else row[key]
        groups.setdefault(k, []).append(j)
    for k, idx in groups.items():
        picked = [rows[j] for j in idx]
        sub = stream._take(picked, idx) if isinstance(stream, Rows) else Rows(picked)
        yield k, (sub.sorted_by(order_by, desc) if order_by is not None else sub)
