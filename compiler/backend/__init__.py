"""The Spark backend: analysed programs → generated PySpark plans and SQL functions.

Declared limits (``CANNOT``) are reported as :class:`BackendError` with the
construct named.
"""

from __future__ import annotations

from typing import Any

from .plan import PlanModule, generate_plan
from .scalar import ScalarFunction, scalar_function
from .sql import BackendError

__all__ = ["BackendError", "PlanModule", "ScalarFunction", "generate_plan", "scalar_function",
           "CANNOT"]  # fmt: skip

CANNOT = (
    "algorithms over more than one RowStream",
    "a loop over rows inside another loop over rows (a cross product)",
    "iterating the whole input inside a group_by loop",
    "a loop inside an ordered loop",
    "action states fed from loops at different levels (additive states can)",
)


def backend_for(compiled: Any) -> Any:
    """The plan module (tables, aggregates) or SQL function (scalars) of a compiled algorithm."""
    if compiled.kind == "scalar":
        return scalar_function(compiled.program)
    return generate_plan(compiled.program)
