"""`while` and `try ... finally` in scalar algorithms: each statement is a Python island (issue 25), its
free locals in and the names it assigns out; the rest of the function stays native."""

from looplift import dataflow


@dataflow
def digits(n: int) -> int:
    count = 1
    while n >= 10:
        n //= 10
        count += 1
    return count


@dataflow
def ratio_or_zero(a: int, b: int) -> int:
    try:
        v = a // b
    except ZeroDivisionError:
        v = 0
    finally:
        b = 1
    return v + b


EXAMPLES = {
    "digits": [(0,), (9,), (10,), (12345,), (-50,), (9223372036854775807,)],
    "ratio_or_zero": [(7, 2), (7, 0), (-7, 2), (0, 0)],
}
