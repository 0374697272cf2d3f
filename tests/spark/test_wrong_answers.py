"""Wrong answers on Spark against CPython, fixed (the strict xfails of
tests/backend/test_random_programs.py): each algorithm of ``answer_algos.py`` runs its
inputs in one Spark action, compared with CPython."""

from __future__ import annotations

from typing import Any

import pytest
from looplift.compiler.errors import CompilerError

from tests.spark import answer_algos as A
from tests.spark.harness import expect_same_batch

pytestmark = pytest.mark.spark

_WORDS = [(1, 2, "x"), (1, -1, "y"), (2, 5, "z"), (2, -3, "w"), (3, 0, ""), (1, 7, "q"),
          (1, 7, "a"), (4, 1, "é")]  # fmt: skip

_NANS = [(1, 2, float("nan")), (1, -1, float("nan")), (2, 5, 1.0), (2, -3, 1.0), (3, 0, None),
         (3, 4, -0.0), (4, 1, 0.0), (1, 9, float("nan")), (1, 3, 2.5)]  # fmt: skip

INPUTS: dict[str, list[list[tuple]]] = {
    "concat_in_order": [_WORDS, []],
    "concat_running": [_WORDS, [(1, 1, "b")]],
    "concat_all": [_WORDS, [(1, 1, "b")]],
    "nan_sets": [_NANS, [(1, 1, float("nan"))]],
    "nan_set_overall": [_NANS, [(1, 1, float("nan"))]],
    "nan_keys": [_NANS, [(1, 1, float("nan"))]],
    "nan_keys_window": [_NANS, [(1, 1, float("nan"))]],
    "nan_keys_python": [_NANS, [(1, 1, float("nan"))]],
}


_INTS = [(1, 2, 3), (1, -1, 4), (2, 5, 5), (2, -3, 7), (3, 0, 1), (1, 0, -2), (1, 2, 3)]


def test_bool_carries(spark: Any) -> None:
    expect_same_batch(spark, A.bool_carries, [(_INTS, (3,)), (_INTS, (9,)), ([], (0,))])


@pytest.mark.parametrize("name", list(INPUTS))
def test_matches_python(spark: Any, name: str) -> None:
    expect_same_batch(spark, getattr(A, name), [(rows, ()) for rows in INPUTS[name]])


def test_str_concatenation_in_an_unordered_loop_is_refused(tmp_path: Any) -> None:
    from looplift.compiler.cli import algorithms_of, load_module

    src = (
        "from looplift import RowStream, dataflow, group_by\n\n\n"
        "@dataflow(columns=None)\n"
        "def prog(rows: RowStream[int, str]):\n"
        "    for k, g in group_by(0, rows):\n"
        '        s = ""\n'
        "        for _, v in g:\n"
        "            s = v + s\n"
        "        yield k, s\n"
    )
    path = tmp_path / "unordered_concat.py"
    path.write_text(src)
    (algo,) = algorithms_of(load_module(str(path), name=path.stem))
    with pytest.raises(CompilerError) as e:
        algo.compile()
    text = str(e.value)
    assert "unordered_concat.py:9:13" in text and "concatenates strings" in text
    assert "sorted(" in text and "order_by" in text
