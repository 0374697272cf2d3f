"""Access-log parsing: ``str`` methods, f-strings, ``int()`` and ``re`` on raw log lines.

``parse_access`` reads nginx/Apache "combined" lines with the user agent in a
separate, nullable column. Blank lines, comments (``#``) and lines that do not
match are skipped; every other line gives one row: the client, the request as
``"METHOD /path"`` (query string dropped, path lower-cased), the status, the
size (``-`` is 0), the hour of the timestamp and whether the agent is a bot.
The string work is native Spark SQL (``trim`` with Python's whitespace,
``split``, ``lower``, ``contains``, ``int()`` checked against Python's
grammar), and so is the regular expression: translated to a Java regex that
matches exactly what Python's does (``\\S`` and ``\\d`` as the classes of
characters CPython puts in them), read with ``regexp_like`` and
``regexp_extract``.

``status_summary`` aggregates the same lines: lines parsed, server errors
(5xx) and bytes served, as native sums.

>>> log = [
...     (1, '203.0.113.9 - - [10/Oct/2024:13:55:36 +0000] "GET /Shop/Cart?id=7 HTTP/1.1" 200 2326',
...      "Mozilla/5.0"),
...     (2, "  # rotated  ", None),
...     (3, '10.0.0.2 - bob [10/Oct/2024:14:02:01 +0000] "POST /api/orders HTTP/1.1" 503 -',
...      "Googlebot/2.1"),
...     (4, "garbage", None),
... ]
>>> parse_access(log)
[(1, '203.0.113.9', 'GET /shop/cart', 200, 2326, 13, False), (3, '10.0.0.2', 'POST /api/orders', 503, 0, 14, True)]
>>> status_summary(log)
(2, 1, 2326)
"""

import re

from looplift import RowStream, dataflow

LINE = re.compile(r'(\S+) \S+ \S+ \[([^\]]+)\] "([A-Z]+) (\S+)[^"]*" (\d{3}) (\d+|-)')


@dataflow(columns=("line_no", "client", "request", "status", "size", "hour", "bot"))
def parse_access(lines: RowStream[int, str, str | None]):
    """One row per parsed access-log line."""
    for line_no, line, agent in lines:
        text = line.strip()
        if text and not text.startswith("#"):
            m = LINE.match(text)
            if m:
                path = m.group(4).split("?")[0].lower()
                stamp = m.group(2)
                hour = int(stamp.split(":")[1]) if ":" in stamp else -1
                size = int(m.group(6)) if m.group(6) != "-" else 0
                bot = agent is not None and "bot" in agent.lower()
                yield line_no, m.group(1), f"{m.group(3)} {path}", int(m.group(5)), size, hour, bot


@dataflow
def status_summary(lines: RowStream[int, str, str | None]) -> tuple[int, int, int]:
    """(lines parsed, server errors, bytes served)."""
    parsed = 0
    errors = 0
    served = 0
    for _line_no, line, _agent in lines:
        m = LINE.match(line.strip())
        if m:
            parsed += 1
            if m.group(5).startswith("5"):
                errors += 1
            if m.group(6) != "-":
                served += int(m.group(6))
    return parsed, errors, served
