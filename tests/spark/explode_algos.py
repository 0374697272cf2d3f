"""Algorithms looping over lists computed per row (``test_explode.py``): ``s.split()``,
``s.split(sep)``, ``range``, ``re.findall``, ``enumerate``, ``zip`` and
``itertools.combinations`` / ``permutations`` / ``product``, in a scalar algorithm
(comprehensions, folds), in a loop over rows (a yield per element: explode) and in a
loop over groups (per-word counts summed)."""

from __future__ import annotations

import itertools
import re
from itertools import combinations

from looplift import RowStream, dataflow, group_by

STOP = ("a", "an", "the", "of", "and")


# -- scalars: comprehensions and folds over a list of the row's values -------------------------


@dataflow
def word_stats(s: str):
    """Words by whitespace (runs of Unicode whitespace, no empty words) and by a separator
    (empty strings kept), each read several ways."""
    n = 0
    chars = 0
    for w in s.split():
        n += 1
        chars += len(w)
    lowered = [w.lower() for w in s.split(",") if w]
    kept = sum(1 for w in s.split() if w.lower() not in STOP)
    longest = max([len(w) for w in s.split()], default=-1)
    parts = s.split(",")
    firsts = "".join([p[:1] for p in parts])
    distinct = len({w for w in s.split()})
    return n, chars, "|".join(lowered), kept, longest, firsts, len(parts), distinct


@dataflow
def maybe_words(s: str | None) -> int:
    if s is None:
        return -1
    return len([w for w in s.split() if w])


@dataflow
def split_none(s: str | None) -> int:
    """Iterating ``None.split()`` raises AttributeError, as in Python."""
    n = 0
    for w in s.split():
        n += len(w)
    return n


@dataflow
def characters(s: str):
    """A loop over a str's characters (code points: an astral character is one)."""
    spaces = sum(1 for ch in s if ch.strip() == "")
    n = 0
    for _ch in s:
        n += 1
    return spaces, n, "".join([ch.upper() for ch in s if ch.strip()])


@dataflow
def char_classes(s: str):
    """The character-class tests, native (a class of CPython's characters), also per
    character of a word."""
    digits = sum(1 for ch in s if ch.isdigit())
    return s.isdigit(), s.isdecimal(), s.isnumeric(), s.isspace(), digits


@dataflow
def iterate_none(s: str | None) -> int:
    """Iterating None raises TypeError ('NoneType' object is not iterable)."""
    return len([ch for ch in s if ch != " "])


@dataflow
def lines(s: str):
    """``splitlines()``: Python's line boundaries (``\\r\\n`` one), no last empty line."""
    n = 0
    longest = ""
    for line in s.splitlines():
        n += 1
        if len(line) > len(longest):
            longest = line
    return n, longest, "|".join(s.splitlines())


@dataflow
def ranges(a: int, b: int, step: int):
    """``range`` of one, two and three arguments; empty ranges, negative steps."""
    t1 = 0
    for i in range(a):
        t1 += i
    t2 = [i * 2 for i in range(a, b)]
    t3 = 0
    for i in range(a, b, 3):
        t3 += i
    down = [i for i in range(b, a, -2)]
    total = 0
    count = 0
    for i in range(a, b, step):
        total += i
        count += 1
    return t1, sum(t2), len(t2), t3, sum(down), len(down), total, count


@dataflow
def maybe_range(n: int | None) -> int:
    return sum([i for i in range(n)])


@dataflow
def range_zero(n: int) -> int:
    """A zero step raises ValueError."""
    t = 0
    for i in range(0, 10, n):
        t += i
    return t


@dataflow
def big_range(lo: int, hi: int, step: int):
    """Ranges near the 64-bit limits: counted without overflow."""
    xs = [i for i in range(lo, hi, step)]
    return len(xs), xs[0] if xs else 0, xs[-1] if xs else 0


@dataflow
def numbers(s: str) -> int:
    """``re.findall`` of a pattern: the matches as ints."""
    t = 0
    for m in re.findall(r"[0-9]+", s):
        t += int(m)
    return t


WORD = re.compile(r"[\w.]+")


@dataflow
def finds(s: str):
    """``re.findall`` of patterns Java matches as Python does: Unicode digits and
    whitespace, ``.`` (not a newline), ``$`` (before a final newline), a group that takes
    no part (``''``), lookahead, alternation, lazy repeats, ASCII word characters; each
    native."""
    return (
        "|".join(re.findall(r"\d+", s)), "|".join(re.findall(r"[a-z]+", s)),
        "|".join(re.findall(r"\s+", s)), "|".join(re.findall(r"\S+", s)),
        "|".join(re.findall(r"([a-z0-9]+)@", s)), "|".join(re.findall(r"a.", s)),
        "|".join(re.findall(r"[a-z]$", s)), "|".join(re.findall(r"(a|b)?c", s)),
        "|".join(re.findall(r"(\d)(?=\d)", s)), "|".join(re.findall(r"[^,]+", s)),
        "|".join(re.findall(r"\D+?", s)), "|".join(re.findall(r"^[^ ]+", s)),
        "|".join(re.findall(r"[0-9]{2,3}", s, re.ASCII)), "|".join(re.findall(r"(?s)a.", s)),
        "|".join(re.findall(r"\w+", s, re.A)), "|".join(re.findall(r"(?a)[\w.]+", s)),
    )


@dataflow
def finds_words(s: str):
    """Unicode ``\\w`` (a Python call: its class is too long to spell out in SQL)."""
    return "|".join(re.findall(r"\w+", s)), "|".join(WORD.findall(s))


@dataflow
def positions(s: str) -> str:
    """``enumerate`` and ``zip`` of words."""
    ws = s.split()
    tagged = [f"{i}:{w}" for i, w in enumerate(ws)]
    after = [f"{a}>{b}" for a, b in zip(ws, ws[1:])]  # noqa: B905 - Python's zip, as the user writes it
    first = ""
    for i, w in enumerate(ws, 1):
        if len(w) > 1 and first == "":
            first = f"{i}{w}"
    return " ".join(tagged) + "/" + " ".join(after) + "/" + first


@dataflow
def stop_early(s: str):
    """``break``, ``continue`` and ``return`` in a loop over the words (in list order)."""
    n = 0
    for w in s.split():
        if w == "stop":
            break
        if w == "skip":
            continue
        n += len(w)
    return n, first_tag(s)


@dataflow
def first_tag(s: str) -> str:
    for w in s.split():
        if w.startswith("#"):
            return w[1:]
    return ""


@dataflow
def zipped(s: str, t: str) -> str:
    out = ""
    for i, (a, b) in enumerate(zip(s.split(), t.split(",")), 1):  # noqa: B905 - Python's zip, as the user writes it
        out += f"{i}{a}{b};"
    return out


@dataflow
def pair_stats(s: str):
    """combinations / permutations / product of the words."""
    ws = s.split()
    pairs = [a + b for a, b in combinations(ws, 2)]
    triples = len([1 for a, b, c in itertools.combinations(ws, 3) if a < b < c])
    perms = [a + "-" + b for a, b in itertools.permutations(ws, 2)]
    prod = [f"{a}{n}" for a, n in itertools.product(ws, range(2))]
    return ",".join(pairs), triples, ",".join(perms), ",".join(prod)


# -- a table algorithm: one row per word -----------------------------------------------------


@dataflow(columns=("id", "pos", "word"))
def explode_words(rows: RowStream[int, str]):
    for rid, text in rows:
        for i, w in enumerate(text.split()):
            if w.lower() not in STOP:
                yield rid, i, w.lower()


@dataflow(columns=("id", "a", "b"))
def bigrams(rows: RowStream[int, str]):
    for rid, text in rows:
        ws = text.split()
        for a, b in zip(ws, ws[1:]):  # noqa: B905 - Python's zip, as the user writes it
            yield rid, a, b


@dataflow(columns=("id", "a", "b"))
def word_pairs(rows: RowStream[int, str]):
    for rid, text in rows:
        for a, b in combinations(text.split(","), 2):
            yield rid, a, b


@dataflow(columns=("id", "i"))
def counted(rows: RowStream[int, int]):
    for rid, n in rows:
        for i in range(n % 7):
            yield rid, i


# -- groups: per-word counts summed ----------------------------------------------------------


@dataflow(columns=("key", "words", "kept", "chars"))
def group_word_counts(rows: RowStream[int, str]):
    for k, g in group_by(0, rows):
        words = 0
        kept = 0
        chars = 0
        for _, text in g:
            for w in text.split():
                words += 1
                if w.lower() not in STOP:
                    kept += 1
                    chars += len(w)
        yield k, words, kept, chars


@dataflow(columns=("key", "longest", "shortest", "total"))
def group_word_extremes(rows: RowStream[int, str]):
    """``m = max(m, e)`` per word inside the loop over a group's rows: the longest word
    of the group (its max reduces natively only when the list gave one: an Arrow reducer)."""
    for k, g in group_by(0, rows):
        longest = -1
        shortest = 99
        total = 0
        for _, text in g:
            for w in text.split():
                if w.lower() not in STOP:
                    longest = max(longest, len(w))
                    shortest = min(len(w), shortest)
                total += len(w)
        yield k, longest, shortest, total


@dataflow(columns=("key", "changes", "last", "joined"))
def ordered_word_changes(rows: RowStream[int, int, str]):
    """In a loop over a group's rows in order, the words of each row in order too: any
    update of the ordered loop's locals (a count of word changes, the last word)."""
    for k, g in group_by(0, rows, order_by=1):
        last = ""
        changes = 0
        joined = ""
        for _, _ts, text in g:
            for i, w in enumerate(text.split()):
                if w != last:
                    changes += 1
                last = w
                if i == 0:
                    joined = joined + w[:1]
        yield k, changes, last, joined


@dataflow
def total_words(rows: RowStream[int, str]) -> int:
    n = 0
    for _, text in rows:
        for w in text.split():
            if w not in STOP:
                n += 1
    return n


# -- any / all (stop at the first answer), Python functions inside the loop ---------------------


@dataflow
def any_all(s: str):
    """``any``/``all`` over the words stop evaluating once the answer is known: ``int(w)``
    of a later word that is no number never runs (Python raises nothing)."""
    has_short = any(len(w) < 2 for w in s.split())
    all_long = all(len(w) > 1 for w in s.split(","))
    first_num = any(int(w) > 5 for w in s.split() if w[:1] in "0123456789")
    return has_short, all_long, first_num


@dataflow
def capitalized(s: str) -> str:
    """A str method with no native lowering inside the comprehension: a Python call."""
    return " ".join(w.capitalize() for w in s.split() if not w.isdigit())


@dataflow
def sorted_words(s: str):
    """``sorted``/``set``/``reversed`` of the words (code point order, as Python's)."""
    ws = s.split()
    return (" ".join(sorted(set(s.split()))), " ".join(sorted(ws, reverse=True)),
            " ".join(reversed(s.split(","))), len(set(ws)), " ".join(sorted(ws, key=lambda w: len(w))))


# -- unpacking a list into names (`a, b = s.split()`) ------------------------------------------


@dataflow
def split_pair(s: str) -> str:
    """``a, b = s.split()``: exactly two words, else CPython's ValueError (too many values
    to unpack / not enough values to unpack)."""
    a, b = s.split()
    return b + "/" + a


@dataflow
def key_values(lines: RowStream[int, str]):
    """``k, v = line.split("=", 1)`` per row; a line without ``=`` raises ValueError."""
    for i, line in lines:
        k, v = line.split("=", 1)
        yield i, k.strip(), v
