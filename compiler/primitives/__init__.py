"""The table of primitives: for each, its type rule, CPython reference, partiality and
native lowering (see :mod:`.base`, the condition language of partiality :mod:`.partiality`, the
lowering's operand trees :mod:`.sqltree`; operators and builtins: :mod:`.operator`). The typer,
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
from .base import NOT_LIT, Primitive, Site, TypeRefused
from .bitwise import BITWISE
from .combinatorics import COMBINATORICS
from .compare import COMPARE
from .containers import CONTAINERS
from .convert import CONVERT
from .datetimes import DATETIMES
from .mathfuncs import MATH
from .operator import Operator
from .partiality import Raises
from .strmethods import STRING_NAMES, STRING_PRIMS
from .windows import WINDOWS

__all__ = [
    "CONTAINERS", "DATETIMES", "MATH", "MATH_NAMES", "NOT_LIT", "OPERATORS", "PRIMITIVES",
    "Operator", "Primitive", "Raises", "STRING_NAMES", "STRING_PRIMS", "Site", "TypeRefused",
    "WINDOWS", "lookup",
]  # fmt: skip

#: arithmetic, comparisons, numeric builtins and conversions (``add``, ``lt``, ``round`` ...)
OPERATORS: tuple[Operator, ...] = (*ARITH, *BITWISE, *COMPARE, *CONVERT)
PRIMITIVES: dict[str, Primitive] = {
    p.name: p for p in (*MATH, *OPERATORS, *DATETIMES, *CONTAINERS, *COMBINATORICS, *STRING_PRIMS,
                  *WINDOWS)
}
MATH_NAMES: tuple[str, ...] = tuple(p.name.removeprefix("math.") for p in MATH)


def lookup(name: str) -> Primitive | None:
    return PRIMITIVES.get(name)
