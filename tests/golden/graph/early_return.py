from looplift import dataflow


@dataflow
def sign(x: int) -> int:
    if x > 0:
        return 1
    if x < 0 and x != -1:
        return -1
    y = x * 2
    return y
