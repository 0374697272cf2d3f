"""Table algorithms reading match objects (``if m:``, ``m.group(k)``) for
tests/spark/test_match_reads.py: the match test and the groups read where they are used,
the yield's filter first (issue 27, items 2 and 5)."""

import re

from looplift import RowStream, dataflow

LINE = re.compile(r"(\d+)-(\w+)(?:=(\d+))?", re.ASCII)


@dataflow(columns=("k", "num", "word", "eq"))
def parsed(lines: RowStream[int, str]):
    """One filter, then the groups read (group 3 takes no part in some matches: None)."""
    for k, line in lines:
        m = LINE.match(line)
        if m:
            yield k, m.group(1), m.group(2), m.group(3)


@dataflow(columns=("k", "first", "word"))
def checked_before(lines: RowStream[int, str]):
    """``int()`` on every row, before the test: it raises on rows the yield drops too."""
    for k, line in lines:
        first = int(line[:1]) if line else -1
        m = LINE.search(line)
        if m:
            yield k, first, m.group(2)


@dataflow(columns=("k", "word"))
def unguarded(lines: RowStream[int, str | None]):
    """``m.group`` without a test: AttributeError where nothing matches, TypeError on None."""
    for k, line in lines:
        m = re.fullmatch(r"([a-z\u00e9]+)(\d)?", line)
        yield k, m.group(1)


@dataflow(columns=("k", "word", "line"))
def both_branches(lines: RowStream[int, str]):
    """Two yields (no filter first): the else branch reads the groups."""
    for k, line in lines:
        m = LINE.search(line)
        if not m:
            yield k, "none", line
        else:
            yield k, m.group(2), m.group(0)


@dataflow(columns=("k", "word", "n"))
def nested(lines: RowStream[int, str]):
    """The match test inside another condition, a group compared before it is yielded."""
    for k, line in lines:
        text = line.strip()
        if text and not text.startswith("#"):
            m = LINE.match(text)
            if m and m.group(1) != "0":
                yield k, m.group(2).lower(), int(m.group(1)[:9])
