"""The Spark backend: compiled algorithms (dataflow graph + program) → PySpark plans and SQL.

Tables and aggregates become a generated plan module (:func:`generate_plan`,
which visits the dataflow graph); scalars a SQL function
(:func:`scalar_function`). What the backend cannot run is a
:class:`BackendError`: a compiler diagnostic at the construct's source line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .errors import BackendError
from .plan import PlanModule, generate_plan
from .scalar import ScalarFunction, scalar_function

if TYPE_CHECKING:
    from ..pipeline import Compiled

__all__ = ["BackendError", "PlanModule", "ScalarFunction", "backend_for", "generate_plan",
           "scalar_function"]  # fmt: skip


def backend_for(compiled: Compiled) -> PlanModule | ScalarFunction:
    """The plan module (tables, aggregates) or SQL function (scalars) of a compiled algorithm."""
    if compiled.kind == "scalar":
        return scalar_function(compiled.program)
    return generate_plan(compiled)
