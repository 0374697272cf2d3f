"""Algorithms whose Python calls (host functions, ``re``, str methods without a native
lowering) and raises sit behind guards (issue 24, items 3 and 4): on Spark, a call runs
only where Python reaches it, its arguments are evaluated only there, and of several
errors the one Python reaches first wins. ``subs`` and ``tail`` are the two programs
whose SQL used to grow exponentially."""

from __future__ import annotations

import re

from looplift import RowStream, dataflow, group_by


def shout(s: str) -> str:
    """A host function that raises on None (AttributeError), as Python would."""
    return s.upper() + "!"


def digits(s: str) -> int:
    """A host function that raises ValueError on text that is no number."""
    return int(s)


@dataflow
def clean_name(s: str | None) -> str | None:
    if s is None:
        return None
    t = s.strip()
    return t.title()


@dataflow
def loud(s: str | None) -> str:
    if s is None or s == "":
        return "?"
    return shout(s.strip())


@dataflow
def first_error(s: str, n: int) -> int:
    """ZeroDivisionError before the host function's ValueError (Python's order)."""
    a = 10 // n
    b = digits(s)
    return a + b


@dataflow
def key_of(s: str | None) -> str | None:
    if s is None or s.startswith("#"):
        return None
    m = re.match(r"(\w+)=", s)
    if m is None:
        return s.swapcase()
    return m.group(1).title()


@dataflow
def subs(s: str) -> str:
    # (?i): re.sub runs as a Python function (case folding differs between engines)
    s = re.sub("(?i)a", "b", s)
    s = re.sub("(?i)a", "b", s)
    s = re.sub("(?i)a", "b", s)
    s = re.sub("(?i)a", "b", s)
    s = re.sub("(?i)a", "b", s)
    s = re.sub("(?i)a", "b", s)
    return s


@dataflow
def subs_if(s: str) -> str:
    """Each value feeds a Python call and two native uses: as one SQL expression it would
    be copied into each (a Python call cannot take a lambda variable), 5^6 times; the
    function runs in Python as one call instead (``(?i)``: each re.sub is a Python call)."""
    s = re.sub("(?i)a", "b", s) if s else s
    s = re.sub("(?i)b", "c", s) if s else s
    s = re.sub("(?i)c", "d", s) if s else s
    s = re.sub("(?i)d", "e", s) if s else s
    s = re.sub("(?i)e", "f", s) if s else s
    s = re.sub("(?i)f", "g", s) if s else s
    return s


@dataflow
def tail(s: str) -> int:
    return int(s[s.rfind("-") + 1 :])


@dataflow(columns=("a", "b"))
def parse(lines: RowStream[str]):
    for (line,) in lines:
        m = re.search(r"(\w+)=(\w+)", line)
        if m is None:
            raise ValueError("bad line")
        yield m.group(1), int(m.group(2))


@dataflow(columns=("key", "loud", "n"))
def parse_host(lines: RowStream[str | None]):
    """A raise check, then a value computed by a host function before the yield."""
    for (line,) in lines:
        if line is None:
            raise ValueError("no line")
        n = digits(line.split("=")[-1])
        yield line.split("=")[0], shout(line), n


@dataflow(columns=("key", "label"))
def group_label(rows: RowStream[str, str | None]):
    """A group loop: the host function (ValueError on a key that is no number) runs only
    on the groups with two values or more."""
    for key, g in group_by(0, rows):
        n = 0
        for _k, v in g:
            if v is not None:
                n += 1
        label = None
        if n > 1:
            label = digits(key.strip()) * n
        yield key, label
