"""Counters, starting containers, lists as values, products, compiled regexes, strptime
(issue 25, item 4; ``counter_algos.py``): compiled plans against CPython on Spark.

Each algorithm runs on hypothesis data (derandomized, the first example the empty input)
and on hand-picked edge rows, and must return CPython's rows or raise where Python raises.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from tests.spark import counter_algos as algos
from tests.spark.harness import check_scalar_batch, expect_same_or_both_raise, table_inputs

pytestmark = pytest.mark.spark

EDGES = {
    "starting_values": [[], [(1, "EUR", 1), (1, "a", 2), (2, "b", 2**62), (2, "b", 2**62)]],
    "starting_ordered": [[], [(1, 2, "x"), (1, 1, "a"), (1, 3, None), (2, 1, "y")]],
    "sorted_paths": [[(1, 2, "b", 1.0), (1, 1, "a", 3.5), (1, 3, "a", 3.5), (1, 4, "a", 1.0),
                      (2, 1, "c", -0.0)]],
    "top_words": [[], [(1, "b"), (1, "a"), (1, "b"), (1, "a"), (1, "c"), (2, "")]],
    "ordered_counts": [[(1, 3, "a"), (1, 1, "b"), (1, 2, "a"), (1, 4, "b"), (2, 1, None)]],
    "compiled_in_loop": [[(1, "id12"), (1, "id1234"), (1, "ID1"), (2, "id٣")]],
    "first_visit": [[(1, "2/29/2024 10:00"), (1, "x"), (1, "12/31/1999 23:59"), (2, "y")],
                    [(1, "2/29/2023 10:00")]],
    "products": [[(1, 2**31, 2.0), (1, 2**31, float("nan")), (2, -3, 1e200), (2, 0, 1e200),
                  (3, 7, float("inf")), (3, -1, -0.0)],
                 [(1, 2**62, 1.0), (1, 2, 1.0)], [(1, 2**62, 1.0), (1, -2, 1.0)]],
    "total_product": [[], [(2**40,), (2**40,), (0,)], [(-(2**62),), (2,)]],
    "bool_folds": [[(1, 1), (1, 2), (2, -4), (2, 200), (3, 0)]],
    "bitwise_folds": [[], [(1, 1), (1, 2), (1, 2), (2, -4), (2, 200), (3, 0), (4, -(2**63)),
                           (4, 2**63 - 1), (4, -1), (5, -3), (5, -3), (5, -5)]],
    "shifted_hash": [[], [(1, 2, 5), (1, 1, -(2**63)), (1, 3, 2**63 - 1), (2, 1, -1)]],
    "sorted_unordered": [[(1, 2.0), (1, 1.0), (1, 2.0), (2, float("inf")), (3, -1e308)]],
}
ALGOS = [algos.starting_values, algos.starting_ordered, algos.sorted_paths,
         algos.sorted_unordered, algos.top_words, algos.ordered_counts, algos.compiled_in_loop,
         algos.first_visit, algos.products, algos.total_product,
         algos.bool_folds, algos.bitwise_folds, algos.shifted_hash]
#: unordered loops whose answer (most_common's ties) depends on the order rows arrive: the
#: compiler's dict is in ascending key order, Python's in first insertion; CPython runs on
#: the rows sorted by that key, one of the orders an unordered loop may see
SORT_BY = {"top_words": 1}


@pytest.mark.parametrize("algo", ALGOS, ids=lambda a: a.name)
def test_counter_algos_match_python(spark, algo) -> None:  # noqa: ANN001
    key = SORT_BY.get(algo.name)

    def arrange(rows: list) -> list:
        return rows if key is None else sorted(rows, key=lambda r: r[key])

    for rows in EDGES.get(algo.name, []):
        expect_same_or_both_raise(spark, algo, arrange(rows), ())

    @settings(max_examples=2, deadline=None, derandomize=True, database=None,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(table_inputs(algo, max_size=12))
    def run(inp) -> None:  # noqa: ANN001
        rows, scalars = inp
        expect_same_or_both_raise(spark, algo, arrange(rows), scalars)

    run()


TEXTS = ["", "12-34", "12-34 abc-5", "a  b\tc", " x\ny ", "٣-٤", "ab", "1-2-3", "  ", "AbC 9-9"]


def test_compiled_patterns_match_python(spark) -> None:  # noqa: ANN001
    """``re.compile`` in the function: the same as the ``re`` functions with its pattern."""
    check_scalar_batch(spark, algos.compiled_patterns, [(t,) for t in TEXTS])


DAYS = ["2024-02-29", "2000-02-29", "2023-1-5", "0999-12-31", "\u0662\u0660\u0662\u0663-01-01",
        "2023-02-29", "1900-02-29", "2023-01-05 ", "", "2023-13-01"]


def test_strptime_matches_python(spark) -> None:  # noqa: ANN001
    """Feb 29 of leap and other years, one-digit fields, other scripts' digits, trailing
    text, an empty string: values and ValueError as CPython."""
    counts = check_scalar_batch(spark, algos.parse_day, [(d,) for d in DAYS], max_raise_checks=2)
    assert counts["rows"] == 5 and counts["raising rows"] == 2


@pytest.mark.parametrize(
    ("algo", "native"),
    [(algos.starting_values, True), (algos.top_words, True), (algos.sorted_unordered, False),
     (algos.compiled_in_loop, True), (algos.parse_day, False), (algos.products, True),
     (algos.parse_iso, True), (algos.bool_folds, True)],
    ids=lambda x: getattr(x, "name", str(x)),
)
def test_explain_says_native_where_lowered_natively(algo, native) -> None:  # noqa: ANN001
    """Starting containers, Counters, most_common, a compiled pattern Java matches exactly
    and running products run with no Python; a host function and strptime say where
    Python runs."""
    from looplift.compiler.pipeline import compile_dataflow

    text = compile_dataflow(algo).explain()
    assert ("runs: fully native" in text) == native, text


ORDER_DEPENDENT = {
    "an int operand (`v and x` is x's value)": "ok = True\n    for (x,) in rows:\n        ok = ok and x",
    "a start that is not the neutral element": "ok = False\n    for (x,) in rows:\n        ok = ok and x > 0",
    "or from True": "ok = True\n    for (x,) in rows:\n        ok = ok or x > 0",
}


@pytest.mark.parametrize("body", ORDER_DEPENDENT.values(), ids=list(ORDER_DEPENDENT))
def test_bool_folds_that_depend_on_order_are_diagnosed(tmp_path, body) -> None:  # noqa: ANN001
    from looplift.compiler.cli import load_module
    from looplift.compiler.errors import CompilerError
    from looplift.compiler.pipeline import compile_dataflow

    path = tmp_path / "boolfold.py"
    path.write_text("from looplift import RowStream, dataflow\n\n\n@dataflow\n"
                    f"def f(rows: RowStream[int]) -> int:\n    {body}\n    return ok\n")
    module = load_module(str(path), name="boolfold")
    with pytest.raises(CompilerError, match="order-dependent"):
        compile_dataflow(module.f)


STAMPS = ["2024-02-29 23:59", "2024-2-9 1:5", "\u0662\u0660\u0662\u0664-02-29 10:00",
          "2024-\u0661\u0662-01 00:00", "2024-12-01\u3000 07:08", "2024-01-01 7:60",
          "2023-02-29 10:00", "2024-01-01", "2024-01-01 10:00 ", "\ue001024-01-01 00:00",
          "0000-01-01 00:00", "2024-01-31 24:00"]


def test_native_strptime_matches_python(spark) -> None:  # noqa: ANN001
    """The native lowering of a numeric format: one-digit fields, Arabic-Indic digits where
    CPython's regex takes ``\\d`` (and not where it takes an ASCII digit), Unicode
    whitespace, minute 60, Feb 29 of 2023, a missing time, trailing text, a private-use
    character, year 0."""
    counts = check_scalar_batch(spark, algos.parse_iso, [(d,) for d in STAMPS], max_raise_checks=8)
    assert counts["rows"] >= 4 and counts["raising rows"] >= 6
