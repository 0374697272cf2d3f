"""tests/connect: one real Spark Connect server per test session, and its client session.

The server (:mod:`looplift.connect`) starts on first use and stops after the last test
of this package (package scope: one server per test session, which does not hold its JVM
while the rest of ``make test`` runs), also when tests fail; a failing test's report
carries the tail of its log.

A classic SparkSession (``tests/conftest.py``'s ``spark``) may live in the same process:
pyspark picks the implementation of ``F.expr``, ``arrow_udf``, ``getActiveSession`` ...
by the process-wide flag ``SPARK_CONNECT_MODE_ENABLED``, which ``builder.remote()`` sets.
So every test here runs with the flag set (as in an application that uses Spark
Connect), and the flag is restored after each test: the tests before and after these
(``make test`` runs all in one process) keep their classic session.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from looplift import connect as connect_server

_FLAGS = ("SPARK_CONNECT_MODE_ENABLED", "SPARK_REMOTE")
_SERVER: list[connect_server.ConnectServer] = []


@pytest.fixture(scope="package")
def connect_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The ``sc://127.0.0.1:PORT`` of this test session's Spark Connect server."""
    pytest.importorskip("grpc", reason="pyspark[connect]'s client dependencies (make venv)")
    s = connect_server.start(tmp_path_factory.mktemp("connect-server"))
    _SERVER.append(s)
    try:
        yield s.url
    finally:
        connect_server.stop(s)
        _SERVER.clear()


@pytest.fixture(autouse=True)
def _connect_mode() -> Iterator[None]:
    """Spark Connect mode for the test, the process' previous mode restored after it."""
    saved = {k: os.environ.get(k) for k in _FLAGS}
    os.environ["SPARK_CONNECT_MODE_ENABLED"] = "1"
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


@pytest.fixture(scope="package")
def _remote(connect_url: str) -> Iterator[Any]:
    from looplift.spark import remote_session

    saved = {k: os.environ.get(k) for k in _FLAGS}
    session = remote_session(connect_url)
    for k, v in saved.items():  # (the autouse fixture sets and restores the flag per test)
        if v is None:
            os.environ.pop(k, None)
    yield session
    session.stop()


@pytest.fixture
def connect(_remote: Any, _connect_mode: None) -> Any:
    """The Spark Connect client session (``looplift.spark.remote_session``)."""
    return _remote


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: Any, call: Any) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    if report.failed and _SERVER:
        report.sections.append(("Spark Connect server log (tail)", _SERVER[0].log_tail(60)))
