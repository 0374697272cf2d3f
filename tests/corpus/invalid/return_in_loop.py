# expect: 11:13 return
"""A lookup that returns from inside the loop."""

from looplift import RowStream, dataflow


@dataflow
def find_name(rows: RowStream[int, str], wanted: int) -> str:
    for k, name in rows:
        if k == wanted:
            return name
    return ""
