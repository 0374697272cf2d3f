"""Guarded evaluation on Spark against CPython (issue 24, items 3 and 4).

SPEC §4: an expression is evaluated only on the rows where Python reaches it, also code
that runs in Python, and of several errors the one Python reaches first wins. Spark runs
every Python function (and its arguments) on every row, whatever CASE branch holds it,
so each call gets its path; these algorithms (``guarded_algos.py``) call host functions,
``re`` and str methods behind ``if``s and after ``raise`` checks, in a scalar
(``df.select(f(col))``), a row loop, a group loop, and through ``looplift.sql`` and plain
``spark.sql`` after ``looplift.register``. Rows on which Python returns run as one job
per algorithm and form; each row on which it raises runs alone and must raise the same
class.
"""

from __future__ import annotations

from typing import Any

import looplift
import pytest

from tests.spark import guarded_algos as G
from tests.spark.harness import (
    FieldType,
    Outcome,
    attempt,
    collect,
    judge,
    kind_of,
    row_types,
    run_compiled,
    run_compiled_scalar,
    run_reference,
    to_df,
)

pytestmark = pytest.mark.spark

NAMES = ["", "  ada  lovelace ", "x", "\u3000 éa\t", "ß", "a b-c"]
SCALARS: dict[str, tuple[list[tuple], list[tuple]]] = {
    # algorithm: (rows on which Python returns, rows on which it raises)
    "clean_name": ([(None,), *[(s,) for s in NAMES]], []),
    "loud": ([(None,), ("",), *[(s,) for s in NAMES]], []),
    "first_error": ([("12", 5), (" 7", -3)], [("x", 0), ("x", 1), ("1", 0)]),
    "key_of": ([(None,), ("#k=v",), ("k=v",), ("ab c",), ("=v",), ("ÄbC=1",)], []),
    "subs": ([("banana",), ("",), ("aaa",)], []),
    "subs_if": ([("banana",), ("",), ("abcdef",)], []),
    "tail": ([("a-12",), ("7",), ("x--3",), ("-0",)], [("a-b",), ("a-",)]),
}
TABLES: dict[str, tuple[list[list[tuple]], list[list[tuple]]]] = {
    "parse": ([[("a=1",), ("bb=22",)]], [[("a=1",), ("zzz",)], [("zzz",), ("q=x",)]]),
    "parse_host": ([[("a=1",), ("b=2",)]], [[("a=1",), (None,)], [("a=x",)]]),
    "group_label": (
        [[("a", "x"), ("a", None), (" b ", None), (" 12", "y"), (" 12", "z")]],
        [[("a", "x"), ("a", "y")]],
    ),
}


def _scalar(spark: Any, name: str, rows: list[tuple], form: str) -> Outcome:
    algo = getattr(G, name)
    if form == "df":
        return attempt(lambda: run_compiled_scalar(spark, algo, rows))
    fts = row_types(algo)
    cols = [f"c{i}" for i in range(len(fts))]
    df = to_df(spark, [(i, *r) for i, r in enumerate(rows)], [FieldType(int), *fts], ["_id", *cols],
               nullable=True)  # fmt: skip
    df.createOrReplaceTempView("guarded_in")
    q = f"SELECT _id, guarded_{name}({', '.join(cols)}) FROM guarded_in"
    run = spark.sql if form == "plain" else (lambda text: looplift.sql(spark, text))
    return attempt(lambda: [v for _, v in sorted(collect(run(q)), key=lambda r: r[0])])


def _table(spark: Any, name: str, rows: list[tuple], form: str) -> Outcome:
    algo = getattr(G, name)
    if form == "df":
        return attempt(lambda: run_compiled(spark, algo, rows))
    to_df(spark, rows, row_types(algo), nullable=True).createOrReplaceTempView("guarded_in")
    q = f"SELECT * FROM guarded_{name}(TABLE(guarded_in))"
    run = spark.sql if form == "plain" else (lambda text: looplift.sql(spark, text))
    return attempt(lambda: collect(run(q)))


@pytest.fixture(scope="module")
def registered(spark: Any) -> None:
    looplift.register(spark, **{f"guarded_{n}": getattr(G, n) for n in [*SCALARS, *TABLES]})


def _check(kind: str, name: str, rows: list, got: Outcome, form: str) -> str:
    algo = getattr(G, name)
    want = attempt(lambda: run_reference(algo, rows))
    return judge(kind, want, got, f"{form} {name} {rows!r}", rows)


@pytest.mark.parametrize("form", ["df", "sql", "plain"])
@pytest.mark.parametrize("name", sorted(SCALARS))
def test_scalar(spark: Any, registered: None, name: str, form: str) -> None:
    good, bad = SCALARS[name]
    assert _check("scalar", name, good, _scalar(spark, name, good, form), form) == "same"
    for row in bad:
        verdict = _check("scalar", name, [row], _scalar(spark, name, [row], form), form)
        assert verdict == "both raised"


@pytest.mark.parametrize("form", ["df", "sql", "plain"])
@pytest.mark.parametrize("name", sorted(TABLES))
def test_table(spark: Any, registered: None, name: str, form: str) -> None:
    good, bad = TABLES[name]
    kind = kind_of(getattr(G, name))
    for rows in good:
        assert _check(kind, name, rows, _table(spark, name, rows, form), form) == "same"
    for rows in bad:
        assert _check(kind, name, rows, _table(spark, name, rows, form), form) == "both raised"


def test_python_calls_get_their_path() -> None:
    """The generated SQL: a Python function takes its path first and appears once per
    call (no ``.e``/``.v`` copies), its guarded argument is evaluated on the path only."""
    body = G.clean_name.backend().body
    assert body.count("looplift_prim_str_title") == 1, body
    path = "(NOT coalesce((`p0` IS NULL), FALSE))"
    assert (
        f"_title_{body.split('_title_')[1][:8]}({path}, (CASE WHEN {path} THEN (CASE WHEN `p0` IS NULL THEN raise_error"
        in body
    ), body
    assert G.subs.backend().body.count("looplift_prim_re_sub") == 6
