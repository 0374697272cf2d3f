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

A parameter's ``RowStream[...]`` annotation is read by :func:`rowstream_fields` (the
``@dataflow`` call, the compiler, the notebook view); :func:`as_rows` turns plain data
passed to it into :class:`Rows` of its row class (:func:`stream_kind`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import is_dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVarTuple

from .windows import group_rows

__all__ = ["RowStream", "Rows", "group_by", "sorted_by", "order_spec", "rowstream_fields",
           "is_rowstream", "stream_kind", "as_rows"]

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
        self._rows = [r if isinstance(r, tuple) or is_dataclass(r) else tuple(r) for r in rows]

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        return iter(sorted(self._rows, key=lambda r: tuple(_sort_key(v) for v in _values(r))))

    def __len__(self) -> int:
        return len(self._rows)

    def __repr__(self) -> str:
        return f"Rows({self._rows!r})"

    def _take(self, rows: list[tuple[Any, ...]], idx: list[int]) -> Rows:
        """The stream of ``rows`` that stand for this stream's rows at ``idx`` (a
        projection, a group, an order): a subclass keeps what it attaches to rows."""
        return Rows(rows)

    def project(self, *fields: int | str) -> Rows:
        """The substream of the chosen fields (indices, or names of a named row's fields),
        in the given order; a projection of named rows has named rows."""
        if not self._rows:
            return self._take([], [])
        first = self._rows[0]
        idx = [_index(first, f) for f in fields]
        make = _projection_class(first, idx)
        return self._take([make(*(_values(r)[i] for i in idx)) for r in self._rows],
                          list(range(len(self._rows))))  # fmt: skip

    def sorted_by(self, order: Order, desc: bool = False) -> Rows:
        """The stream in the given order (see the module docstring), as an ordered stream."""
        n = len(_values(self._rows[0])) if self._rows else 0
        if self._rows:
            order = _order_indices(self._rows[0], order)
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
        idx.sort(key=lambda j: _sort_key(_values(rows[j])[i]), reverse=d)
    return idx


# -- named rows (``RowStream[Click]`` of a NamedTuple or a dataclass) ----------------------


def _values(row: Any) -> tuple[Any, ...]:
    """A row's field values (a dataclass row's fields in order)."""
    if isinstance(row, tuple):
        return row
    return tuple(getattr(row, f) for f in _names(row))


def _names(row: Any) -> tuple[str, ...]:
    from .rowtypes import field_names

    if isinstance(row, tuple):
        return getattr(row, "_fields", ())
    return field_names(type(row))


def _index(row: Any, field: Any) -> Any:
    """A field given by name → its index in ``row`` (an index as it is)."""
    from .rowtypes import field_index

    return field_index(_names(row), field) if isinstance(field, str) else field


def _order_indices(row: Any, order: Any) -> Any:
    """A key or an order given by names (``"ts"``, ``("user_id", "day")``) → indices."""
    if isinstance(order, tuple):
        return tuple(_index(row, f) for f in order)
    return _index(row, order)


_PROJECTIONS: dict[tuple[type, tuple[str, ...]], Any] = {}


def _projection_class(row: Any, idx: list[int]) -> Any:
    """What makes the rows of a projection: a named tuple of the chosen fields for a named
    row, else ``tuple``'s constructor from values."""
    names = _names(row)
    if not names:
        return lambda *v: v
    chosen = tuple(names[i] for i in idx)
    key = (type(row), chosen)
    if key not in _PROJECTIONS:
        from collections import namedtuple

        _PROJECTIONS[key] = namedtuple(f"{type(row).__name__}Projection", chosen)  # noqa: PYI024
    return _PROJECTIONS[key]


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
    function of the row, ``lambda r: (r[0], r[2] // 7)``, whose result is the key; a
    ``hop(...)`` in it puts the row in the group of each of its windows, a
    ``session(...)`` in the group of its session: ``looplift.windows.group_rows``).

    Yields ``(key_value, substream)``; substream rows keep all fields. With
    ``order_by=`` each substream is iterated in that order (see
    :func:`sorted_by`; ties broken by the remaining fields).
    """
    rows = stream._rows if isinstance(stream, Rows) else Rows(stream)._rows
    if rows and not callable(key):
        key = _order_indices(rows[0], key)  # field names of named rows → indices
    if callable(key):  # a computed key: the key value is what the function returns, but a
        groups = group_rows(key(row) for row in rows)  # hop(...) or session(...) in it
    else:
        groups = {}
        for j, row in enumerate(rows):
            vals = _values(row)
            k = tuple(vals[i] for i in key) if isinstance(key, tuple) else vals[key]
            groups.setdefault(k, []).append(j)
    for k, idx in groups.items():
        picked = [rows[j] for j in idx]
        sub = stream._take(picked, idx) if isinstance(stream, Rows) else Rows(picked)
        yield k, (sub.sorted_by(order_by, desc) if order_by is not None else sub)


# -- RowStream parameters: their annotations, and plain data passed to them ----------------
def rowstream_fields(annotation: Any, fn: Callable[..., Any]) -> tuple[Any, ...] | None:
    """The field types of a ``RowStream[...]`` annotation (also when it is a string,
    as under ``from __future__ import annotations``), or None for other annotations."""
    if isinstance(annotation, str):
        text = annotation.replace(" ", "")
        if not (text.startswith("RowStream[") or text.startswith("looplift.RowStream[")):
            return None
        try:
            annotation = eval(annotation, fn.__globals__)  # noqa: S307 - the user's own annotation
        except Exception:  # noqa: BLE001 - unresolvable names: count the fields
            inner = text[text.index("[") + 1 : -1]
            depth, n = 0, 1
            for ch in inner:
                depth += ch == "["
                depth -= ch == "]"
                n += ch == "," and depth == 0
            return (Any,) * n
    if isinstance(annotation, _RowStreamAlias):
        return annotation.fields
    return None


def is_rowstream(annotation: Any, fn: Callable[..., Any]) -> bool:
    """Does ``annotation`` (of a parameter of ``fn``) say ``RowStream[...]``?"""
    return rowstream_fields(annotation, fn) is not None


def stream_kind(annotation: Any, fn: Callable[..., Any]) -> Any:
    """False for a parameter that is no RowStream, its row class for ``RowStream[Click]``,
    else True."""
    from .rowtypes import row_class

    fields = rowstream_fields(annotation, fn)
    if fields is None:
        return False
    return row_class(fields) or True


def as_rows(value: Any, kind: Any) -> Rows:
    """A RowStream argument given as plain data: plain tuples become the row class of a
    named stream (so ``c.user_id`` reads them), as the compiled plan binds columns."""
    if kind is True:
        return Rows(value)
    from .rowtypes import as_row

    return Rows([as_row(kind, r) for r in value])
