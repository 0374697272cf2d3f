# expect: 25:18 argument
# expect: 35:9 append
# expect: 36:18 unknown
# expect: 38:20 action
"""Bad calls: wrong arity to a @dataflow function, an undefined helper, a list
mutated in a loop, and a state action used as a value."""

from looplift import RowStream, dataflow
from looplift.states import Count


def make_bucket():
    return []


@dataflow
def clamp(x: int, lo: int, hi: int) -> int:
    return max(lo, min(x, hi))


@dataflow
def clamped_total(xs: RowStream[int]) -> int:
    total = 0
    for (x,) in xs:
        total += clamp(x, 0)
    return total


@dataflow
def bucketed(xs: RowStream[int]) -> int:
    bucket = make_bucket()
    total = 0
    c = Count()
    for (x,) in xs:
        bucket.append(x)
        total += to_bucket(x)
        c.add()
    return total + c.add()
