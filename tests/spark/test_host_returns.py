"""Host functions with every result annotation Spark can carry (issue 24, item 5),
differential against CPython.

``tests/spark/hostret_lib.py`` holds the host functions (``datetime.datetime`` naive
and aware, ``datetime.date``, ``tuple[...]``, bare ``tuple``/``list``/``dict`` read from
their source, ``Optional[...]``, ``list[...]``, ``dict[str, ...]``, nested ones), and
``hostret_algos.py`` the algorithms that read their results: as a scalar
(``df.select(f(col))``), in a loop over rows, in a loop over groups, and through
``looplift.register`` + ``looplift.sql``. Each form is one Spark job over all the
annotations; each value on which Python raises (KeyError, TypeError on None,
IndexError, an int past 64 bits) runs alone and must raise the same class.
"""

from __future__ import annotations

import datetime
import textwrap
from pathlib import Path
from typing import Any

import looplift
import pytest

from tests.spark import hostret_algos as A
from tests.spark import hostret_lib as L
from tests.spark.harness import (
    assert_same,
    check_scalar_batch,
    collect,
    expect_same_or_both_raise,
    python_error_of,
    row_types,
    run_compiled,
    run_reference,
    to_df,
)

pytestmark = pytest.mark.spark

NS = [(n,) for n in (-7, -4, -1, 0, 1, 2, 3, 6, 11, 12, 2024)]
ROWS = [(n % 3, n) for (n,) in NS] + [(5, 40), (5, -40)]


def _instant(v: Any) -> Any:
    """An aware datetime as the plan holds it: its instant, as naive UTC (what
    ``from_spark`` makes of every timestamp the plan returns)."""
    if isinstance(v, datetime.datetime) and v.tzinfo is not None:
        return v.astimezone(datetime.UTC).replace(tzinfo=None)
    if isinstance(v, tuple):
        return tuple(_instant(x) for x in v)
    return v


# -- what each annotation is on Spark -----------------------------------------------------------


@pytest.mark.parametrize(
    ("fn", "ddl"),
    [
        (L.stamp, "timestamp"),  # naive: UTC wall time, as datetime.datetime fields
        (L.stamp_aware, "timestamp"),  # aware: its instant
        (L.maybe_stamp, "timestamp"),
        (L.day, "date"),
        (L.maybe_day, "date"),  # typing.Optional
        (L.split_pair, "struct<_1: bigint, _2: string>"),
        (L.bare_pair, "struct<_1: bigint, _2: double>"),  # bare `tuple`, read from its return
        (L.bare_list, "array<string>"),
        (L.bare_dict, "map<string, bigint>"),
        (L.maybe_half, "double"),
        (L.maybe_pair, "struct<_1: bigint, _2: string>"),
        (L.digits, "array<bigint>"),
        (L.words, "array<string>"),
        (L.counts, "map<string, bigint>"),
        (L.nested, "map<string, array<struct<_1: bigint, _2: date>>>"),
    ],
)
def test_annotation_to_spark_type(fn: Any, ddl: str) -> None:
    """(No Spark needed.) The column type of each annotation; string annotations (this
    module has ``from __future__ import annotations``) are resolved."""
    from looplift.compiler.backend.types import host_return_type, spark_type

    t, nullable = host_return_type(fn, ["int"])
    assert spark_type(t) == ddl
    assert nullable == fn.__name__.startswith("maybe_")


# -- the forms ------------------------------------------------------------------------------


def test_scalar_every_annotation(spark: Any) -> None:
    """``df.select(scalar_all(col))``: every annotation's value, read every way, in one job."""
    counts = check_scalar_batch(spark, A.scalar_all, NS, max_raise_checks=0)
    assert counts == {"rows": len(NS), "raising rows": 0, "overflow allowed": 0}


def test_aware_datetime_is_its_instant(spark: Any) -> None:
    """An aware result compares, subtracts and equals as in Python, and comes back as its
    instant (UTC+2 wall time 17:30 is 15:30 UTC)."""
    want = [_instant(v) for v in run_reference(A.scalar_aware, NS)]
    assert want[0][0] == datetime.datetime(2024, 3, 30, 15, 30)  # the instant, not the wall time
    assert_same("scalar", run_compiled(spark, A.scalar_aware, NS), want)


def test_row_loop(spark: Any) -> None:
    assert expect_same_or_both_raise(spark, A.rows_all, ROWS) == "same"
    assert expect_same_or_both_raise(spark, A.rows_items, ROWS) == "same"  # list items as rows


def test_group_loop(spark: Any) -> None:
    assert expect_same_or_both_raise(spark, A.groups_all, ROWS) == "same"
    assert expect_same_or_both_raise(spark, A.groups_items, ROWS) == "same"
    assert expect_same_or_both_raise(spark, A.groups_ordered, ROWS) == "same"


def test_register_and_sql(spark: Any) -> None:
    """The same algorithms registered and spliced into SQL: a scalar in a SELECT, a
    table of rows and a table of groups in FROM."""
    to_df(spark, ROWS, row_types(A.rows_all)).createOrReplaceTempView("hostret_input")
    looplift.register(spark, hr_scalar=A.scalar_all, hr_rows=A.rows_all, hr_groups=A.groups_all,
                      hr_ordered=A.groups_ordered)  # fmt: skip
    got = collect(looplift.sql(spark, "SELECT c1, hr_scalar(c1) AS r FROM hostret_input"))
    want = {n: A.scalar_all(n) for _, n in ROWS}
    assert_same("table", got, [(n, v) for n, v in want.items()])
    algos = (("hr_rows", A.rows_all), ("hr_groups", A.groups_all), ("hr_ordered", A.groups_ordered))
    for name, algo in algos:
        got = collect(looplift.sql(spark, f"SELECT * FROM {name}(TABLE(hostret_input))"))
        assert_same("table", got, list(algo(ROWS)), name)
    # plain spark.sql: the table runs the reference Python as a UDTF, its columns typed alike
    got = collect(spark.sql("SELECT * FROM hr_rows(TABLE(hostret_input))"))
    assert_same("table", got, list(A.rows_all(ROWS)), "plain spark.sql")


# -- where Python raises ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("algo", "raising"),
    [
        (A.key_error, "KeyError"),  # d["even"] of an odd n
        (A.none_arithmetic, "TypeError"),  # an Optional[float] that is None, plus 1.0
        (A.index_error, "IndexError"),  # a list[int] too short
        (A.none_item, "TypeError"),  # an Optional[tuple] that is None, indexed
        (A.none_iter, "TypeError"),  # an Optional[list] that is None, iterated
        (A.overflow, "OverflowError"),  # an int past 64 bits: raises, never wraps
        (A.overflow_item, "OverflowError"),  # ... also as a list's item
    ],
)
def test_errors_are_pythons(spark: Any, algo: Any, raising: str) -> None:
    counts = check_scalar_batch(spark, algo, NS[:6], max_raise_checks=1)
    assert counts["raising rows"] == 1
    bad = next(args for args in NS if _raises(algo, args))
    assert type(_raises(algo, bad)).__name__ in (raising, "Int64Overflow")


def _raises(algo: Any, args: tuple) -> BaseException | None:
    try:
        run_reference(algo, [args])
    except Exception as e:  # noqa: BLE001
        return e
    return None


@pytest.mark.parametrize(
    ("algo", "said"),
    [
        (A.wrong_type, "datetime.date was declared"),  # a datetime: never drop its time of day
        (A.wrong_bool, "a bool was declared"),  # 1 is not True in Python's result
        (A.none_key, "a dict key is None"),  # a Spark map has no null keys
    ],
)
def test_a_value_spark_cannot_hold_as_declared_is_refused(spark: Any, algo: Any, said: str) -> None:
    """Python's value differs from what the declared column would hold: the plan raises
    TypeError naming the problem rather than convert it."""
    with pytest.raises(Exception) as e:
        run_compiled(spark, algo, NS[3:5])
    assert python_error_of(e.value) == "TypeError"
    assert said in str(e.value)


# -- the bare annotation nothing says -----------------------------------------------------------


def test_check_refuses_a_bare_annotation_it_cannot_read(tmp_path: Path, capsys: Any) -> None:
    """``-> tuple`` whose items the source does not say: ``uda-compile --check`` reports the
    call (file:line:col) and spells the annotation to write, with the items it could read."""
    from looplift.compiler.cli import main

    (tmp_path / "hr_opaque.py").write_text(textwrap.dedent("""\
        def parts(n: int) -> tuple:
            return n * 2, list((n,))[0]


        def seq(n: int) -> list:
            return list(range(n))


        def halves(n: int) -> dict[float, int]:
            return {n / 2: n}
        """), encoding="utf-8")  # fmt: skip
    algo = tmp_path / "hr_uses_opaque.py"
    algo.write_text(textwrap.dedent("""\
        from looplift import RowStream, dataflow
        from hr_opaque import halves, parts, seq


        @dataflow(columns=("k", "a", "n", "h"))
        def reads(rows: RowStream[int, int]):
            for k, v in rows:
                yield k, parts(v)[0], len(seq(v)), len(halves(v))
        """), encoding="utf-8")  # fmt: skip
    rc = main(["--check", str(algo)])
    out = capsys.readouterr()
    text = out.out + out.err
    assert rc != 0
    assert f"{algo}:8:18: error: `reads` cannot be built for Spark: host function `parts`" in text
    assert "annotated `-> tuple`" in text
    assert "`def parts(n) -> tuple[int, <type>]:`" in text
    assert f"{algo}:8:35: error: `reads` cannot be built for Spark: host function `seq`" in text
    assert "`def seq(n) -> list[<type>]:`" in text  # nothing says the item type
    # an item no column holds as Python has it (float keys): the annotation is named
    assert f"{algo}:8:48: error: `reads` cannot be built for Spark: host function `halves`" in text
    assert "annotated `-> dict[float, int]`, whose items looplift has no Spark column" in text
