"""Order-dependent updates of loop-carried locals, allowed in ordered loops:
`acc *= 10`, `sign = -sign`, `p *= x`, `last = x`, `h = (h * 31 + x) % 101`,
`q //= x`."""

from looplift import RowStream, dataflow, group_by


@dataflow(columns=("id", "number"))
def digits_to_number(digits: RowStream[int, int, int]):
    for ident, ds in group_by(0, digits, order_by=1):
        acc = 0
        for _id, _pos, d in ds:
            acc *= 10
            acc += d
        yield ident, acc


@dataflow(columns=("id", "alternating", "product", "last", "hash", "q"))
def alternating(rows: RowStream[int, int, int]):
    for ident, g in group_by(0, rows, order_by=1):
        s = 0
        sign = 1
        p = 1
        last = 0
        h = 7
        q = 1000
        for _id, _pos, x in g:
            s += sign * x
            sign = -sign
            p *= x
            last = x
            h = (h * 31 + x) % 101
            q //= x
        yield ident, s, p, last, h, q


EXAMPLES = {
    "digits_to_number": [([(1, 2, 3), (1, 0, 1), (1, 1, 2), (2, 0, 7), (2, 1, 0)],)],
    "alternating": [([(1, 0, 5), (1, 2, 2), (1, 1, 3), (2, 0, -4)],)],
}

EXPECTED = {
    # id 1 by position: 1 2 3 -> 123; id 2: 7 0 -> 70
    "digits_to_number": [[(1, 123), (2, 70)]],
    # id 1 by position: 5, 3, 2 -> 5 - 3 + 2 = 4; 30; last 2;
    #   h: 7 -> 222 % 101 = 20 -> 623 % 101 = 17 -> 529 % 101 = 24; q: 1000 // 5 // 3 // 2 = 33
    # id 2: -4; -4; -4; (217 - 4) % 101 = 11; 1000 // -4 = -250
    "alternating": [[(1, 4, 30, 2, 24, 33), (2, -4, -4, -4, 11, -250)]],
}
