"""The package as a user gets it (issue 26): build a wheel from this checkout, install it
with its dependencies into a FRESH venv, and check there what ``pip install looplift``
promises.

    .venv/bin/python tests/packaging/check_wheel.py                      # pyspark as pinned
    .venv/bin/python tests/packaging/check_wheel.py --pyspark 4.3.0 --pyspark 4.2.1 \\
        --tests "tests/spark/test_differential.py -k clickstream"

The wheel is built once (``pip wheel --no-deps``); then, per ``--pyspark`` version (or
once with the pyspark the pin picks), a new venv (``python3.11 -m venv``) gets the wheel
and its dependencies from the package index (pip's cache makes a second run quick) and
is checked:

- metadata: the license, the classifiers (``Typing :: Typed``), numpy and pyspark in
  Requires-Dist; ``py.typed`` installed next to the package;
- ``uda-compile --version``, and ``uda-compile --graph x.svg`` on a copy of
  ``samples/clickstream.py`` drawing an SVG with nothing but the venv on PATH (the
  ``graphviz-pure`` dependency, not a system Graphviz);
- the compiled ``clickstream`` on a local Spark (workers run the venv's Python) equals
  the plain CPython call; so does a NamedTuple program (``visits.py``) on a DataFrame
  with an extra column and its columns in another order; and ``int('x')`` in a compiled
  scalar raises ValueError (under ``looplift.python_errors()``) naming ``visits.py`` and
  the line; the kernel jar is installed, and a session made without it (a plain
  ``SparkSession.builder``) gets it and runs ``s.strip().lower()`` by the JVM kernels;
- ``--tests``: those tests of the checkout, run by the venv's interpreter (pytest and
  hypothesis installed there) against the installed wheel, not the checkout's sources.

``--pyspark X`` installs the wheel and ``pyspark==X`` in one resolution, so a version
the pin does not admit fails at the install. Exit 0 when every check of
every venv passed; prints each step with its time. Not part of ``make test``
(.ci/run runs it after).
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

SPARK_RUN = textwrap.dedent(
    """
    import os, sys
    import looplift, pyspark
    assert "site-packages" in looplift.__file__, looplift.__file__  # the wheel, not the checkout
    import clickstream
    from looplift.spark import local_session

    rows = [(1, 0, 10), (1, 5, 11), (1, 1, 12), (2, 0, 1), (2, 7, 2), (2, 8, 3), (2, 1, 4),
            (3, 5, 5)]
    spark = local_session()
    df = spark.createDataFrame(rows, "user_id long, pagetype long, ts long")
    got = sorted(tuple(r) for r in clickstream.clickstream(df).collect())
    want = sorted(clickstream.clickstream(rows))
    assert got == want, (got, want)
    col = df.groupBy("user_id").agg(clickstream.avg_path.agg("pagetype", "ts"))
    agg = sorted(tuple(r) for r in col.collect())
    assert agg == want, (agg, want)

    # named rows: extra and reordered columns bind by name
    import visits
    named = [(5, "b", 20, "x"), (4, "a", 10, "y"), (7, "a", 30, "z")]
    ndf = spark.createDataFrame(named, "ts long, page string, user_id long, extra string")
    got_named = sorted(tuple(r) for r in visits.per_user(ndf).collect())
    want_named = sorted(visits.per_user([visits.Click(u, p, t) for t, p, u, _ in named]))
    assert got_named == want_named, (got_named, want_named)
    # a run-time ValueError names the user's source line
    bad = spark.createDataFrame([("12",), ("x",)], "s string")
    try:
        with looplift.python_errors():
            bad.select(visits.parse(bad.s)).collect()
        raise AssertionError("int('x') did not raise")
    except ValueError as e:
        line = next(i for i, ln in enumerate(open("visits.py"), 1) if "int(s)" in ln)
        assert "invalid literal for int() with base 10: 'x'" in str(e), e
        assert f"visits.py:{line} in parse" in str(e), e
    spark.stop()
    print(f"clickstream on Spark {pyspark.__version__} = CPython: {got}; named rows {got_named}; "
          f"ValueError at visits.py:{line}")
    """
)

# a session the user makes without looplift's jar: the first plan adds it (ADD JAR) and
# calls the JVM kernels (the jar in the wheel, linked against this pyspark's Spark)
KERNELS_RUN = textwrap.dedent(
    """
    from pyspark.sql import SparkSession
    from looplift import kernels
    import visits

    spark = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
             .getOrCreate())
    spark.sparkContext.setLogLevel("FATAL")
    assert "looplift" not in (spark.sparkContext.getConf().get("spark.jars") or "")
    words = [" Ab\u3000", "x\t", "ÀB", "\u2029 a\u00a0b \x1c", "ß"]
    df = spark.createDataFrame([(w,) for w in words], "s string")
    got = [r[0] for r in df.select(visits.tidy(df.s)).collect()]
    want = [visits.tidy(w) for w in words]
    assert got == want, (got, want)
    assert kernels.mode(spark) == "jvm", kernels.mode(spark)
    spark.stop()
    print(f"strip().lower() by the JVM kernels in a session made without the jar: {got}")
    """
)

VISITS = textwrap.dedent(
    """
    from typing import NamedTuple

    from looplift import RowStream, dataflow, group_by


    class Click(NamedTuple):
        user_id: int
        page: str
        ts: int


    class PerUser(NamedTuple):
        user_id: int
        clicks: int
        last_page: str


    @dataflow
    def per_user(clicks: RowStream[Click]):
        for uid, g in group_by("user_id", clicks, order_by="ts"):
            n = 0
            last = ""
            for c in g:
                n += 1
                last = c.page
            yield PerUser(uid, n, last)


    @dataflow
    def parse(s: str) -> int:
        return int(s) * 2


    @dataflow
    def tidy(s: str) -> str:
        return s.strip().lower()
    """
)

METADATA = textwrap.dedent(
    """
    from importlib.metadata import metadata, requires
    from importlib.resources import files
    meta = metadata("looplift")
    lic = meta.get("License-Expression") or meta.get("License")
    assert lic == "Apache-2.0", lic
    classifiers = meta.get_all("Classifier") or []
    for c in ("Typing :: Typed", "Programming Language :: Python :: 3.11"):
        assert c in classifiers, (c, classifiers)
    reqs = [r.split(";")[0].replace(" ", "") for r in requires("looplift")]
    names = {r.split(">")[0].split("<")[0].split("=")[0].split("[")[0] for r in reqs}
    for need in ("numpy", "pyspark", "pyarrow", "pandas", "graphviz-pure"):
        assert need in names, (need, reqs)
    assert files("looplift").joinpath("py.typed").is_file(), "py.typed is not installed"
    assert files("looplift.shells").joinpath("plan.py.j2").is_file(), "templates missing"
    assert files("looplift").joinpath("jars/looplift-kernels.jar").is_file(), "kernel jar missing"
    spark_pin = [r for r in reqs if r.startswith("pyspark")][0]
    print(f"metadata OK: License {lic}, {len(classifiers)} classifiers, {spark_pin}, py.typed")
    """
)


class Failed(Exception):
    pass


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pyspark", action="append", metavar="VERSION",
                   help="check a venv with this pyspark (repeatable; default: as pinned)")  # fmt: skip
    p.add_argument("--tests", metavar="ARGS",
                   help="pytest arguments to run with each venv's interpreter")  # fmt: skip
    p.add_argument("--python", default=shutil.which("python3.11") or sys.executable,
                   help="the interpreter that makes the venvs (default: python3.11)")  # fmt: skip
    p.add_argument("--workdir", help="keep the wheel and venvs here (default: a temp dir)")
    args = p.parse_args(argv)

    started = time.perf_counter()
    work = Path(args.workdir or tempfile.mkdtemp(prefix="looplift-wheel-"))
    work.mkdir(parents=True, exist_ok=True)
    failures: list[str] = []
    try:
        wheel = _step("build the wheel", lambda: _build_wheel(work / "dist"))
        print(f"    {wheel.name}")
        for version in args.pyspark or [None]:
            label = f"pyspark {version}" if version else "pyspark as pinned"
            try:
                _check_venv(work, wheel, version, args.python, args.tests)
                print(f"==> {label}: OK")
            except Failed as e:
                print(f"==> {label}: FAILED: {e}")
                failures.append(f"{label}: {e}")
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)
    took = time.perf_counter() - started
    if failures:
        print(f"packaging check FAILED in {took:.0f} s:\n  " + "\n  ".join(failures))
        return 1
    print(f"packaging check passed in {took:.0f} s")
    return 0


def _step(what: str, fn):  # noqa: ANN001, ANN202 - a step and its result
    print(f"--> {what}", flush=True)
    t = time.perf_counter()
    out = fn()
    print(f"    ({time.perf_counter() - t:.1f} s)", flush=True)
    return out


def _run(cmd: list[str], *, cwd: Path | None = None, env: dict[str, str] | None = None,
         timeout: float = 900, show: bool = False) -> str:  # fmt: skip
    run = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    if show or run.returncode != 0:
        sys.stdout.write(_tail(run.stdout + run.stderr))
    if run.returncode != 0:
        raise Failed(f"`{shlex.join(cmd)}` exited {run.returncode}")
    return run.stdout


def _tail(text: str, lines: int = 40) -> str:
    kept = text.strip().splitlines()[-lines:]
    return "".join(f"    | {ln}\n" for ln in kept)


def _build_wheel(dist: Path) -> Path:
    shutil.rmtree(dist, ignore_errors=True)
    # pip's own build, from a copy of the sources (setuptools writes build/ and *.egg-info
    # into the tree it builds)
    src = dist.parent / "src"
    shutil.rmtree(src, ignore_errors=True)
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(
        ".venv", ".git", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache",
        ".hypothesis", ".ruff_cache", "spark-warehouse", "metastore_db"))  # fmt: skip
    _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(dist), str(src)])
    wheels = sorted(dist.glob("looplift-*.whl"))
    if len(wheels) != 1:
        raise Failed(f"expected one looplift wheel in {dist}, found {wheels}")
    return wheels[0]


def _check_venv(work: Path, wheel: Path, pyspark: str | None, python: str,
                tests: str | None) -> None:  # fmt: skip
    name = f"venv-{pyspark or 'pinned'}"
    venv = work / name
    shutil.rmtree(venv, ignore_errors=True)
    bin_ = venv / "bin"
    py = str(bin_ / "python")
    _step(f"{name}: a fresh venv ({python})", lambda: _run([python, "-m", "venv", str(venv)]))
    # one resolution: the wheel's pin must admit the pyspark asked for
    wanted = [str(wheel), *([f"pyspark=={pyspark}"] if pyspark else []),
              *(["pytest", "hypothesis"] if tests else [])]  # fmt: skip
    _step(f"{name}: pip install {' '.join(w.rsplit('/', 1)[-1] for w in wanted)}",
          lambda: _run([py, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                        *wanted]))  # fmt: skip
    _run([py, "-m", "pip", "check", "--disable-pip-version-check"], show=True)

    # (run in the work folder: a checkout's looplift.egg-info would answer from the cwd)
    _step(f"{name}: metadata and py.typed",
          lambda: _run([py, "-c", METADATA], cwd=work, show=True))  # fmt: skip
    sample = work / f"{name}-sample"
    shutil.rmtree(sample, ignore_errors=True)
    sample.mkdir()
    shutil.copy(ROOT / "samples" / "clickstream.py", sample / "clickstream.py")
    (sample / "visits.py").write_text(VISITS, encoding="utf-8")
    only_venv = {"PATH": str(bin_), "HOME": os.environ.get("HOME", "/tmp")}  # no system dot
    version = _step(f"{name}: uda-compile --version",
                    lambda: _run([str(bin_ / "uda-compile"), "--version"], env=only_venv))  # fmt: skip
    print(f"    {version.strip()}")
    if pyspark and f"pyspark {pyspark}" not in version:
        raise Failed(f"uda-compile --version does not name pyspark {pyspark}: {version!r}")

    def graph() -> None:
        _run([str(bin_ / "uda-compile"), "clickstream.py", "--graph", "x.svg"], cwd=sample,
             env=only_venv)  # fmt: skip
        svg = (sample / "x.svg").read_text(encoding="utf-8")
        if "<svg" not in svg or "clickstream" not in svg:
            raise Failed("uda-compile --graph x.svg wrote no SVG of clickstream")
        print(f"    x.svg: {len(svg)} characters")

    _step(f"{name}: uda-compile --graph x.svg (graphviz-pure)", graph)

    env = {**os.environ, "PYSPARK_PYTHON": py, "PYSPARK_DRIVER_PYTHON": py}
    env.pop("PYTHONPATH", None)
    env.pop("SPARK_HOME", None)  # the venv's pyspark brings its own Spark
    env["PATH"] = f"{bin_}{os.pathsep}{env.get('PATH', '')}"
    _step(f"{name}: clickstream, named rows and a placed ValueError on a local Spark",
          lambda: _run([py, "-c", SPARK_RUN], cwd=sample, env=env, show=True))  # fmt: skip
    _step(f"{name}: looplift's JVM kernels in a session made without the jar",
          lambda: _run([py, "-c", KERNELS_RUN], cwd=sample, env=env, show=True))  # fmt: skip
    if tests:
        cmd = [py, "-m", "pytest", "-q", "-p", "no:cacheprovider", *shlex.split(tests)]
        _step(f"{name}: {shlex.join(cmd[1:])}",
              lambda: _run(cmd, cwd=ROOT, env=env, timeout=1800, show=True))  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
