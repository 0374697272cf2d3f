"""A host function without annotations returning an int."""
from looplift import RowStream, dataflow


def bucket(x):
    return int(x) // 10


@dataflow(columns=("v", "b"))
def buckets(rows: RowStream[int]):
    for v in rows:
        yield v, bucket(v)
