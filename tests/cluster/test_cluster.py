"""The built clickstream on a real Spark standalone cluster (a master and two workers).

``uda-compile samples/clickstream.py -o BUILD`` writes the build package and its zip;
``spark-submit --py-files BUILD/clickstream.zip tests/cluster/job.py`` runs
``looplift.sql`` over seeded clicks on the cluster; the results must equal the
CPython reference (``samples/clickstream.py`` called on lists of tuples), both
executors must have completed tasks, and after the cluster is stopped none of the
processes it started (daemons, executors, Python workers, the driver) may be left.

The same job then keeps the clickstream as an incremental view in the Spark-backed
store (issue 13): the clicks are its bulk load, one delta deletes and inserts 40 clicks;
both executors must have completed tasks of the load and of the apply (the per-key
work), and the view's result must equal the reference on the net clicks.
About 40 s on a 2-core machine (70 s when it is busy), most of it JVM start-up.
"""

from __future__ import annotations

import time
from collections import Counter

import pytest

from tests.cluster import standalone, workload

pytestmark = pytest.mark.slow

ROWS, USERS, SEED = 3000, 100, 20240611


def completed_apps(c: standalone.Cluster, timeout: float = 15.0) -> list[str]:
    """Ids of the master's completed applications (it learns of the end asynchronously)."""
    deadline = time.monotonic() + timeout
    while True:
        ids = [a["id"] for a in c.status()["completedapps"]]
        if ids or time.monotonic() > deadline:
            return ids
        time.sleep(0.25)


@pytest.fixture
def cluster(tmp_path_factory, request):
    root = tmp_path_factory.mktemp("cluster")
    c = standalone.start(root, workers=2, cores=1, memory="1g")
    request.addfinalizer(lambda: standalone.stop(c))  # also when the test fails
    return c


def test_clickstream_on_standalone_cluster(tmp_path, cluster):
    clicks = workload.gen_clicks(ROWS, USERS, seed=SEED)
    workload.write_clicks(clicks, tmp_path / "clicks", files=4)
    zip_path = workload.build(tmp_path / "build")

    status = cluster.status()
    assert [w["state"] for w in status["workers"]] == ["ALIVE", "ALIVE"]

    done = workload.submit(
        cluster, zip_path, tmp_path / "clicks", tmp_path / "out", executors=2,
        conf=workload.QUICK_JVM, view=tmp_path / "view",
    )  # fmt: skip
    run = done.run

    # the work ran on the cluster's executors, both of them
    assert run["master"] == cluster.master_url
    assert run["executor_count"] == 2, run["executors"]
    assert run["executors_with_tasks"] >= 2, run["executors"]
    assert all(e["failed_tasks"] == 0 for e in run["executors"]), run["executors"]
    assert "clickstream.zip" in run["clickstream_file"]  # the package came from --py-files
    assert run["app_id"] in completed_apps(cluster)  # the master saw the application

    table_ref, agg_ref = workload.reference(clicks)
    assert len(table_ref) == USERS
    table = workload.read_results(tmp_path / "out", "clickstream")
    agg = workload.read_results(tmp_path / "out", "avg_path")
    assert workload.compare(table, table_ref) == []
    assert workload.compare(agg, agg_ref) == []

    # looplift's JVM kernels: the job's session had no jar; it was added and shipped
    assert run["kernels"] == {"mode": "jvm", "rows": 2000, "wrong": []}, run["kernels"]

    # the incremental view in the Spark store: per-key work on both executors
    view = run["view"]
    assert view["store"] == "spark" and view["version"] == 2, view
    assert len([e for e, n in view["load_tasks"].items() if n > 0]) >= 2, view["load_tasks"]
    assert len([e for e, n in view["apply_tasks"].items() if n > 0]) >= 2, view["apply_tasks"]
    assert (tmp_path / "view" / "looplift-store" / "CURRENT").read_text() == "2"
    net = Counter(map(tuple, clicks))
    net.subtract(Counter(map(tuple, view["deleted"])))
    net.update(map(tuple, view["inserted"]))
    view_ref, _ = workload.reference(sorted((+net).elements()))
    got = workload.read_results(tmp_path / "out", "view")
    assert workload.compare(got, view_ref) == []
    assert view_ref != table_ref  # the delta changed something

    # stopping leaves nothing behind: no process of the cluster's or the driver's groups,
    # no process (JVM) whose command line names the cluster's dir
    pids = cluster.pids
    standalone.stop(cluster)
    assert all(standalone.group_alive(p) == [] for p in [*pids, done.pgid])
    assert standalone.processes_mentioning(str(cluster.root)) == []
