"""Issue 25, item 4: loops and comprehensions over lists computed per row, differential
against CPython on Spark (``explode_algos.py``): ``s.split()`` (runs of Unicode
whitespace, no empty words) and ``s.split(sep)`` (empty strings kept), ``range`` with
empty ranges, negative and zero steps and bounds near the 64-bit limits, ``re.findall``,
``enumerate``, ``zip`` and ``itertools.combinations``/``permutations``/``product`` — in a
scalar algorithm called on Columns, in a table algorithm yielding one row per word (an
explode, in list order), and in a group loop summing per-word counts. Each runs fully
native (``--explain`` says so) except where the table of primitives says a primitive's
lowering is not exact.
"""

from __future__ import annotations

from typing import Any

import pytest
from looplift.compiler.pipeline import compile_dataflow

from tests.spark import explode_algos as A
from tests.spark.harness import (
    batch_of,
    check_scalar_batch,
    expect_same_batch,
    expect_same_or_both_raise,
)

pytestmark = pytest.mark.spark

TEXTS = [
    "", " ", "a", "the cat of the hat", "  lead and trail  ", "a,b,,c", ",", ",,", "x\ny\r\nz",
    "em\u2003space", "fs\x1cgs\x1d x", "nb\u00a0sp", "\u0085nel", "Ünï cödé ß", "😀 a😀b 😀",
    "The The the", "a b c d e", "one,two , three,", "\t\v\f mixed \u3000 ideo",
]
INT_ARGS = [
    (0, 0, 1), (3, 3, 1), (5, 2, -1), (2, 5, 1), (-3, 4, 2), (4, -3, -2), (0, 10, 3),
    (10, 0, -3), (0, 10, -1), (10, 0, 1), (-7, 7, 7), (1, 2, 5), (7, 1, -7),
]
NATIVE = [A.lines, A.char_classes, A.word_stats, A.sorted_words, A.zipped, A.stop_early, A.ordered_word_changes, A.characters, A.numbers, A.finds, A.any_all, A.maybe_words, A.ranges, A.big_range, A.positions, A.pair_stats,
          A.explode_words, A.bigrams, A.word_pairs, A.counted, A.group_word_counts,
          A.total_words]  # fmt: skip


@pytest.mark.parametrize("algo", NATIVE, ids=lambda a: a.name)
def test_explain_says_native(algo: Any) -> None:
    """(No Spark.) Loops over split / range / enumerate / zip / combinations are native."""
    assert "runs: fully native (no Python at run time)" in compile_dataflow(algo).explain()


SCALAR_ARGS = {"ranges": INT_ARGS, "big_range": [(0, 10, 3), (-(2**63), 2**63 - 1, 2**62)],
               "range_zero": [(2,)], "zipped": [("a b c", "x,y")],
               "split_pair": [("a b",), (" x\ty ",)]}  # fmt: skip


@pytest.mark.parametrize("algo", [*NATIVE, A.capitalized, A.finds_words, A.group_word_extremes,
                                  A.split_pair],
                         ids=lambda a: a.name)  # fmt: skip
def test_ir_means_what_python_means(algo: Any) -> None:
    """(No Spark.) The IR after every pass evaluates to CPython's result."""
    from tests.compiler.test_semantics import run_stages
    from tests.spark.harness import kind_of

    if kind_of(algo) == "scalar":
        for args in SCALAR_ARGS.get(algo.name, [(t,) for t in TEXTS[:12]]):
            run_stages(algo, args)
    elif algo.name == "counted":
        run_stages(algo, ([(i, n) for i, n in enumerate((0, 1, 6, 7, 13, -3))],))
    elif algo.name == "ordered_word_changes":
        run_stages(algo, ([(i % 2, i, t) for i, t in enumerate(TEXTS)],))
    else:
        run_stages(algo, ([(i % 3, t) for i, t in enumerate(TEXTS)],))


def test_words_in_a_scalar(spark: Any) -> None:
    counts = check_scalar_batch(spark, A.word_stats, [(t,) for t in TEXTS], max_raise_checks=0)
    assert counts["rows"] == len(TEXTS)


def test_sorted_words(spark: Any) -> None:
    check_scalar_batch(spark, A.sorted_words, [(t,) for t in TEXTS], max_raise_checks=0)


def test_characters(spark: Any) -> None:
    check_scalar_batch(spark, A.characters, [(t,) for t in TEXTS], max_raise_checks=0)


def test_generated_text(spark: Any) -> None:
    """Hypothesis text of Python's whitespace beyond ASCII, other scripts' digits, case
    exceptions and regex metacharacters (``test_strings.py``'s), in one batch per algorithm."""
    from tests.spark.test_strings import text

    @batch_of(text, 50)
    def check(rows: list) -> None:
        for algo in (A.word_stats, A.characters, A.finds, A.sorted_words, A.stop_early, A.pair_stats):
            check_scalar_batch(spark, algo, [(t,) for t in rows], max_raise_checks=0)

    check()


def test_lines(spark: Any) -> None:
    texts = [*TEXTS, "a\nb\n", "\n", "\n\n", "a\r\nb", "a\rb\r\n\r\nc", "x\u2028y\x1cz\x85", "\r",
             "a\n\x0b\x0cb", "no break"]  # fmt: skip
    check_scalar_batch(spark, A.lines, [(t,) for t in texts], max_raise_checks=0)


def test_character_classes_at_their_boundaries(spark: Any) -> None:
    """``isdigit``/``isdecimal``/``isnumeric``/``isspace`` of every character at the edge
    of a run of CPython's class (and its neighbours), alone, doubled, with a newline."""
    import sys

    edges: set[int] = set()
    for m in ("isdigit", "isdecimal", "isnumeric", "isspace"):
        inside = [getattr(chr(c), m)() for c in range(sys.maxunicode + 1)]
        edges |= {c for c in range(1, sys.maxunicode) if inside[c] != inside[c - 1]}
    chars = sorted({c + d for c in edges for d in (-1, 0) if 0 <= c + d <= sys.maxunicode})
    chars = [c for c in chars if not 0xD800 <= c <= 0xDFFF]
    texts = [chr(c) for c in chars] + [chr(c) * 2 for c in chars[::7]] + ["1\n", "\n", "", "12a"]
    check_scalar_batch(spark, A.char_classes, [(t,) for t in texts], max_raise_checks=0)


def test_optional_words(spark: Any) -> None:
    check_scalar_batch(spark, A.maybe_words, [(t,) for t in [*TEXTS, None]], max_raise_checks=0)
    # None.split() raises AttributeError, as in Python
    counts = check_scalar_batch(spark, A.split_none, [("a b",), (None,)], max_raise_checks=1)
    assert counts["raising rows"] == 1
    counts = check_scalar_batch(spark, A.iterate_none, [("a b",), (None,)], max_raise_checks=1)
    assert counts["raising rows"] == 1


def test_ranges(spark: Any) -> None:
    counts = check_scalar_batch(spark, A.ranges, INT_ARGS, max_raise_checks=0)
    assert counts["rows"] == len(INT_ARGS)


def test_optional_range(spark: Any) -> None:
    """``range(None)`` raises TypeError, as in Python."""
    counts = check_scalar_batch(spark, A.maybe_range, [(3,), (0,), (None,), (-2,)], max_raise_checks=1)
    assert counts == {"rows": 3, "raising rows": 1, "overflow allowed": 0}


def test_range_zero_step_raises(spark: Any) -> None:
    counts = check_scalar_batch(spark, A.range_zero, [(1,), (-4,), (0,)], max_raise_checks=1)
    assert counts == {"rows": 2, "raising rows": 1, "overflow allowed": 0}


def test_big_ranges(spark: Any) -> None:
    lo, hi = -(2**63), 2**63 - 1
    args = [(lo, hi, 2**62), (hi, lo, -(2**62)), (lo, lo + 3, 1), (hi - 3, hi, 1),
            (hi, lo, -(2**63)), (lo, hi, hi), (0, 100_000, 1), (100_000, -100_000, -7)]  # fmt: skip
    counts = check_scalar_batch(spark, A.big_range, args, max_raise_checks=0)
    assert counts["rows"] == len(args)


FIND_TEXTS = [*TEXTS, "a1b22c333", "12 34", "٣4٥", "no digits", "007", "x@y.z a@b", "abc\n",
              "a\nb", "ac bc c", "1234", "a,b;c", "u.s.a. ok", "x²y", "ǅx", "a\rb\r", "café ñ"]


def test_findall(spark: Any) -> None:
    check_scalar_batch(spark, A.numbers, [(t,) for t in FIND_TEXTS], max_raise_checks=0)
    check_scalar_batch(spark, A.finds, [(t,) for t in FIND_TEXTS], max_raise_checks=0)
    check_scalar_batch(spark, A.finds_words, [(t,) for t in FIND_TEXTS], max_raise_checks=0)


def test_any_all_stop_early(spark: Any) -> None:
    texts = ["", "a", "bb cc", "7 x9", "3 9 x9", "12", "b,", ",", "aa,bb", "6 3"]
    assert A.any_all("9 4x") == (True, True, True)  # int("4x") is never evaluated
    check_scalar_batch(spark, A.any_all, [(t,) for t in [*texts, "9 4x"]], max_raise_checks=0)
    counts = check_scalar_batch(spark, A.any_all, [("1 4x",)], max_raise_checks=1)
    assert counts["raising rows"] == 1  # int("4x") is reached: ValueError


def test_break_continue_return(spark: Any) -> None:
    texts = ["", "a skip bb stop ccc", "skip skip", "stop", "x #a #b", "#", "a b #c stop #d"]
    check_scalar_batch(spark, A.stop_early, [(t,) for t in [*texts, *TEXTS]], max_raise_checks=0)


def test_python_functions_inside_a_loop(spark: Any) -> None:
    check_scalar_batch(spark, A.capitalized, [(t,) for t in TEXTS], max_raise_checks=0)


def test_enumerate_zip_and_combinatorics(spark: Any) -> None:
    texts = ["", "a", "b a", "c b a", "a a b", "w x y z", "the cat of the hat", "em\u2003space x"]
    check_scalar_batch(spark, A.positions, [(t,) for t in texts], max_raise_checks=0)
    check_scalar_batch(spark, A.pair_stats, [(t,) for t in texts], max_raise_checks=0)
    check_scalar_batch(spark, A.zipped, [(t, u) for t in texts[:4] for u in ("", "x,y", ",,,")],
                       max_raise_checks=0)  # fmt: skip


ROWS = [(i % 3, t) for i, t in enumerate(TEXTS)]


@pytest.mark.parametrize("algo", [A.explode_words, A.bigrams, A.word_pairs], ids=lambda a: a.name)
def test_a_row_per_word(spark: Any, algo: Any) -> None:
    """A table algorithm yielding per element: an explode of the list, every element (and
    duplicate) once, in list order (the position is a column)."""
    expect_same_batch(spark, algo, [(ROWS, ()), (ROWS[:1], ()), ([(1, "")], ())])


def test_a_row_per_range_element(spark: Any) -> None:
    rows = [(i, n) for i, n in enumerate((0, 1, 6, 7, 13, -3, 2**40))]
    assert expect_same_or_both_raise(spark, A.counted, rows) == "same"


def test_group_loop_sums_per_word_counts(spark: Any) -> None:
    assert expect_same_or_both_raise(spark, A.group_word_counts, ROWS) == "same"
    assert expect_same_or_both_raise(spark, A.total_words, ROWS) == "same"
    assert expect_same_or_both_raise(spark, A.group_word_extremes, ROWS) == "same"
    ordered = [(i % 3, (i * 7) % 11, t) for i, t in enumerate(TEXTS)]
    assert expect_same_or_both_raise(spark, A.ordered_word_changes, ordered) == "same"


# -- the reach programs (tests/corpus/reach/udf_words_*.py) on Spark ----------------------------

DOCS = [(i, t) for i, t in enumerate([*TEXTS, "The cat, the Hat; and (the) bat!", "x,, y ,z,x"])]


def _reach(name: str) -> Any:
    from tests.helpers import CORPUS, import_path

    return import_path(CORPUS / "reach" / f"{name}.py")


def test_reach_words_on_spark(spark: Any) -> None:
    count, tokens = _reach("udf_words_count"), _reach("udf_words_tokens")
    pairs, stop = _reach("udf_words_pairs"), _reach("udf_words_stop")
    texts = [(t,) for _, t in DOCS]
    check_scalar_batch(spark, count.word_count, [(t, n) for (t,) in texts for n in (0, 2)],
                       max_raise_checks=0)  # fmt: skip
    every = (count.word_count, count.doc_stats, tokens.normalize, tokens.tokens, pairs.bigrams,
             pairs.tag_pairs, stop.content_ratio, stop.strip_stop_words, stop.content_per_author)
    for algo in every:  # --explain says native
        assert "runs: fully native (no Python at run time)" in compile_dataflow(algo).explain()
    for algo in (tokens.normalize, stop.content_ratio, stop.strip_stop_words):
        check_scalar_batch(spark, algo, texts, max_raise_checks=0)
    for algo in (count.doc_stats, tokens.tokens, pairs.bigrams, pairs.tag_pairs):
        assert expect_same_or_both_raise(spark, algo, DOCS) == "same", algo.name
    posts = [("ann" if i % 2 else "bob", t) for i, t in DOCS]
    assert expect_same_or_both_raise(spark, stop.content_per_author, posts) == "same"


def test_register_and_sql(spark: Any) -> None:
    """The same loops spliced into SQL: a scalar in a SELECT, a row per word in FROM, and a
    group loop's word counts."""
    import looplift

    from tests.spark.harness import assert_same, collect, row_types, to_df

    to_df(spark, ROWS, row_types(A.explode_words)).createOrReplaceTempView("explode_input")
    looplift.register(spark, ex_stats=A.stop_early, ex_words=A.explode_words,
                      ex_counts=A.group_word_counts)  # fmt: skip
    got = collect(looplift.sql(spark, "SELECT c1, ex_stats(c1) AS r FROM explode_input"))
    assert_same("table", got, [(t, A.stop_early(t)) for _, t in ROWS])
    for name, algo in (("ex_words", A.explode_words), ("ex_counts", A.group_word_counts)):
        got = collect(looplift.sql(spark, f"SELECT * FROM {name}(TABLE(explode_input))"))
        assert_same("table", got, list(algo(ROWS)), name)


def test_unpacking_a_list_checks_its_length(spark: Any) -> None:
    """``a, b = s.split()`` raises CPython's ValueError for more or fewer words (it used to
    take the first two words, or fail with Spark's index error)."""
    rows = [(t,) for t in [*TEXTS, "a b", "x  y", "one two three", "single"]]
    counts = check_scalar_batch(spark, A.split_pair, rows, max_raise_checks=3)
    assert counts["rows"] >= 2 and counts["raising rows"] == 3
    lines = [(0, "a=1"), (1, " k = v=w"), (2, "=")]
    expect_same_batch(spark, A.key_values, [([*lines], ()), ([], ())])
    for bad in ([(0, "a=1"), (1, "no equals sign")], [(5, "")]):
        expect_same_or_both_raise(spark, A.key_values, bad)


def test_list_elements_that_may_be_none(spark: Any) -> None:
    """Elements of a list filled with Optional values may be None in a loop over it (the
    plan took them for never None: ``str(w)`` was NULL and the join raised, and a None
    row selected by a comprehension's condition was dropped with the rows not selected)."""
    rows = [(1, 1, "a"), (1, 2, None), (1, 3, "c"), (2, 1, None), (3, 1, "z")]
    expect_same_batch(spark, A.optional_names, [(rows, ()), ([], ()), ([(4, 0, None)] * 2, ())])
