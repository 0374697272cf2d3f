"""Reads of container values: the ``c_*`` primitives (a list, a set or a dict's items
collected by a loop, ``states/containers.py``) and ``dict_get`` (a dict a host function
returned), as entries of the table (their SQL is the rule of ``backend/containers.py``
and ``backend/maps.py``).

A container reads back as an ordered list: ``("list", T)``, a dict as the list of its
``(key, value)`` items, ascending by key. Partiality, as CPython raises:

- ``max``/``min``/``sorted`` (and ``c_first``, ``c_distinct``, the medians) compare the
  elements: of no elements ``max``/``min`` raise ValueError ("max() arg is an empty
  sequence"), the medians and ``mean``/``fmean`` ``statistics.StatisticsError`` (a
  ValueError); two elements of which one is None raise TypeError. With NaN the result
  depends on the order of the elements (``max([nan, 1.0])`` is nan, ``max([1.0, nan])``
  is 1.0): the lowering folds in Python's order with Python's comparisons;
- ``sum`` of a None element is a TypeError;
- ``x[i]`` beyond ``-len(x) .. len(x) - 1`` is IndexError ("list index out of range");
  ``d[k]`` of a missing key KeyError (of duplicate keys, the last one counts, as in
  ``dict(items)``).

>>> from looplift.compiler.primitives import PRIMITIVES
>>> PRIMITIVES["c_max"].raises(([],)).cls, PRIMITIVES["c_index"].raises(([1, 2], -3)).cls
('ValueError', 'IndexError')
>>> PRIMITIVES["c_keys"].result_type([("list", ("tuple", ("str", "int")))])
('list', 'str')
"""

from __future__ import annotations

import collections
import math
import statistics
from collections.abc import Sequence
from typing import Any

from looplift.pyprims import merge_sums, unpacked

from .base import Primitive, TypeRefused
from .partiality import Pred, Raises
from .typerules import unify

__all__ = ["CONTAINERS", "TABLE_ITEM", "element_type", "lists_only"]

Type = Any


def element_type(t: Type) -> Type:
    return t[1] if isinstance(t, tuple) and t[0] == "list" else "any"


def _field(t: Type, i: int) -> Type:
    if isinstance(t, tuple) and t[0] == "tuple" and len(t[1]) > i:
        return t[1][i]
    return "any"


# -- references ------------------------------------------------------------------------------


def _c_max(x: Any, *default: Any) -> Any:
    return max(x, default=default[0]) if default else max(x)


def _c_min(x: Any, *default: Any) -> Any:
    return min(x, default=default[0]) if default else min(x)


def _c_union(init: Any, x: Any) -> Any:
    """A set that starts with ``init`` (``{"EUR"}``) and gains ``x``: the distinct elements,
    ``init``'s first (a set's order is never Python's, so only membership and size count)."""
    return list(dict.fromkeys([*init, *x]))


def _c_count(x: Any) -> Any:
    """``Counter(x)``'s items: each distinct element with its count, in first-occurrence
    order (a dict's insertion order)."""
    return list(collections.Counter(x).items())


def _c_most_common(items: Any, k: Any) -> Any:
    """``Counter.most_common(k)`` of a Counter's items (in its insertion order): by count,
    descending, ties in insertion order; ``k=None`` all, a negative ``k`` none."""
    return collections.Counter(dict(items)).most_common(k)


def _c_first(x: Any) -> Any:
    return x[0] if x else max(x)  # max([]) raises ValueError


# -- partiality --------------------------------------------------------------------------------


def _empty(x: Any, *_: Any) -> bool:
    return len(x) == 0


def _none_cmp(x: Any, *_: Any) -> bool:
    """Two elements or more, one of them None: a comparison raises TypeError."""
    return len(x) > 1 and any(v is None for v in x)


EMPTY_MAX = Raises(
    "ValueError",
    "arg is an empty sequence",
    Pred(lambda x, *default: not x and not default, "no elements, no default"),
)
NONE_CMP = Raises("TypeError", "'<' not supported between instances of 'NoneType'",
                  Pred(_none_cmp, "a None among two elements or more"))  # fmt: skip
NONE_SUM = Raises("TypeError", "unsupported operand type(s) for +: 'NoneType'",
                  Pred(lambda x: any(v is None for v in x), "a None element"))  # fmt: skip
STATS_EMPTY = Raises("StatisticsError", "no data", Pred(_empty, "no elements"))
FSUM_INF = Raises("ValueError", "-inf + inf in fsum",
                  Pred(lambda x: math.inf in x and -math.inf in x, "both infinities"))  # fmt: skip
FSUM_OVERFLOW = Raises("OverflowError", "intermediate overflow in fsum",
                       Pred(lambda x: all(v is not None and math.isfinite(v) for v in x)
                            and math.isinf(sum(x)), "finite elements, an infinite sum"))  # fmt: skip
def _index_outside(o: Any) -> Any:
    from sqlglot import exp

    n = exp.Anonymous(this="size", expressions=[o.raw(0)])
    return exp.or_(exp.GTE(this=o.raw(1), expression=n),
                   exp.LT(this=o.raw(1), expression=exp.Neg(this=exp.paren(n.copy()))))  # fmt: skip


INDEX = Raises("IndexError", "list index out of range",
               Pred(lambda x, i: not -len(x) <= i < len(x), "index outside -len..len-1",
                    native=_index_outside))  # fmt: skip
KEY = Raises("KeyError", "key not in the dict",
             Pred(lambda items, k: all(kk != k for kk, _ in items), "a missing key"))  # fmt: skip
RANGE = (
    Raises("TypeError", "'NoneType' object cannot be interpreted as an integer",
           Pred(lambda *a: any(v is None for v in a), "a None argument")),
    Raises("ValueError", "range() arg 3 must not be zero",
           Pred(lambda *a: len(a) == 3 and a[2] == 0, "a zero step")),
)  # fmt: skip
UNPACK = (
    Raises("ValueError", "too many values to unpack",
           Pred(lambda x, n: len(x) > n, "more elements than names")),
    Raises("ValueError", "not enough values to unpack",
           Pred(lambda x, n: len(x) < n, "fewer elements than names")),
)  # fmt: skip
MAP_KEY = Raises("AttributeError", "'NoneType' object has no attribute 'get'",
                 Pred(lambda d, *_: d is None, "a None dict"))  # fmt: skip


# -- type rules ------------------------------------------------------------------------------


def _el(ts: Sequence[Type]) -> Type:
    return element_type(ts[0]) if ts else "any"


def _num_or_any(ts: Sequence[Type]) -> Type:
    el = _el(ts)
    return "int" if el == "bool" else el if el in ("int", "float") else "any"


def _mean_type(name: str) -> Any:
    def rule(ts: Sequence[Type]) -> Type:
        if _el(ts) != "float":  # of ints: an int when the result is whole, else a float
            raise TypeRefused(f"`statistics.{name}` of {_el(ts)} values is an int or a float "
                              "depending on the values; use `statistics.fmean` (a float) or "
                              "float values")  # fmt: skip
        return "float"

    return rule


def _range_type(ts: Sequence[Type]) -> Type:
    bad = [t for t in ts if t not in ("int", "bool", "none", "any")]
    if bad:
        raise TypeRefused(f"`range()` of a {bad[0]}: CPython raises TypeError ('{bad[0]}' "
                          "object cannot be interpreted as an integer)")  # fmt: skip
    return ("list", "int")


def lists_only(ts: Sequence[Type], what: str) -> Sequence[Type]:
    """``ts`` when each is a list (or not known), else TypeRefused: the plan iterates
    lists natively, not strs or tuples."""
    for t in ts:
        if not (isinstance(t, tuple) and t[0] == "list" or t in ("any", "none")):
            shown = t[0] if isinstance(t, tuple) else t
            raise TypeRefused(f"`{what}` of a value of type {shown} is not supported natively; give it "
                              "lists (`s.split()`, `range(n)`, a container's values)")  # fmt: skip
    return ts


def _unpack_type(ts: Sequence[Type]) -> Type:
    """``a, b = x``: a list as it is (its length is checked when the plan runs); a tuple of
    as many fields, or of another arity, which Python refuses on every row."""
    t = ts[0]
    if isinstance(t, tuple) and t[0] == "tuple" and len(ts) > 1:
        return t
    if isinstance(t, tuple) and t[0] == "list" or t in ("any", "none"):
        return t
    shown = t[0] if isinstance(t, tuple) else t
    raise TypeRefused(f"unpacking a value of type {shown} into names is not supported natively")


def _max_type(ts: Sequence[Type]) -> Type:
    return unify(_el(ts), ts[1]) if len(ts) > 1 else _el(ts)


def _max_null(ts: Sequence[Type], nulls: Sequence[bool]) -> bool:
    return len(nulls) > 1 and nulls[1]


def _concat_type(ts: Sequence[Type]) -> Type:
    out: Type = ("list", "none")
    for t in ts:
        out = unify(out, t)
    return out


def _list_of(ts: Sequence[Type]) -> Type:
    out: Type = "none"
    for t in ts:
        out = unify(out, t)
    return ("list", out)


def _dict_get_type(ts: Sequence[Type]) -> Type:
    if not (isinstance(ts[0], tuple) and ts[0][0] == "dict"):
        return "any"
    return unify(ts[0][2], ts[2])


def _never_null(ts: Sequence[Type], nulls: Sequence[bool]) -> bool:
    return False


_L = ([], [1], [3, 1, 2], [1, 1], [None], [None, 1], [2.0, math.nan, 1.0], [math.nan, 1.0],
      [1.0, math.nan], [-0.0, 0.0], [math.inf, -math.inf])  # fmt: skip
_ITEMS = ([], [(1, "a")], [(1, "a"), (1, "b")], [(None, "n"), (2, None)])


def _e(*xs: Any) -> tuple[tuple[Any, ...], ...]:
    return tuple(xs)


def _entry(name: str, arity: tuple[int, int], ref: Any, rule: Any, partiality: tuple = (),
           edges: tuple = (), null_rule: Any = _never_null, exact: bool = True) -> Primitive:  # fmt: skip
    return Primitive(name, arity, "list", "any", ref, partiality, None, exact, edges=edges,
                     type_rule=rule, null_rule=null_rule, lowering="rule", domain="container")  # fmt: skip


def _same(ts: Sequence[Type]) -> Type:
    return lists_only(ts[:1], "sorted()/set()/reversed()/a slice")[0]


def _entries() -> list[Primitive]:
    lists1 = tuple((x,) for x in _L)
    items1 = tuple((x,) for x in _ITEMS)
    stats = tuple((x,) for x in ([], [1.0], [3.0, 1.0, 2.0], [1.0, 2.0], [math.nan, 1.0],
                                 [math.inf, 1.0], [math.inf, -math.inf], [1e308, 1e308]))  # fmt: skip
    return [
        _entry("c_keys", (1, 1), lambda items: [k for k, _ in items],
               lambda ts: ("list", _field(_el(ts), 0)), edges=items1),
        _entry("c_values", (1, 1), lambda items: [v for _, v in items],
               lambda ts: ("list", _field(_el(ts), 1)), edges=items1),
        _entry("c_sorted", (2, 2), lambda x, rev: sorted(x, reverse=rev), _same, (NONE_CMP,),
               tuple((x, r) for x in _L for r in (False, True))),
        _entry("c_reversed", (1, 1), lambda x: list(reversed(x)), _same, edges=lists1),
        _entry("c_slice", (3, 3), lambda x, a, b: x[a:b], _same,
               edges=_e(([], None, None), ([1, 2, 3], -1, None), ([1, 2, 3], None, -4),
                        ([1, 2, 3], 2, 1), ([1, 2, 3], -10, 10), ([1, 2, 3], 3, None))),
        _entry("c_sum", (1, 1), sum, _num_or_any, (NONE_SUM,),
               edges=_e(([],), ([1, 2],), ([None],), ([1.0, math.nan],),
                        ([math.inf, -math.inf],), ([2**62, 2**62],))),
        _entry("c_max", (1, 2), _c_max, _max_type, (NONE_CMP, EMPTY_MAX), lists1 + _e(([], 0)),
               null_rule=_max_null),
        _entry("c_min", (1, 2), _c_min, _max_type, (NONE_CMP, EMPTY_MAX), lists1 + _e(([], 0)),
               null_rule=_max_null),
        _entry("c_contains", (2, 2), lambda x, v: v in x, lambda ts: "bool",
               edges=_e(([], 1), ([None], None), ([1, None], 2), ([1, 2], 2))),
        _entry("c_getitem", (2, 2), lambda items, k: dict(items)[k],
               lambda ts: _field(_el(ts), 1), (KEY,),
               edges=tuple((x, k) for x in _ITEMS for k in (1, 2, None))),
        _entry("c_get", (3, 3), lambda items, k, d: dict(items).get(k, d),
               lambda ts: unify(_field(_el(ts), 1), ts[2]),
               edges=tuple((x, k, "d") for x in _ITEMS for k in (1, 2, None)),
               null_rule=lambda ts, nulls: nulls[2] or ts[2] == "none"),
        _entry("c_index", (2, 2), lambda x, i: x[i], lambda ts: _el(ts), (INDEX,),
               edges=tuple((x, i) for x in ([], [1], [1, 2, 3]) for i in (0, -1, 1, 2, 3, -3, -4))),
        _entry("c_unpack", (2, 2), unpacked, _unpack_type, UNPACK,
               edges=tuple((x, n) for x in ([], [1], [1, 2], [None, "a"], [1, 2, 3])
                           for n in (1, 2))),
        _entry("c_enumerate", (2, 2), lambda x, start: list(enumerate(x, start)),
               lambda ts: ("list", ("tuple", ("int", _el(lists_only(ts[:1], "enumerate"))))),
               edges=_e(([], 0), ([1], -1))),
        _entry("c_zip", (1, 4), lambda *xs: list(zip(*xs, strict=False)),
               lambda ts: ("list", ("tuple", tuple(element_type(t) for t in lists_only(ts, "zip")))),
               edges=_e(([],), ([1, 2], [3]), ([], [1]))),
        _entry("c_range", (1, 3), lambda *a: list(range(*a)), _range_type, RANGE,
               edges=_e((0,), (-1,), (3,), (2, 5), (5, 2), (0, 10, 3), (10, 0, -3), (0, 10, -1),
                        (3, 3, 1), (0, 1, 0), (None,), (-2**63, 2**63 - 1, 2**62),
                        (2**63 - 1, -2**63, -2**62), (10**5,))),
        _entry("c_row", (1, 1), lambda row: [row], lambda ts: ("list", ts[0]), edges=_e((1,),)),
        _entry("c_concat", (0, 8), lambda *xs: [r for x in xs for r in x], _concat_type,
               edges=_e((), ([], [1]))),
        _entry("c_list", (1, 4096), lambda *xs: list(xs), _list_of,
               edges=_e((1,), (None, 1), (1.0, math.nan), ("a", "b"))),
        _entry("c_union", (2, 2), _c_union, _concat_type,
               edges=_e((["EUR"], []), (["a"], ["b", "a"]), ([None], [None, 1]), ([1], [1.0]))),
        _entry("c_merge_sums", (2, 2), merge_sums, _concat_type,
               edges=_e(([("a", 0), ("b", 0)], []), ([("a", 0)], [("b", 2), ("a", 3)]),
                        ([("a", 0.5)], [("a", math.inf)]), ([("a", 2**62)], [("a", 2**62)]))),
        _entry("c_count", (1, 1), _c_count, lambda ts: ("list", ("tuple", (_el(ts), "int"))),
               edges=_e(([],), (["b", "a", "b"],), ([None, 1, None],), ([1, 1.0, 2],),
                        ([0.0, -0.0],))),
        _entry("c_most_common", (2, 2), _c_most_common, _same,
               edges=tuple((x, k) for x in ([], [("b", 1), ("a", 2), ("c", 2)],
                                            [("a", 1), ("b", 1)], [(None, 3), (1, -1)],
                                            [("x", 2**62), ("y", 2**63 - 1)])
                           for k in (None, 0, 1, 2, 5, -1))),
        _entry("c_empty", (0, 0), lambda: [], lambda ts: ("list", "none"), edges=_e(())),
        _entry("c_distinct", (1, 1), lambda x: sorted(set(x)), _same, (NONE_CMP,), lists1),
        _entry("c_first", (1, 1), _c_first, lambda ts: _el(ts), (EMPTY_MAX,), lists1),
        _entry("c_mean", (1, 1), statistics.mean, _mean_type("mean"), (STATS_EMPTY, NONE_SUM),
               stats),
        _entry("c_fmean", (1, 1), statistics.fmean, lambda ts: "float",
               (STATS_EMPTY, NONE_SUM, FSUM_INF, FSUM_OVERFLOW), stats),
        _entry("c_median", (1, 1), statistics.median, _mean_type("median"),
               (STATS_EMPTY, NONE_CMP), stats),
        _entry("c_median_low", (1, 1), statistics.median_low, lambda ts: _el(ts),
               (STATS_EMPTY, NONE_CMP), stats),
        _entry("c_median_high", (1, 1), statistics.median_high, lambda ts: _el(ts),
               (STATS_EMPTY, NONE_CMP), stats),
        _entry("dict_get", (3, 3), lambda d, k, default: d.get(k, default), _dict_get_type,
               (MAP_KEY,), _e(({}, "a", 0), ({"a": None}, "a", 0), ({"a": 1}, None, 0),
                              (None, "a", 0)),
               null_rule=lambda ts, nulls: True),
    ]  # fmt: skip


CONTAINERS: tuple[Primitive, ...] = tuple(_entries())


# -- a module-level lookup table (``RATES[k]``, ``STEPS.index(x)``) ---------------------------


def _table_ref(key: Any, name: str, pairs: Any, err: str) -> Any:
    import builtins

    table = dict(pairs)
    if key in table:
        return table[key]
    raise getattr(builtins, err)(key)


def _kind(v: Any) -> str:
    return "str" if isinstance(v, str) else "none" if v is None else "number"


def _table_missing(o: Any) -> Any:
    """``key`` is not among the table's keys (of its kind: a str is no number): a CASE
    in the renderer (``backend/sql.py``) that reaches its ELSE."""
    from sqlglot import exp

    from .sqltree import num

    kt, pairs = o.ts[0], o.lits[2]
    kind = "str" if kt == "str" else "number"
    keys = [k for k, _ in pairs if _kind(k) == kind]
    if any(isinstance(k, float) and not math.isfinite(k) for k in keys):
        raise NotImplementedError("a table with a NaN or infinite key")
    k = exp.cast(o.raw(0), "bigint") if kt == "bool" else o.raw(0)
    none_missing = exp.false() if any(kk is None for kk, _ in pairs) else exp.true()
    if not keys:
        return exp.Coalesce(this=exp.false() if kt != "none" else none_missing,
                            expressions=[none_missing])  # fmt: skip
    lits = [exp.Literal.string(v) if isinstance(v, str) else num(int(v) if isinstance(v, bool)
            else v) for v in keys]  # fmt: skip
    return exp.Coalesce(this=exp.not_(exp.In(this=k, expressions=lits)), expressions=[none_missing])


def _missing_as(cls: str) -> Raises:
    def native(o: Any) -> Any:
        from sqlglot import exp

        return _table_missing(o) if o.lits[3] == cls else exp.false()

    return Raises(cls, "the key is not in the table",
                  Pred(lambda key, name, pairs, err: err == cls and all(k != key for k, _ in pairs),
                       "a missing key (a None one too)", native=native))  # fmt: skip


#: ``table_item(key, name, pairs, error class)`` of the IR (``frontend/values.py``): the
#: class the table raises for a missing key is its last argument (KeyError of a dict,
#: IndexError of a tuple, ValueError of ``.index``). Its lowering is the renderer's CASE;
#: the entry is what a ``try``'s test reads (not among the edge-tested CONTAINERS).
TABLE_ITEM = Primitive("table_item", (4, 4), "any", "any", _table_ref,
                       tuple(_missing_as(c) for c in ("KeyError", "IndexError", "ValueError")),
                       None, True, lowering="rule", domain="table", none_raises="")  # fmt: skip
