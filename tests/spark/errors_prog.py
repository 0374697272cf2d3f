"""Algorithms whose compiled plans raise, for ``test_runtime_errors.py``.

Each failing statement is on its own line, marked with a comment ``# raises: <name>``;
the tests read the line numbers from this file, so the lines may move.
"""

from looplift import RowStream, State, action, dataflow, group_by

CODES = {"get": 1, "put": 2, "post": 3}


def checked(v: int) -> int:
    """A host function: plain Python, run as a vectorized Arrow function."""
    if v > 100:
        raise ValueError(f"too large: {v}")  # raises: host
    return v * 2


@dataflow(columns=("k", "n"))
def parse_counts(rows: RowStream[int, str]):
    for k, text in rows:
        yield k, int(text)  # raises: int


@dataflow(columns=("k", "q"))
def shares(rows: RowStream[int, int, int]):
    for k, a, b in rows:
        yield k, a // b  # raises: div


@dataflow(columns=("k", "v"))
def positives(rows: RowStream[int, int]):
    for k, v in rows:
        if v < 0:
            raise ValueError(f"negative value: {v}")  # raises: raise
        yield k, v


@dataflow(columns=("k", "v"))
def doubled(rows: RowStream[int, int]):
    for k, v in rows:
        yield k, checked(v)


@dataflow(columns=("k", "code"))
def method_codes(rows: RowStream[int, str]):
    for k, method in rows:
        yield k, CODES[method]  # raises: key


@dataflow(columns=("k", "total"))
def digit_sums(rows: RowStream[int, str]):
    """A ``while`` loop: a Python island, compiled at this file's lines."""
    for k, s in rows:
        total = 0
        i = 0
        while i < len(s):
            total += int(s[i])  # raises: island
            i += 1
        yield k, total


class Shares(State):
    """A user-defined state read in Python (an Arrow reducer per group)."""

    def __init__(self):
        self.counts = {}

    @action
    def add(self, x):
        self.counts[x] = self.counts.get(x, 0) + 1

    @add.undo
    def add(self, x):
        self.counts[x] -= 1

    def share_of(self, key):
        total = sum(self.counts.values())
        return self.counts[key] * 100 // total  # raises: state


@dataflow(columns=("k", "share"))
def ok_shares(rows: RowStream[int, str]):
    for k, g in group_by(0, rows):
        s = Shares()
        for _k, status in g:
            s.add(status)
        yield k, s.share_of("ok")
