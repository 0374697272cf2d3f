"""Strings on Spark against CPython (issue 10, item 5): str methods, slices and indexing,
f-strings and format specs, ``int(s)``/``float(s)``, ``re``, ``Optional[str]``.

The algorithms are in ``str_algos.py``. Each test runs one batch of hand-picked and
hypothesis-generated text (whitespace Python knows and Java does not, other
scripts' digits, characters whose case mapping differs between CPython's Unicode
tables and Spark's, final sigma, emoji) through one Spark job, and at most one
value on which Python raises through one more job: about 12 jobs in all.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import strategies as st
from looplift.strings import WHITESPACE

from tests.spark import str_algos as A
from tests.spark.harness import batch_of, check_scalar_batch

pytestmark = pytest.mark.spark

# characters where Python and Spark (Java) are known to disagree, or where the
# semantics are subtle: Python's whitespace beyond ASCII (\x1c-\x1f, NEL, NBSP, ideographic
# space), digits of other scripts, case-mapping differences (ß, İ, final sigma, U+019B and
# others new in Unicode 16), regex metacharacters, signs, separators
TRICKY = (
    " \t\n\x0b\x0c\r\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2007\u2028\u2029\u202f\u205f\u3000"
    "\u200b\ufeff"
    "0123456789\u0663\u0664\u06f5\u0966\uff17\U0001d7ce_"
    "aAbBzZßİıΣσςﬁǅ\u019b\u0264\ua7cb\U00010d50\U00016ea0"
    ",;:=+-.eE/\\|[]()*?^$%'\"{}#!é日本🙂"
)
WORDS = ["", "a", "ab", "a,b", " a ", "1_000", "-7", "+3", " 12 ", "1e5", "inf", "-Infinity",
         "nan", "0x10", "1.5", ".5", "5.", "1__0", "_1", "k=12", "ΑΣ", "ΑΣ Α", "ß", "İ", "x y  z"]  # fmt: skip
text = st.one_of(
    st.sampled_from(WORDS),
    st.text(st.sampled_from(TRICKY), max_size=8),
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=6),
)
small_ints = st.integers(-4, 4)


def test_methods_on_weird_text(spark: Any) -> None:
    """strip (Python's whitespace), lower/upper (guarded), split, find, count, replace,
    zfill, join, in ... on one batch; lower/upper of the characters Spark maps
    differently come out as Python's."""
    curated = [(w, t) for w in WORDS for t in ("a", "", ",")][:40]
    curated += [(c, "a") for c in "ß\u019b\u0264\ua7cb\U00010d50İΣ\u1c89"]

    @batch_of(st.tuples(text, st.one_of(st.sampled_from(["a", "", " ", ","]), text)), 60)
    def check(rows: list) -> None:
        check_scalar_batch(spark, A.methods, curated + rows, max_raise_checks=0)

    check()


# the ends strip's kernel and its SQL form read (looplift.kernels): every whitespace
# character, bytes a whitespace character ends in ending other characters (é ends in A9 as
# U+2029 does), control characters, one ASCII whitespace after a printable character
STRIP_ENDS = ["x\t", "end ", "x \t", "\t\tx", "é", "é\t", "é \t", "中", "€", "\u2029\t",
              "a\u2029", "\x00", "\x00\t", "\x7f\t", "\x84", "\u200b", "\u2030", "\u202f\t",
              "\u167f", "\u1681x", "\u3001", "😀\t", "a b", " \x1f", "\x1fa\x08", "",
              "".join(WHITESPACE), " \u0301", "\u0301", "x\u0301 ", "😀", " 😀 ", "\U0010ffff\u3000",
              " \x85x\xa0 ", "  \u3000", "a\u3000  ", "end  ", " \tend \t ", " x", "  "]  # fmt: skip
ENDS = "".join(WHITESPACE) + "x\x00\x08\x0e\x7f\x84\x86\xa0\xa1é中€\u200b\u2030\u3001😀"


def test_strip_ends(spark: Any) -> None:
    """strip/lstrip/rstrip of Python's whitespace, of a column and of an expression, on
    strings whose ends are each whitespace character and the bytes the fast paths test."""
    curated = (
        [(e,) for e in STRIP_ENDS]
        + [(c,) for c in WHITESPACE]
        + [(c + "x" + c,) for c in WHITESPACE]
        # spaces around another whitespace character: the spaces go first (trim(s))
        + [(f" {c}x{c} ",) for c in WHITESPACE]
        + [(f"x{c} ",) for c in WHITESPACE]
    )

    @batch_of(st.text(st.sampled_from(ENDS), max_size=4), 60)
    def check(rows: list) -> None:
        check_scalar_batch(spark, A.strips, curated + [(r,) for r in rows], max_raise_checks=0)

    check()


def test_slices_and_indexing(spark: Any) -> None:
    """Slices with literal and computed bounds; ``split(sep)[i]`` and ``s[i]`` raise
    IndexError out of range, as in Python."""

    @batch_of(st.tuples(text, small_ints), 60)
    def check(rows: list) -> None:
        rows = rows + [("abc", 9), ("", 0), ("a,b,c", -1), ("a,b", 2)]
        check_scalar_batch(spark, A.slices, rows, max_raise_checks=0)
        check_scalar_batch(spark, A.pick, rows, max_raise_checks=1)

    check()


def test_int_and_float_of_strings(spark: Any) -> None:
    """``int(s)``: whitespace, sign, underscores between digits, other scripts' digits;
    ``float(s)``: also inf/nan/exponents; ValueError otherwise, OverflowError for an
    int beyond 64 bits."""
    numeric = st.text(st.sampled_from("0123456789_+-. e\u0663\u3000\t"), min_size=1, max_size=6)
    curated = [" 42 ", "+7", "-0", "1_000", "\u0663\u0664", "\u3000 9\u2028", "007", "9" * 19,
               "1e5", "1E-3", "-inf", "+nan", "Infinity", ".5", "5.", "1_0.2_5", "1e1_0",
               "1.5", "1__0", "0x1f", "1d", "1f", "", " ", "in f"]  # fmt: skip

    @batch_of(st.one_of(numeric, text), 60)
    def check(rows: list) -> None:
        args = [(s,) for s in curated + rows]
        check_scalar_batch(spark, A.to_int, args, max_raise_checks=1)
        check_scalar_batch(spark, A.to_float, args, max_raise_checks=1)

    check()


def test_int_beyond_64_bits_raises(spark: Any) -> None:
    """Python gives a big int; the plan raises rather than wrap (SPEC §4)."""
    check_scalar_batch(spark, A.to_int, [("99999999999999999999",)], max_raise_checks=1)


def test_fstrings_and_format_specs(spark: Any) -> None:
    """f-strings: str() of int/float/bool/None exactly (floats shortest-repr), int specs
    natively, float specs and !r through Python's format()."""
    floats = st.one_of(
        st.sampled_from([0.1 + 0.2, 2.675, 0.125, 1e16, 1e-7, -0.0, 1.0, 123456.789]),
        st.floats(allow_nan=False, allow_infinity=False),
    )
    ints = st.one_of(st.integers(-(2**63), 2**63 - 1), st.integers(-2000, 2000))

    @batch_of(st.tuples(ints, floats, text, st.booleans()), 40)
    def check(rows: list) -> None:
        check_scalar_batch(spark, A.formats, rows, max_raise_checks=0)

    check()


def test_regex(spark: Any) -> None:
    """re.search/match/fullmatch/sub/findall with constant patterns; ``m.group(i)`` of a
    group that did not take part is None."""

    @batch_of(st.one_of(text, st.sampled_from(["k=1", "k=", "a=12 b", "x y\t z", "ab"])), 60)
    def check(rows: list) -> None:
        check_scalar_batch(spark, A.regex, [(s,) for s in rows], max_raise_checks=0)

    check()


def test_optional_str(spark: Any) -> None:
    """``Optional[str]`` scalar parameters: ``is None``, truthiness, and a method call on
    None raising AttributeError as in Python."""
    rows = [(None,), ("",), (" x ",), ("\u3000",)]
    check_scalar_batch(spark, A.optional, rows, max_raise_checks=0)
    check_scalar_batch(spark, A.optional_method, [("ß",), (None,)], max_raise_checks=1)


def test_case_mapping_of_every_code_point(spark: Any) -> None:
    """upper()/lower() of every code point (in strings of 1000 consecutive ones) equal
    CPython's: the characters Spark maps differently are exactly the guarded ones."""
    cps = [c for c in range(0x110000) if not 0xD800 <= c < 0xE000]
    chunks = [("".join(map(chr, cps[i : i + 1000])),) for i in range(0, len(cps), 1000)]
    check_scalar_batch(spark, A.cases, chunks, max_raise_checks=0)
