"""Dict values (a host function's ``-> dict[K, V]``) as Spark maps, read as Python does.

``d[k]`` raises KeyError when ``k`` is missing (Spark's own lookup gives NULL),
``d.get(k, default)`` gives the default only for a missing key (a key holding None
gives None), ``k in d`` is ``map_contains_key``, ``len(d)`` is ``size`` and a dict's
truth value is whether it has entries. A None dict raises what Python raises.

>>> is_dict(("dict", "str", "int")), is_dict(("list", "int"))
(True, False)
"""

from __future__ import annotations

from typing import Any

from ..errtext import Sql, py_repr_sql, raise_sql
from ..ir.nodes import Expr
from .rules import Emitter, rule

__all__ = ["is_dict", "map_index", "map_get", "map_contains"]


def is_dict(t: Any) -> bool:
    return isinstance(t, tuple) and t[0] == "dict"


def _raise(msg: str, cls: str) -> str:
    return raise_sql(cls, msg)


def _key_text(k: str, kt: Any) -> str:
    """The key as Python's KeyError shows it (``repr``): quoted for a str."""
    if kt == "str":
        return f"coalesce({py_repr_sql(k)}, 'None')"
    return f"coalesce(CAST({k} AS STRING), 'None')"


def _none_checks(r: Any, base: Expr, s: str, what: str, cls: str = "TypeError") -> list[str]:
    if not r.ty.may_be_null(base):
        return []
    return [f"WHEN {s} IS NULL THEN {_raise(what, cls)}"]


def map_index(r: Any, base: Expr, idx: Expr, t: Any, s: str, k: str) -> str:
    """``d[k]``: the value, KeyError for a missing key (a None key is never in a map)."""
    missing = raise_sql("KeyError", Sql(_key_text(k, t[1])))
    tests = _none_checks(r, base, s, "'NoneType' object is not subscriptable")
    tests.append(f"WHEN {k} IS NULL OR NOT map_contains_key({s}, {k}) THEN {missing}")
    return f"(CASE {' '.join(tests)} ELSE element_at({s}, {k}) END)"


@rule("dict_get")
def dict_get_rule(r: Emitter, op: str, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
    """``d.get(k, default)`` (the table's ``dict_get``)."""
    return map_get(r, args, ts, x)


def map_get(r: Any, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
    """``d.get(k, default)``."""
    if not is_dict(ts[0]):
        raise _not_a_dict(ts[0], ".get()")
    s, k, dflt = x
    tests = _none_checks(
        r, args[0], s, "'NoneType' object has no attribute 'get'", "AttributeError"
    )
    tests.append(f"WHEN {k} IS NULL OR NOT map_contains_key({s}, {k}) THEN {dflt}")
    return f"(CASE {' '.join(tests)} ELSE element_at({s}, {k}) END)"


def map_contains(r: Any, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
    """``k in d``."""
    k, s = x[0], x[1]
    tests = _none_checks(r, args[1], s, "argument of type 'NoneType' is not iterable")
    tests.append(f"WHEN {k} IS NULL THEN FALSE")
    return f"(CASE {' '.join(tests)} ELSE map_contains_key({s}, {k}) END)"


def _not_a_dict(t: Any, what: str) -> Exception:
    from .errors import BackendError

    return BackendError(
        f"`{what}` is read here from a value of type {t}, not a dict; if the value comes from "
        "a host function, annotate its result (e.g. `-> dict[str, int]`)"
    )
