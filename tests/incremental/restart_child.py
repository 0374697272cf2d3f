"""The child process of test_restart.py: apply signed batches to incremental views.

``python -m tests.incremental.restart_child BATCHES.json DIR [--step] [--no-spark] [--spark-store]``

``BATCHES.json`` holds ``{"views": {name: "module:function", ...}, "columns": {name:
[field indexes]}, "batches": [{"rows": [...], "signs": [...]}, ...]}``: every view
gets every batch, projected on its columns. Each view lives in ``DIR/<name>``; on
start the child opens (or reopens) them, prints ``{"view", "version"}`` per view, and
applies batch ``i`` to each view whose ``version`` is ``i`` (so a reopened view
resumes after its last committed batch), through ``view.apply(delta_df)``, printing
``{"view", "applied", "version", "changes"}`` after each. With ``--step`` it reads
one line from stdin before each batch (the parent kills it while it waits); with
``--no-spark`` it starts no Spark session and applies Python rows (``apply_rows``, the
same transaction; a Spark session takes ~10-20 s to start on a busy machine); with
``--spark-store`` new views are created in the Spark-backed store. At the
end it prints ``{"results": {name: rows}}``. One JSON object per stdout line.
"""

from __future__ import annotations

import json
import sys
from typing import Any


def emit(obj: Any) -> None:
    print(json.dumps(obj), flush=True)


def main(argv: list[str]) -> int:
    batches_path, root = argv[0], argv[1]
    step = "--step" in argv
    use_spark = "--no-spark" not in argv
    store = "spark" if "--spark-store" in argv else "auto"
    spec = json.loads(open(batches_path, encoding="utf-8").read())  # noqa: SIM115

    from looplift.spark import local_session

    from tests.helpers import SAMPLES, import_path

    spark = local_session(app_name="looplift-restart-child") if use_spark else None
    views, schemas = {}, {}
    for name, ref in spec["views"].items():
        module, fn = ref.split(":")
        algo = getattr(import_path(SAMPLES / f"{module}.py"), fn)
        # a new Spark store: applies as Spark jobs with a session, else in this process (a
        # reopened one keeps the default: small batches in this process)
        keys = 0 if spark is not None else 10**9
        opts = {"store": store, "buckets": 2, "driver_keys": keys} if store == "spark" else {}
        views[name] = algo.incremental(spark, f"{root}/{name}", **opts)
        cols = spec["columns"][name]
        schemas[name] = ", ".join(f"c{i} long" for i in range(len(cols))) + ", _sign int"
        emit({"view": name, "version": views[name].version})
    batches = spec["batches"]
    for i in range(min(v.version for v in views.values()), len(batches)):
        if step and not sys.stdin.readline():
            return 0
        rows, signs = batches[i]["rows"], batches[i]["signs"]
        for name, view in views.items():
            if view.version != i:
                continue
            cols = spec["columns"][name]
            data = [(*[r[c] for c in cols], s) for r, s in zip(rows, signs, strict=True)]
            if spark is None:
                changes = view.apply_rows([tuple(r[:-1]) for r in data], [r[-1] for r in data])
            else:
                out = view.apply(spark.createDataFrame(data, schemas[name]))
                changes = [list(r) for r in out.collect()]
            emit({"view": name, "applied": i, "version": view.version, "changes": changes})
    emit({"results": {name: view.result_rows() for name, view in views.items()}})
    for view in views.values():
        view.close()
    if spark is not None:
        spark.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
