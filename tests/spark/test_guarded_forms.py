"""Guarded evaluation in the call forms beyond the DataFrame and SQL (issue 24, item 3):
a built package (``uda-compile -o``), an incremental view and a Structured Streaming
query run the guarded algorithms of ``guarded_algos.py`` as Python does: a host function
runs only where Python reaches it, and a batch on which Python raises is refused by the
view and fails the stream, with the class Python raises.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from looplift.compiler.cli import main

from tests.spark import guarded_algos as G
from tests.spark.harness import assert_same, collect, kind_of, row_types, run_reference, to_df

pytestmark = pytest.mark.spark

# algorithm: (rows on which Python returns, rows on which it raises and the class)
CASES: dict[str, tuple[list[tuple], list[tuple[list[tuple], type]]]] = {
    "parse_host": ([("a=1",), ("b=2",), ("a=1",)],
                   [([(None,)], ValueError), ([("a=x",)], ValueError)]),
    "group_label": ([("a", "x"), ("a", None), (" b ", None), (" 12", "y"), (" 12", "z")],
                    [([("a", "x"), ("a", "y")], ValueError)]),
    "parse": ([("a=1",), ("bb=22",)], [([("zzz",)], ValueError)]),
}  # fmt: skip


def _raised(e: BaseException) -> str:
    return f"{type(e).__name__}: {e}"


@pytest.fixture(scope="module")
def built(spark: Any, tmp_path_factory: Any) -> Any:
    """``uda-compile guarded_algos.py -o OUT``, imported from OUT, its zip shipped to the
    workers as ``spark-submit --py-files`` would."""
    out = tmp_path_factory.mktemp("guarded_build")
    assert main([G.__file__, "-o", str(out)]) == 0
    spark.sparkContext.addPyFile(str(out / "guarded_algos.zip"))
    sys.path.insert(0, str(out))
    for m in [m for m in sys.modules if m.split(".")[0] == "guarded_algos"]:
        del sys.modules[m]  # (pytest may have imported the source under this name)
    try:
        pkg = importlib.import_module("guarded_algos")
        assert Path(pkg.__file__).parent == out / "guarded_algos", pkg.__file__
        yield pkg
    finally:
        sys.path.remove(str(out))
        for m in [m for m in sys.modules if m.split(".")[0] == "guarded_algos"]:
            del sys.modules[m]


@pytest.mark.parametrize("name", sorted(CASES))
def test_built_package(spark: Any, built: Any, name: str) -> None:
    algo = getattr(G, name)
    good, bad = CASES[name]
    fts = row_types(algo)
    got = collect(built.run(spark, name, to_df(spark, good, fts, nullable=True)))
    assert_same(kind_of(algo), got, run_reference(algo, good), f"built {name}")
    for rows, cls in bad:
        with pytest.raises(cls):
            run_reference(algo, rows)
        with pytest.raises(Exception) as info:  # noqa: PT011 - the class is in the message
            collect(built.run(spark, name, to_df(spark, rows, fts, nullable=True)))
        assert f"Python raises {cls.__name__}" in str(info.value) or cls.__name__ in str(
            info.value
        ), _raised(info.value)


@pytest.mark.parametrize("name", sorted(CASES))
def test_incremental_view(spark: Any, tmp_path: Path, name: str) -> None:
    """Inserts on which Python returns are applied; a batch that makes Python raise is
    refused (the version and the result stay), and deleting the bad rows again works."""
    algo = getattr(G, name)
    good, bad = CASES[name]
    view = algo.incremental(spark, str(tmp_path / name))
    try:
        view.apply_rows(good, [1] * len(good))
        want = run_reference(algo, good)
        assert_same(kind_of(algo), view.result_rows(), want, f"view {name}")
        for rows, cls in bad:
            version = view.version
            with pytest.raises(Exception) as info:  # noqa: PT011
                view.apply_rows(rows, [1] * len(rows))
            assert cls.__name__ in _raised(info.value), _raised(info.value)
            assert view.version == version
            assert_same(kind_of(algo), view.result_rows(), want, f"view {name} after {rows!r}")
        view.apply_rows(good[:1], [-1])
        assert_same(kind_of(algo), view.result_rows(), run_reference(algo, good[1:]), name)
    finally:
        view.close()


def _write(path: Path, fts: Any, rows: list[tuple], signs: list[int]) -> None:
    names = {int: pa.int64(), str: pa.string(), float: pa.float64(), bool: pa.bool_()}
    cols = {f"c{i}": pa.array([r[i] for r in rows], names[ft.base]) for i, ft in enumerate(fts)}
    cols["_sign"] = pa.array(signs, pa.int32())
    pq.write_table(pa.table(cols), path)


@pytest.mark.parametrize("name", ["group_label"])
def test_stream(spark: Any, tmp_path: Path, name: str) -> None:
    """A stream of the good rows gives Python's result; a micro-batch on which Python
    raises stops the query with Python's class."""
    algo = getattr(G, name)
    good, bad = CASES[name]
    fts = row_types(algo)
    ddl = ", ".join(f"c{i} {'bigint' if ft.base is int else 'string'}" for i, ft in enumerate(fts))
    changes: list[tuple] = []

    def run(src: Path, ckpt: Path) -> Any:
        sdf = spark.readStream.schema(ddl + ", _sign int").parquet(str(src))
        query = (
            algo.stream(sdf, "_sign")
            .writeStream.foreachBatch(lambda df, _id: changes.extend(collect(df)))
            .option("checkpointLocation", str(ckpt))
            .trigger(availableNow=True)
            .start()
        )
        try:
            query.awaitTermination(300)
        except Exception as e:  # noqa: BLE001 - a failed query raises here
            return e
        return query.exception()

    src = tmp_path / "src"
    src.mkdir()
    _write(src / "part-0.parquet", fts, good, [1] * len(good))
    assert run(src, tmp_path / "ckpt") is None
    net: dict[tuple, int] = {}
    for *row, sign in changes:
        net[tuple(row)] = net.get(tuple(row), 0) + sign
    got = [r for r, n in net.items() for _ in range(n)]
    assert_same(kind_of(algo), got, run_reference(algo, good), f"stream {name}")

    rows, cls = bad[0]
    bad_src = tmp_path / "bad"
    bad_src.mkdir()
    _write(bad_src / "part-0.parquet", fts, rows, [1] * len(rows))
    error = run(bad_src, tmp_path / "bad_ckpt")
    assert error is not None and cls.__name__ in _raised(error), error
