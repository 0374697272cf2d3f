"""The table of primitives: for each, its type rule, CPython reference, partiality and
native lowering (see :mod:`.base`; operators and builtins: :mod:`.operator`). The typer,
the expression renderer, ``runs_python`` (``--explain``) and the IR's table of
primitives read it; nothing else decides.

It sits below the frontend and the backend and imports neither.

>>> PRIMITIVES["math.floor"].result_type(["float"])
'int'
>>> PRIMITIVES["math.atan"].total
True
>>> PRIMITIVES["add"].result_type(["bool", "int"])
'int'
"""

from __future__ import annotations

from .arith import ARITH
from .base import Primitive, Raises
from .compare import COMPARE
from .convert import CONVERT
from .mathfuncs import MATH
from .operator import Operator

__all__ = ["MATH", "MATH_NAMES", "OPERATORS", "PRIMITIVES", "Operator", "Primitive", "Raises",
           "lookup"]  # fmt: skip

#: arithmetic, comparisons, numeric builtins and conversions (``add``, ``lt``, ``round`` ...)
OPERATORS: tuple[Operator, ...] = (*ARITH, *COMPARE, *CONVERT)
PRIMITIVES: dict[str, Primitive] = {p.name: p for p in (*MATH, *OPERATORS)}
MATH_NAMES: tuple[str, ...] = tuple(p.name.removeprefix("math.") for p in MATH)


def lookup(name: str) -> Primitive | None:
    return PRIMITIVES.get(name)
