"""The backend's limits as compiler diagnostics (``path:line:col: error: ...``)."""

from __future__ import annotations

from ..errors import CompilerError, Diagnostic
from ..ir.nodes import UNKNOWN, Span

__all__ = ["BackendError", "PREFIX"]

PREFIX = "cannot be built for Spark: "
#: the way out of a backend limit that names none of its own
HINT = ("write it another way (README, \"The language\", lists what compiles), or move it into "
        "a module-level function: a host function runs as Python")  # fmt: skip


class BackendError(CompilerError):
    """The program uses something the Spark backend cannot run (a declared limit).

    Raised with the construct's span where the backend knows it; the plan
    generator names the algorithm and falls back to its ``def`` line.
    """

    phase = "backend"

    def __init__(
        self, message: str | list[Diagnostic] | Diagnostic, span: Span = UNKNOWN, hint: str = ""
    ) -> None:
        if isinstance(message, str):
            message = Diagnostic(span, message, hint)
        super().__init__(message)

    @property
    def message(self) -> str:
        return "; ".join(d.message for d in self.diagnostics)

    def placed(self, span: Span) -> BackendError:
        """The same limits, the unplaced ones placed at ``span`` (the construct being
        rendered); itself when every one has a place or ``span`` has none."""
        if not span.line or all(d.span.line for d in self.diagnostics):
            return self
        return BackendError([d if d.span.line else Diagnostic(span, d.message, d.hint)
                             for d in self.diagnostics])  # fmt: skip

    def of_algorithm(self, name: str, span: Span) -> BackendError:
        """The same limits, said of algorithm ``name``, placed at ``span`` when unplaced."""
        out = []
        for d in self.diagnostics:
            msg = d.message if PREFIX in d.message else f"`{name}` {PREFIX}{d.message}"
            out.append(Diagnostic(d.span if d.span.line else span, msg, d.hint or HINT))
        return BackendError(out)

    def __str__(self) -> str:
        if not any(d.span.line for d in self.diagnostics):
            return self.message  # no place known (looplift.sql's aggregate expression)
        return super().__str__()
