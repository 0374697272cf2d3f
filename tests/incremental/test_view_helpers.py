"""A Spark-store apply shares its keys with helper processes (``looplift.viewworker``):
the results are the reference's, a bad delete in a helper's share refuses the batch, a
helper that dies gives its share back, and closing the view ends them."""

from __future__ import annotations

import os
import random
import signal
import time
from collections import Counter
from typing import Any

import looplift.viewpool as viewpool
import pytest
from looplift.deltarows import DeltaError
from looplift.sparkview import SparkView

from tests.incremental.common import case_named, multiset, reference_rows
from tests.spark.harness import assert_same

pytestmark = pytest.mark.spark


def _view(spark: Any, path: Any, monkeypatch: Any) -> Any:
    monkeypatch.setattr(viewpool, "HELPER_KEYS", 2)
    view = case_named("clickstream").algo.incremental(spark, str(path), store="spark",
                                                       buckets=4, driver_keys=10_000)  # fmt: skip
    inner = view._impl
    assert isinstance(inner, SparkView)
    inner.pool.size = 1
    return view


def _ready(inner: SparkView) -> Any:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        ready = inner.pool.ready(inner)
        if ready:
            return ready[0]
        time.sleep(0.2)
    raise AssertionError("the helper did not start")


def _clicks(rnd: random.Random, n: int, start: int) -> list[tuple]:
    return [(rnd.randrange(1, 30), rnd.randrange(0, 5), start + i) for i in range(n)]


def _started(spark: Any, path: Any, monkeypatch: Any, rnd: random.Random
             ) -> tuple[Any, Counter, Any]:  # fmt: skip
    """:func:`_view` after a first batch of 60 clicks (it starts the helper; that apply
    runs in the driver process) and its helper ready: (view, live rows, helper)."""
    view = _view(spark, path, monkeypatch)
    first = _clicks(rnd, 60, 0)
    view.apply_rows(first, [1] * len(first))
    return view, Counter(first), _ready(view._impl)


def test_helpers_share_applies(spark: Any, tmp_path: Any, monkeypatch: Any) -> None:
    algo = case_named("clickstream").algo
    rnd = random.Random(3)
    # (no log flush in the background here: a helper busy flushing takes no keys, so
    # whether the last case's helper gets a share would depend on timing; the
    # background flush has its own test below)
    monkeypatch.setattr(viewpool, "BACKGROUND_UPKEEP", False)
    view, live, helper = _started(spark, tmp_path / "v", monkeypatch, rnd)
    inner = view._impl
    for i in range(1, 6):
        gone = rnd.sample(sorted(live.elements()), 10)
        rows = _clicks(rnd, 30, 1000 * i)
        before = len(inner._manifest(inner.version)[1])
        view.apply_rows(rows + gone, [1] * len(rows) + [-1] * len(gone))
        live.update(rows)
        live.subtract(gone)
        live = +live
        log = inner._manifest(inner.version)[1]
        assert len(log) == before + 2 or not log  # (the driver's file and the helper's)
        assert all(n.startswith("log-") for n in log)
        assert_same("table", view.result_rows(), reference_rows(algo, list(live.elements())))

    # a delete of a row that is not live, in whichever share: nothing is applied
    version, result = inner.version, multiset(view.result_rows())
    never = [(u, 4, 999_999 + u) for u in range(1, 30)]
    with pytest.raises(DeltaError, match="not live"):
        view.apply_rows(never, [-1] * len(never))
    assert inner.version == version and multiset(view.result_rows()) == result

    # a helper killed between applies: its share runs in the driver process
    os.kill(helper.proc.pid, signal.SIGKILL)
    helper.proc.wait()
    rows = _clicks(rnd, 40, 50_000)
    view.apply_rows(rows, [1] * len(rows))
    live.update(rows)
    assert_same("table", view.result_rows(), reference_rows(algo, list(live.elements())))
    assert helper not in inner.pool.helpers
    again = _ready(inner)  # a new one starts
    rows = _clicks(rnd, 40, 60_000)
    view.apply_rows(rows, [1] * len(rows))
    live.update(rows)
    assert_same("table", view.result_rows(), reference_rows(algo, list(live.elements())))

    # a helper that dies inside an apply: the driver process runs its share
    from looplift.viewworker import Helper

    submit = Helper.submit

    def submit_and_die(self: Any, data: str, job: dict) -> None:
        submit(self, data, job)
        os.kill(self.proc.pid, signal.SIGKILL)

    monkeypatch.setattr(Helper, "submit", submit_and_die)
    rows = _clicks(rnd, 40, 70_000)
    view.apply_rows(rows, [1] * len(rows))
    live.update(rows)
    assert again not in inner.pool.helpers and again.proc.poll() is not None
    assert_same("table", view.result_rows(), reference_rows(algo, list(live.elements())))
    monkeypatch.setattr(Helper, "submit", submit)
    again = _ready(inner)
    view.close()
    assert again.proc.poll() is not None and not inner.pool.helpers


def _kept_names(inner: SparkView) -> set[str]:
    from looplift.viewfiles import version_files

    out: set[str] = set()
    for v in range(max(0, inner.version - inner.keep + 1), inner.version + 1):
        out.update(version_files(*inner._manifest(v)))
    return out


def test_a_helper_flushes_the_log_in_the_background(
    spark: Any, tmp_path: Any, monkeypatch: Any
) -> None:
    """A log over its length is flushed into the buckets by the idle helper while the
    view goes on; a later apply commits the new bucket files (the log keeps the files
    written since). A helper killed while it flushes loses nothing: its files are in no
    manifest and go at the next cleanup."""
    import select

    import looplift.viewfiles as vf

    algo = case_named("clickstream").algo
    rnd = random.Random(5)
    view, live, _helper = _started(spark, tmp_path / "v", monkeypatch, rnd)
    inner = view._impl
    monkeypatch.setattr(vf, "MAX_LOG", 1)  # (a flush when the log has more than 2 files)

    def not_here(*args: Any) -> Any:
        raise AssertionError("the log was flushed in the driver process")

    monkeypatch.setattr(viewpool, "upkeep", not_here)

    def step(i: int) -> None:
        rows = _clicks(rnd, 30, 1000 * i)
        gone = rnd.sample(sorted(live.elements()), 5)
        view.apply_rows(rows + gone, [1] * len(rows) + [-1] * len(gone))
        live.update(rows)
        live.subtract(gone)
        assert_same("table", view.result_rows(),
                    reference_rows(algo, list((+live).elements())))  # fmt: skip

    taken = 0
    for i in range(1, 12):
        started = inner.pool.upkeep
        step(i)
        if started is not None and inner.pool.upkeep is None:  # (taken in by this apply)
            files, log = inner._manifest(inner.version)
            assert not set(started[1]) & set(log)  # the flushed log files left the log
            assert all(n.startswith("log-") for n in log)
            assert all(len(f) <= vf.MAX_SEGMENTS for f in files.values())
            assert set(os.listdir(inner.data)) == _kept_names(inner)  # no orphan file
            taken += 1
        if inner.pool.upkeep is not None:  # wait for it: the next apply takes it in
            select.select([inner.pool.upkeep[0].proc.stdout], [], [], 60)
    assert taken >= 2

    # killed while flushing: the flush is dropped, its files cleaned up
    for i in range(20, 30):
        step(i)
        if inner.pool.upkeep is not None:
            helper = inner.pool.upkeep[0]
            os.kill(helper.proc.pid, signal.SIGKILL)
            helper.proc.wait()
            break
    else:
        raise AssertionError("no background flush started")
    monkeypatch.setattr(viewpool, "upkeep", vf.upkeep)  # (the driver may flush while none is ready)
    step(40)
    assert helper not in inner.pool.helpers
    if inner.pool.upkeep is None:  # (unless a new helper is already flushing again)
        assert set(os.listdir(inner.data)) == _kept_names(inner)
    view.close()
