"""The helper processes of a Spark-store view (:mod:`looplift.sparkview`).

A view applying a small delta in the driver process shares its keys with helper
processes on the driver's other cores (:mod:`looplift.viewworker`): one per core beyond
the first, at most 3 (:func:`default_helpers`), started on the first apply that touches
at least :data:`HELPER_KEYS` keys and ready for a later one. Each takes a share of the
keys (:meth:`HelperPool.apply_here`: balanced by deltas, one log file per process); an
idle one flushes a long log into the buckets in the background
(:meth:`HelperPool.maintain`) and indexes the files of each committed version while
it waits (:meth:`HelperPool.warm`). A helper that fails or dies gives its share back to
the driver process (nothing it wrote is committed) and is dropped; a later apply starts
another.
"""

from __future__ import annotations

import os
import weakref
from typing import Any

from . import viewfiles
from .spark import ship
from .viewfiles import upkeep, version_files
from .viewtasks import apply_keys, merge_jobs
from .viewworker import Helper

__all__ = ["BACKGROUND_UPKEEP", "HELPER_KEYS", "HelperPool", "default_helpers"]

#: an apply in the driver process touching at least this many keys shares them with the
#: view's helper processes (:mod:`looplift.viewworker`), which run them on other cores
HELPER_KEYS = 200
#: False: the driver process flushes the log itself, inside the apply (benchmarks' A/B)
BACKGROUND_UPKEEP = True


def default_helpers() -> int:
    """Helper processes of a view: one per core beyond the first, at most 3
    (``LOOPLIFT_VIEW_HELPERS`` sets the number; 0 turns them off)."""
    env = os.environ.get("LOOPLIFT_VIEW_HELPERS")
    if env is not None:
        return max(0, int(env))
    return max(0, min(os.cpu_count() or 1, 4) - 1)


class HelperPool:
    """A view's helper processes (module docs). ``view`` is the
    :class:`~looplift.sparkview.SparkView` they work for."""

    def __init__(self) -> None:
        self.size = default_helpers()  # (started on the first apply that needs them)
        self.helpers: list[Helper] = []
        # a log flush running in a helper: (the helper, the log files and the bucket
        # files it started from)
        self.upkeep: tuple[Helper, list[str], dict[int, list[str]]] | None = None

    def close(self) -> None:
        """End every helper process."""
        for helper in list(self.helpers):
            self.drop(helper)

    def warm(self, view: Any, files: dict[int, list[str]], log: list[str]) -> None:
        """Send the ready helpers the files of the committed version they have not read
        yet (they index them while idle)."""
        names = version_files(files, log)
        for helper in list(self.helpers):
            if helper.ready:
                try:
                    helper.warm(view.data, names)
                except OSError:
                    self.drop(helper)

    def apply_here(self, view: Any, parts: list[dict], log: list[str], touched: int
                   ) -> list[tuple[int, str, bytes]]:  # fmt: skip
        """:func:`apply_keys` of the per-bucket ``parts`` in the driver process, shared
        with the view's ready helper processes when there are enough keys. A helper that
        fails gives its part back (run here: nothing it wrote is committed)."""
        helpers = self.ready(view) if touched >= HELPER_KEYS else []
        shares: list[list[dict]] = [[] for _ in range(len(helpers) + 1)]
        sizes = [0] * len(shares)
        for part in sorted(parts, key=lambda p: -len(p["deltas"])):  # (greedy, balanced)
            i = sizes.index(min(sizes))
            shares[i].append(part)
            sizes[i] += len(part["deltas"])
        sent = []
        for helper, share in zip(helpers, shares[1:], strict=True):
            job = merge_jobs(share, log, view.buckets, view.live_format)
            try:
                helper.submit(view.data, job)
                sent.append((helper, job))
            except OSError:
                shares[0].extend(share)
        results = apply_keys(view.step, view.data,
                             merge_jobs(shares[0], log, view.buckets, view.live_format))  # fmt: skip
        for helper, job in sent:
            try:
                results.extend(helper.result())
            except (OSError, EOFError):
                self.drop(helper)
                results.extend(apply_keys(view.step, view.data, job))
        order = {"error": 0, "raise": 1}  # (a bad delete fails the apply first)
        return sorted(results, key=lambda r: order.get(r[1], 2))

    def ready(self, view: Any) -> list[Any]:
        """The helpers ready to take keys now; starts them on first use (they are ready
        for a later apply, once started)."""
        for h in [h for h in self.helpers if not h.alive()]:
            if not h.ready:  # (it could not start, e.g. the step does not unpickle there)
                self.size = 0
            self.drop(h)
        if len(self.helpers) < self.size:
            try:
                from pyspark import cloudpickle

                ship(list(view.alg.refs))
                blob = cloudpickle.dumps(view.step)
                names = version_files(*view._manifest(view.version))
                while len(self.helpers) < self.size:
                    helper = Helper(blob, view.data, names)
                    self.helpers.append(helper)
                    weakref.finalize(self, helper.close)
            except Exception:  # noqa: BLE001 - no helper: the driver process does every key
                self.size = len(self.helpers)
        ready = []
        for h in list(self.helpers):
            if h.busy:  # (flushing the log: see _maintain)
                continue
            try:
                if not h.ready and h.is_ready():  # (files committed while it started)
                    h.warm(view.data, version_files(*view._manifest(view.version)))
                if h.is_ready():
                    ready.append(h)
            except OSError:
                self.drop(h)
        return ready

    def drop(self, helper: Any) -> None:
        if self.upkeep is not None and self.upkeep[0] is helper:
            self.upkeep = None
        if helper in self.helpers:
            self.helpers.remove(helper)
        helper.close()

    def maintain(self, view: Any, files: dict[int, list[str]], log: list[str]
                  ) -> tuple[dict[int, list[str]], list[str]]:  # fmt: skip
        """The files after an apply. A log of more than :data:`MAX_LOG` files per process
        that applies (the driver's and its helpers') is flushed into the buckets (a new
        file each; a bucket of more than ``MAX_SEGMENTS`` files compacts its newest
        ones): by an idle helper in the background, whose new bucket files a later apply
        commits (:meth:`_take_upkeep`), else here. A log twice that long waits for the
        helper."""
        limit = viewfiles.MAX_LOG * (1 + self.size)  # (an apply's files: 1 + helpers)
        files, log = self.take_upkeep(view, files, log, wait=len(log) > 2 * limit)
        if len(log) <= limit or self.upkeep is not None:
            return files, log
        idle = self.ready(view) if BACKGROUND_UPKEEP else []
        if idle:
            job = {"buckets": view.buckets, "log": list(log),
                   "files": {b: list(f) for b, f in files.items()}}  # fmt: skip
            try:
                idle[0].start_upkeep(view.data, job)
                self.upkeep = (idle[0], job["log"], job["files"])
                return files, log
            except OSError:
                self.drop(idle[0])
        return {**files, **upkeep(view.data, view.buckets, log, files)}, []

    def take_upkeep(self, view: Any, files: dict[int, list[str]], log: list[str], wait: bool
                     ) -> tuple[dict[int, list[str]], list[str]]:  # fmt: skip
        """The files with a finished background flush taken in: the buckets it wrote get
        their new files, the log loses the files it flushed (later ones stay: they are
        newer than anything it wrote). A failed or lost flush is dropped (its files, in
        no manifest, go at the next cleanup)."""
        if self.upkeep is None:
            return files, log
        helper, flushed, started = self.upkeep
        try:
            got = helper.upkeep_result(wait)
        except (OSError, EOFError):
            self.drop(helper)  # (drops the upkeep too)
            return files, log
        if got is None:
            return files, log
        self.upkeep = None
        names = [n for new in got.values() for n in new]
        if any(files.get(b, []) != started.get(b, []) for b in got) or not all(
            view.data.exists(n) for n in names
        ):
            return files, log  # (cannot happen with one writer: dropped to be safe)
        files = {**files, **got}
        gone = set(flushed)
        return files, [n for n in log if n not in gone]
