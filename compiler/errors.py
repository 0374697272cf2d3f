"""Compiler errors: one base class, a subclass per phase, rendered like a C compiler.

A user-facing error prints ``path:line:col: error: message``, the source line,
a caret under the construct, and a hint saying what to do instead. A phase
collects every problem of a file before raising once.
"""

from __future__ import annotations

import linecache
from dataclasses import dataclass

from .ir.nodes import UNKNOWN, Span

__all__ = [
    "CompilerError",
    "Diagnostic",
    "FrontendError",
    "PassError",
    "render",
]


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One problem at one place in the user's source."""

    span: Span
    message: str
    hint: str = ""
    severity: str = "error"

    def render(self) -> str:
        s = self.span
        where = f"{s.path}:{s.line}:{s.col}" if s is not UNKNOWN and s.line else s.path
        out = [f"{where}: {self.severity}: {self.message}"]
        if s.line:
            text = linecache.getline(s.path, s.line).rstrip("\n")
            if text:
                width = 1
                if s.end_line == s.line and s.end_col > s.col:
                    width = s.end_col - s.col
                out.append(f"    {text}")
                out.append("    " + " " * (s.col - 1) + "^" * max(1, width))
        if self.hint:
            out.append(f"  hint: {self.hint}")
        return "\n".join(out)


class CompilerError(Exception):
    """Base of all user-facing compiler errors; carries every diagnostic found."""

    phase = "compile"

    def __init__(self, diagnostics: list[Diagnostic] | Diagnostic):
        if isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics = sorted(
            diagnostics, key=lambda d: (d.span.path, d.span.line, d.span.col, d.message)
        )
        super().__init__(render(self.diagnostics))


class FrontendError(CompilerError):
    """The source uses Python that looplift does not compile."""

    phase = "frontend"


class PassError(CompilerError):
    """A pass found the program ill-formed (scope, state, order violations)."""

    phase = "passes"


def render(diagnostics: list[Diagnostic]) -> str:
    body = "\n".join(d.render() for d in diagnostics)
    n = len(diagnostics)
    return f"{body}\n{n} error{'s' if n != 1 else ''}"
