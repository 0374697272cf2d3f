"""Run-time errors at the user's source line (issue 26, item 2).

Each algorithm of ``errors_prog.py`` raises on one input: ``int()`` of a bad string,
division by zero, the user's own ``raise``, a host function raising, ``KeyError`` on a
module-level lookup table, a Python island and a user state read in a Python reducer. Run as plain Python first (the reference:
CPython's class and message), then compiled — called on a DataFrame, through
``looplift.sql`` and from a ``uda-compile -o`` build in a fresh process — the error comes
back under ``looplift.python_errors()`` as the same class, with CPython's message and
``(at errors_prog.py:<line> in <function>)``, the line read from the source (the line
marked ``# raises: <tag>``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import looplift
import pytest
from looplift.errors import raised

from tests.spark import errors_prog as P

pytestmark = pytest.mark.spark

ROOT = Path(__file__).resolve().parents[2]
SOURCE = Path(P.__file__)

# tag of the failing line: algorithm, rows, schema, the function the line is in
CASES = {
    "int": (P.parse_counts, [(1, "12"), (2, "x")], "k bigint, text string", "parse_counts"),
    "div": (P.shares, [(1, 7, 2), (2, 7, 0)], "k bigint, a bigint, b bigint", "shares"),
    "raise": (P.positives, [(1, 3), (2, -5)], "k bigint, v bigint", "positives"),
    "host": (P.doubled, [(1, 3), (2, 500)], "k bigint, v bigint", "checked"),
    "key": (P.method_codes, [(1, "get"), (2, "delete")], "k bigint, method string",
            "method_codes"),
    "island": (P.digit_sums, [(1, "12"), (2, "1y")], "k bigint, s string", "digit_sums"),
    "state": (P.ok_shares, [(1, "ok"), (2, "bad")], "k bigint, status string", "share_of"),
}  # fmt: skip


def line_of(tag: str) -> int:
    """The line of ``errors_prog.py`` marked ``# raises: <tag>``."""
    lines = SOURCE.read_text().splitlines()
    found = [i + 1 for i, text in enumerate(lines) if text.rstrip().endswith(f"# raises: {tag}")]
    assert len(found) == 1, tag
    return found[0]


def reference_error(tag: str) -> BaseException:
    algo, rows, _, _ = CASES[tag]
    with pytest.raises(Exception) as e:
        algo(rows)
    return e.value


def check(tag: str, got: BaseException) -> None:
    """``got`` is CPython's class, with CPython's message and the failing line."""
    want = reference_error(tag)
    fn = CASES[tag][3]
    assert type(got) is type(want), (got, want)
    assert str(want) in str(got), (str(got), str(want))
    assert f"at errors_prog.py:{line_of(tag)} in {fn})" in str(got), str(got)


def collect_error(run: Any) -> BaseException:
    """The error ``run()`` raises under ``python_errors()`` (a DataFrame collected)."""
    with pytest.raises(Exception) as e, looplift.python_errors():
        run().collect()
    return e.value


@pytest.mark.parametrize("tag", sorted(CASES))
def test_dataframe_call(spark, tag: str) -> None:
    algo, rows, schema, _ = CASES[tag]
    df = spark.createDataFrame(rows, schema)
    got = collect_error(lambda: algo(df))
    check(tag, got)
    cause = got.__cause__
    assert cause is not None and type(cause).__module__.startswith("pyspark")  # from Spark's
    again = raised(cause)
    assert type(again) is type(got) and str(again) == str(got)


@pytest.mark.parametrize("tag", sorted(CASES))
def test_looplift_sql(spark, tag: str) -> None:
    algo, rows, schema, _ = CASES[tag]
    view = f"errors_{tag}"
    spark.createDataFrame(rows, schema).createOrReplaceTempView(view)
    looplift.register(spark, algo)
    got = collect_error(lambda: looplift.sql(spark, f"SELECT * FROM {algo.name}(TABLE({view}))"))
    check(tag, got)


def test_message_form(spark) -> None:
    """The whole message: CPython's first, exactly, then the place."""
    df = spark.createDataFrame([(1, "x")], "k bigint, text string")
    got = collect_error(lambda: P.parse_counts(df))
    assert str(got) == (
        f"invalid literal for int() with base 10: 'x' (at errors_prog.py:{line_of('int')} "
        "in parse_counts)"
    )


def test_other_errors_pass(spark) -> None:
    """Errors that are no plan's pass ``python_errors()`` unchanged."""
    with pytest.raises(ZeroDivisionError), looplift.python_errors():
        _ = 1 // 0
    from pyspark.errors import AnalysisException

    with pytest.raises(AnalysisException), looplift.python_errors():
        spark.sql("SELECT no_such_column FROM range(1)").collect()
    assert raised(ValueError("not Spark's")) is None


# -- looplift.sql's own errors ----------------------------------------------------------------


def test_unknown_function_is_one_paragraph(spark, capfd) -> None:
    looplift.register(spark, P.parse_counts)
    capfd.readouterr()
    with pytest.raises(looplift.LoopliftSQLError) as e:
        looplift.sql(spark, "SELECT parse_count(id) FROM range(3)")
    text = str(e.value)
    assert "unknown function `parse_count`" in text
    assert "did you mean `parse_counts`" in text
    assert e.value.__cause__ is None and e.value.__suppress_context__
    err = capfd.readouterr().err
    assert "SQLQueryContextLogger" not in err and "UNRESOLVED_ROUTINE" not in err


@pytest.mark.parametrize(
    ("query", "says", "token"),
    [
        ("SELECT id FROM range(3) WHERE", "expected an expression after `WHERE`", "WHERE"),
        ("SELECT (id FROM range(3)", "expected `)` at `FROM`", "FROM"),
        ("SELECT id FROM range(3) WHERE id = = 1", "expected an expression after `=`", "="),
    ],
)
def test_parse_errors_without_sqlglot_internals(spark, query: str, says: str, token: str) -> None:
    with pytest.raises(looplift.LoopliftSQLError) as e:
        looplift.sql(spark, query)
    text = str(e.value)
    assert says in text and f"col {query.rindex(token) + 1}:" in text, text
    assert "sqlglot" not in text and "<class" not in text and "Required keyword" not in text


# -- a build, run by spark-submit ---------------------------------------------------------------

_RUN = r"""
import json, os, sys
sys.modules["looplift.compiler"] = None  # the build runs without the compiler
os.environ["PYSPARK_PYTHON"] = sys.executable
sys.path.insert(0, sys.argv[1])
import looplift
import errors_prog
from looplift.spark import local_session

spark = local_session(app_name="looplift-errors-build", shuffle_partitions=2)
cases = json.loads(sys.argv[2])
out = {}
for tag, (name, rows, schema) in cases.items():
    df = spark.createDataFrame([tuple(r) for r in rows], schema)
    try:
        with looplift.python_errors():
            errors_prog.run(spark, name, df).collect()
        out[tag] = None
    except Exception as e:
        out[tag] = [type(e).__name__, e.args[0] if e.args else str(e)]
spark.stop()
print("RESULT " + json.dumps(out))
"""


def test_build_run_by_spark_submit(tmp_path) -> None:
    """The build's errors through ``spark-submit --py-files <build>.zip`` (pyspark's own
    launcher, a local master): the class, CPython's message and the user's line."""
    from looplift.compiler.cli import main

    from tests.cluster.standalone import spark_home

    build = tmp_path / "build"
    assert main([str(SOURCE), "-o", str(build)]) == 0
    script = tmp_path / "run.py"
    script.write_text(_RUN)
    cases = {t: (algo.name, rows, schema) for t, (algo, rows, schema, _) in CASES.items()}
    env = {**os.environ, "PYSPARK_PYTHON": sys.executable, "PYSPARK_DRIVER_PYTHON": sys.executable,
           "PYTHONDONTWRITEBYTECODE": "1", "SPARK_HOME": str(spark_home())}  # fmt: skip
    env.pop("PYTHONPATH", None)
    submit = [str(spark_home() / "bin" / "spark-submit"), "--master", "local[2]",
              "--py-files", str(build / "errors_prog.zip")]  # fmt: skip
    r = subprocess.run([*submit, str(script), str(build), json.dumps(cases)],
                       capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)  # fmt: skip
    line = next((ln for ln in r.stdout.splitlines() if ln.startswith("RESULT ")), None)
    assert line is not None, r.stdout[-3000:] + r.stderr[-3000:]
    got = json.loads(line[len("RESULT "):])
    for tag in CASES:
        assert got[tag] is not None, tag
        cls, text = got[tag]
        want = reference_error(tag)
        assert cls == type(want).__name__, (tag, got[tag])
        rebuilt = type(want)(text)
        check(tag, rebuilt)
