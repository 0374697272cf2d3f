"""The Spark backend: compiled algorithms (dataflow graph + program) → PySpark plans and SQL.

Tables and aggregates become a generated plan module (:func:`generate_plan`,
which visits the dataflow graph); scalars a SQL function
(:func:`scalar_function`). What the backend cannot run is a
:class:`BackendError`: a compiler diagnostic at the construct's source line
(or, when the backend does not know it, at the algorithm's ``def``).
"""

from __future__ import annotations

import os

from ..errors import CompilerError, Diagnostic
from ..program import AlgorithmKind

# the modules that register the typer's rules (in rules.py) and hooks (in types.py): the
# typer imports none of them, and whatever imports the backend has them registered
from . import combinatorics, container_loops, containers, host_diagnostics, host_types, reader_types  # noqa: F401
from .context import Compiled
from .errors import BackendError
from .plan import PlanModule, generate_plan
from .scalar import ScalarFunction, scalar_function

__all__ = ["BackendError", "PlanModule", "ScalarFunction", "backend_for", "generate_plan",
           "scalar_function"]  # fmt: skip


def backend_for(compiled: Compiled) -> PlanModule | ScalarFunction:
    """The plan module (tables, aggregates) or SQL function (scalars) of a compiled algorithm.

    Everything that goes wrong is a :class:`~..errors.CompilerError` placed in the user's
    source: a backend limit at its construct (else at the ``def``), any other failure (a
    compiler bug) as an internal error at the ``def`` (``LOOPLIFT_DEBUG=1`` raises it)."""
    fn = compiled.program.fn
    try:
        if compiled.kind == AlgorithmKind.SCALAR:
            return scalar_function(compiled.program)
        return generate_plan(compiled)
    except BackendError as e:
        raise e.of_algorithm(fn.name, fn.span) from None
    except CompilerError:
        raise
    except Exception as e:  # a compiler bug: a diagnostic, not a traceback
        if os.environ.get("LOOPLIFT_DEBUG") == "1":
            raise
        msg = (f"internal error, please report: building the Spark plan of `{fn.name}` failed "
               f"with {type(e).__name__}: {e}")  # fmt: skip
        hint = "rerun with LOOPLIFT_DEBUG=1 for the traceback, and report it with this algorithm"
        raise CompilerError(Diagnostic(fn.span, msg, hint)) from e
