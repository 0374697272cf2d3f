"""Issue 24: every ``datetime`` entry of the table on its edge values (invalid dates,
timedelta extremes, None), compiled and run on Spark in four contexts (a scalar, under a
guard, in a group loop, ``looplift.sql``), compared with CPython: values, and the class
of every exception. Cases come from the table (``datetime_edges.py``); each context runs
all inputs on which CPython returns in one Spark job per result type, and the raising
inputs one job each (the first of each partiality clause in the scalar context, the
first of each entry elsewhere).
"""

from __future__ import annotations

from functools import reduce
from typing import Any

import looplift
import pytest
from looplift.compiler.backend.rules import rule_for
from looplift.compiler.cli import algorithms_of, load_module
from looplift.compiler.ir.prims import PRIMS

from tests.frames import create_frame
from tests.spark import datetime_edges as E
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

SIGS = E.all_signatures()


# -- the table itself (no Spark) ----------------------------------------------------------


@pytest.mark.parametrize("entry", E.ENTRIES, ids=lambda p: p.name)
def test_entry_has_edges_reference_and_rule(entry: Any) -> None:
    """A new datetime entry needs edge cases (this fails without them), a reference the
    IR uses, and a SQL rule registered by the backend."""
    sigs = E.signatures(entry)
    assert sigs and all(s.cases for s in sigs), f"{entry.name}: no edge cases"
    assert PRIMS[entry.name].impl is entry.reference
    assert PRIMS[entry.name].total == entry.total
    assert entry.lowering == "rule" and rule_for(entry.name) is not None


@pytest.mark.parametrize("sig", SIGS, ids=lambda s: s.ident)
def test_partiality_names_what_cpython_raises(sig: E.Sig) -> None:
    for args in sig.cases:
        want = E.reference(sig, args)
        got = sig.prim.raises((*args, *sig.const)) if not sig.prim.name.startswith("td.") else None
        where = f"{sig.prim.name}{args!r}"
        if E.raises(want):
            assert got is not None and got.cls == want.__name__, f"{where}: {want} / {got}"
        else:
            assert got is None, f"{where} = {want!r}, but the table says {got}"


# -- on Spark -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def algos(tmp_path_factory: Any) -> dict[str, Any]:
    path = tmp_path_factory.mktemp("dtedges") / "dt_edge_algos.py"
    path.write_text(E.module_source(SIGS))
    module = load_module(str(path), name="dt_edge_algos")
    return {a.fn.__name__: a for a in algorithms_of(module)}


def _algo(algos: dict, context: str, sig: E.Sig, optional: bool = False) -> Any:
    return algos[E.algo_name("scalar" if context == "sql" else context, sig, optional)]


def _frame(spark: Any, algo: Any, context: str, sig: E.Sig, rows: list[tuple], j: int) -> Any:
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    fts = row_types(algo)
    rows = coerce_rows(rows, fts)
    if context == "group":
        # built before the call: the first call of a table algorithm collects the input's
        # first rows to learn host types, and pyspark cannot collect 0001-01-01 00:00 UTC
        algo.backend()
        df = create_frame(spark, [to_spark_value(r) for r in rows], spark_schema(fts))
        return algo(df).select(F.lit(j).alias("j"), F.col("k").alias("_id"), F.col("r"))
    fields = [T.StructField("_id", T.LongType(), False), *spark_schema(fts).fields]
    data = [(i, *to_spark_value(r)) for i, r in enumerate(rows)]
    df = create_frame(spark, data, T.StructType(fields))
    cols = [f.name for f in fields[1:]]
    if context == "sql":
        view, fn = f"dtedges_{sig.ident}", f"dtedge_{sig.ident}"
        df.createOrReplaceTempView(view)
        looplift.register(spark, **{fn: algo})
        return looplift.sql(
            spark, f"SELECT {j} AS j, _id, {fn}({', '.join(cols)}) AS r FROM {view}"
        )
    return df.select(F.lit(j).alias("j"), F.col("_id"), algo(*[F.col(c) for c in cols]).alias("r"))


def _want(sig: E.Sig, context: str, row: tuple) -> Any:
    """CPython's outcome of the context's algorithm (the guard's false rows return zero)."""
    if context == "guard" and not row[0]:
        return {"str": "", "int": 0, "float": 0.0}[sig.result]
    return E.reference(sig, row[1:] if context in ("guard", "group") else row)


@pytest.mark.spark
@pytest.mark.parametrize("context", E.CONTEXTS)
def test_values_agree_with_cpython(spark: Any, algos: dict, context: str) -> None:
    by_type: dict[str, list[Any]] = {}
    wants: dict[tuple[int, int], tuple[Any, str]] = {}
    for j, sig in enumerate(SIGS):
        rows = []
        for i, args in enumerate(sig.cases):
            for c in (True, False) if context == "guard" else (True,):
                row = E.context_row(context, args, i, c)
                if not E.raises(_want(sig, context, row)):
                    rows.append(row)
        if not rows:
            continue
        ids = [r[0] for r in rows] if context == "group" else list(range(len(rows)))
        for i, row in zip(ids, rows, strict=True):
            wants[(j, i)] = (_want(sig, context, row), f"{sig.prim.name}{row!r}")
        algo = _algo(algos, context, sig)
        # the reference of the generated source agrees with the table's
        for row in rows[:3]:
            got = run_reference(algo, [row])
            got = got[0][1] if context == "group" else got[0]
            assert same(got, _want(sig, context, row)), (sig.ident, row, got)
        by_type.setdefault(sig.result, []).append(_frame(spark, algo, context, sig, rows, j))
    bad, seen = [], 0
    for frames in by_type.values():
        for j, i, got in collect(reduce(lambda a, b: a.union(b), frames)):
            want, where = wants[(j, i)]
            seen += 1
            if not same(got, want):
                bad.append(f"{context} {where}: compiled {got!r}, CPython {want!r}")
    assert seen == len(wants), f"{context}: {seen} rows back of {len(wants)}"
    assert not bad, "\n".join(bad[:40]) + f"\n({len(bad)} of {len(wants)} differ)"


def _raising(context: str, sig: E.Sig) -> list[tuple[tuple, type]]:
    """The first raising input of each clause (scalar context); elsewhere the first of
    each signature, for a third of the signatures (a different third per context: the
    checks are the rule's, the same in every context)."""
    if context != "scalar" and SIGS.index(sig) % 3 != E.CONTEXTS.index(context) % 3:
        return []
    out, clauses = [], set()
    for args in sig.cases:
        want = E.reference(sig, args)
        if not E.raises(want):
            continue
        clause = (want, sig.prim.raises(args) if sig.prim.name.startswith("make_") else None)
        if clause in clauses or (context != "scalar" and clauses):
            continue
        clauses.add(clause)
        out.append((E.context_row(context, args, 0), want))
    return out


@pytest.mark.spark
@pytest.mark.parametrize("context", E.CONTEXTS)
def test_raises_as_cpython(spark: Any, algos: dict, context: str) -> None:
    bad, n = [], 0
    for j, sig in enumerate(SIGS):
        algo = _algo(algos, context, sig)
        for row, want in _raising(context, sig):
            n += 1
            got = attempt(lambda row=row, sig=sig, j=j, algo=algo: collect(
                _frame(spark, algo, context, sig, [row], j)))  # fmt: skip
            if not got.raised:
                bad.append(f"{context} {sig.prim.name}{row!r}: compiled {got.value!r}, "
                           f"CPython raises {want.__name__}")  # fmt: skip
            elif not same_error_class(want(), got.error):
                bad.append(f"{context} {sig.prim.name}{row!r}: compiled raises "
                           f"{python_error_of(got.error)} ({str(got.error)[:300]}), "
                           f"CPython {want.__name__}")  # fmt: skip
    assert n > 0
    assert not bad, "\n".join(bad)


NONE_QUICK = ("make_date", "make_datetime", "make_timedelta", "dt.year", "dt.date", "td.days")


@pytest.mark.spark
def test_none_raises_as_cpython(spark: Any, algos: dict) -> None:
    """A None argument: TypeError for a constructor, AttributeError for an attribute."""
    bad = []
    for sig in SIGS:  # the None check is the rule's, one per kind of entry
        if sig.params[0] not in ("int", "datetime", "date") or sig.prim.name not in NONE_QUICK:
            continue
        algo = _algo(algos, "scalar", sig, optional=True)
        args = E.none_case(sig)
        want = attempt(lambda algo=algo, args=args: run_reference(algo, [args]))
        assert want.raised, sig.ident
        got = attempt(lambda algo=algo, args=args, sig=sig: collect(_frame(spark, algo, "scalar", sig,
                                                                  [args], 0)))  # fmt: skip
        if not (got.raised and same_error_class(want.error, got.error)):
            bad.append(f"{sig.prim.name}{args!r}: {got.value or got.error!s:.300}, "
                       f"CPython {type(want.error).__name__}")  # fmt: skip
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("entry", E.ENTRIES, ids=lambda p: p.name)
def test_explain_reads_the_entrys_exactness(entry: Any) -> None:
    """``runs_python`` (``--explain``) says native exactly where the table does."""
    from looplift.compiler.ir.prims import runs_python

    assert runs_python(entry.name, ()) == (not entry.lowers_natively([]))


ARITH = """import datetime

from looplift import dataflow


@dataflow
def date_plus(y: int, m: int, d: int, n: int) -> str:
    t = datetime.date(y, m, d) + datetime.timedelta(days=n)
    return str(t.year) + "-" + str(t.month) + "-" + str(t.day)


@dataflow
def datetime_minus(y: int, m: int, d: int, n: int) -> str:
    t = datetime.datetime(y, m, d, 12) - datetime.timedelta(days=n, hours=13)
    return str(t.year) + "-" + str(t.month) + "-" + str(t.day) + " " + str(t.hour)
"""


@pytest.mark.spark
def test_date_arithmetic_out_of_range_raises_overflow_error(spark: Any, tmp_path: Any) -> None:
    """``date ± timedelta`` outside the years 1..9999: OverflowError ("date value out of
    range"), where Spark's dates go on; inside, the same values."""
    from pyspark.sql import functions as F

    path = tmp_path / "dt_arith.py"
    path.write_text(ARITH)
    module = load_module(str(path), name="dt_arith")
    cases = [(9999, 12, 30, 1), (1, 1, 2, 1), (1, 1, 3, 1), (2000, 2, 28, 1), (2000, 3, 1, -1),
             (2023, 1, 1, 0), (9999, 12, 31, 1), (1, 1, 1, -1), (9999, 12, 31, -2)]  # fmt: skip
    for algo in (module.date_plus, module.datetime_minus):
        outcomes = [attempt(lambda algo=algo, a=a: run_reference(algo, [a])) for a in cases]
        inside = [a for a, o in zip(cases, outcomes, strict=True) if not o.raised]
        outside = [(a, o) for a, o in zip(cases, outcomes, strict=True) if o.raised]
        assert inside and len(outside) >= 2, algo.name
        df = create_frame(spark, inside, "y long, m long, d long, n long")
        got = [r[0] for r in df.select(algo(*[F.col(c) for c in "ymdn"])).collect()]
        assert got == run_reference(algo, inside), algo.name
        for args, want in outside:
            assert isinstance(want.error, OverflowError), (algo.name, args, want)
            one = spark.createDataFrame([args], "y long, m long, d long, n long")
            out = attempt(lambda one=one, algo=algo: one.select(
                algo(*[F.col(c) for c in "ymdn"])).collect())  # fmt: skip
            assert out.raised and same_error_class(want.error, out.error), (algo.name, args, out)
