"""``uda-compile X.py -o OUT``: build packages (SPEC §5, "Build step").

Every sample builds; the output is byte-for-byte reproducible, lint-clean,
and imports and runs (from the folder and from the zip) with only the
looplift runtime: the subprocess tests block ``looplift.compiler``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest
from looplift.compiler.build_relocate import relocate_source, rewrite_refs, tidy_python
from looplift.compiler.build_vendor import sibling_modules
from looplift.compiler.cli import main

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "samples"
SAMPLE_FILES = sorted(SAMPLES.glob("*.py"))


def _build(src: Path, out: Path) -> int:
    return main([str(src), "-o", str(out)])


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("build")
    for f in SAMPLE_FILES:
        assert _build(f, out) == 0, f
    return out


# -- what a build contains -----------------------------------------------------------------------


def test_every_sample_builds_a_package_and_a_zip(built) -> None:
    for f in SAMPLE_FILES:
        pkg = built / f.stem
        assert (built / f"{f.stem}.zip").is_file()
        for name in ("__init__.py", "source.py", "manifest.json", "functions.sql", "graph.dot"):
            assert (pkg / name).is_file(), (f.stem, name)
        assert (pkg / "source.py").read_bytes() == f.read_bytes()
        # a dependency (graphviz-pure) draws it when the machine has no Graphviz
        assert (pkg / "graph.svg").read_bytes().lstrip().startswith((b"<?xml", b"<svg"))


def test_manifest(built) -> None:
    m = json.loads((built / "clickstream" / "manifest.json").read_text())
    assert m["format"] == 1 and m["module"] == "clickstream"
    src = (SAMPLES / "clickstream.py").read_bytes()
    assert m["source_sha256"] == hashlib.sha256(src).hexdigest()
    assert [a["name"] for a in m["algorithms"]] == ["avg_path", "clickstream"]
    table = m["algorithms"][1]
    assert table["kind"] == "table" and table["plan_module"] == "clickstream.plan_clickstream"
    assert table["ref"] == "clickstream.source:clickstream"
    assert "clickstream.source:avg_path" in table["refs"]
    assert [o["name"] for o in table["output"]] == ["user_id", "avg_clicks"]
    assert table["shape"] == {"kind": "table", "key": [0], "mode": "state", "rows_index": 0,
                              "why": "", "error": ""}  # fmt: skip
    text = (built / "clickstream" / "manifest.json").read_text()
    assert text == json.dumps(m, indent=2, sort_keys=True) + "\n"
    # a sibling module's references point into the vendored copy
    refs = json.loads((built / "average" / "manifest.json").read_text())["algorithms"][0]["refs"]
    assert "average._vendor.count:count" in refs and "average._vendor.sum:sum" in refs
    assert not any(r.startswith(("count:", "sum:", "average:")) for r in refs)


def test_plan_modules_point_at_the_package(built) -> None:
    plan = (built / "clickstream" / "plan_clickstream.py").read_text()
    assert '"clickstream.source:clickstream"' in plan and '"clickstream:' not in plan
    weblog = (built / "weblog" / "plan_page_hits.py").read_text()
    assert "weblog._vendor.hostlib:normalize_url" in weblog and "'hostlib:" not in weblog
    compile(plan, "plan_clickstream.py", "exec")


def test_functions_sql(built, spark) -> None:
    text = (built / "pages" / "functions.sql").read_text()
    assert "funnel (table)" in text.splitlines()[2]  # the header names what needs register()
    sql = "".join(ln for ln in text.splitlines(keepends=True) if not ln.startswith("--"))
    stmts = [s for s in sql.split(";\n") if s.strip()]
    assert len(stmts) == 1 and stmts[0].startswith(
        "CREATE OR REPLACE TEMPORARY FUNCTION `page_class`("
    )
    spark.sql(stmts[0])
    from looplift.compiler.cli import load_module

    pages = load_module(str(SAMPLES / "pages.py"))
    got = [r[0] for r in spark.sql("SELECT page_class(id) FROM range(-1, 12)").collect()]
    assert got == [pages.page_class(i) for i in range(-1, 12)]
    clicks = (built / "clickstream" / "functions.sql").read_text()
    assert "CREATE" not in clicks and "avg_path (aggregate)" in clicks


def test_siblings_are_vendored(built) -> None:
    assert sibling_modules(str(SAMPLES / "average.py")) == {
        "count": str(SAMPLES / "count.py"),
        "sum": str(SAMPLES / "sum.py"),
    }
    files = _tree(built / "average")
    assert files["_vendor/count.py"] == (SAMPLES / "count.py").read_bytes()
    assert files["_vendor/sum.py"] == (SAMPLES / "sum.py").read_bytes()
    orders = _tree(built / "orders")
    assert orders["_vendor/hostlib/__init__.py"] == (SAMPLES / "hostlib/__init__.py").read_bytes()
    assert not any(k.startswith("_vendor") for k in _tree(built / "clickstream"))


def test_zip_is_the_package_reproducibly(built) -> None:
    with zipfile.ZipFile(built / "average.zip") as zf:
        infos = zf.infolist()
        names = [i.filename for i in infos]
        assert names == sorted(names) and all(n.startswith("average/") for n in names)
        assert {n.removeprefix("average/"): zf.read(n) for n in names} == _tree(built / "average")
        for i in infos:
            assert i.date_time == (1980, 1, 1, 0, 0, 0)
            assert i.compress_type == zipfile.ZIP_DEFLATED
            assert i.external_attr >> 16 == 0o644


def test_builds_are_byte_identical(built, tmp_path) -> None:
    for f in SAMPLE_FILES:
        assert _build(f, tmp_path) == 0
    again = _tree(tmp_path)
    assert again == _tree(built)
    # another process (another hash seed) writes the same bytes
    out = tmp_path / "other"
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    cmd = [sys.executable, "-m", "looplift", str(SAMPLES / "average.py"), "-o", str(out)]
    subprocess.run(cmd, check=True, capture_output=True, env=env)
    assert _tree(out) == {k: v for k, v in again.items() if k.startswith("average")}


def test_generated_python_passes_ruff(built) -> None:
    ruff = shutil.which("ruff", path=os.path.dirname(sys.executable)) or shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed")
    config = str(ROOT / "pyproject.toml")
    written = [p.relative_to(built).as_posix() for p in built.rglob("*.py")]
    ours = [  # everything but the copies of the user's modules
        str(built / p)
        for p in written
        if not p.endswith("/source.py")
        and ("/_vendor/" not in p or p.endswith("_vendor/__init__.py"))
    ]
    assert any("plan_" in p for p in ours)
    r = subprocess.run([ruff, "check", "--config", config, *ours], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    # the package modules uda-compile writes itself are also in ruff's format
    inits = [p for p in ours if p.endswith("__init__.py")]
    r = subprocess.run([ruff, "format", "--check", "--config", config, *inits],
                       capture_output=True, text=True)  # fmt: skip
    assert r.returncode == 0, r.stdout + r.stderr


# -- failures ------------------------------------------------------------------------------------


def _module(tmp_path: Path, name: str, body: str) -> Path:
    p = tmp_path / f"{name}.py"
    p.write_text(textwrap.dedent(body))
    return p


def test_compile_errors_exit_1_and_write_nothing(tmp_path, capsys) -> None:
    src = _module(tmp_path, "looping", """\
        from looplift import RowStream, dataflow


        @dataflow
        def w(rows: RowStream[int]) -> int:
            t = 0
            while t < 3:
                t += 1
            return t
        """)  # fmt: skip
    out = tmp_path / "out"
    # a `while` loop is a Python island; --strict makes every island an error
    assert main([str(src), "-o", str(out), "--strict"]) == 1
    assert "looping.py:7:5: error: `while`" in capsys.readouterr().err
    assert not out.exists()


def test_backend_limits_exit_1_and_keep_the_previous_build(tmp_path, capsys) -> None:
    good = """\
        from looplift import RowStream, dataflow


        @dataflow
        def total(a: RowStream[int]) -> int:
            t = 0
            for (x,) in a:
                t += x
            return t
        """
    src = _module(tmp_path, "mod", good)
    out = tmp_path / "out"
    assert _build(src, out) == 0
    before = _tree(out)
    _module(tmp_path, "mod", good + """\


        @dataflow
        def two(a: RowStream[int], b: RowStream[int]) -> int:
            t = 0
            for (x,) in a:
                t += x
            for (y,) in b:
                t += y
            return t
        """)  # fmt: skip
    assert _build(src, out) == 1
    err = capsys.readouterr().err
    assert "mod.py:13:1: error: `two` cannot be built for Spark" in err
    assert _tree(out) == before and sorted(os.listdir(out)) == ["mod", "mod.zip"]


def test_refuses_bad_names_and_foreign_folders(tmp_path, capsys) -> None:
    body = "from looplift import dataflow\n\n\n@dataflow\ndef f(x: int) -> int:\n    return x\n"
    bad = _module(tmp_path, "my-algos", body)
    assert _build(bad, tmp_path / "out") == 1
    assert "not a Python package name" in capsys.readouterr().err
    src = _module(tmp_path, "algos", body)
    (tmp_path / "out" / "algos").mkdir(parents=True)
    (tmp_path / "out" / "algos" / "mine.txt").write_text("not a build")
    assert _build(src, tmp_path / "out") == 1
    assert "not a looplift build" in capsys.readouterr().err
    assert os.listdir(tmp_path / "out" / "algos") == ["mine.txt"]


# -- rewriting generated Python ------------------------------------------------------------------


def test_relocate_source_rewrites_refs_strings_and_imports() -> None:
    src = textwrap.dedent('''\
        """Plan for `m:f`."""

        import m
        import m as mm
        from m import f
        import hostlib
        import other

        A = _ll.import_ref('m:State')
        REFS = ["m:f", "hostlib.sub:g", "other:h", "looplift.states.additive:Sum"]
        SQL = 'x = "m:f"'
        ''')
    got = relocate_source(src, {"m": "m.source", "hostlib": "m._vendor.hostlib"})
    assert got == textwrap.dedent('''\
        """Plan for `m.source:f`."""

        import m.source as m
        import m.source as mm
        from m.source import f
        import m._vendor.hostlib as hostlib
        import other

        A = _ll.import_ref('m.source:State')
        REFS = ["m.source:f", "m._vendor.hostlib.sub:g", "other:h", "looplift.states.additive:Sum"]
        SQL = 'x = "m:f"'
        ''')
    assert rewrite_refs({"a": ["m:f", "mm:f", "m:f x"], "b": 1}, {"m": "m.source"}) == {
        "a": ["m.source:f", "mm:f", "m:f x"],
        "b": 1,
    }


def test_tidy_python_marks_unused_locals() -> None:
    src = textwrap.dedent('''\
        """Doc."""

        import looplift.spark as ll

        X = ll.thing


        def f(rows):
            for row in rows:
                a, b = row[0], row[1]
                yield b
        ''')
    assert tidy_python(src) == src.replace("a, b = row", "_a, b = row")


# -- running without the compiler ----------------------------------------------------------------

_RUN = r"""
import datetime, json, os, sys
sys.modules["looplift.compiler"] = None  # the build must run without the compiler
os.environ["PYSPARK_PYTHON"] = sys.executable
build = sys.argv[1]
from looplift.spark import local_session

spark = local_session(app_name="looplift-build-test", shuffle_partitions=2)
clicks = [(1, 0, 10), (1, 5, 11), (1, 1, 12), (2, 0, 1), (2, 3, 2), (2, 4, 3), (2, 1, 4), (3, 7, 1)]
pairs = [(1, 10), (2, 5), (1, -3), (3, 0)]
t = datetime.datetime
orders = [(1, t(2024, 5, 1, 23, 5), 5000), (1, t(2024, 5, 1, 12), -50), (2, t(2024, 5, 2, 3), 999)]


def rows(df):
    return sorted(tuple(r) for r in df.collect())


def check(where, run):
    # import the three packages, run the plans named in `run` on Spark and every
    # reference function (the vendored siblings must import)
    import average, clickstream, mode, orders as orders_pkg

    out = {"where": where, "file": clickstream.__file__}
    out["algorithms"] = {
        p.__name__: sorted(p.ALGORITHMS) for p in (average, clickstream, mode, orders_pkg)
    }
    cases = {
        "clickstream": (clickstream, clicks, "user_id bigint, pagetype bigint, ts bigint", ()),
        "average": (average, pairs, "k bigint, v bigint", ()),
        "favourite_page": (mode, clicks, "user_id bigint, page bigint, ts bigint", ()),
        "order_report": (orders_pkg, orders, "customer bigint, ts timestamp, cents bigint", (1000,)),
    }
    for name, (pkg, data, schema, scalars) in cases.items():
        ref = sorted(pkg.ALGORITHMS[name].reference()(data, *scalars))
        got = ref
        if name in run:
            df = spark.createDataFrame(data, schema)
            got = rows(pkg.run(spark, name, df, *scalars))
        out[name] = [got, ref]
    out["compiler"] = sorted(m for m in sys.modules if m.startswith("looplift.compiler."))
    out["top_level_siblings"] = sorted(m for m in ("count", "sum", "hostlib") if m in sys.modules)
    return out


sys.path.insert(0, build)
results = [check("folder", {"clickstream", "order_report", "average"})]

# the same packages from their zips only
sys.path.remove(build)
packages = ("average", "clickstream", "mode", "orders")
for m in [m for m in sys.modules if m.split(".")[0] in packages]:
    del sys.modules[m]
for name in packages:
    sys.path.insert(0, os.path.join(build, name + ".zip"))
results.append(check("zip", {"favourite_page"}))  # a State class of the module

# registered for SQL, still without the compiler
import looplift
from clickstream import register

spark.createDataFrame(clicks, "user_id bigint, pagetype bigint, ts bigint").createOrReplaceTempView(
    "clicks"
)
register(spark)
sql = rows(looplift.sql(spark, "SELECT * FROM clickstream(TABLE(clicks))"))
agg = rows(looplift.sql(spark, "SELECT user_id, avg_path(pagetype, ts) FROM clicks GROUP BY user_id"))
# maintained incrementally from the manifest's shape, still without the compiler
import tempfile

import clickstream
from looplift.incremental import IncrementalView

view = IncrementalView(clickstream.ALGORITHMS["clickstream"], spark, tempfile.mkdtemp())
view.apply_rows(clicks[:5], [1] * 5)
view.apply_rows(clicks[5:] + clicks[:1], [1] * (len(clicks) - 5) + [-1])
view.apply_rows(clicks[:1], [1])
results.append({"sql": sql, "agg": agg, "incremental": sorted(view.result_rows()),
                "mode": view.shape.mode})

# build packages named like average's siblings do not clash with its vendored copies
sys.path.insert(0, build)
import count
from sum import register as register_sum

results.append({
    "count": count.__file__,
    "count_algorithms": sorted(count.ALGORITHMS),
    "vendored_count": sys.modules["average.source"].count.__module__,
    "renamed": sorted(register_sum(spark, my_sum="sum")),  # `sum` is a Spark built-in
})
spark.stop()
print("RESULT " + json.dumps(results, default=str))
"""


def test_runs_without_the_compiler_from_folder_and_zip(built, tmp_path) -> None:
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable, "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTHONPATH", None)
    script = tmp_path / "run_build.py"
    script.write_text(_RUN)
    # copy the build so that importing it does not touch the fixture's files
    build = tmp_path / "build"
    shutil.copytree(built, build)
    r = subprocess.run([sys.executable, str(script), str(build)], capture_output=True, text=True,
                       cwd=tmp_path, env=env, timeout=300)  # fmt: skip
    line = next((ln for ln in r.stdout.splitlines() if ln.startswith("RESULT ")), None)
    assert line is not None, r.stdout[-3000:] + r.stderr[-3000:]
    folder, zipped, sql, clash = json.loads(line[len("RESULT ") :])
    assert folder["file"].startswith(str(build / "clickstream"))
    assert zipped["file"].startswith(str(build / "clickstream.zip"))
    for res in (folder, zipped):
        assert res["algorithms"]["clickstream"] == ["avg_path", "clickstream"]
        for name in ("clickstream", "average", "favourite_page", "order_report"):
            got, ref = res[name]
            assert got == ref and got, (res["where"], name)
        assert res["compiler"] == []
        assert res["top_level_siblings"] == []
    assert sql["sql"] == sql["agg"] == folder["clickstream"][1]
    assert sql["incremental"] == folder["clickstream"][1] and sql["mode"] == "state"
    assert clash == {
        "count": str(build / "count" / "__init__.py"),
        "count_algorithms": ["count"],
        "vendored_count": "average._vendor.count",
        "renamed": ["my_sum"],
    }
