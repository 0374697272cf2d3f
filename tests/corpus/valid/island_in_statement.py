"""Several constructs without a native lowering in one statement (a lambda, a list
comprehension, a bytes literal; bitwise operators are native): each right-hand side is
one Python island (issue 25), and the `+=` around it stays a native sum."""

from looplift import RowStream, dataflow


def apply(f, x) -> int:
    return f(x)


@dataflow
def mixed(rows: RowStream[int, int]) -> int:
    total = 0
    for a, b in rows:
        total += apply(lambda y: y + 1, a) + len([c for c in (a, b)])
        total += (a & b) | len(b"ab")
    return total


EXAMPLES = {"mixed": [([(1, 2), (3, 4)],), ([],), ([(-5, 6)],)]}
