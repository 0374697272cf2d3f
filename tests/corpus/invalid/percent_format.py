# expect: 13:12 conversion
# expect: 18:26 tuple
# expect: 23:12 arguments
# expect: 28:12 arguments
"""`%` formatting of a constant format: only %d, %i, %s, %f, %.<digits>f and %%, with one
value per conversion (Python raises TypeError on a count that does not match)."""

from looplift import dataflow


@dataflow
def padded(x: int) -> str:
    return "n=%5d" % x


@dataflow
def pair(x: int, y: int) -> str:
    return "%d and %d" % x + str(y)


@dataflow
def too_many(x: int, y: int) -> str:
    return "%d" % (x, y)


@dataflow
def none_wanted(x: int) -> str:
    return "plain" % x
