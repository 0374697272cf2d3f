"""looplift's SparkSessions: a local one set up as tests and demos expect, one over
Spark Connect, the settings looplift's plans rely on in any session
(:func:`prepare_session`), and the session of a DataFrame or Column (classic or
Connect). :mod:`looplift.spark` names these too."""

from __future__ import annotations

import os
import sys
from typing import Any

from .kernels import install, with_jar

__all__ = [
    "active_session",
    "is_connect",
    "local_session",
    "prepare_session",
    "remote_session",
]


def local_session(
    master: str = "local[2]", app_name: str = "looplift", shuffle_partitions: int = 4, **conf: str
) -> Any:
    """A local SparkSession configured the way looplift's tests and demos expect.

    Spark's Python workers run ``PYSPARK_PYTHON``; it is pointed at this
    interpreter (which has pyarrow and pandas) unless already set.

    A helper for tests, demos and notebooks, not something the library calls: it turns
    Spark's UI and console progress bar off and sets the JVM's log level to FATAL for the
    whole process (tests raise expected errors by the thousand). On a session you make
    yourself looplift changes none of these; the one setting its plans change is
    :func:`prepare_session`'s. looplift's JVM kernels (:mod:`looplift.kernels`) are put on
    the classpath (``spark.jars``, after the caller's).
    """
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.master(master)
        .appName(app_name)
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", str(shuffle_partitions))
        .config("spark.default.parallelism", "2")
        .config("spark.sql.ansi.enabled", "true")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.driver.memory", conf.pop("driver_memory", "4g"))
        .config("spark.sql.session.timeZone", "UTC")
    )
    for k, v in with_jar(conf).items():  # looplift's JVM kernels, beside the caller's jars
        builder = builder.config(k, v)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("FATAL")  # expected errors (traps) would flood the log
    # pyspark logs a failed query's context (SQLQueryContextLogger): left on here; looplift
    # quiets it only around the errors it handles (looplift.errors.quiet_query_context)
    return session


def is_connect(obj: Any) -> bool:
    """Is ``obj`` (a session, DataFrame or Column) a Spark Connect client object?

    Checked by type, not with ``pyspark.sql.utils.is_remote()`` (a process-wide flag),
    and without importing ``pyspark.sql.connect`` (which needs grpc)."""
    return type(obj).__module__.startswith("pyspark.sql.connect")


def active_session(*values: Any) -> Any:
    """The active SparkSession of the kind ``values`` belong to (Columns of a Spark Connect
    session: the active Connect session), or None."""
    if any(is_connect(v) for v in values):
        from pyspark.sql.connect.session import SparkSession as RemoteSparkSession

        return RemoteSparkSession.getActiveSession()
    from pyspark.sql import SparkSession

    session = SparkSession.getActiveSession()
    if session is None:  # a Connect session made without the process-wide remote flag
        try:
            from pyspark.sql.connect.session import SparkSession as RemoteSparkSession
        except Exception:  # noqa: BLE001 - no Spark Connect client installed (grpc)
            return None
        session = RemoteSparkSession.getActiveSession()
    return session


def remote_session(url: str, **conf: str) -> Any:
    """A Spark Connect session (``sc://host:port``) set up as looplift's plans expect.

    Sets the session confs looplift's semantics rely on (ANSI mode, the UTC session time
    zone, Arrow), as :func:`local_session` does (``conf`` overrides them; the server's own
    confs, such as its shuffle partitions, are the server's), and quiets the client's
    logging of expected query errors (traps raised from SQL).

    >>> # spark = remote_session("sc://127.0.0.1:15002")
    """
    import logging

    from pyspark.logger import PySparkLogger
    from pyspark.sql.connect.session import SparkSession as RemoteSparkSession

    builder = RemoteSparkSession.builder.remote(url)
    for k, v in {**_SESSION_CONFS, **conf}.items():
        builder = builder.config(k, v)
    session = builder.getOrCreate()
    if not _classic_running():
        # as ``SparkSession.builder.remote(url)`` does: pyspark's functions and UDFs build
        # Spark Connect objects from now on (with a classic session running, pyspark's
        # builder refuses; here the caller switches with SPARK_CONNECT_MODE_ENABLED)
        os.environ["SPARK_CONNECT_MODE_ENABLED"] = "1"
    for name in ("SQLQueryContextLogger", "DataFrameQueryContextLogger"):
        # (created as pyspark creates them: its calls pass PySparkLogger's keywords)
        PySparkLogger.getLogger(name).setLevel(logging.CRITICAL)
    prepare_session(session)
    return session


_SESSION_CONFS = {
    "spark.sql.ansi.enabled": "true",
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.execution.arrow.pyspark.enabled": "true",
}


def _classic_running() -> bool:
    try:
        from pyspark import SparkContext
    except ImportError:  # pyspark-client (Connect only)
        return False
    return SparkContext._active_spark_context is not None


# the rule's class in Spark 4.3, and in 4.2 (where it was a catalyst optimizer rule)
_MERGE_SUBPLANS = (
    "org.apache.spark.sql.execution.planmerging.MergeSubplans",
    "org.apache.spark.sql.catalyst.optimizer.MergeSubplans",
)


def prepare_session(spark: Any) -> None:
    """Session settings plans rely on.

    Spark's MergeSubplans rule (4.2 and 4.3) fails with an internal error when it tries to
    merge a Python aggregate with another aggregate over the same input
    (``UnevaluableAggregateFunc.aggBufferAttributes``), which looplift plans do
    whenever a native and a Python reducer share one scope: the rule is excluded (under
    both of its class names; Spark ignores the one it does not have).

    A plan's projection reads a column it adds by name (``selectExpr('... AS `n`', '`n` + 1
    AS `m`')``: Spark's lateral column aliases, ``compiler/backend/lateral.py``). A session
    that turned them off gets them back: resolving one cannot change a query that resolves
    without them (a name reads the projection's input first).

    The SQL functions plans call for ``str.strip()`` and ASCII case mapping are defined
    (:func:`looplift.kernels.install`: JVM expressions where the session can load
    looplift's jar, else Java UDFs or their SQL forms).
    """
    current = spark.conf.get("spark.sql.optimizer.excludedRules", "") or ""
    missing = [r for r in _MERGE_SUBPLANS if r not in current.split(",")]
    if missing:
        rules = ",".join(x for x in (current, *missing) if x)
        spark.conf.set("spark.sql.optimizer.excludedRules", rules)
    if (spark.conf.get(_LATERAL_ALIASES, "true") or "true").lower() == "false":
        spark.conf.set(_LATERAL_ALIASES, "true")
    install(spark)


_LATERAL_ALIASES = "spark.sql.lateralColumnAlias.enableImplicitResolution"
