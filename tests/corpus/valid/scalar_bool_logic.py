"""and/or/not (with Python's operand-returning semantics), chained and
negated comparisons, conditional expressions, bool parameters."""

from looplift import dataflow


@dataflow
def in_range(x: int, lo: int, hi: int) -> bool:
    return lo <= x < hi


@dataflow
def classify(a: int, b: int, strict: bool) -> str:
    both = a > 0 and b > 0
    either = a > 0 or b > 0
    if both and not strict:
        return "both"
    elif both and a != b:
        return "both-distinct"
    elif either:
        return "one"
    return "none" if a == b else "neither"


@dataflow
def logic_values(a: int, b: int) -> tuple[int, int, bool, bool, bool]:
    return a and b, a or b, not a, a == b, a != b or a >= b


EXAMPLES = {
    "in_range": [(5, 0, 10), (10, 0, 10), (-1, 0, 10), (0, 0, 10)],
    "classify": [(1, 2, False), (1, 2, True), (2, 2, True), (0, 3, False), (0, 0, False),
                 (-1, -2, True)],
    "logic_values": [(0, 5), (3, 5), (2, 2)],
}

EXPECTED = {
    "in_range": [True, False, False, True],
    # (2, 2, strict): both, but a == b -> falls through to "one"
    "classify": ["both", "both-distinct", "one", "one", "none", "neither"],
    # `and`/`or` return an operand: 0 and 5 -> 0, 0 or 5 -> 5; 3 and 5 -> 5, 3 or 5 -> 3
    "logic_values": [(0, 5, True, False, True), (5, 3, False, False, True),
                     (2, 2, False, True, True)],
}
