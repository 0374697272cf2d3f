"""Issue 24: the table's operators and numeric builtins (``+``, ``//``, ``**``, ``<``,
``min``, ``round``, ``int``, ``str`` ...) on their edge values, compiled and run on
Spark, compared with CPython (values exactly, signs of zeros included, and the class
of every exception), in the five contexts of ``test_primitive_edges.py``.

The cases come from the table (``operator_edges.py``). Each context runs every input
on which CPython returns in one Spark job per result type; raising inputs need a job
each: in the quick run the first of each partiality clause per entry (scalar context)
and one per entry elsewhere; all of them under ``-m slow`` with ``LOOPLIFT_EDGES_ALL=1``.

The meta-tests check the table itself (no Spark): every operator has edge cases and a
type rule, its partiality names what CPython raises on every edge input, and
``runs_python`` (``--explain``) says Python exactly where the plan calls Python.
"""

from __future__ import annotations

import math
import os
from functools import reduce
from typing import Any

import looplift
import pytest
from looplift.compiler.cli import algorithms_of, load_module
from looplift.compiler.ir.nodes import Lit, Var
from looplift.compiler.ir.prims import PRIMS, runs_python
from looplift.compiler.primitives import OPERATORS, PRIMITIVES

from tests.frames import create_frame
from tests.spark import operator_edges as E
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
ALL = os.environ.get("LOOPLIFT_EDGES_ALL") == "1"
# the other contexts' raising inputs and every None position: with LOOPLIFT_EDGES_ALL=1
# (`make test` runs the reduced form: the scalar context, a few None positions)
EVERY = [pytest.mark.slow, pytest.mark.skipif(not ALL, reason="LOOPLIFT_EDGES_ALL=1")]


# -- the table itself (no Spark) ----------------------------------------------------------


@pytest.mark.parametrize("entry", OPERATORS, ids=lambda p: p.name)
def test_operator_has_edges_rule_and_lowering(entry: Any) -> None:
    """A new operator needs a reference, edge cases of its own, a spelling, a type rule
    and a lowering (or ``exact=False``); the IR's table takes reference and totality
    from it."""
    assert callable(entry.reference) and entry.spelling and entry.rule is not None
    assert entry.edges, f"{entry.name}: no edge cases of its own"
    assert entry.native is not None or not entry.exact
    assert PRIMS[entry.name].impl is entry.reference
    assert PRIMS[entry.name].total == entry.total
    sigs = E.signatures(entry)
    assert sigs and all(E.edge_inputs(s) for s in sigs)
    for s in sigs:
        assert s.result in ("int", "float", "bool", "str"), (s, s.result)
        if entry.lowers_natively(list(s.ts)):
            assert entry.lower([f"x{i}" for i in range(s.n)], list(s.ts))


def test_every_operator_entry_is_generated() -> None:
    """The generator covers every operator of the table (a new entry without edge
    cases fails here and above)."""
    assert {s.prim.name for s in SIGS} == {p.name for p in OPERATORS}
    assert {p.name for p in OPERATORS} <= set(PRIMITIVES)


@pytest.mark.parametrize("sig", SIGS, ids=lambda s: s.ident)
def test_partiality_names_what_cpython_raises(sig: E.OSig) -> None:
    for args in E.edge_inputs(sig):
        want = E.outcome(sig.prim, args)
        clause = sig.prim.raises(args)
        where = f"{sig.prim.name}{args!r}"
        if not E.raises(want):
            assert clause is None, f"{where} = {want!r}, but the table says {clause}"
            continue
        assert clause is not None, f"{where} raises {want.__name__}; the table says it returns"
        if want is E.Int64Overflow:
            assert clause.cls == "OverflowError" and clause.beyond64, where
        else:
            assert clause.cls == want.__name__, f"{where}: {clause}"


# -- on Spark -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def algos(tmp_path_factory: Any) -> dict[str, Any]:
    path = tmp_path_factory.mktemp("opedges") / "op_edge_algos.py"
    path.write_text(E.module_source(SIGS))
    module = load_module(str(path), name="op_edge_algos")
    return {a.fn.__name__: a for a in algorithms_of(module)}


def test_explain_says_python_where_the_plan_calls_python(algos: dict) -> None:
    """``runs_python`` (what ``--explain`` reports) agrees with the plan's Python calls."""
    bad = []
    for sig in SIGS:
        algo = algos[E.algo_name("scalar", sig)]
        calls = {c.ref for c in algo.backend().pycalls}
        args = tuple(Var(f"x{i}") for i in range(sig.n))
        said = runs_python(sig.prim.name, args, lambda v, ts=sig.ts: ts[int(v.name[1:])])
        if said != bool(calls):
            bad.append(f"{sig.ident}: runs_python {said}, plan calls {sorted(calls)}")
    assert not bad, "\n".join(bad)
    _ = Lit


def _rows(context: str, sig: E.OSig, inputs: list[tuple]) -> list[tuple]:
    rows = []
    for i, args in enumerate(inputs):
        if context == "guard":
            rows += [E.context_row(context, args, i, True), E.context_row(context, args, i, False)]
        else:
            rows.append(E.context_row(context, args, i))
    return rows


def _reference(algo: Any, context: str, row: tuple) -> Any:
    if context in ("group", "fold"):
        return attempt(lambda: run_reference(algo, [row])[0][1])
    return attempt(lambda: run_reference(algo, [row])[0])


def _frame(spark: Any, algos: dict, context: str, sig: E.OSig, rows: list[tuple], j: int) -> Any:
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    algo = algos[E.algo_name("scalar" if context == "sql" else context, sig)]
    fts = row_types(algo)
    rows = coerce_rows(rows, fts)
    if context in ("group", "fold"):
        df = create_frame(spark, [to_spark_value(r) for r in rows], spark_schema(fts))
        return algo(df).select(F.lit(j).alias("j"), F.col("k").alias("_id"), F.col("r"))
    fields = [T.StructField("_id", T.LongType(), False), *spark_schema(fts).fields]
    data = [(i, *to_spark_value(r)) for i, r in enumerate(rows)]
    df = create_frame(spark, data, T.StructType(fields))
    cols = [f.name for f in fields[1:]]
    if context == "sql":
        view = f"opedges_{sig.ident}"
        df.createOrReplaceTempView(view)
        fn = f"opedge_{sig.ident}"
        looplift.register(spark, **{fn: algo})
        return looplift.sql(
            spark, f"SELECT {j} AS j, _id, {fn}({', '.join(cols)}) AS r FROM {view}"
        )
    return df.select(F.lit(j).alias("j"), F.col("_id"), algo(*[F.col(c) for c in cols]).alias("r"))


def _exact(got: Any, want: Any, loose: bool) -> bool:
    """Values exactly (a float to the last bit, the sign of a zero), an int where the
    compiled type is float (``x ** n``) as that float; ``loose``: the harness' rule
    (``int / int`` beyond 2**53 is a double division, one ulp off)."""
    if loose and isinstance(want, bool) and type(got) is int:
        return got == want
    if loose or not isinstance(want, float) or isinstance(got, bool):
        return (
            same(got, want)
            if loose or not isinstance(want, int) or isinstance(want, bool)
            else (
                type(got) in (int, float)
                and float(got) == float(want)
                and not isinstance(got, bool)
            )
        )
    if not isinstance(got, (int, float)):
        return False
    got = float(got)
    if math.isnan(want):
        return math.isnan(got)
    return got == want and math.copysign(1.0, got) == math.copysign(1.0, want)


def _ids(context: str, rows: list[tuple]) -> list[int]:
    return [r[0] for r in rows] if context in ("group", "fold") else list(range(len(rows)))


def _sigs(context: str) -> list[E.OSig]:
    """The signatures run in a context: all in the scalar one (and with
    ``LOOPLIFT_EDGES_ALL=1``), elsewhere the all-float one of each entry (the rendering
    of an operator is the same in every context; the contexts test its guards and
    bindings)."""
    sigs = [s for s in SIGS if context in E.contexts_of(s)]
    if ALL or context == "scalar":
        return sigs
    return [s for s in sigs if all(t == "float" for t in s.ts)]


@pytest.mark.spark
@pytest.mark.parametrize("context", E.CONTEXTS)
def test_values_agree_with_cpython(spark: Any, algos: dict, context: str) -> None:
    """Every input on which CPython returns: one job per result type and context."""
    by_type: dict[str, list[Any]] = {}
    wants: dict[tuple[int, int], tuple[Any, str, bool]] = {}
    for j, sig in enumerate(context_share(_sigs(context), context, E.CONTEXTS)):
        algo = algos[E.algo_name("scalar" if context == "sql" else context, sig)]
        ok, values = [], []
        # an input whose call raises (an int beyond 64 bits included, SPEC §4) raises in
        # every context, even where Python's algorithm goes on with the big int
        inputs = [a for a in E.edge_inputs(sig) if not E.raises(E.outcome(sig.prim, a))]
        for row in _rows(context, sig, inputs):
            want = _reference(algo, context, row)
            if not want.raised and not isinstance(want.value, complex):
                ok.append(row)
                values.append(want.value)
        if not ok:
            continue
        loose = E.loose(sig)
        for i, row, value in zip(_ids(context, ok), ok, values, strict=True):
            wants[(j, i)] = (value, f"{sig.ident}{row!r}", loose)
        by_type.setdefault(sig.result, []).append(_frame(spark, algos, context, sig, ok, j))
    bad, seen = [], 0
    for frames in by_type.values():
        for j, i, got in collect(reduce(lambda a, b: a.union(b), frames)):
            want, where, loose = wants[(j, i)]
            seen += 1
            if not _exact(got, want, loose):
                bad.append(f"{context} {where}: compiled {got!r}, CPython {want!r}")
    assert seen == len(wants), f"{context}: {seen} rows back of {len(wants)}"
    assert not bad, "\n".join(bad[:60]) + f"\n({len(bad)} of {len(wants)} differ)"


def _raising(context: str, sig: E.OSig, exhaustive: bool, seen: set) -> list[tuple[tuple, Any]]:
    """Raising inputs: all; or the first of each clause of each entry (scalar context),
    the first of each entry (other contexts)."""
    out = []
    for args in E.edge_inputs(sig):
        want = E.outcome(sig.prim, args)
        if not E.raises(want):
            continue
        clause = sig.prim.raises(args)
        key = (sig.prim.name, clause if context == "scalar" else None)
        if not exhaustive and key in seen:
            continue
        seen.add(key)
        out.append((E.context_row(context, args, 0), want))
    return out


def _check_raises(spark: Any, algos: dict, context: str, exhaustive: bool) -> int:
    bad, n, seen = [], 0, set()
    for j, sig in enumerate(_sigs(context)):
        algo = algos[E.algo_name("scalar" if context == "sql" else context, sig)]
        for row, _ in _raising(context, sig, exhaustive, seen):
            want = _reference(algo, context, row)
            if not want.raised and isinstance(want.value, complex):
                want_cls = "ValueError"  # a complex result: the plan raises ValueError
            else:
                assert want.raised, f"{sig.ident}{row!r} should raise in Python"
                want_cls = type(want.error).__name__
            got = attempt(lambda row=row, sig=sig, j=j: collect(
                _frame(spark, algos, context, sig, [row], j)))  # fmt: skip
            n += 1
            if not got.raised:
                bad.append(f"{context} {sig.ident}{row!r}: compiled {got.value!r}, "
                           f"CPython raises {want_cls}")  # fmt: skip
            elif want.raised and not same_error_class(want.error, got.error):
                bad.append(f"{context} {sig.ident}{row!r}: compiled raises "
                           f"{python_error_of(got.error)} ({str(got.error)[:200]}), "
                           f"CPython {want_cls}")  # fmt: skip
            elif not want.raised and python_error_of(got.error) != want_cls:
                bad.append(f"{context} {sig.ident}{row!r}: compiled raises "
                           f"{python_error_of(got.error)}, want {want_cls}")  # fmt: skip
    assert not bad, "\n".join(bad)
    return n


@pytest.mark.spark
@pytest.mark.parametrize(
    "context", ["scalar", *(pytest.param(c, marks=EVERY) for c in E.CONTEXTS[1:])]
)
def test_raises_as_cpython(spark: Any, algos: dict, context: str) -> None:
    assert _check_raises(spark, algos, context, exhaustive=ALL) > 0


NONE_QUICK = ("add", "lt", "eq", "round", "str", "in", "max")


@pytest.mark.spark
@pytest.mark.parametrize("exhaustive", [False, pytest.param(True, marks=EVERY)])
def test_none_as_cpython(spark: Any, algos: dict, exhaustive: bool) -> None:
    """A None in each argument position: TypeError where CPython raises it, else the
    same value (``None == None``, ``str(None)``, ``not None``); the values in one job."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    bad, frames, wants = [], [], {}
    for j, sig in enumerate(SIGS):
        if sig.ts[0] != "float" or not (exhaustive or sig.prim.name in NONE_QUICK):
            continue
        algo = algos[E.algo_name("scalar", sig, optional=True)]
        spark_t = {"float": T.DoubleType(), "int": T.LongType(), "bool": T.BooleanType()}
        schema = T.StructType([T.StructField("_id", T.LongType()), *(
            T.StructField(f"c{k}", spark_t[t], True) for k, t in enumerate(sig.ts))])  # fmt: skip
        rows = []
        for pos in range(sig.n):
            args = tuple(None if k == pos else E.PY[t](2) for k, t in enumerate(sig.ts))
            want = attempt(lambda algo=algo, args=args: run_reference(algo, [args])[0])
            if want.raised:
                one = spark.createDataFrame([(0, *args)], schema)
                got = attempt(lambda one=one, algo=algo: one.select(
                    algo(*[F.col(c) for c in one.columns[1:]])).collect())  # fmt: skip
                if not (got.raised and same_error_class(want.error, got.error)):
                    bad.append(f"{sig.ident}{args!r}: {got.value or got.error!s:.300}")
            else:
                rows.append((len(rows), *args))
                wants[(j, len(rows) - 1)] = (want.value, f"{sig.ident}{args!r}")
        if rows:
            df = create_frame(spark, rows, schema)
            frames.append(df.select(F.lit(j).alias("j"), F.col("_id"),
                                    F.to_json(F.struct(algo(*[F.col(c) for c in df.columns[1:]])
                                                       .alias("v"))).alias("r")))  # fmt: skip
    import json

    for frame in frames:
        for j, i, got in frame.collect():
            want, where = wants[(j, i)]
            value = json.loads(got).get("v")
            if not same(value, want):
                bad.append(f"{where}: compiled {value!r}, CPython {want!r}")
    assert not bad, "\n".join(bad)
