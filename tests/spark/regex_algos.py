"""Scalar algorithms with ``re`` calls the compiler lowers natively (issue 27, item 3), for
tests/spark/test_regex_native.py: each bundles many calls in one tuple, compared with
CPython on one batch of text per Spark job."""

import re

from looplift import dataflow

PAIR = re.compile(r"([a-z]+)=(\d+)?(;)?", re.ASCII)
WORDS = re.compile(r"[^\W\d_]+|\d+")  # refused: a negated class holding \W


@dataflow
def groups(s: str) -> tuple:
    m = PAIR.search(s)
    key = m.group(1) if m else None
    value = m.group(2) if m is not None else "no match"
    semi = m[3] if m else "-"
    whole = m.group() if m else ""
    head = re.match(r"(\S+)(?: (\S+))?", s)
    first = head.group(1) if head else None
    second = head.group(2) if head else None
    full = re.fullmatch(r"(?:[a-z\u00e9\u65e5]|\d)+", s)
    return (key, value, semi, whole, first, second, full is None, bool(re.search(r"\r|\n", s)),
            re.search(r"x$", s) is not None, re.match("\u00e9+", s) is not None)  # fmt: skip


@dataflow
def substitutions(s: str) -> tuple:
    p = re.compile(r"(\d+)-(\d+)")
    cleaned = re.sub(r"[ \t]+", " ", s)
    swapped = p.sub(r"\2/\1$\g<0>\\", s)
    dotted = re.sub(r".\.", r"\n", s, 0, re.DOTALL)  # noqa: B034 - the positional form is under test
    words = WORDS.search(s)
    return cleaned, swapped, dotted, re.sub(r"(a)|b", r"[\1]", s), words.group(0) if words else ""
