"""Regular expressions as native Spark SQL: a log parser and a text-cleaning scalar with ``re``.

``parse_log`` reads application log lines (``2024-03-07 13:05:59 [ERROR] db.pool:
timeout after 30s``) with one compiled pattern: lines that do not match are skipped,
the others give the day, hour, level, logger and message. ``clean_text`` strips HTML
tags, collapses runs of whitespace and rewrites ``m/d/yyyy`` dates as ``yyyy-m-d``
with ``re.sub``; ``clean_text_ascii`` is the same with ``re.ASCII`` dates.

Both run fully natively (``uda-compile samples/regex_text.py --explain``): each pattern
is translated to a Java regex that matches exactly what CPython's ``re`` matches (``\\d``
as the class of the characters CPython counts as digits, ``$`` and ``.`` with Python's
idea of a line end), read with ``regexp_like`` / ``regexp_extract`` and rewritten with
``regexp_replace``; a pattern outside that subset would run as a Python function, and
``--explain`` would name the construct.

>>> parse_log([(1, "2024-03-07 13:05:59 [ERROR] db.pool: timeout after 30s"),
...            (2, "garbage"), (3, "2024-03-07 13:06:00 [INFO] web: ")])
[(1, '2024-03-07', '13', 'ERROR', 'db.pool', 'timeout after 30s'), (3, '2024-03-07', '13', 'INFO', 'web', '')]
>>> clean_text("<p>Paid  on\\t3/14/2024</p>")
' Paid on 2024-3-14 '
"""

import re

from looplift import RowStream, dataflow

LINE = re.compile(r"(\d{4}-\d\d-\d\d) (\d\d):\d\d:\d\d \[(ERROR|WARN|INFO|DEBUG)\] ([\w.]+): (.*)", re.ASCII)


@dataflow(columns=("line_no", "day", "hour", "level", "logger", "message"))
def parse_log(lines: RowStream[int, str]):
    """One row per log line that parses."""
    for line_no, line in lines:
        m = LINE.match(line)
        if m:
            yield line_no, m.group(1), m.group(2), m.group(3), m.group(4), m.group(5)


@dataflow
def clean_text(s: str) -> str:
    """Tags out, whitespace collapsed, m/d/yyyy dates as yyyy-m-d."""
    s = re.sub(r"<[^>]+>", " ", s)
    s = re.sub(r"[ \t\r\n]+", " ", s)
    return re.sub(r"(\d{1,2})/(\d{1,2})/(\d{4})", r"\3-\1-\2", s)


@dataflow
def clean_text_ascii(s: str) -> str:
    """``clean_text`` with ASCII digits only (``re.ASCII``: ``\\d`` is ``[0-9]``, as Java's)."""
    s = re.sub(r"<[^>]+>", " ", s)
    s = re.sub(r"[ \t\r\n]+", " ", s)
    return re.sub(r"(\d{1,2})/(\d{1,2})/(\d{4})", r"\3-\1-\2", s, 0, re.ASCII)  # noqa: B034 - positional, as users write it
