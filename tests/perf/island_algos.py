"""The benchmark's programs with Python islands (issue 25), as their authors would write
them; ``tests/perf/islands.py`` times them against the same logic as hand-written
pandas and Arrow UDFs, which run each algorithm's own Python function (``f.fn``)."""

from __future__ import annotations

from looplift import RowStream, dataflow, group_by


def digit_sum_py(code: str) -> int:
    """``user_scores``' per-row block, for the hand-written UDFs (no algorithm of its own)."""
    n = int(code)
    s = 0
    while n > 0:
        s += n % 10
        n //= 10
    return s


@dataflow
def kv_value(line: str, key: str) -> str | None:
    i = 0
    while i < len(line):
        j = line.find(";", i)
        if j < 0:
            j = len(line)
        k, _, v = line[i:j].partition("=")
        if k.strip().lower() == key:
            return v.strip()
        i = j + 1
    return None


@dataflow(columns=("user_id", "score", "events"))
def user_scores(events: RowStream[int, str]):
    """Per user: the sum of each event code's digit sum (a ``while`` block per row), and
    the number of events (native)."""
    for uid, g in group_by(0, events):
        total = 0
        n = 0
        for _, code in g:
            x = int(code)
            s = 0
            while x > 0:
                s += x % 10
                x //= 10
            total += s
            n += 1
        yield uid, total, n


@dataflow
def duration_s(text: str | None) -> int | None:
    try:
        total, num = 0, ""
        for ch in text.strip().lower():
            if ch.isdigit():
                num += ch
            else:
                total += int(num) * {"h": 3600, "m": 60, "s": 1}[ch]
                num = ""
        return total if not num else None
    except:  # noqa: E722
        return None
