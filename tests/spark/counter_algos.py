"""Algorithms with Counters, containers that start with elements, sorted lists used as values
(tests/spark/test_counter.py): the shapes real UDFs write (issue 25, item 4).

>>> starting_values([(1, "EUR", 2), (1, "a", 3)])
[(1, 2, 1, 0, 5, 2)]
"""

import collections
import datetime
import re
from collections import Counter

from looplift import RowStream, dataflow, group_by

WORD = re.compile(r"[a-z]+", re.I)


@dataflow(columns=("u", "n_cur", "a", "b", "total", "n_vals"))
def starting_values(rows: RowStream[int, str, int]):
    """Per user: a set, a dict of counts and a list that start with elements."""
    for u, g in group_by(0, rows):
        seen = {"EUR"}
        counts = {"a": 0, "b": 0}
        acc = [0]
        for _u, cur, v in g:
            seen.add(cur)
            counts[cur] = counts.get(cur, 0) + 1
            acc.append(v)
        yield u, len(seen), counts["a"], counts["b"], sum(acc), len(acc)


@dataflow(columns=("u", "first", "n_keys", "has_x"))
def starting_ordered(rows: RowStream[int, int, str | None]):
    """In time order: a list that starts with a marker, a dict of sums that starts with two
    keys (its insertion order is Python's), a set read inside the loop."""
    for u, g in group_by(0, rows, order_by=1):
        path = ["start"]
        sums = {"x": 0, "y": 1}
        seen = {"x"}
        hits = 0
        for _u, _ts, page in g:
            if page in seen:
                hits += 1
            seen.add(page)
            path.append(page)
            sums[page] = sums.get(page, 0) + 1
        yield u, path[-1], list(sums.keys())[-1], hits


def quickselect_median(xs: list) -> float:
    """A host function over a list (a helper real UDFs write): the median by quickselect."""
    if not xs:
        raise ValueError("median of nothing")
    k = len(xs) // 2
    items = list(xs)
    while True:
        pivot = items[len(items) // 2]
        lows = [x for x in items if x < pivot]
        highs = [x for x in items if x > pivot]
        n_eq = len(items) - len(lows) - len(highs)
        if k < len(lows):
            items = lows
        elif k < len(lows) + n_eq:
            return float(pivot)
        else:
            k -= len(lows) + n_eq
            items = highs


@dataflow(columns=("u", "path", "last", "empty", "n0", "top", "med"))
def sorted_paths(rows: RowStream[int, int, str, float]):
    """In time order: the path joined, its last page; the values sorted in place by a key,
    and their median by a host function."""
    for u, g in group_by(0, rows, order_by=1):
        pages = []
        vals = []
        for _u, _ts, page, v in g:
            if not pages or pages[-1] != page:  # consecutive repeats once
                pages.append(page)
            vals.append(v)
        vals.sort(key=lambda x: -x)
        yield u, " > ".join(pages), pages[-1], not pages, len(pages) == 0, vals[0], quickselect_median(vals)


@dataflow(columns=("u", "hi", "lo", "second", "med"))
def sorted_unordered(rows: RowStream[int, float]):
    """Unordered: a list sorted in place (descending), read by position; a list given to a
    host function as it is."""
    for u, g in group_by(0, rows):
        vals = []
        for _u, v in g:
            vals.append(v)
        med = quickselect_median(vals)
        vals.sort(reverse=True)
        second = vals[1] if len(vals) > 1 else 0.0
        yield u, vals[0], vals[-1], second, med


@dataflow(columns=("u", "word", "n", "distinct", "total", "n_a"))
def top_words(rows: RowStream[int, str]):
    """Unordered: a Counter of a group's field, its two most common words (ties: the
    smaller word, the insertion order of rows that arrive sorted), ``c[k]`` of a missing
    key, ``len``, ``sum(c.values())``."""
    for u, g in group_by(0, rows):
        c = Counter(w for _u, w in g if w != "")
        for w, n in c.most_common(2):
            yield u, w, n, len(c), sum(c.values()), c["a"]


@dataflow(columns=("u", "first", "first_n", "k_top", "n_b", "has_none"))
def ordered_counts(rows: RowStream[int, int, str | None]):
    """In time order: a Counter of a local list (ties in first-occurrence order) and a
    Counter updated in the loop (``c[w] += 1``, ``c.update(...)``)."""
    for u, g in group_by(0, rows, order_by=1):
        words = []
        c = collections.Counter()
        for _u, _ts, w in g:
            words.append(w)
            c[w] += 1
            c.update((w, "x"))
        counts = collections.Counter(words)
        top = counts.most_common(1)
        k_top = [w for w, _n in c.most_common(3)]
        k_top = " ".join(w if w is not None else "-" for w in k_top)
        yield u, top[0][0], top[0][1], k_top, counts["b"], None in c and "b" not in counts


@dataflow
def compiled_patterns(s: str) -> str:
    """A pattern compiled in the function (and one at module level): ``match``, ``group``,
    ``sub``, ``findall``, ``search``, ``split``, flags or'ed together."""
    pat = re.compile(r"(\d+)-(\d+)")
    m = pat.match(s)
    if m:
        return m.group(2) + pat.sub("#", s) + str(len(WORD.findall(s)))
    spaces = re.compile(r"\s+", re.IGNORECASE | re.M)
    if spaces.search(s):
        return "|".join(spaces.split(s.strip(), 1)) + spaces.sub(" ", s)
    return s


@dataflow(columns=("u", "n_ids", "tags"))
def compiled_in_loop(rows: RowStream[int, str]):
    """A pattern compiled in a group loop, used on each row and after the loop."""
    for u, g in group_by(0, rows):
        ident = re.compile(r"^id(\d{1,3})$")
        n_ids = 0
        for _u, s in g:
            if ident.fullmatch(s):
                n_ids += 1
        yield u, n_ids, ident.sub("x", "id12")


@dataflow
def parse_day(s: str) -> str:
    """``datetime.datetime.strptime`` with a constant format (ValueError on a mismatch, as
    CPython) and ``strftime`` of the result."""
    t = datetime.datetime.strptime(s, "%Y-%m-%d")
    return t.strftime("%d.%m.%Y") + " " + str(t.weekday())


@dataflow
def parse_iso(s: str) -> int:
    """``strptime`` with a numeric format: native (CPython's regex for it, every script's
    digits, the constructor's checks)."""
    t = datetime.datetime.strptime(s, "%Y-%m-%d %H:%M")
    return t.year * 100000000 + t.month * 1000000 + t.day * 10000 + t.hour * 100 + t.minute


@dataflow(columns=("u", "first", "n_bad"))
def first_visit(rows: RowStream[int, str]):
    """Per user: the earliest parseable timestamp (the bad ones counted), as text."""
    for u, g in group_by(0, rows):
        first = datetime.datetime(9999, 12, 31)
        n_bad = 0
        for _u, s in g:
            if s.count("/") == 2:
                t = datetime.datetime.strptime(s, "%m/%d/%Y %H:%M")
                first = min(first, t)
            else:
                n_bad += 1
        yield u, first.strftime("%Y-%m-%d %H:%M"), n_bad


@dataflow(columns=("u", "p", "q", "n"))
def products(rows: RowStream[int, int, float]):
    """Per user: a running product of ints (exact; beyond 64 bits Python's int is out of
    the column's range, so the plan must raise) and of floats (``q = q * y``)."""
    for u, g in group_by(0, rows):
        p = 1
        q = 0.5
        n = 0
        for _u, x, y in g:
            p *= x
            q = y * q
            n += 1
        yield u, p, q, n


@dataflow
def total_product(rows: RowStream[int]) -> int:
    """Over all rows (none: the start value)."""
    p = 3
    for (x,) in rows:
        p *= x
    return p


@dataflow(columns=("u", "all_pos", "any_big", "all_even"))
def bool_folds(rows: RowStream[int, int]):
    """``ok = ok and e`` from True and ``hit = hit or e`` from False, over bools."""
    for u, g in group_by(0, rows):
        all_pos = True
        any_big = False
        all_even = True
        for _u, x in g:
            all_pos = all_pos and x > 0
            any_big = x > 100 or any_big
            all_even = all_even and x % 2 == 0
        yield u, all_pos, any_big, all_even


@dataflow(columns=("u", "bits", "mask", "parity", "any_big", "all_pos", "odd_neg", "mixed"))
def bitwise_folds(rows: RowStream[int, int]):
    """``|=``, ``&=``, ``^=`` (and ``x = x | e``) over ints and bools in an unordered loop:
    folds in any row order (``BitOr``, ``BitAnd``, ``BitXor``), the start folded in after;
    ``mixed`` starts from an int and ors bools (Python's result is then an int)."""
    for u, g in group_by(0, rows):
        bits = 0
        mask = -1
        parity = 0
        any_big = False
        all_pos = True
        odd_neg = False
        mixed = 0
        for _u, x in g:
            bits |= x
            mask = mask & x
            parity ^= x
            any_big |= x > 100
            all_pos &= x > 0
            if x < 0:
                odd_neg = odd_neg ^ True
            mixed |= x > 5
        yield u, bits, mask, parity, any_big, all_pos, odd_neg, mixed


@dataflow(columns=("u", "h"))
def shifted_hash(rows: RowStream[int, int, int]):
    """An ordered fold with shifts and xor: ``h = ((h << 5) ^ x) & mask`` in time order."""
    for u, g in group_by(0, rows, order_by=1):
        h = 7
        for _u, _t, x in g:
            h = ((h << 5) ^ (x >> 1)) & 0xFFFFFFFFFF
        yield u, h
