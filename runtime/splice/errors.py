""":class:`LoopliftSQLError`: a query :func:`looplift.sql` cannot run, shown at its call."""

from __future__ import annotations

__all__ = ["LoopliftSQLError", "first_line"]


class LoopliftSQLError(ValueError):
    """A query looplift cannot run, with the position of the call it is about."""

    def __init__(self, message: str, query: str | None = None, start: int | None = None,
                 end: int | None = None) -> None:  # fmt: skip
        self.reason = message
        self.line = self.col = None
        text = f"looplift.sql: {message}"
        if query is not None and start is not None:
            line = query.count("\n", 0, start) + 1
            col = start - (query.rfind("\n", 0, start) + 1) + 1
            self.line, self.col = line, col
            src = query.splitlines()[line - 1] if query.splitlines() else ""
            width = max(1, min((end or start) - start + 1, len(src) - col + 1))
            text = (
                f"looplift.sql: line {line}, col {col}: {message}\n"
                f"  {src}\n  {' ' * (col - 1)}{'^' * width}"
            )
        super().__init__(text)


def first_line(e: Exception) -> str:
    """The first line of an exception's message (Spark's are long)."""
    return str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
