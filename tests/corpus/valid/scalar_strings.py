"""Strings: concatenation, repetition, str() of ints and floats, len,
comparisons (code-point order), min/max of strings."""

from looplift import dataflow


@dataflow
def greeting(name: str, n: int) -> str:
    return "Hello, " + name + "!" * n


@dataflow
def describe(label: str, value: float, count: int) -> str:
    s = label + "="
    s += str(value)
    s = s + " x" + str(count)
    if len(label) > 3:
        s = "[" + s + "]"
    return s


@dataflow
def compare_strings(a: str, b: str) -> tuple[bool, bool, bool, str]:
    return a < b, a == b, a + b != b + a, min(a, b) + max(a, b)


EXAMPLES = {
    "greeting": [("Ann", 2), ("Bo", 0)],
    "describe": [("temp", 21.5, 3), ("x", 0.1, -2), ("abc", 100.0, 0)],
    "compare_strings": [("apple", "banana"), ("ab", "ab"), ("B", "a")],
}

EXPECTED = {
    "greeting": ["Hello, Ann!!", "Hello, Bo"],
    # str(0.1) is "0.1" and str(100.0) is "100.0" (Python's repr, not Spark's cast)
    "describe": ["[temp=21.5 x3]", "x=0.1 x-2", "abc=100.0 x0"],
    # "B" (66) sorts before "a" (97)
    "compare_strings": [(True, False, True, "applebanana"), (False, True, False, "abab"),
                        (True, False, True, "Ba")],
}
