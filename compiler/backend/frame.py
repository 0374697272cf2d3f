"""A frame of a plan (its DataFrame variable, key columns and the values it holds as
columns), and how generated code names a frame and a column; :mod:`.frames` keeps them."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Frame", "SRC", "spark_col"]

SRC = "\x00"  # in a step's code: the frame's current variable (never inside a repr'd string)


def spark_col(sql: str) -> str:
    """Python for a Spark Column of ``sql``: ``F.col('x')`` for a plain column, else ``E(sql)``.

    >>> spark_col("`ts`"), spark_col("(`a` + 1L)")
    ("F.col('ts')", "E('(`a` + 1L)')")
    """
    name = sql[1:-1]
    if len(sql) > 2 and sql[0] == sql[-1] == "`" and name.isidentifier():
        return f"F.col({name!r})"
    return f"E({sql!r})"


@dataclass
class Frame:
    var: str  # current variable name in the generated code
    keys: tuple[str, ...]  # key columns (source field columns)
    cols: set[str] = field(default_factory=set)  # binders available as columns
