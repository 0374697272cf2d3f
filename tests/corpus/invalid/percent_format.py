# expect: 13:26 tuple
# expect: 18:12 arguments
# expect: 23:12 arguments
"""`%` formatting whose values do not match its conversions: Python raises TypeError on
every call, so it stays refused. (A conversion with no native lowering, `"n=%5d" % x`, is a
Python island: valid/island_formats.py.)"""

from looplift import dataflow


@dataflow
def pair(x: int, y: int) -> str:
    return "%d and %d" % x + str(y)


@dataflow
def too_many(x: int, y: int) -> str:
    return "%d" % (x, y)


@dataflow
def none_wanted(x: int) -> str:
    return "plain" % x
