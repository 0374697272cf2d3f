"""The join of two types of the backend's vocabulary (``int``, ``float``, ``str``,
``("list", T)``, ``("tuple", (T, ...))``, ``("dict", K, V)``, ``none``, ``never``,
``any``): the type of a value that is one or the other. Type rules of the table use it;
``backend.types.unify`` is this function.

>>> unify("int", "float"), unify("none", ("list", "int")), unify("str", "int")
('float', ('list', 'int'), 'any')
"""

from __future__ import annotations

from typing import Any

__all__ = ["NUM", "unify"]

NUM = ("bool", "int", "float")


def unify(a: Any, b: Any) -> Any:
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
