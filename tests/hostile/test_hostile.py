"""The hostile-input table (tests/hostile/table.py) through every call form (issue 12).

Forms: ``df`` (``f(df)``; a scalar as ``df.select(f(col))``), ``agg`` (``f.agg(...)`` in
``groupBy().agg``), ``sql`` (``looplift.register`` + ``looplift.sql``), ``plain``
(``spark.sql`` after ``register``: SQL function, Python UDAF, Python UDTF), ``build``
(``uda-compile -o``, the package imported and its ``run``/``register`` called) and
``incremental`` (``f.incremental(...)``: ``apply`` of the rows, then deletes).

Every input has hostile column names (``a`b``, ``x; DROP TABLE t --``, a newline, RTL,
emoji, a dot) and SQL reads it from a view named ``x; DROP TABLE t --``, into an alias
named ``a`b``. Each case must give what :func:`expected` says (CPython's outcome, or an
error naming the column for a null in a non-Optional field).

Cost: per form and algorithm, the cases on which CPython returns run as one Spark job
(their rows together; the aggregate forms group by case, so each case keeps its own
value); each case that must raise runs alone. The default run checks a null for a third
of the algorithms per form (:func:`default_cases`); ``test_rest_of_the_table`` (slow) every
other null field and empty table, and ``test_huge_group`` (one user with 100k clicks) runs
once per form, in the default run for ``df`` only (``LOOPLIFT_HOSTILE_HUGE`` rows, default
100000).
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import looplift
import pytest
from looplift.sqltext import quote_ident

from tests.frames import create_frame
from tests.helpers import SAMPLES
from tests.hostile.table import NAMES, SAMPLES_USED, TABLE, Hostile, algorithm, huge_group, kind
from tests.incremental.common import add_changes, multiset
from tests.spark.harness import (
    FieldType,
    Outcome,
    assert_same,
    attempt,
    coerce_rows,
    collect,
    judge,
    kind_of,
    row_types,
    run_reference,
    spark_schema,
    to_df,
    to_spark_value,
)

pytestmark = pytest.mark.spark

VIEW = "x; DROP TABLE t --"
ALIAS = "a`b"
HUGE = int(os.environ.get("LOOPLIFT_HOSTILE_HUGE", "100000"))
#: the slow marker's reduced form (what ``make test`` runs): the huge group at full size in
#: ``f(df)`` only, 20k rows in the other forms, and the rest of the table in every other
#: (form, algorithm) pair; ``LOOPLIFT_HOSTILE_ALL=1`` runs all of it at full size
ALL = os.environ.get("LOOPLIFT_HOSTILE_ALL") == "1"
HUGE_REDUCED = HUGE if ALL else min(HUGE, 20_000)
FORMS = ("df", "agg", "sql", "plain", "build", "incremental")


# -- what each case must give ------------------------------------------------------------


def names_of(key: str) -> tuple[str, ...]:
    return NAMES[: len(row_types(algorithm(key)))]


def expected(case: Hostile) -> Outcome:
    """CPython's outcome on the case's rows (a scalar: its values, one per row)."""
    return attempt(lambda: run_reference(algorithm(case.algo), list(case.rows)))


def check_null_error(case: Hostile, got: Outcome, form: str) -> None:
    """A null in a non-Optional field: an error that says so and names the column."""
    assert case.null_field is not None
    col = names_of(case.algo)[case.null_field]
    assert got.raised, f"{form} {case.id}: a null in a non-Optional field gave {got.value!r}"
    msg = str(got.error)
    assert "null" in msg, f"{form} {case.id}: {msg[:1500]}"
    spelled = [col, repr(col), quote_ident(col), col.encode("unicode_escape").decode()]
    if form in ("plain", "build"):  # a SQL function or a Python UDAF knows no column names
        spelled.append(f"argument {case.null_field + 1}")
    assert any(s in msg for s in spelled), (
        f"{form} {case.id}: column {col!r} not named:\n{msg[:1500]}"
    )


def check(case: Hostile, got: Outcome, form: str) -> str:
    if case.null_field is not None:
        check_null_error(case, got, form)
        return "null named"
    k = kind(case.algo)
    return judge(k, expected(case), got, f"{form} {case.id}", case.rows)


# -- the forms ------------------------------------------------------------------------------


def frame(spark: Any, key: str, rows: Any, extra: tuple[str, ...] = ()) -> Any:
    """The rows as a DataFrame with hostile column names (every column nullable), after
    int columns named ``extra``."""
    fts = (*[FieldType(int)] * len(extra), *row_types(algorithm(key)))
    return to_df(spark, rows, fts, (*extra, *names_of(key)), nullable=True)


def _cols(key: str) -> list[Any]:
    from pyspark.sql import functions as F

    return [F.col(quote_ident(n)) for n in names_of(key)]


def _scalar_rows(out: Any) -> list[Any]:
    return [v for _, v in sorted(collect(out), key=lambda r: r[0])]


def _shape(key: str, rows: list[tuple]) -> Any:
    """Collected rows in the reference's shape: a table's rows, an aggregate's value."""
    if kind(key) == "table":
        return rows
    assert len(rows) == 1, rows
    return rows[0][0]


def run_df(spark: Any, key: str, rows: Any) -> Any:
    algo = algorithm(key)
    if kind(key) == "scalar":
        df = frame(spark, key, [(i, *r) for i, r in enumerate(rows)], ("_id",))
        return _scalar_rows(df.select("_id", algo(*_cols(key)).alias(ALIAS)))
    return _shape(key, collect(algo(frame(spark, key, rows))))


def run_agg(spark: Any, key: str, cases: list[Hostile]) -> dict[str, Outcome]:
    """``df.groupBy(case).agg(f.agg(...))``: one job for every case (a case alone when
    only one is given: a global ``df.agg``, which also has a row for no rows)."""

    algo = algorithm(key)
    if len(cases) == 1:
        df = frame(spark, key, list(cases[0].rows))
        return {cases[0].id: attempt(lambda: collect(df.agg(algo.agg(*names_of(key))))[0][0])}
    rows = [(i, *r) for i, c in enumerate(cases) for r in c.rows]
    df = frame(spark, key, rows, ("case",))
    got = attempt(lambda: collect(df.groupBy("case").agg(algo.agg(*names_of(key)))))
    if got.raised:
        return {c.id: got for c in cases}
    values = dict(got.value)
    return {c.id: Outcome(value=values.get(i, "no row")) for i, c in enumerate(cases)}


_REGISTERED: set[tuple[int, str]] = set()


def sql_name(spark: Any, key: str) -> str:
    name = f"h_{key}"
    if (id(spark), name) not in _REGISTERED:
        looplift.register(spark, **{name: algorithm(key)})
        _REGISTERED.add((id(spark), name))
    return name


def _view(df: Any) -> str:
    df.createOrReplaceTempView(quote_ident(VIEW))
    return quote_ident(VIEW)


def run_sql(spark: Any, key: str, rows: Any, plain: bool = False, name: str | None = None) -> Any:
    run: Callable[[str], Any] = spark.sql if plain else (lambda q: looplift.sql(spark, q))
    name = name or sql_name(spark, key)
    cols = ", ".join(quote_ident(n) for n in names_of(key))
    if kind(key) == "scalar":
        view = _view(frame(spark, key, [(i, *r) for i, r in enumerate(rows)], ("_id",)))
        return _scalar_rows(run(f"SELECT _id, {name}({cols}) AS {quote_ident(ALIAS)} FROM {view}"))
    view = _view(frame(spark, key, rows))
    if kind(key) == "table":
        return collect(run(f"SELECT * FROM {name}(TABLE({view}))"))
    return _shape(key, collect(run(f"SELECT {name}({cols}) AS {quote_ident(ALIAS)} FROM {view}")))


def run_sql_grouped(spark: Any, key: str, cases: list[Hostile], plain: bool = False) -> dict:
    """An aggregate over every case at once: ``SELECT case, f(...) ... GROUP BY case``."""
    if len(cases) == 1:
        return {cases[0].id: attempt(lambda: run_sql(spark, key, list(cases[0].rows), plain))}
    run: Callable[[str], Any] = spark.sql if plain else (lambda q: looplift.sql(spark, q))
    name = sql_name(spark, key)
    cols = ", ".join(quote_ident(n) for n in names_of(key))
    rows = [(i, *r) for i, c in enumerate(cases) for r in c.rows]
    view = _view(frame(spark, key, rows, ("case",)))
    q = f"SELECT `case`, {name}({cols}) AS {quote_ident(ALIAS)} FROM {view} GROUP BY `case`"
    got = attempt(lambda: collect(run(q)))
    if got.raised:
        return {c.id: got for c in cases}
    values = dict(got.value)
    return {c.id: Outcome(value=values.get(i, "no row")) for i, c in enumerate(cases)}


@pytest.fixture(scope="module")
def packages(tmp_path_factory: Any) -> Path:
    """``uda-compile -o`` of each sample used, copied as ``hx_<module>.py`` (so that the
    packages do not clash with the samples this process imported), on sys.path."""
    from looplift.compiler.cli import main

    src = tmp_path_factory.mktemp("hostile_src")
    out = tmp_path_factory.mktemp("hostile_build")
    for module in sorted({m for m, _, _ in SAMPLES_USED.values()}):
        shutil.copy(SAMPLES / f"{module}.py", src / f"hx_{module}.py")
        assert main([str(src / f"hx_{module}.py"), "-o", str(out)]) == 0, module
        sys.modules.pop(f"hx_{module}", None)  # the source the build imported
    if str(src) in sys.path:
        sys.path.remove(str(src))
    sys.path.insert(0, str(out))
    yield out
    sys.path.remove(str(out))


def run_build(spark: Any, key: str, rows: Any) -> Any:
    import importlib

    module, name, _ = SAMPLES_USED[key]
    pkg = importlib.import_module(f"hx_{module}")
    if kind(key) == "scalar":
        sql_as = f"hx_{name}"
        if (id(spark), sql_as) not in _REGISTERED:
            pkg.register(spark, **{sql_as: name})
            _REGISTERED.add((id(spark), sql_as))
        return run_sql(spark, key, rows, plain=True, name=sql_as)
    return _shape(key, collect(pkg.run(spark, name, frame(spark, key, rows))))


def run_incremental(spark: Any, key: str, rows: Any, checkpoint: Path) -> Any:
    """``apply`` of the rows (a DataFrame with ``_sign``), then of deletes of every other
    row (``apply_rows``); the changes must add up to the result. Returns the result after
    the inserts; the one after the deletes is compared with the reference here."""
    from pyspark.sql import types as T

    algo = algorithm(key)
    fts = row_types(algo)
    view = algo.incremental(spark, str(checkpoint))
    try:
        schema = spark_schema(fts, names_of(key), nullable=True)
        schema = T.StructType([*schema.fields, T.StructField("_sign", T.IntegerType(), False)])
        data = [(*to_spark_value(r), 1) for r in coerce_rows(rows, fts)]
        changes = collect(view.apply(create_frame(spark, data, schema)))
        result = view.result_rows()
        initial = [] if kind(key) == "table" else [tuple(r) for r in view.step.fresh_output()]
        assert add_changes(multiset(initial), changes) == multiset(result), (changes, result)
        first = _shape(key, result)
        rows = coerce_rows(rows, fts)
        want = attempt(lambda: run_reference(algo, rows[1::2]))
        if not want.raised:
            view.apply_rows(rows[::2], [-1] * len(rows[::2]))
            got = _shape(key, view.result_rows())
            assert_same(kind(key), got, want.value, f"incremental {key}: after deletes")
        return first
    finally:
        view.close()


# -- one form over the table ----------------------------------------------------------------


def _batch(
    key: str, cases: list[Hostile], separate: bool = False
) -> tuple[list[Hostile], list[Hostile]]:
    """(cases run together, cases run alone): together, greedily, while CPython still
    returns on their rows together; alone, every case that must raise."""
    together: list[Hostile] = []
    alone: list[Hostile] = []
    algo = algorithm(key)
    rows: list[tuple] = []
    for c in cases:
        if c.null_field is not None or expected(c).raised or not c.rows:
            alone.append(c)
        elif separate or not order_free(algo, rows + list(c.rows)):
            alone.append(c)
        else:
            together.append(c)
            rows += list(c.rows)
    return together, alone


def order_free(algo: Any, rows: list[tuple]) -> bool:
    """Does CPython return the same on these rows in any order (here: reversed)? Rows
    of different cases may tie in an ``order_by`` (where Python's sort keeps the input
    order, or cannot order NaN at all), and a plan sees its rows in no order."""
    if kind_of(algo) == "scalar":
        return True
    first = attempt(lambda: run_reference(algo, rows))
    if first.raised:
        return False
    again = attempt(lambda: run_reference(algo, rows[::-1]))
    try:
        assert_same(kind_of(algo), again.value, first.value)
    except AssertionError:
        return False
    return not again.raised


def run_form(spark: Any, form: str, key: str, cases: list[Hostile], tmp: Path) -> dict:
    """Run ``cases`` of one algorithm in one form; returns ``{verdict: count}``."""
    verdicts: dict[str, int] = {}

    def note(v: str) -> None:
        verdicts[v] = verdicts.get(v, 0) + 1

    k = kind(key)
    if form in ("agg",) or (form in ("sql", "plain") and k == "aggregate"):
        if form == "plain":  # a Python UDAF gives no row over no rows (documented)
            cases = [c for c in cases if c.rows]
        together, alone = _batch(key, cases)
        got: dict[str, Outcome] = {}
        run = (
            run_agg
            if form == "agg"
            else (lambda s, k_, cs: run_sql_grouped(s, k_, cs, plain=form == "plain"))
        )
        if together:
            got.update(run(spark, key, together))
            if got[together[0].id].raised:  # one case's error fails all: run each alone
                alone, together = together + alone, []
        for c in alone:
            got.update(run(spark, key, [c]))
        for c in together + alone:
            note(check(c, got[c.id], form))
        return verdicts

    def one(rows: list[tuple], n: int) -> Any:
        if form == "df":
            return run_df(spark, key, rows)
        if form in ("sql", "plain"):
            return run_sql(spark, key, rows, plain=form == "plain")
        if form == "build":
            return run_build(spark, key, rows)
        if form == "incremental":
            return run_incremental(spark, key, rows, tmp / f"view{n}")
        raise ValueError(form)

    together, alone = _batch(key, cases)
    if k == "scalar":  # rows are independent: one job for every row that returns
        rows = [r for c in together for r in c.rows]
        want = attempt(lambda: run_reference(algorithm(key), rows))
        note(judge(k, want, attempt(lambda: one(rows, 0)), f"{form} {key}: batch", rows))
    elif together:
        rows = [r for c in together for r in c.rows]
        merged = Hostile(key, " + ".join(c.what for c in together), tuple(rows))
        got = attempt(lambda: one(rows, 0))
        if got.raised:  # (an overflow of Spark's 64-bit intermediates): each case alone
            alone = together + alone
        else:
            note(check(merged, got, form))
    for n, c in enumerate(alone, 1):
        note(check(c, attempt(lambda c=c, n=n: one(list(c.rows), n)), form))
    return verdicts


# aggregates whose states mix native and Python reducers: `f.agg` refuses them (a
# BackendError at the call, "call it on a DataFrame instead")
AGG_REFUSED = {"reading_summary"}


def applies(form: str, key: str) -> bool:
    k = kind(key)
    if form == "agg":
        return k == "aggregate" and key not in AGG_REFUSED
    if form == "incremental":
        return k != "scalar"
    return True


def first_null(key: str) -> int | None:
    return next((c.null_field for c in TABLE if c.algo == key and c.null_field is not None), None)


PAIRS = [(f, k) for f in FORMS for k in SAMPLES_USED if applies(f, k)]


def default_cases(form: str, key: str) -> list[Hostile]:
    """The cases of the default run: every case with rows but the nulls; a null in the
    first non-Optional field for a third of the algorithms in each form (rotating, so each
    algorithm gets it in two forms); the empty table for aggregates (a value over no rows).
    ``test_rest_of_the_table`` (slow) runs the others."""
    rotate = (FORMS.index(form) + list(SAMPLES_USED).index(key)) % 3 == 0
    out = []
    for c in TABLE:
        if c.algo != key:
            continue
        if c.null_field is not None:
            if rotate and c.null_field == first_null(key):
                out.append(c)
        elif c.rows or kind(key) == "aggregate":
            out.append(c)
    return out


@pytest.mark.parametrize(("form", "key"), PAIRS, ids=[f"{f}-{k}" for f, k in PAIRS])
def test_hostile_table(spark: Any, form: str, key: str, tmp_path: Path, request: Any) -> None:
    if form == "build":
        request.getfixturevalue("packages")
    run_form(spark, form, key, default_cases(form, key), tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize(("form", "key"), PAIRS, ids=[f"{f}-{k}" for f, k in PAIRS])
def test_rest_of_the_table(spark: Any, form: str, key: str, tmp_path: Path, request: Any) -> None:
    """Every null field and the empty table of table algorithms, in every form (in a third
    of the pairs unless ``LOOPLIFT_HOSTILE_ALL=1``, rotating, so each algorithm and each
    form keeps some)."""
    if not ALL and PAIRS.index((form, key)) % 3:
        pytest.skip("reduced run: LOOPLIFT_HOSTILE_ALL=1 runs this pair")
    done = {c.id for c in default_cases(form, key)}
    cases = [c for c in TABLE if c.algo == key and c.id not in done
             and not (kind(key) == "scalar" and not c.rows)]  # fmt: skip
    if not cases:
        pytest.skip("the default run has every case")
    if form == "build":
        request.getfixturevalue("packages")
    run_form(spark, form, key, cases, tmp_path)


HUGE_FORMS = [pytest.param(f, marks=() if f == "df" else pytest.mark.slow)
              for f in FORMS if f != "agg"]  # fmt: skip


@pytest.mark.parametrize("form", HUGE_FORMS)
def test_huge_group(spark: Any, form: str, tmp_path: Path, request: Any) -> None:
    """One user with ``LOOPLIFT_HOSTILE_HUGE`` clicks: nothing lost, nothing out of memory."""
    if form == "build":
        request.getfixturevalue("packages")
    n = HUGE if form == "df" else HUGE_REDUCED
    assert run_form(spark, form, "clickstream", [huge_group(n)], tmp_path) == {"same": 1}


def test_hostile_registered_names_are_refused(spark: Any) -> None:
    for bad in (VIEW, ALIAS, "it's", "ü\u0301ber", "x\ny"):
        with pytest.raises(ValueError, match="plain SQL name"):
            looplift.register(spark, **{bad: algorithm("sum")})
