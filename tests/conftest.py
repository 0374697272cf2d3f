"""Shared test setup: IR/graph invariants checked between every stage."""

from __future__ import annotations

import os
import sys

os.environ.setdefault("LOOPLIFT_VERIFY", "1")
# Spark's Python workers must run this interpreter (it has pyarrow and pandas).
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
# The JVMs of the tests (this session's and every child's: spark-submit reads
# SPARK_SUBMIT_OPTS) compile with C1 only. The tests run thousands of small jobs, where
# C2's compiler threads took CPU from the work on 2 cores: tests/spark/test_guarded.py
# ran in 0.6-0.8x the time. They also collect garbage serially: G1's concurrent threads
# compete with the work too (the samples' differential suites, two workers: 82-84 s
# against 86-98 s with G1). Results depend on neither; the benchmarks in tests/perf (run as
# scripts, not under pytest) keep the defaults.
os.environ.setdefault("SPARK_SUBMIT_OPTS", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC")

import pytest  # noqa: E402


@pytest.fixture(scope="session")
def spark():
    """The one SparkSession of the test session: local[2], few partitions, no UI."""
    from looplift.spark import local_session

    session = local_session(app_name="looplift-tests")
    yield session
    session.stop()


#: files that take a minute or more of one worker, besides those with ``slow`` tests:
#: started first (see below)
LONG_FILES = frozenset({
    "test_eventtime.py", "test_islands.py", "test_sql_differential.py", "test_docs.py",
    "test_build.py", "test_runtime_errors.py", "test_windows.py", "test_partial.py",
})  # fmt: skip


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The long files first, each file's tests in their own order. ``make test`` hands
    whole files to two workers (``--dist loadfile``) in this order; a long file handed
    out last ran alone for minutes at the end of the run."""
    long = {it.path for it in items
            if it.path.name in LONG_FILES or it.get_closest_marker("slow") is not None}  # fmt: skip
    items.sort(key=lambda it: it.path not in long)
