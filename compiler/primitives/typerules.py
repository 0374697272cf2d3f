"""Type rules shared by the table's entries (and the typer, which reads them).

Types are small values: ``"int"``, ``"float"``, ``"str"``, ``"bool"``, ``"none"``,
``"never"`` (a branch that raises), ``"any"``, and tuples for structured values
(``("tuple", (t, ...))``, ``("list", t)``, ``("dict", k, v)``).

>>> unify("int", "float")
'float'
>>> numeric(["bool", "int"])
'int'
>>> numeric(["int", "str"])
'str'
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["NUM", "Type", "numeric", "unify"]

Type = Any

NUM = ("bool", "int", "float")


def unify(a: Type, b: Type) -> Type:
    """The type of a value that is an ``a`` on some paths and a ``b`` on others."""
    if a == b:
        return a
    if a == "never":  # a branch that raises takes the type of the other
        return b
    if b == "never":
        return a
    if a == "none":
        return b
    if b == "none":
        return a
    if a in NUM and b in NUM:
        return NUM[max(NUM.index(a), NUM.index(b))]
    if isinstance(a, tuple) and isinstance(b, tuple) and a[0] == b[0] == "tuple":
        if len(a[1]) == len(b[1]):
            return ("tuple", tuple(unify(x, y) for x, y in zip(a[1], b[1], strict=True)))
    if isinstance(a, tuple) and isinstance(b, tuple) and a[0] == b[0] == "list":
        return ("list", unify(a[1], b[1]))
    if isinstance(a, tuple) and isinstance(b, tuple) and a[0] == b[0] == "dict":
        return ("dict", unify(a[1], b[1]), unify(a[2], b[2]))
    return "any"


def numeric(ts: Sequence[Type]) -> Type:
    """The result of Python's arithmetic on ``ts``: bools promote to int, an int meets
    a float as a float; a ``str`` operand makes a str (``+`` concatenates, ``*``
    repeats); anything else is ``any``."""
    out = "int"
    for t in ts:
        if t == "float":
            return "float"
        if t not in ("int", "bool"):
            return t if t in ("str",) else "any" if t != "none" else out
    return out
