"""Algorithms with string parameters and outputs, for SQL escaping tests."""

from looplift import RowStream, dataflow, group_by


@dataflow
def tag_total(rows: RowStream[str, int], tag: str) -> int:
    """Sum of the values whose name equals ``tag``."""
    total = 0
    for name, v in rows:
        if name == tag:
            total += v
    return total


@dataflow(columns=("name", "hits", "label"))
def tag_report(rows: RowStream[str, int], tag: str):
    """Per name: the number of rows, and ``tag`` glued to the name."""
    for name, group in group_by(0, rows):
        hits = 0
        for _n, _v in group:
            hits += 1
        yield name, hits, tag + name


@dataflow
def quoted(s: str) -> str:
    """``s`` between characters SQL must escape."""
    return "'" + s + "`;\\"


@dataflow
def scaled_total(rows: RowStream[int], factor: float) -> float:
    """The sum of the values times ``factor``."""
    total = 0.0
    for (v,) in rows:
        total += v * factor
    return total
