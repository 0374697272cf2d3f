"""The table of primitives: for each, its type rule, CPython reference, partiality and
native lowering (see :mod:`.base`). The typer, the expression renderer, ``runs_python``
(``--explain``) and the IR's table of primitives read it; nothing else decides.

It sits below the frontend and the backend and imports neither.

>>> PRIMITIVES["math.floor"].result_type(["float"])
'int'
>>> PRIMITIVES["math.atan"].total
True
"""

from __future__ import annotations

from .base import NOT_LIT, Primitive, Raises, Site, TypeRefused
from .containers import CONTAINERS
from .datetimes import DATETIMES
from .mathfuncs import MATH
from .strmethods import STRING_NAMES, STRING_PRIMS

__all__ = [
    "CONTAINERS", "DATETIMES", "MATH", "MATH_NAMES", "NOT_LIT", "PRIMITIVES", "Primitive",
    "Raises", "STRING_NAMES", "STRING_PRIMS", "Site", "TypeRefused", "lookup",
]  # fmt: skip

PRIMITIVES: dict[str, Primitive] = {
    p.name: p for p in (*MATH, *DATETIMES, *CONTAINERS, *STRING_PRIMS)
}
MATH_NAMES: tuple[str, ...] = tuple(p.name.removeprefix("math.") for p in MATH)


def lookup(name: str) -> Primitive | None:
    return PRIMITIVES.get(name)
