"""The child process of test_objstore.py's stream test: a streaming query whose
``foreachBatch`` sink applies each micro-batch to a view, once.

``python -m tests.incremental.stream_child SRC CHECKPOINT VIEW``

Reads the Parquet files of signed clicks in ``SRC`` (one file a micro-batch, oldest
first), with Spark's checkpoint in ``CHECKPOINT`` and the clickstream view in ``VIEW``
(an ``s3://`` URI). A micro-batch whose id is below the view's version was committed
before a crash (Spark replays the batch it had not marked done): it is skipped. Prints
one JSON object a line: ``{"batch", "applied"|"skipped", "version"}``, then
``{"results": rows}``.
"""

from __future__ import annotations

import json
import sys
from typing import Any


def emit(obj: Any) -> None:
    print(json.dumps(obj), flush=True)


def main(argv: list[str]) -> int:
    src, checkpoint, where = argv[:3]
    from looplift.spark import local_session

    from tests.helpers import SAMPLES, import_path

    spark = local_session(app_name="looplift-stream-child")
    algo = import_path(SAMPLES / "clickstream.py").clickstream
    view = algo.incremental(spark, where, store="spark", buckets=2)

    def sink(df: Any, batch_id: int) -> None:
        if batch_id < view.version:  # (committed before a crash, replayed by Spark)
            emit({"batch": batch_id, "skipped": True, "version": view.version})
            return
        view.apply(df)
        emit({"batch": batch_id, "applied": True, "version": view.version})

    rows = (spark.readStream.schema("c0 long, c1 long, c2 long, _sign int")
            .option("maxFilesPerTrigger", 1).parquet(src))  # fmt: skip
    query = (rows.writeStream.option("checkpointLocation", checkpoint)
             .trigger(availableNow=True).foreachBatch(sink).start())  # fmt: skip
    query.awaitTermination()
    emit({"results": [list(r) for r in view.result_rows()]})
    view.close()
    spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
