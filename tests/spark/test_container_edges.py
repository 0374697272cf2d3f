"""Issue 24: every container read of the table (``c_*``) on its edge values, compiled
and run on Spark in three contexts (an ordered group loop, the same under a guard, an
unordered group loop), compared with CPython: values, and the class of every exception.
The containers and reads are generated from the table (``container_edges.py``): empty
containers, indexes -1, len, -len-1, None elements, NaN elements in either order, a
duplicate key. Each context runs every case on which CPython returns in one Spark job per
result type; each raising case (the first of each template and exception class) runs
alone.
"""

from __future__ import annotations

from functools import reduce
from typing import Any

import pytest
from looplift.compiler.backend.rules import rule_for
from looplift.compiler.cli import algorithms_of, load_module
from looplift.compiler.ir.prims import PRIMS

from tests.frames import create_frame
from tests.spark import container_edges as E
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

# -- the table itself (no Spark) ----------------------------------------------------------


@pytest.mark.parametrize("entry", E.ENTRIES, ids=lambda p: p.name)
def test_entry_has_edges_reference_and_rule(entry: Any) -> None:
    """A new container read needs edge cases and a template here (or a named place where
    it is tested), the IR's reference from the table, and a SQL rule."""
    assert entry.edges, f"{entry.name}: no edge cases"
    ts = [t for t in E.TEMPLATES if t.entry == entry.name]
    assert ts or entry.name in E.ELSEWHERE, f"{entry.name}: no template in container_edges.py"
    assert all(E.cases(t) for t in ts)
    assert PRIMS[entry.name].impl is entry.reference
    assert PRIMS[entry.name].total == entry.total
    assert entry.lowering == "rule" and rule_for(entry.name) is not None


@pytest.mark.parametrize("entry", E.ENTRIES, ids=lambda p: p.name)
def test_partiality_names_what_cpython_raises(entry: Any) -> None:
    for args in entry.edges:
        try:
            entry.reference(*args)
            want = None
        except Exception as e:  # noqa: BLE001 - the class is the outcome
            want = type(e)
        got = entry.raises(args)
        where = f"{entry.name}{args!r}"
        if want is None:
            assert got is None, f"{where} returns, but the table says {got}"
        else:
            assert got is not None, f"{where} raises {want.__name__}; the table says it returns"
            assert got.cls in {c.__name__ for c in want.__mro__}, f"{where}: {want} / {got}"


# -- on Spark -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def algos(tmp_path_factory: Any) -> dict[str, Any]:
    path = tmp_path_factory.mktemp("cedges") / "c_edge_algos.py"
    path.write_text(E.module_source())
    module = load_module(str(path), name="c_edge_algos")
    return {a.fn.__name__: a for a in algorithms_of(module)}


def _frame(spark: Any, algo: Any, rows: list[tuple], j: int) -> Any:
    from pyspark.sql import functions as F

    fts = row_types(algo)
    df = create_frame(spark, [to_spark_value(r) for r in coerce_rows(rows, fts)],
                               spark_schema(fts))  # fmt: skip
    return algo(df).select(F.lit(j).alias("j"), F.col("k").alias("_id"), F.col("r"))


def _outcomes(context: str, t: E.Template, algo: Any) -> list[tuple[int, list[tuple], Any]]:
    """(group key, rows, CPython's outcome) of every case (the guard: even and odd keys)."""
    out = []
    for i, case in enumerate(E.cases(t, context)):
        for k in (2 * i, 2 * i + 1) if context == "guard" else (2 * i,):
            rows = E.rows_of(t, k, case)
            out.append((k, rows, attempt(lambda rows=rows: run_reference(algo, rows)[0][1])))
    return out


@pytest.mark.spark
@pytest.mark.parametrize("context", E.CONTEXTS)
def test_values_agree_with_cpython(spark: Any, algos: dict, context: str) -> None:
    by_type: dict[str, list[Any]] = {}
    wants: dict[tuple[int, int], tuple[Any, str]] = {}
    for j, t in enumerate(context_share(E.templates(context), context, E.CONTEXTS, ("group",))):
        algo = algos[E.algo_name(context, t)]
        rows = []
        for k, case_rows, want in _outcomes(context, t, algo):
            if not want.raised:
                rows += case_rows
                wants[(j, k)] = (want.value, f"{t.expr} of {case_rows!r}")
        if rows:
            by_type.setdefault(t.result, []).append(_frame(spark, algo, rows, j))
    bad, seen = [], 0
    for frames in by_type.values():
        for j, k, got in collect(reduce(lambda a, b: a.union(b), frames)):
            want, where = wants[(j, k)]
            seen += 1
            if not same(got, want):
                bad.append(f"{context} {where}: compiled {got!r}, CPython {want!r}")
    assert seen == len(wants), f"{context}: {seen} rows back of {len(wants)}"
    assert not bad, "\n".join(bad[:40]) + f"\n({len(bad)} of {len(wants)} differ)"


@pytest.mark.spark
@pytest.mark.parametrize("context", ["ordered", "group"])
def test_raises_as_cpython(spark: Any, algos: dict, context: str) -> None:
    bad, n = [], 0
    for j, t in enumerate(E.templates(context)):
        if context == "group" and j % 3:
            continue  # a third of the templates: the checks are the rule's, as in `ordered`
        algo = algos[E.algo_name(context, t)]
        classes: set[type] = set()
        for _k, rows, want in _outcomes(context, t, algo):
            if not want.raised or type(want.error) in classes:
                continue
            classes.add(type(want.error))
            n += 1
            got = attempt(lambda rows=rows, algo=algo, j=j: collect(_frame(spark, algo, rows, j)))
            where = f"{context} {t.expr} of {rows!r}"
            if not got.raised:
                bad.append(f"{where}: compiled {got.value!r}, CPython raises "
                           f"{type(want.error).__name__}")  # fmt: skip
            elif not same_error_class(want.error, got.error):
                bad.append(f"{where}: compiled raises {python_error_of(got.error)} "
                           f"({str(got.error)[:200]}), CPython {type(want.error).__name__}")  # fmt: skip
    assert n > 0
    assert not bad, "\n".join(bad)
