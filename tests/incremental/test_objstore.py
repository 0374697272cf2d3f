"""Views on object storage (issue 28, item 4): the Spark store on ``s3://``.

A local S3-compatible server (moto's, started here on 127.0.0.1 and a free port) holds
the views; the standard AWS environment variables point at it, as a user's cluster
would. Checked:

- the storage layer (:mod:`looplift.viewstorage`): a conditional create succeeds once,
  whoever races for it (the commit of version N); errors name the bucket and key;
- a view on S3 and the same view on a local path, applied the same batches, reopened
  (a new view object), agree with each other and with a full recompute;
- two writers of one view: exactly one commits version N, the other's apply fails and
  changes nothing;
- processes killed between batches, after an apply wrote its files (before the
  manifest), and right after the manifest (the commit): nothing lost or counted twice,
  the orphans of the killed apply removed later.
"""

from __future__ import annotations

import json
import os
import signal
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from looplift import sparkview, viewpool
from looplift.deltarows import DeltaError
from looplift.viewfiles import version_files
from looplift.viewstorage import Location, StorageError

from tests.incremental.common import add_changes, case_named, multiset, reference_rows

moto_server = pytest.importorskip("moto.server", reason="the S3 tests need moto[server]")
pytest.importorskip("boto3", reason="views on S3 need boto3 (looplift[s3])")

BUCKET = "looplift-views"
#: the stream killed on S3 at both of its points (a Spark child more, ~18 s); the reduced
#: run kills it after a manifest only
STREAM_KILLS_ALL = os.environ.get("LOOPLIFT_OBJSTORE_ALL") == "1"


@pytest.fixture(scope="module")
def s3() -> Any:
    """A moto S3 server on 127.0.0.1; the AWS environment points at it (children
    inherit it) while the module's tests run. Yields its endpoint URL."""
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    with pytest.MonkeyPatch.context() as mp:
        for k, v in {"AWS_ENDPOINT_URL_S3": endpoint, "AWS_ACCESS_KEY_ID": "testing",
                     "AWS_SECRET_ACCESS_KEY": "testing", "AWS_REGION": "us-east-1",
                     "LOOPLIFT_VIEW_HELPERS": "0"}.items():  # fmt: skip
            mp.setenv(k, v)
        mp.delenv("AWS_ENDPOINT_URL", raising=False)
        mp.delenv("AWS_SESSION_TOKEN", raising=False)
        import boto3

        boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1").create_bucket(
            Bucket=BUCKET
        )
        try:
            yield endpoint
        finally:
            server.stop()


_PREFIX = iter(range(10**6))


def fresh(prefix: str = "v") -> str:
    """A new prefix in the bucket (each test's views apart)."""
    return f"s3://{BUCKET}/{prefix}{next(_PREFIX)}"


# -- the storage layer ------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["local", "s3"])
def test_location_files(s3: str, tmp_path: Path, where: str) -> None:
    loc = Location.of(fresh() if where == "s3" else str(tmp_path / "d"))
    loc.makedirs()
    assert loc.listdir() == {}
    loc.write("a.bin", b"one")
    loc.write("a.bin", b"two")  # (replaced whole)
    assert loc.read("a.bin") == b"two" and loc.size("a.bin") == 3 and loc.exists("a.bin")
    assert loc.create("v1.json", b"first") is True
    assert loc.create("v1.json", b"second") is False  # (the first one stays)
    assert loc.read("v1.json") == b"first"
    assert set(loc.listdir()) == {"a.bin", "v1.json"}
    loc.remove("a.bin")
    loc.remove("a.bin")  # (absent: no error)
    assert not loc.exists("a.bin")
    with pytest.raises(FileNotFoundError):
        loc.read("a.bin")


@pytest.mark.parametrize("where", ["local", "s3"])
def test_one_creator_wins(s3: str, tmp_path: Path, where: str) -> None:
    loc = Location.of(fresh() if where == "s3" else str(tmp_path))
    wins: list[int] = []
    start = threading.Barrier(8)

    def racer(i: int) -> None:
        start.wait()
        if loc.create("v7.json", str(i).encode()):
            wins.append(i)

    threads = [threading.Thread(target=racer, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(wins) == 1, wins
    assert loc.read("v7.json") == str(wins[0]).encode()


def test_errors_name_bucket_and_way_out(s3: str) -> None:
    loc = Location.of("s3://no-such-bucket-here/views")
    with pytest.raises(StorageError, match=r"s3://no-such-bucket-here/views/x.*create the bucket"):
        loc.write("x", b"1")
    with pytest.raises(StorageError, match=r"no-such-bucket-here/v/looplift-store/view.pickle"
                       r".*create the bucket 'no-such-bucket-here'"):  # fmt: skip
        _open("s3://no-such-bucket-here/v")
    with pytest.raises(StorageError, match="gs:// yet"):
        Location.of("gs://bucket/p")
    with pytest.raises(StorageError, match="unknown storage options"):
        Location.of("s3://b/p", {"endpoint": "x"})


# -- views -------------------------------------------------------------------------------------

BATCHES = [
    ([(1, 0, 10), (1, 1, 11), (1, 2, 12), (2, 0, 5), (2, 1, 6), (3, 0, 1)], [1] * 6),
    ([(1, 1, 13), (2, 1, 6), (4, 0, 2), (4, 1, 3)], [1, -1, 1, 1]),
    ([(1, 0, 10), (3, 0, 1), (5, 0, 7), (5, 0, 7)], [-1, -1, 1, 1]),
    ([(4, 1, 3), (2, 2, 9), (1, 0, 14)], [-1, 1, 1]),
]


def _open(where: str, **kw: Any) -> Any:
    algo = case_named("clickstream").algo
    return algo.incremental(None, where, store="spark", buckets=2, driver_keys=10**9, **kw)


def test_view_on_s3_matches_local_and_recompute(s3: str, tmp_path: Path) -> None:
    algo = case_named("clickstream").algo
    remote, local = _open(fresh()), _open(str(tmp_path / "local"))
    assert remote.store == "spark"
    live: Counter = Counter()
    summed: Counter = Counter()
    for rows, signs in BATCHES:
        got = remote.apply_rows(rows, signs)
        assert multiset(got) == multiset(local.apply_rows(rows, signs))
        summed = add_changes(summed, got)
        for r, s in zip(rows, signs, strict=True):
            live[r] += s
        want = multiset(reference_rows(algo, list((+live).elements())))
        assert multiset(remote.result_rows()) == want == summed
    assert remote.version == local.version == len(BATCHES)
    # reopened: a new view object reads the committed version
    where = str(remote.where)
    remote.close()
    again = _open(where)
    assert again.version == len(BATCHES)
    assert multiset(again.result_rows()) == multiset(local.result_rows())
    # explicit storage options (here the same server) reach the same store
    opts = {"endpoint_url": s3, "access_key_id": "testing", "secret_access_key": "testing"}
    assert _open(where, storage_options=opts).version == len(BATCHES)


def test_local_store_refused_on_s3(s3: str) -> None:
    algo = case_named("clickstream").algo
    with pytest.raises(DeltaError, match="cannot use the local"):
        algo.incremental(None, fresh(), store="local")


def test_two_writers_one_commit(s3: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Writer B applies a batch while writer A commits another on the same base: B's
    commit of the same version fails (on the version check or, if it passed first, the
    conditional write), and the view holds A's batch only."""
    where = fresh()
    a, b = _open(where), _open(where)
    a.apply_rows(*BATCHES[0])
    base = b.version
    real = sparkview.crash_point
    ran = []

    def race(point: str, version: int) -> None:
        if point == "apply" and not ran:  # (B wrote its files; A commits first)
            ran.append(version)
            a.apply_rows(*BATCHES[1])
        real(point, version)

    monkeypatch.setattr(sparkview, "crash_point", race)
    with pytest.raises(DeltaError, match=r"another writer.*version 2.*nothing was applied"):
        b.apply_rows([(9, 0, 1)], [1])
    monkeypatch.setattr(sparkview, "crash_point", real)
    assert ran == [base + 1] and b.version == a.version == 2
    algo = case_named("clickstream").algo
    net = Counter()
    for rows, signs in BATCHES[:2]:
        for r, s in zip(rows, signs, strict=True):
            net[r] += s
    want = multiset(reference_rows(algo, list((+net).elements())))
    assert multiset(_open(where).result_rows()) == want

    # the conditional write itself: B passes the version check, A publishes first
    monkeypatch.setattr(type(b._impl), "version", property(lambda self: 2))
    a.apply_rows(*BATCHES[2])  # (A: version 3)
    with pytest.raises(DeltaError, match="version 3"):
        b.apply_rows([(9, 0, 1)], [1])
    monkeypatch.undo()
    assert a.version == 3
    net2 = net.copy()
    for r, s in zip(*BATCHES[2], strict=True):
        net2[r] += s
    want = multiset(reference_rows(algo, list((+net2).elements())))
    assert multiset(_open(where).result_rows()) == want


@pytest.mark.spark
@pytest.mark.slow
def test_killed_mid_commit_on_s3(s3: str, tmp_path: Path) -> None:
    """Children apply batches to two views on S3 and are killed: between batches,
    after an apply wrote its files (a Spark job's executors), right after the manifest
    (on an object store the manifest is the commit); a last one resumes.
    Every batch is committed once, the results equal the reference, and the killed
    apply's files are removed once old enough."""
    from tests.incremental.test_restart import COLUMNS, N_BATCHES, VIEWS, Child, make_batches

    batches = make_batches()
    spec = tmp_path / "batches.json"
    spec.write_text(json.dumps({"views": VIEWS, "columns": COLUMNS, "batches": batches}))
    root = fresh("restart")
    kw = {"spark_store": True, "log_dir": tmp_path}
    committed: list[dict] = []

    a = Child(spec, root, step=True, spark=False, **kw)
    a.read_until(lambda m: m.get("view") == "sessions" and "applied" not in m)
    for i in range(3):
        a.go()
        a.read_until(lambda m, i=i: m.get("view") == "sessions" and m.get("applied") == i)
    assert a.kill() == -signal.SIGKILL
    committed += [m for m in a.messages if "applied" in m]

    # applies batch 3, then is killed inside batch 4's apply (version 5) of the clicks,
    # a Spark job: its files are written on the executors, no manifest: version 4 stays
    b = Child(spec, root, crash="apply:5", spark=True, **kw)
    assert b.wait() == -signal.SIGKILL
    assert b.versions() == {"clicks": 3, "sessions": 3}, b.messages
    assert b.applied() == [("clicks", 3), ("sessions", 3)], b.messages
    committed += [m for m in b.messages if "applied" in m]

    # killed right after the clicks' batch 4 manifest: committed, though the child
    # never said so (the sessions view stays at version 4)
    c = Child(spec, root, crash="commit:5", spark=False, **kw)
    assert c.wait() == -signal.SIGKILL
    assert c.versions() == {"clicks": 4, "sessions": 4}, c.messages
    assert c.applied() == [], c.messages

    # (resumes without Spark: the jobs on S3 are test_bulk_load_and_jobs_on_s3's, and a
    # Spark session started here would cost the test a third of its time)
    d = Child(spec, root, spark=False, **kw)
    final = d.read_until(lambda m: "results" in m)
    assert d.wait() == 0
    assert d.versions() == {"clicks": 5, "sessions": 4}  # (the clicks' batch 4 is in)
    rest = [(v, i) for i in range(5, N_BATCHES) for v in VIEWS]
    assert d.applied() == [("sessions", 4), *rest], d.messages
    committed += [m for m in d.messages if "applied" in m]

    seen = Counter((m["view"], m["applied"]) for m in committed)
    want_seen = Counter({(v, i): 1 for v in VIEWS for i in range(N_BATCHES)})
    del want_seen[("clicks", 4)]  # (committed by c, which was killed before saying so)
    assert seen == want_seen, seen
    live: Counter = Counter()
    for batch in batches:
        for r, s in zip(batch["rows"], batch["signs"], strict=True):
            live[tuple(r)] += s
    net = list((+live).elements())
    for name, ref in VIEWS.items():
        algo = case_named(ref.split(":")[1]).algo
        want = multiset(reference_rows(algo, [tuple(r[c] for c in COLUMNS[name]) for r in net]))
        assert multiset(final["results"][name]) == want, name

    # the orphans: b's files (no manifest names them) go once they are old enough
    algo = case_named("clickstream").algo
    view = algo.incremental(None, f"{root}/clicks", buckets=2)._impl
    v = view.version
    used = {
        n
        for k in range(max(0, v - view.keep + 1), v + 1)
        for n in version_files(*view._manifest(k))
    }  # (the kept versions' files)
    orphans = {n for n in view.data.listdir() if n.endswith(".parquet")} - used
    assert orphans  # (b's killed apply wrote a log file)
    view._cleanup(view.version)  # (younger than REMOTE_ORPHAN_SECONDS: kept)
    assert orphans <= set(view.data.listdir())
    old, sparkview.REMOTE_ORPHAN_SECONDS = sparkview.REMOTE_ORPHAN_SECONDS, 0.0
    try:
        view._cleanup(view.version)
    finally:
        sparkview.REMOTE_ORPHAN_SECONDS = old
    left = {n for n in view.data.listdir() if n.endswith(".parquet")}
    assert not (left & orphans) and used <= left
    assert multiset(view.result_rows()) == multiset(final["results"]["clicks"])


# -- streams -----------------------------------------------------------------------------------


@pytest.mark.spark
@pytest.mark.parametrize("name", ["average", "clickstream"])  # (native, per-key)
def test_stream_checkpoint_on_s3_says_what_it_needs(spark: Any, tmp_path: Path, name: str) -> None:
    """A stream keeps its state in Spark's checkpoint; on s3a:// without hadoop-aws (a
    fresh machine) its start fails with a message naming the connector, not Hadoop's."""
    from looplift.streaming import StreamCheckpointError

    case = case_named(name)
    schema = ", ".join(f"c{i} long" for i in range(len(case.algo.algorithm().fields)))
    src = tmp_path / "in"
    spark.createDataFrame([], f"{schema}, _sign int").write.parquet(str(src))
    changes = case.algo.stream(spark.readStream.schema(f"{schema}, _sign int").parquet(str(src)))
    writer = changes.writeStream.format("memory").queryName(f"objstore_{name}")
    try:
        spark.sparkContext._jvm.java.lang.Class.forName("org.apache.hadoop.fs.s3a.S3AFileSystem")
        has_s3a = True
    except Exception:  # noqa: BLE001 - not there: the case this test checks
        has_s3a = False
    if has_s3a:
        pytest.skip("hadoop-aws is on the classpath: s3a checkpoints work")
    with pytest.raises(StreamCheckpointError, match=r"s3a://.*hadoop-aws"):
        writer.option("checkpointLocation", f"s3a://{BUCKET}/ck-{name}").start()


@pytest.mark.spark
def test_bulk_load_and_jobs_on_s3_with_storage_options(spark: Any, s3: str) -> None:
    """The executors' work on S3: a bulk load (first batch), an apply as a Spark job and
    the result read by tasks, the connection given in ``storage_options`` (which
    travel with the tasks)."""
    algo = case_named("clickstream").algo
    opts = {"endpoint_url": s3, "access_key_id": "testing", "secret_access_key": "testing",
            "region": "us-east-1"}  # fmt: skip
    where = fresh("bulk")
    view = algo.incremental(spark, where, store="spark", buckets=4, driver_keys=0,
                            storage_options=opts)  # fmt: skip
    schema = "c0 long, c1 long, c2 long, _sign int"
    live: Counter = Counter()
    for rows, signs in BATCHES:
        view.apply(spark.createDataFrame([(*r, s) for r, s in zip(rows, signs, strict=True)],
                                         schema))  # fmt: skip
        for r, s in zip(rows, signs, strict=True):
            live[r] += s
    want = multiset(reference_rows(algo, list((+live).elements())))
    assert multiset(view.result().collect()) == want
    again = algo.incremental(spark, where, storage_options=opts)
    assert again.version == len(BATCHES) and multiset(again.result_rows()) == want


@pytest.mark.slow
def test_killed_at_random_points_on_s3(s3: str, tmp_path: Path) -> None:
    """Children (no Spark: their applies in process) apply the batches to two views on
    S3, each SIGKILLed at a random moment after its first apply, wherever it is
    (writing files, publishing a manifest, cleaning up); a last one finishes. The results equal the
    reference on the net table: no batch lost or applied twice."""
    import random
    import time

    from tests.incremental.test_restart import COLUMNS, N_BATCHES, VIEWS, Child, make_batches

    batches = make_batches(seed=11)
    spec = tmp_path / "batches.json"
    spec.write_text(json.dumps({"views": VIEWS, "columns": COLUMNS, "batches": batches}))
    root = fresh("random")
    rnd = random.Random(3)
    reported: list[tuple[str, int]] = []
    for _ in range(4):
        child = Child(spec, root, spark=False, spark_store=True, log_dir=tmp_path)
        child.read_until(lambda m: "applied" in m)  # (then killed within the next ones)
        time.sleep(rnd.uniform(0.0, 0.4))
        child.kill()
        reported += child.applied()
    last = Child(spec, root, spark=False, spark_store=True, log_dir=tmp_path)
    final = last.read_until(lambda m: "results" in m)
    assert last.wait() == 0
    reported += last.applied()
    assert sorted(set(reported)) == sorted(reported), reported  # (reported once at most)
    live: Counter = Counter()
    for batch in batches:
        for r, s in zip(batch["rows"], batch["signs"], strict=True):
            live[tuple(r)] += s
    net = list((+live).elements())
    for name, ref in VIEWS.items():
        algo = case_named(ref.split(":")[1]).algo
        want = multiset(reference_rows(algo, [tuple(r[c] for c in COLUMNS[name]) for r in net]))
        assert multiset(final["results"][name]) == want, name
        reopened = algo.incremental(None, f"{root}/{name}", buckets=2)
        assert reopened.version == N_BATCHES


@pytest.mark.slow
def test_helpers_on_s3(s3: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The view's helper processes (their share of an apply's keys, the log flushed in
    the background) read and write the view's files on S3 too."""
    import random
    import select

    from looplift import viewfiles

    monkeypatch.setenv("LOOPLIFT_VIEW_HELPERS", "2")
    monkeypatch.setattr(viewpool, "HELPER_KEYS", 1)  # (every apply shares its keys)
    monkeypatch.setattr(viewfiles, "MAX_LOG", 1)  # (a flush when the log has 3+ files)
    algo = case_named("clickstream").algo
    where = fresh("helpers")
    view = _open(where)
    inner = view._impl
    rnd = random.Random(7)
    live: Counter = Counter()
    shared = taken = 0
    for i in range(10):
        rows = [(rnd.randrange(1, 40), rnd.randrange(0, 5), 1000 * i + j) for j in range(40)]
        gone = rnd.sample(sorted(live.elements()), min(8, sum(live.values())))
        started = inner.pool.upkeep
        view.apply_rows(rows + gone, [1] * len(rows) + [-1] * len(gone))
        live.update(rows)
        live.subtract(gone)
        shared += bool(inner.pool.helpers and any(h.ready for h in inner.pool.helpers))
        taken += started is not None and inner.pool.upkeep is None
        assert multiset(view.result_rows()) == multiset(
            reference_rows(algo, list((+live).elements()))
        )
        if inner.pool.upkeep is not None:  # (wait for it: the next apply takes it in)
            select.select([inner.pool.upkeep[0].proc.stdout], [], [], 60)
    view.close()
    assert shared and taken, (shared, taken)
    again = _open(where)
    assert multiset(again.result_rows()) == multiset(reference_rows(algo, list((+live).elements())))


@pytest.mark.spark
@pytest.mark.slow
def test_stream_into_a_view_on_s3_killed_mid_commit(s3: str, tmp_path: Path) -> None:
    """A stream whose sink applies each micro-batch to a view on S3 (Spark's own
    checkpoint on a local path: no hadoop-aws), killed inside a batch's apply (before
    the view's manifest; with ``LOOPLIFT_OBJSTORE_ALL=1``: a Spark child more) and right
    after the manifest (before Spark marks the batch done, so Spark replays it): the
    view's version tells the sink which batches are in, and the result equals the
    reference, nothing lost or applied twice."""

    import pyarrow as pa
    import pyarrow.parquet as pq

    from tests.incremental.test_restart import Child, make_batches

    batches = make_batches(seed=23, n=6)  # (the last child applies batch 5 after the replay)
    src = tmp_path / "src"
    src.mkdir()
    for i, b in enumerate(batches):  # one file a micro-batch, in order of their times
        rows = [(*r, s) for r, s in zip(b["rows"], b["signs"], strict=True)]
        cols = list(zip(*rows, strict=True))
        table = pa.table({"c0": pa.array(cols[0], pa.int64()), "c1": pa.array(cols[1], pa.int64()),
                          "c2": pa.array(cols[2], pa.int64()), "_sign": pa.array(cols[3], pa.int32())})  # fmt: skip
        path = src / f"batch-{i:03d}.parquet"
        pq.write_table(table, path)
        os.utime(path, (1_700_000_000 + i, 1_700_000_000 + i))
    where, ckpt = fresh("stream"), tmp_path / "ckpt"

    def child(crash: str = "") -> Any:
        c = Child.__new__(Child)
        _start_stream_child(c, src, ckpt, where, crash, tmp_path)
        return c

    first = 0
    if STREAM_KILLS_ALL:  # (an apply killed on S3: test_killed_mid_commit_on_s3's child b)
        a = child("apply:3")  # (batches 0 and 1 in; killed inside batch 2's apply)
        assert a.wait() == -signal.SIGKILL
        assert [m["batch"] for m in a.messages if m.get("applied")] == [0, 1], a.messages
        first = 2
    b = child("commit:5")  # (batch 2 again, 3; killed after batch 4's manifest)
    assert b.wait() == -signal.SIGKILL
    assert [m["batch"] for m in b.messages if m.get("applied")] == list(range(first, 4)), b.messages
    c = child()  # (Spark replays batch 4: skipped; then the rest)
    final = c.read_until(lambda m: "results" in m)
    assert c.wait() == 0
    assert [m["batch"] for m in c.messages if m.get("skipped")] == [4], c.messages
    assert [m["batch"] for m in c.messages if m.get("applied")] == list(range(5, len(batches)))
    live: Counter = Counter()
    for batch in batches:
        for r, s in zip(batch["rows"], batch["signs"], strict=True):
            live[tuple(r)] += s
    algo = case_named("clickstream").algo
    assert multiset(final["results"]) == multiset(reference_rows(algo, list((+live).elements())))
    assert _open(where).version == len(batches)


def _start_stream_child(c: Any, src: Path, ckpt: Path, where: str, crash: str, logs: Path) -> None:
    """``Child``'s reader on ``stream_child`` (the same JSON lines, the same timeouts)."""
    import os
    import selectors
    import subprocess
    import sys
    import time

    from tests.helpers import ROOT

    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONFAULTHANDLER="1")
    env.pop("LOOPLIFT_CRASH_AT", None)
    if crash:
        env["LOOPLIFT_CRASH_AT"] = crash
    c.log = logs / f"stream-child-{time.monotonic_ns()}.log"
    with c.log.open("w") as err:
        c.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.incremental.stream_child", str(src), str(ckpt), where],
            cwd=ROOT, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
        )  # fmt: skip
    c.buf, c.messages = b"", []
    c.sel = selectors.DefaultSelector()
    c.sel.register(c.proc.stdout, selectors.EVENT_READ)
