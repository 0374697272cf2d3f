"""Shared test setup: IR/graph invariants checked between every stage."""

from __future__ import annotations

import os
import sys

os.environ.setdefault("LOOPLIFT_VERIFY", "1")
# Spark's Python workers must run this interpreter (it has pyarrow and pandas).
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)

import pytest  # noqa: E402


@pytest.fixture(scope="session")
def spark():
    """The one SparkSession of the test session: local[2], few partitions, no UI."""
    from looplift.spark import local_session

    session = local_session(app_name="looplift-tests")
    yield session
    session.stop()
