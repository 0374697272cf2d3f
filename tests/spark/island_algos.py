"""Algorithms with Python islands (issue 25): constructs with no native lowering run as
vectorized Python at the smallest enclosing unit (``compiler/frontend/islands.py``)."""

from __future__ import annotations

import contextlib
from collections import Counter
from typing import NamedTuple

from looplift import RowStream, dataflow, group_by


@dataflow
def parse_int(s: str | None) -> int | None:
    """A bare ``except:`` around parsing: the whole function is one island."""
    try:
        return int(s.strip())
    except:  # noqa: E722
        return None


@dataflow
def initials(s: str) -> str:
    """A word loop building a string: one statement island, the rest native."""
    out = ""
    for w in s.split():
        out += w[0]
    return out.upper()


@dataflow
def collatz(n: int) -> int:
    """A ``while`` loop: a statement island with the loop's inputs in and outputs out."""
    steps = 0
    while n > 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps * 2


@dataflow
def digit_total(code: str, base: int) -> int:
    """``x = int(code)`` and ``s = 0`` feed only the ``while``: the island takes them in
    (its input is ``code``); ``k`` is read after the loop as well, so it stays native."""
    k = base * 2
    x = int(code)
    s = 0
    while x > 0:
        s += x % 10
        x //= 10
    return s + k


@dataflow
def power_mod(b: int, e: int) -> int:
    """Big ints inside an island: ``b ** e`` is exact in Python before the ``%``."""
    r = 0
    while r < 1:
        r = b**e % 1000003 + 1
    return r - 1


@dataflow
def digit_sum(s: str) -> int:
    """An island that raises what Python raises (``int('x')``: ValueError, its message)."""
    total = 0
    i = 0
    while i < len(s):
        total += int(s[i])
        i += 1
    return total


@dataflow
def top_word(s: str) -> str:
    """``Counter(...).most_common`` as the returned value (IndexError on no words)."""
    words = s.lower()
    return Counter(words.split()).most_common(1)[0][0]


@dataflow
def safe_div(a: int, b: int) -> int:
    """An island under an ``if``: it runs only on its path (else ZeroDivisionError)."""
    if b == 0:
        return -1
    q = 0
    while a >= b * (q + 1):
        q = a // b
    return q


@dataflow
def lead(s: str | None) -> int | None:
    """None crossing the boundary both ways."""
    n = None
    if s is not None:
        k = 0
        while k < len(s) and s[k] == " ":
            k += 1
        n = k if k < len(s) else None
    return n


@dataflow(columns=("id", "n"))
def long_words(rows: RowStream[int, str]):
    """Per-row code inside a loop over rows: the inner word loop is an island."""
    for i, s in rows:
        n = 0
        for w in s.split():
            if len(w) > 3:
                n += 1
        yield i, n


@dataflow(columns=("k", "total"))
def group_parse(rows: RowStream[str, str]):
    """A bare ``except:`` per row inside a group loop; the sum stays native."""
    for k, g in group_by(0, rows):
        total = 0
        for _, v in g:
            try:
                x = int(v)
            except:  # noqa: E722
                x = 0
            total += x
        yield k, total


@dataflow(columns=("k", "path"))
def ordered_path(rows: RowStream[str, int, str]):
    """An island in an ordered loop's body (the ordered carry stays the loop's)."""
    for k, g in group_by(0, rows, order_by=1):
        path = ""
        for _k, _t, page in g:
            step = page
            while step.startswith("/"):
                step = step[1:]
            path = path + ">" + step if path else step
        yield k, path


@dataflow(columns=("k", "total"))
def digits_total(rows: RowStream[str, str]):
    """An island per row in a group's sum that raises what Python raises (ValueError)."""
    for k, g in group_by(0, rows):
        total = 0
        for _, v in g:
            n = 0
            i = 0
            while i < len(v):
                n = n * 10 + int(v[i])
                i += 1
            total += n
        yield k, total


def _apply(f, x):  # no annotation: the island's type is learned from the data
    return f(x)


@dataflow(columns=("k", "m"))
def probed(rows: RowStream[int, int]):
    """An island whose type nothing says: a DataFrame call learns it from its first rows."""
    for k, n in rows:
        m = _apply(lambda y: y * 3, n)
        yield k, m + 1


@dataflow(columns=("k", "total"))
def skip_bad(rows: RowStream[str, str]):
    """A bare ``except: continue`` per row: the island returns whether it continued."""
    for k, g in group_by(0, rows):
        total = 0
        for _, v in g:
            try:
                x: int = int(v)
            except:  # noqa: E722
                continue
            total += x
        yield k, total


@dataflow(columns=("i", "n"))
def rows_skip(rows: RowStream[int, str]):
    """``except Exception: continue`` in a loop over rows: rows that fail yield nothing."""
    for i, v in rows:
        try:
            n: int = int(v) * 2
        except Exception:
            continue
        yield i, n


def _bump(f, x) -> int:
    return f(x)


@dataflow
def encoded_len(s: str) -> int:
    """A `with` holding a `return`: the whole function is one island."""
    with contextlib.suppress(UnicodeEncodeError):
        return len(s.encode("utf-8"))
    return -1


@dataflow
def bumped(n: int) -> int:
    """A lambda passed to a helper, returned: the returned value is the island."""
    return _bump(lambda y: y + 1, n)


@dataflow(columns=("k", "level"))
def drained(rows: RowStream[str, int, int]):
    """A loop body per group: the ``while`` reads and writes a value carried from row to
    row in time order, so the island runs per group in the ordered reducer's Python."""
    for k, g in group_by(0, rows, order_by=1):
        level = 0
        for _, _t, v in g:
            level += v
            while level > 100:
                level //= 2
        yield k, level


class Visit(NamedTuple):
    user: str
    page: str
    n: int


@dataflow(columns=("user", "steps"))
def row_fields(visits: RowStream[Visit]):
    """Named rows: the island takes the fields it reads (``v.n``, ``v.page``), not the
    row; ``k = 0`` before the loop goes in with it."""
    for v in visits:
        k = 0
        while k < v.n and k < len(v.page):
            k += 1
        yield v.user, k


@dataflow(columns=("user", "score"))
def group_row_fields(visits: RowStream[Visit]):
    """A named group's rows: a per-row island over ``v.n`` inside native sums."""
    for user, g in group_by(lambda v: v.user, visits):
        total = 0
        for v in g:
            x = v.n
            while x > 9 + len(v.page):
                x = x // 10 + x % 10
            total += x
        yield user, total


@dataflow(columns=("id", "k", "sq"))
def counted(rows: RowStream[int, int]):
    """A ``while`` that yields rows (``row[1]`` read by position): the island returns the
    rows it yields, the plan explodes them; big squares cross as Python's ints."""
    for row in rows:
        k = 0
        while k < row[1]:
            yield row[0], k, k * k * row[0]
            k += 1


@dataflow(columns=("k", "word", "pos"))
def split_words(rows: RowStream[str, str]):
    """A loop over ``s.split()`` that yields per word inside a group loop, with a ``try``
    whose failure yields a marker row (the rows' types come from the yielded values)."""
    for k, g in group_by(0, rows):
        for _, s in g:
            pos = 0
            for w in s.split():
                try:
                    yield k, w, int(w) + pos
                except ValueError:
                    yield k, w.upper(), -1
                pos += 1


@dataflow(columns=("user", "i", "page"))
def visit_steps(visits: RowStream[Visit]):
    """Named rows into a yielding island; an error inside it is Python's (ZeroDivisionError
    when ``n`` is 0 and the page is not empty)."""
    for v in visits:
        i = 0
        while i < len(v.page):
            yield v.user, i, v.page[i] * (10 // v.n)
            i += 1


@dataflow(columns=("k", "t", "x"))
def ordered_halvings(rows: RowStream[str, int, int]):
    """A yielding ``while`` that also updates a value carried from row to row in time
    order: it runs per group in the ordered reducer's Python, its rows with the loop's."""
    for k, g in group_by(0, rows, order_by=1):
        level = 0
        for _, t, v in g:
            level += v
            while level > 100:
                level //= 2
                yield k, t, level


@dataflow(columns=("id", "step", "x"))
def halvings(rows: RowStream[int, int]):
    """A yielding ``while`` whose count is read after it: the island returns its rows and
    the count."""
    for i, n in rows:
        x = n
        steps = 0
        while x > 1:
            x //= 2
            steps += 1
            yield i, steps, x
        yield i, -1, steps


@dataflow(columns=("user", "step", "value"))
def rebound_field(seeds: RowStream[str, int]):
    """A row's field rebound inside a yielding ``while`` and read by nothing after it (the
    next row binds it again): the island returns only its rows, no ``n``."""
    for user, g in group_by(0, seeds):
        for _, n in g:
            step = 0
            while n != 1 and step < 20:
                n = n // 2 if n % 2 == 0 else 3 * n + 1
                step += 1
                yield user, step, n
