# expect: 10:18 unknown
"""Calling a function that is defined nowhere."""

from looplift import RowStream, dataflow


@dataflow(columns=("k", "url"))
def cleaned(rows: RowStream[int, str]):
    for k, url in rows:
        yield k, normalise(url)
