"""Spark-side runtime of looplift: sessions, and helpers that generated plans call.

>>> # spark = local_session()            # local[2], UI off, PYSPARK_PYTHON set
"""

from __future__ import annotations

import os
import sys
from typing import Any

__all__ = ["local_session"]


def local_session(
    master: str = "local[2]", app_name: str = "looplift", shuffle_partitions: int = 4, **conf: str
) -> Any:
    """A local SparkSession configured the way looplift's tests and demos expect.

    Spark's Python workers run ``PYSPARK_PYTHON``; it is pointed at this
    interpreter (which has pyarrow and pandas) unless already set.
    """
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    builder = (
        SparkSession.builder.master(master)
        .appName(app_name)
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", str(shuffle_partitions))
        .config("spark.default.parallelism", "2")
        .config("spark.sql.ansi.enabled", "true")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.driver.memory", conf.pop("driver_memory", "4g"))
        .config("spark.sql.session.timeZone", "UTC")
    )
    for k, v in conf.items():
        builder = builder.config(k, v)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("FATAL")  # expected errors (traps) would flood the log
    return session
