"""Issue 24: every primitive of the table on its edge values, compiled and run on Spark,
compared with CPython (values, and the class of every exception).

The cases come from the table (``primitive_edges.py``): generic edge values, the
partiality's thresholds and their neighbours, each entry's own edges. Each context
(scalar, guard, group loop, ordered fold, ``looplift.sql``) runs every input on which
CPython returns in one Spark job per result type (the algorithms' frames unioned); the
inputs on which it raises each need their own job: one per partiality clause and
signature in the quick run (scalar context; one per signature elsewhere), all of them
under ``-m slow``.

The meta-tests check the table itself against CPython, without Spark: on every edge
input, an entry's partiality names exactly the class CPython raises.
"""

from __future__ import annotations

import math
import os
from functools import reduce
from typing import Any

import looplift
import pytest
from looplift.compiler.cli import algorithms_of, load_module
from looplift.compiler.ir.prims import MATH_FUNCS, PRIMS
from looplift.compiler.primitives import MATH_NAMES, PRIMITIVES

from tests.frames import create_frame
from tests.spark import primitive_edges as E
from tests.spark.harness import (
    attempt,
    coerce_rows,
    collect,
    context_share,
    python_error_of,
    row_types,
    run_reference,
    same,
    same_error_class,
    spark_schema,
    to_spark_value,
)

SIGS = list(E.all_signatures())
MATH_ENTRIES = sorted(n for n, p in PRIMITIVES.items() if p.domain == "math")
PYTYPE = {"float": float, "int": int, "bool": bool}


# -- the table itself (no Spark) ----------------------------------------------------------


def test_every_math_function_is_an_entry_of_the_table() -> None:
    assert list(MATH_FUNCS) == list(MATH_NAMES)
    for name in MATH_NAMES:
        entry = PRIMITIVES[f"math.{name}"]
        assert PRIMS[entry.name].impl is entry.reference
        assert PRIMS[entry.name].total == entry.total


@pytest.mark.parametrize("name", MATH_ENTRIES)
def test_entry_has_reference_edges_and_lowering(name: str) -> None:
    """A new primitive needs a reference, edge cases of its own and a lowering (or
    ``exact=False``, which makes the backend call the reference)."""
    entry = PRIMITIVES[name]
    assert callable(entry.reference)
    assert entry.edges, f"{name}: no edge cases of its own"
    assert entry.native is not None or not entry.exact
    assert entry.result in PYTYPE
    for sig in E.signatures(entry):
        assert E.edge_inputs(sig), f"{name}: no edge inputs for {sig}"
        sql = entry.lower([f"x{i}" for i in range(sig.n)], [sig.t] * sig.n)
        assert "raise_error" in sql or entry.total or sig.t == "int"


@pytest.mark.parametrize("sig", SIGS, ids=lambda s: s.ident)
def test_partiality_names_what_cpython_raises(sig: E.Sig) -> None:
    """On every edge input, the table's partiality (evaluated in Python) says whether
    CPython raises, and which class; the result has the declared type."""
    for args in E.edge_inputs(sig):
        want = E.outcome(sig.prim, args)
        clause = sig.prim.raises(args)
        where = f"{sig.prim.name}{args!r}"
        if not E.raises(want):
            assert clause is None, f"{where} = {want!r}, but the table says {clause}"
            assert type(want) is PYTYPE[sig.prim.result], f"{where} = {want!r}"
            continue
        assert clause is not None, f"{where} raises {want.__name__}; the table says it returns"
        if want is E.Int64Overflow:
            assert clause.cls == "OverflowError" and clause.beyond64, where
        else:
            assert clause.cls == want.__name__, f"{where}: {clause}"


# -- on Spark -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def algos(tmp_path_factory: Any) -> dict[str, Any]:
    path = tmp_path_factory.mktemp("edges") / "prim_edge_algos.py"
    path.write_text(E.module_source(SIGS))
    module = load_module(str(path), name="prim_edge_algos")
    return {a.fn.__name__: a for a in algorithms_of(module)}


def _rows(context: str, sig: E.Sig) -> list[tuple]:
    """The context's input rows for every edge input of ``sig`` (guard: both ways)."""
    rows = []
    for i, args in enumerate(E.edge_inputs(sig)):
        if context == "guard":
            rows += [E.context_row(context, args, i, True), E.context_row(context, args, i, False)]
        else:
            rows.append(E.context_row(context, args, i))
    return rows


def _reference(algo: Any, context: str, row: tuple) -> Any:
    """CPython's outcome of the context's algorithm on one input row."""
    if context in ("group", "fold"):
        return attempt(lambda: run_reference(algo, [row])[0][1])
    return attempt(lambda: run_reference(algo, [row])[0])


def _frame(spark: Any, algos: dict, context: str, sig: E.Sig, rows: list[tuple], j: int) -> Any:
    """The compiled algorithm over ``rows``, as columns ``j, _id, r``."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    algo = algos[E.algo_name("scalar" if context == "sql" else context, sig)]
    fts = row_types(algo)
    rows = coerce_rows(rows, fts)
    if context in ("group", "fold"):
        schema = spark_schema(fts)
        df = create_frame(spark, [to_spark_value(r) for r in rows], schema)
        out = algo(df)
        return out.select(F.lit(j).alias("j"), F.col("k").alias("_id"), F.col("r"))
    fields = [T.StructField("_id", T.LongType(), False), *spark_schema(fts).fields]
    data = [(i, *to_spark_value(r)) for i, r in enumerate(rows)]
    df = create_frame(spark, data, T.StructType(fields))
    cols = [f.name for f in fields[1:]]
    if context == "sql":
        view = f"edges_{sig.ident}"
        df.createOrReplaceTempView(view)
        fn = f"edge_{sig.ident}"
        looplift.register(spark, **{fn: algo})
        return looplift.sql(
            spark, f"SELECT {j} AS j, _id, {fn}({', '.join(cols)}) AS r FROM {view}"
        )
    return df.select(F.lit(j).alias("j"), F.col("_id"), algo(*[F.col(c) for c in cols]).alias("r"))


def _same(got: Any, want: Any) -> bool:
    """The harness' rule, and the sign of a zero (``copysign``, ``atan2`` depend on it)."""
    if not same(got, want):
        return False
    if isinstance(want, float) and want == 0 and isinstance(got, float):
        return math.copysign(1.0, got) == math.copysign(1.0, want)
    return True


def _ids(context: str, rows: list[tuple]) -> list[int]:
    return [r[0] for r in rows] if context in ("group", "fold") else list(range(len(rows)))


@pytest.mark.spark
@pytest.mark.parametrize("context", E.CONTEXTS)
def test_values_agree_with_cpython(spark: Any, algos: dict, context: str) -> None:
    """Every input on which CPython returns, per context: one job per result type (every
    signature in the scalar context, a share of them in each other one)."""
    by_type: dict[str, list[Any]] = {}
    wants: dict[tuple[int, int], tuple[Any, str]] = {}
    sigs = [s for s in SIGS if context in ("scalar", "group") or s.t == "float"]
    for j, sig in enumerate(context_share(sigs, context, E.CONTEXTS)):
        algo = algos[E.algo_name("scalar" if context == "sql" else context, sig)]
        ok, values = [], []
        for row in _rows(context, sig):
            want = _reference(algo, context, row)
            if not want.raised:
                ok.append(row)
                values.append(want.value)
        if not ok:
            continue
        for i, row, value in zip(_ids(context, ok), ok, values, strict=True):
            wants[(j, i)] = (value, f"{sig.prim.name}{row!r}")
        rt = sig.prim.result_type([sig.t] * sig.n)
        by_type.setdefault(rt, []).append(_frame(spark, algos, context, sig, ok, j))
    bad = []
    seen = 0
    for frames in by_type.values():
        for j, i, got in collect(reduce(lambda a, b: a.union(b), frames)):
            want, where = wants[(j, i)]
            seen += 1
            if not _same(got, want):
                bad.append(f"{context} {where}: compiled {got!r}, CPython {want!r}")
    assert seen == len(wants), f"{context}: {seen} rows back of {len(wants)}"
    assert not bad, "\n".join(bad[:40]) + f"\n({len(bad)} of {len(wants)} differ)"


def _raising(context: str, sig: E.Sig, exhaustive: bool, shift: int = 0) -> list[tuple[tuple, Any]]:
    """Raising input rows: all; or the first of each partiality clause (scalar context,
    float arguments); or, with int arguments and in the other contexts, the first of
    all for a third of the entries (a different third in each context)."""
    if not exhaustive and (context != "scalar" or sig.t == "int"):
        names = MATH_ENTRIES
        if names.index(sig.prim.name) % 3 != (E.CONTEXTS.index(context) + shift) % 3:
            return []
    out, clauses = [], set()
    for args in E.edge_inputs(sig):
        want = E.outcome(sig.prim, args)
        if not E.raises(want):
            continue
        clause = sig.prim.raises(args)
        first_only = context != "scalar" or sig.t == "int"
        if not exhaustive and (clause in clauses or (first_only and clauses)):
            continue
        clauses.add(clause)
        out.append((E.context_row(context, args, 0), want))
    return out


def _check_raises(spark: Any, algos: dict, context: str, exhaustive: bool, shift: int = 0) -> int:
    bad, n = [], 0
    sigs = [s for s in SIGS if context in ("scalar", "group") or s.t == "float"]
    for j, sig in enumerate(sigs):
        algo = algos[E.algo_name("scalar" if context == "sql" else context, sig)]
        for row, _ in _raising(context, sig, exhaustive, shift):
            want = _reference(algo, context, row)
            assert want.raised, f"{sig.prim.name}{row!r} should raise in Python"
            got = attempt(lambda row=row, sig=sig, j=j: collect(_frame(spark, algos, context, sig,
                                                                   [row], j)))  # fmt: skip
            n += 1
            if not got.raised:
                bad.append(f"{context} {sig.prim.name}{row!r}: compiled {got.value!r}, "
                           f"CPython raises {type(want.error).__name__}")  # fmt: skip
            elif not same_error_class(want.error, got.error):
                bad.append(f"{context} {sig.prim.name}{row!r}: compiled raises "
                           f"{python_error_of(got.error)} ({str(got.error)[:300]}), "
                           f"CPython {type(want.error).__name__}")  # fmt: skip
    assert not bad, "\n".join(bad)
    return n


@pytest.mark.spark
@pytest.mark.parametrize("context", E.CONTEXTS)
def test_raises_as_cpython(spark: Any, algos: dict, context: str) -> None:
    assert _check_raises(spark, algos, context, exhaustive=False) > 0


@pytest.mark.spark
@pytest.mark.slow
@pytest.mark.parametrize("context", E.CONTEXTS)
def test_raises_as_cpython_exhaustive(spark: Any, algos: dict, context: str) -> None:
    """Every raising input with ``LOOPLIFT_EDGES_ALL=1`` (about 10 minutes); else, as
    ``make test`` runs it, the quick run's selection over another third of the entries."""
    if os.environ.get("LOOPLIFT_EDGES_ALL") == "1":
        _check_raises(spark, algos, context, exhaustive=True)
    else:
        assert _check_raises(spark, algos, context, exhaustive=False, shift=1) > 0


NONE_QUICK = ("math.sqrt", "math.floor", "math.pow", "math.log", "math.isnan")


@pytest.mark.spark
@pytest.mark.parametrize("exhaustive", [False, pytest.param(True, marks=pytest.mark.slow)])
def test_none_raises_type_error(spark: Any, algos: dict, exhaustive: bool) -> None:
    """``math.f(None)``: TypeError, from every argument position (a few entries in the
    quick run: the None check is the renderer's, the same for every entry)."""
    from pyspark.sql import types as T

    bad = []
    every = os.environ.get("LOOPLIFT_EDGES_ALL") == "1"
    floats = [sig for sig in SIGS if sig.t == "float"]
    for i, sig in enumerate(floats):
        # the slow run: every entry with LOOPLIFT_EDGES_ALL=1, else every other one
        if not (sig.prim.name in NONE_QUICK or exhaustive and (every or i % 2 == 0)):
            continue
        algo = algos[E.algo_name("scalar", sig, optional=True)]
        for pos in range(sig.n):
            args = tuple(None if k == pos else 2.0 for k in range(sig.n))
            want = attempt(lambda algo=algo, args=args: run_reference(algo, [args]))
            assert want.raised and isinstance(want.error, TypeError)
            schema = T.StructType([T.StructField(f"c{k}", T.DoubleType(), True)
                                   for k in range(sig.n)])  # fmt: skip
            from pyspark.sql import functions as F

            df = spark.createDataFrame([args], schema)
            got = attempt(lambda df=df, algo=algo: df.select(
                algo(*[F.col(c) for c in df.columns])).collect())  # fmt: skip
            if not (got.raised and same_error_class(want.error, got.error)):
                bad.append(f"{sig.prim.name}{args!r}: {got.value or got.error!s:.300}")
    assert not bad, "\n".join(bad)


@pytest.mark.spark
def test_inexact_entry_falls_back_to_its_reference(
    spark: Any, tmp_path: Any, monkeypatch: Any
) -> None:
    """An entry marked not exact runs as its CPython reference, called from the plan:
    same values, same exceptions (here ``math.floor``, whose result is an int)."""
    import dataclasses

    from looplift.compiler.ir.prims import runs_python
    from pyspark.sql import functions as F

    entry = PRIMITIVES["math.floor"]
    monkeypatch.setitem(PRIMITIVES, entry.name, dataclasses.replace(entry, exact=False))
    assert runs_python(entry.name, ())
    sig = E.Sig(entry, 1, "float")
    path = tmp_path / "prim_fallback_algos.py"
    path.write_text(E.HEADER + E.source("scalar", sig) + "\n" + E.source("guard", sig))
    module = load_module(str(path), name="prim_fallback_algos")
    scalar = getattr(module, E.algo_name("scalar", sig))
    guard = getattr(module, E.algo_name("guard", sig))
    assert [c.ref for c in scalar.backend().pycalls] == ["math.floor"]  # a Python call
    ok = [a for a in E.edge_inputs(sig) if not E.raises(E.outcome(entry, a))]
    bad = [a for a in E.edge_inputs(sig) if E.raises(E.outcome(entry, a))]
    rows = [(i, *a) for i, a in enumerate(ok)]
    df = spark.createDataFrame(rows, "_id long, c0 double")
    got = dict(df.select("_id", scalar(F.col("c0"))).collect())
    for i, a in enumerate(ok):
        assert _same(got[i], entry.reference(*a)), (a, got[i])
    guarded = spark.createDataFrame([(False, a[0]) for a in bad], "c boolean, c0 double")
    assert all(r[0] == 0 for r in guarded.select(guard(F.col("c"), F.col("c0"))).collect())
    for a in bad[:2]:
        want = attempt(lambda a=a: entry.reference(*a))
        one = spark.createDataFrame([a], "c0 double")
        got_err = attempt(lambda one=one: one.select(scalar(F.col("c0"))).collect())
        assert got_err.raised and same_error_class(want.error, got_err.error), (a, got_err)


HAVERSINE = """import math

from looplift import dataflow


@dataflow
def haversine(lat1: float, lon1: float, lat2: float, lon2: float) -> float:
    r = 6371.0
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp = math.radians(lat2 - lat1)
    dl = math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * r * math.asin(math.sqrt(a))
"""


@pytest.mark.spark
def test_issue_24_haversine_with_an_infinite_coordinate_raises(spark: Any, tmp_path: Any) -> None:
    """Issue 24: ``sin(inf)`` is NaN on Spark, and the distance came back 0.0 where
    Python raises ValueError; finite coordinates still agree."""
    from tests.spark.harness import expect_same_or_both_raise

    path = tmp_path / "prim_haversine.py"
    path.write_text(HAVERSINE)
    algo = load_module(str(path), name="prim_haversine").haversine
    expect_same_or_both_raise(spark, algo, [(51.5, -0.12, 48.85, 2.35), (0.0, 0.0, -0.0, 180.0)])
    with pytest.raises(ValueError):
        algo(0.0, math.inf, 0.0, 0.0)
    got = attempt(lambda: run_reference(algo, [(0.0, math.inf, 0.0, 0.0)]))
    assert isinstance(got.error, ValueError)
    expect_same_or_both_raise(spark, algo, [(0.0, math.inf, 0.0, 0.0)], allow_overflow=False)
