"""Scalar algorithms over strings for tests/spark/test_strings.py (one batch per job).

Each bundles many string operations in one tuple, so one Spark job compares them
all on a batch of hypothesis text against CPython.
"""

import re

from looplift import dataflow

KV = re.compile(r"(\w+)=(\d+)?")


@dataflow
def methods(s: str, t: str) -> tuple:
    return (
        s.strip(), s.lstrip(), s.rstrip(), s.strip(t), s.strip("ab "),
        s.lower(), s.upper(), s.startswith(t), s.endswith(t), s.startswith(("a", t)),
        s.find(t), t in s, "a" not in s, s.count("a"), s.count(""),
        s.replace("a", "<>"), s.replace(" ", ""), s.zfill(6), s.removeprefix("a"),
        s.removesuffix(t), len(s), s.split(), s.split(","), s.split(", ", 1), s.rsplit(","),
        "-".join((s, t)), ",".join(s.split()), s.title(), s.isdigit(),
    )  # fmt: skip


@dataflow
def slices(s: str, i: int) -> tuple:
    return s[1:3], s[-2:], s[:-1], s[::-1], s[i:], s[:i], s[i:i + 2], s[-i:], s[::2]


@dataflow
def pick(s: str, i: int) -> str:
    return s.split(",")[i] + "|" + s[i]


@dataflow
def to_int(s: str) -> int:
    return int(s)


@dataflow
def to_float(s: str) -> float:
    return float(s)


@dataflow
def formats(a: int, b: float, c: str, d: bool) -> str:
    return (
        f"{a}|{b}|{c}|{d}|{a:05d}|{a:+d}|{a:,}|{a:6}|{c:>6}|{c:*<4}|{b:.2f}|{a!r}|{c!r}"
        f"|{b:g}|{d:d}|{None}|{{lit}}|{c=}"
    )


@dataflow
def regex(s: str) -> tuple:
    m = KV.search(s)
    key = m.group(1) if m else None
    value = m.group(2) if m else "no"
    return (
        key, value, re.sub(r"\s+", " ", s), re.findall(r"\d", s),
        re.fullmatch(r"[a-z]*", s) is not None, bool(re.match(r"a|b", s)),
    )  # fmt: skip


@dataflow
def optional(s: str | None) -> str:
    if s is None:
        return "none"
    if not s:
        return "empty"
    return s.strip() + "!"


@dataflow
def optional_method(s: str | None) -> str:
    return s.upper()


@dataflow
def cases(s: str) -> tuple:
    return s.upper(), s.lower()


@dataflow
def strips(s: str) -> tuple:
    return s.strip(), s.lstrip(), s.rstrip(), (s + "\t").strip(), s.lower().rstrip()
