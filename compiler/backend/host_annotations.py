"""What a host function's return annotation says, and how to spell a type back.

Every annotation Spark can carry has a looplift type (see :func:`.typevocab.py_type`):
``int``, ``float``, ``str``, ``bool``, ``datetime.datetime`` (``timestamp``: a naive
value is UTC wall time, as for ``datetime.datetime`` fields; an aware one its
instant), ``datetime.date``, ``Optional[...]``, ``tuple[...]`` (a struct),
``list[...]`` (an array) and ``dict[K, V]`` (a map). A *bare* container annotation
(``-> tuple``, ``-> list``, ``-> dict``, or one with an item type looplift cannot
carry) does not say the Spark type: the function's source is read instead, and
when that says nothing either the build asks for the full annotation.

>>> import typing
>>> def f(n) -> tuple: ...
>>> return_annotation(f)
(None, 'tuple')
>>> def g(n) -> "typing.Optional[dict[str, int]]": ...
>>> return_annotation(g)
((('dict', 'str', 'int'), True), None)
>>> spelled(("tuple", ("int", "datetime")))
'tuple[int, datetime.datetime]'
"""

from __future__ import annotations

import inspect
import typing
from typing import Any

from .typevocab import Type, py_type

__all__ = ["return_annotation", "bare_container", "spelled", "known_type", "written_annotation"]

_SCALARS = ("int", "float", "str", "bool", "datetime", "date")
_BARE = {tuple: "tuple", list: "list", dict: "dict", typing.Tuple: "tuple",  # noqa: UP006
         typing.List: "list", typing.Dict: "dict"}  # noqa: UP006  # fmt: skip


def return_annotation(fn: Any) -> tuple[tuple[Type, bool] | None, str | None]:
    """((type, nullable) or None, bare container kind or None) of ``fn``'s annotation.

    (None, None): no annotation; (None, "tuple"): a bare ``tuple`` (or a container
    with an item looplift has no column type for); ((t, null), None): a type. A
    string annotation (``from __future__ import annotations``) is resolved in the
    function's module; an annotation of no known type gives ``("any", True)``.
    """
    try:
        ann = inspect.signature(fn).return_annotation
    except (TypeError, ValueError):
        return None, None
    if ann is inspect.Signature.empty:
        return None, None
    if isinstance(ann, str):
        try:
            ann = typing.get_type_hints(fn).get("return", ann)
        except Exception:  # noqa: BLE001 - an unresolvable name: the text is all there is
            pass
    bare = bare_container(ann)
    if bare is not None:
        return None, bare
    return py_type(ann), None


def bare_container(ann: Any) -> str | None:
    """``"tuple"``, ``"list"`` or ``"dict"`` for a container annotation that does not say
    its items' column types (``tuple``, ``list[Any]``, ``dict[str, set[int]]``), else None."""
    args_of = typing.get_args(ann)
    origin = typing.get_origin(ann)
    if origin is typing.Union or type(ann).__name__ == "UnionType":
        rest = [a for a in args_of if a is not type(None)]
        return bare_container(rest[0]) if len(rest) == 1 else None
    if isinstance(ann, str):
        text = ann.replace(" ", "").removeprefix("Optional[").removesuffix("]")
        text = text.removesuffix("|None").removeprefix("typing.")
        return {"tuple": "tuple", "list": "list", "dict": "dict", "Tuple": "tuple",
                "List": "list", "Dict": "dict"}.get(text)  # fmt: skip
    try:
        if ann in _BARE:
            return _BARE[ann]
    except TypeError:  # unhashable
        return None
    kind = {tuple: "tuple", list: "list", dict: "dict"}.get(origin)  # type: ignore[call-overload]
    if kind is None:
        return None
    t, _ = py_type(ann)
    return None if known_type(t) else kind


def known_type(t: Type) -> bool:
    """Does Spark carry ``t`` as a column (scalars, and tuples, lists and dicts of them)?"""
    if isinstance(t, tuple):
        if t[0] == "tuple":
            return all(known_type(x) for x in t[1])
        if t[0] == "list":
            return known_type(t[1])
        if t[0] == "dict":
            return t[1] in _SCALARS and t[1] != "float" and known_type(t[2])
        return False
    return t in _SCALARS


def spelled(t: Type | None) -> str:
    """The Python annotation of a looplift type (``<type>`` where it is unknown)."""
    if t is None or t in ("any", "none"):
        return "<type>"
    if isinstance(t, tuple):
        if t[0] == "tuple":
            return f"tuple[{', '.join(spelled(x) for x in t[1])}]"
        if t[0] == "list":
            return f"list[{spelled(t[1])}]"
        if t[0] == "dict":
            return f"dict[{spelled(t[1])}, {spelled(t[2])}]"
        return "<type>"
    return {"datetime": "datetime.datetime", "date": "datetime.date"}.get(t, t)


def written_annotation(fn: Any) -> str | None:
    """The return annotation as its source spells it (``list[set[int]]``), or None."""
    try:
        ann = inspect.signature(fn).return_annotation
    except (TypeError, ValueError):
        return None
    if ann is inspect.Signature.empty:
        return None
    if isinstance(ann, str):
        return ann
    if isinstance(ann, type):
        return ann.__name__
    return str(ann).replace("typing.", "")
