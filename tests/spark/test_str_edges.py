"""Issue 24: every string primitive of the table on its edge values, compiled and run on
Spark, compared with CPython (values, and the class of every exception).

The cases come from the table (``str_edges.py``): each entry's edges (the literal
arguments worth testing, and columns), on every receiver of ``STRINGS`` (the empty
string, every Unicode whitespace character, the case-mapping exceptions, astral
characters, digits of other scripts, numbers as text). Each context (scalar, guard,
group loop, ``looplift.sql``) runs every input on which CPython returns in one Spark job
per result type (the forms' frames unioned); the guard context also runs every raising
input with its guard false (one job: nothing may raise off its path). Raising inputs
with their call taken each need a job of their own: the first of each exception class
per entry (scalar context) in the quick run, one per form under ``-m slow``.

The table's own tests need no Spark: every entry has edge cases, its partiality names
the class CPython raises on each of them, and ``runs_python`` (what ``--explain`` says)
agrees with what the backend builds.
"""

from __future__ import annotations

import os
from functools import reduce
from typing import Any

import looplift
import pytest
from looplift.compiler.cli import algorithms_of, load_module
from looplift.compiler.ir.nodes import Lit, Var
from looplift.compiler.ir.prims import PRIMS, runs_python
from looplift.compiler.primitives import PRIMITIVES, STRING_PRIMS
from looplift.strings import STR_METHODS

from tests.frames import create_frame
from tests.spark import str_edges as E
from tests.spark.harness import (
    attempt,
    coerce_rows,
    collect,
    python_error_of,
    row_types,
    run_reference,
    same,
    same_error_class,
    spark_schema,
    to_spark_value,
)

FORMS = list(E.all_forms())
NAMES = sorted(p.name for p in STRING_PRIMS)


# -- the table itself (no Spark) ----------------------------------------------------------


def test_every_string_primitive_is_an_entry_with_edge_cases() -> None:
    """Every str method the language accepts, ``re``, slices, ``in``, formatting and the
    conversions of a string are entries; a new entry without edge cases fails here."""
    assert {f"str.{m}" for m in STR_METHODS} <= set(NAMES)
    for name in ("slice", "getitem", "contains", "not_contains", "format", "pct", "repr",
                 "int(str)", "float(str)", "match.group", "re.match", "re.sub"):  # fmt: skip
        assert name in NAMES
    for p in STRING_PRIMS:
        assert PRIMITIVES[p.name] is p
        assert callable(p.reference) and p.type_at is not None
        assert p.edges, f"{p.name}: no edge cases"
        assert p.native_when is not None or not p.exact
        for f in E.forms(p):
            assert f.call() and f.rows(), f"{p.name}: edge {f.edge!r} gives no rows"
        if "(" not in p.name:
            assert PRIMS[p.name].impl is p.reference
            assert PRIMS[p.name].total == p.total


# every form in every context (about 250 s more): with LOOPLIFT_EDGES_ALL=1; `make test` runs
# the reduced form (each form in one context, raising inputs for half the entries)
EVERY_FORM = pytest.mark.skipif(
    os.environ.get("LOOPLIFT_EDGES_ALL") != "1", reason="every form: LOOPLIFT_EDGES_ALL=1"
)

@pytest.mark.parametrize("name", NAMES)
def test_partiality_names_what_cpython_raises(name: str) -> None:
    """On every edge input, the table's partiality says whether CPython raises, and
    which class."""
    prim = PRIMITIVES[name]
    bad = []
    for f in E.forms(prim):
        for s, *cols in [*f.rows(), (None, *f.rows()[0][1:])]:
            try:
                args = f.args(s, tuple(cols))
            except Exception:  # noqa: BLE001 - an argument itself raised (re.match(None))
                continue
            try:
                prim.reference(*args)
                want = None
            except Exception as e:  # noqa: BLE001 - the class is the outcome
                want = type(e).__name__
            clause = prim.raises(args)
            got = clause.cls if clause is not None else None
            if got != want and not (want is None and got == "OverflowError"):
                bad.append(f"{name}{args!r}: CPython {want or 'returns'}, the table {got}")
    assert not bad, "\n".join(bad[:30]) + f"\n({len(bad)} in all)"


@pytest.fixture(scope="module")
def algos(tmp_path_factory: Any) -> dict[str, Any]:
    path = tmp_path_factory.mktemp("stredges") / "str_edge_algos.py"
    path.write_text(E.module_source(FORMS))
    module = load_module(str(path), name="str_edge_algos")
    return {a.fn.__name__: a for a in algorithms_of(module)}


def _site_args(f: E.Form) -> tuple[Any, ...]:
    """The IR arguments of the form's primitive (literals, and variables for columns)."""
    s = Var("s")
    edge = tuple(Var("c") if isinstance(v, E.Col) else Lit(v) for v in f.edge)
    name = f.prim.name
    if name == "re.sub":
        return (edge[0], edge[1], s, *edge[2:])
    if name.startswith("re.") or name in ("contains", "not_contains"):
        return (edge[0], s, *edge[1:])
    return (s, *edge)


@pytest.mark.parametrize("context", ["scalar", "opt"])
def test_explain_agrees_with_the_build(algos: dict, context: str) -> None:
    """``runs_python`` (read by ``--explain`` and ``--check``) says a primitive runs in
    Python exactly when the built plan calls its reference."""
    bad = []
    for f in FORMS:
        if "(" in f.prim.name or f.prim.name == "match.group":
            continue
        made = {c.ref for c in algos[E.algo_name(context, f)].backend().pycalls}
        says = runs_python(f.prim.name, _site_args(f))
        built = f.prim.name in made or (f.prim.name == "pct" and "format" in made)
        if says != built:
            bad.append(f"{f.call()}: explain says {'Python' if says else 'native'}, the "
                       f"build {sorted(made) or 'native'}")  # fmt: skip
    assert not bad, "\n".join(bad)


# -- on Spark -------------------------------------------------------------------------------


def _frame(spark: Any, algos: dict, context: str, f: E.Form, rows: list[tuple], j: int) -> Any:
    """The compiled algorithm over ``rows``, as columns ``j, _id, r``."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    algo = algos[E.algo_name("scalar" if context == "sql" else context, f)]
    fts = row_types(algo)
    rows = coerce_rows(rows, fts)
    if context == "group":
        df = create_frame(spark, [to_spark_value(r) for r in rows], spark_schema(fts))
        return algo(df).select(F.lit(j).alias("j"), F.col("k").alias("_id"), F.col("r"))
    fields = [T.StructField("_id", T.LongType(), False), *spark_schema(fts).fields]
    df = create_frame(spark, [(i, *to_spark_value(r)) for i, r in enumerate(rows)],
                               T.StructType(fields))  # fmt: skip
    cols = [x.name for x in fields[1:]]
    if context == "sql":
        view = f"stredges_{f.ident}"
        df.createOrReplaceTempView(view)
        fn = f"stredge_{f.ident}"
        looplift.register(spark, **{fn: algo})
        return looplift.sql(
            spark, f"SELECT {j} AS j, _id, {fn}({', '.join(cols)}) AS r FROM {view}"
        )
    return df.select(F.lit(j).alias("j"), F.col("_id"), algo(*[F.col(c) for c in cols]).alias("r"))


def _reference(algo: Any, context: str, row: tuple) -> Any:
    if context == "group":
        return attempt(lambda: run_reference(algo, [row])[0][1])
    return attempt(lambda: run_reference(algo, [row])[0])


def _cases(algos: dict, context: str, f: E.Form) -> tuple[list[tuple], list[Any], list[tuple]]:
    """(returning rows, their values, raising rows) of a form in a context."""
    algo = algos[E.algo_name("scalar" if context == "sql" else context, f)]
    ok, values, raising = [], [], []
    for i, row in enumerate(f.rows()):
        want = _reference(algo, context, E.context_row(context, row, i))
        if want.raised:
            raising.append(row)
        else:
            ok.append(E.context_row(context, row, i))
            values.append(want.value)
    return ok, values, raising


@pytest.mark.spark
@pytest.mark.parametrize("context", E.CONTEXTS)
def test_values_agree_with_cpython(spark: Any, algos: dict, context: str) -> None:
    """A quarter of the forms in each context: every form, so every entry, runs in one
    of them (a Spark job costs per form, about a second, more than per row)."""
    n = len(E.CONTEXTS)
    chosen = [f for i, f in enumerate(FORMS) if i % n == E.CONTEXTS.index(context)]
    _check_values(spark, algos, context, chosen)


@pytest.mark.spark
@pytest.mark.slow
@EVERY_FORM
@pytest.mark.parametrize("context", E.CONTEXTS)
def test_values_agree_with_cpython_every_form(spark: Any, algos: dict, context: str) -> None:
    _check_values(spark, algos, context, FORMS)


def _check_values(spark: Any, algos: dict, context: str, forms: list[E.Form]) -> None:
    """Every input on which CPython returns, per context (guard: also every input with
    its guard false, raising ones included): one job per result type."""
    by_type: dict[str, list[Any]] = {}
    wants: dict[tuple[int, int], tuple[Any, str]] = {}
    for j, f in enumerate(FORMS):
        if f not in forms:
            continue
        ok, values, raising = _cases(algos, context, f)
        rows = list(ok)
        if context == "guard":
            off = [E.context_row("guard", r, 0, False) for r in f.rows()]
            algo = algos[E.algo_name("guard", f)]
            rows += off
            values += [run_reference(algo, [r])[0] for r in off]
        ids = [r[0] for r in rows] if context == "group" else list(range(len(rows)))
        for i, row, value in zip(ids, rows, values, strict=True):
            wants[(j, i)] = (value, f"{f.call()} on {row!r}")
        if rows:
            by_type.setdefault(repr(f.result()), []).append(
                _frame(spark, algos, context, f, rows, j)
            )
    bad, seen = [], 0
    for frames in by_type.values():
        for j, i, got in collect(reduce(lambda a, b: a.union(b), frames)):
            want, where = wants[(j, i)]
            seen += 1
            if not same(got, want):
                bad.append(f"{context} {where}: compiled {got!r}, CPython {want!r}")
    assert seen == len(wants), f"{context}: {seen} rows back of {len(wants)}"
    assert not bad, "\n".join(bad[:60]) + f"\n({len(bad)} of {len(wants)} differ)"


NONE_QUICK = ("str.strip", "str.split", "str.find", "str.index", "str.title", "str.zfill",
              "format", "slice", "getitem", "re.sub")  # fmt: skip


def _check_raises(spark: Any, algos: dict, exhaustive: bool) -> int:
    """Raising rows, scalar context (and the None receiver, ``opt``): the first of each
    exception class per entry for half the entries (the None receiver: of a few), each
    a job of its own; every form's with ``exhaustive``."""
    bad, n, seen = [], 0, set()
    for j, f in enumerate(FORMS):
        quick = NAMES.index(f.prim.name) % 2 == 0
        if not exhaustive and not quick:
            continue
        none = exhaustive or f.prim.name in NONE_QUICK
        for context, rows in (("scalar", _cases(algos, "scalar", f)[2]),
                              ("opt", [(None, *f.rows()[0][1:])] if none else [])):  # fmt: skip
            algo = algos[E.algo_name(context, f)]
            for row in rows:
                want = _reference(algo, context, row)
                if not want.raised:
                    continue
                key = (f.prim.name if not exhaustive else f.ident, type(want.error), context)
                if key in seen:
                    continue
                seen.add(key)
                n += 1
                got = attempt(lambda f=f, row=row, context=context, j=j: collect(
                    _frame(spark, algos, context, f, [row], j)))  # fmt: skip
                where = f"{context} {f.call()} on {row!r}"
                if not got.raised:
                    bad.append(f"{where}: compiled {got.value!r}, CPython raises "
                               f"{type(want.error).__name__}")  # fmt: skip
                elif not same_error_class(want.error, got.error):
                    bad.append(f"{where}: compiled raises {python_error_of(got.error)} "
                               f"({str(got.error)[:200]}), CPython {type(want.error).__name__}")  # fmt: skip
    assert not bad, "\n".join(bad)
    return n


@pytest.mark.spark
def test_raises_as_cpython(spark: Any, algos: dict) -> None:
    assert _check_raises(spark, algos, exhaustive=False) > 0


@pytest.mark.spark
@pytest.mark.slow
@EVERY_FORM
def test_raises_as_cpython_every_form(spark: Any, algos: dict) -> None:
    assert _check_raises(spark, algos, exhaustive=True) > 0
