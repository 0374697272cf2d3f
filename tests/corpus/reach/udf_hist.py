"""Histogram of response times in 100 ms buckets."""
from looplift import RowStream, dataflow


@dataflow(columns=("bucket", "count"))
def histogram(latencies: RowStream[float]):
    buckets = {}
    for ms in latencies:
        b = int(ms // 100) * 100
        buckets[b] = buckets.get(b, 0) + 1
    for b in sorted(buckets):
        yield b, buckets[b]
