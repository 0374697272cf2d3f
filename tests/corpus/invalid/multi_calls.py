# expect: 25:18 argument
# expect: 34:9 append
# expect: 34:23 unknown
# expect: 36:12 action
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
    c = Count()
    for (x,) in xs:
        bucket.append(to_bucket(x))
        c.add()
    return c.add()
