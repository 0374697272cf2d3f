"""A/B of the Spark store's apply with and without its helper process (issue 13).

    python -m tests.perf.view_helpers [--base 20000000] [--users 20000] [--rounds 12]

One clickstream view in the Spark store over ``--base`` clicks (bulk-loaded), then
``2 * rounds`` applies of 1,000-row deltas (half inserts, half deletes, drawn as in
``tests.perf.incremental``), back to back: the applies alternate between sharing their
keys with the view's helper process (``runtime/viewworker.py``) and running every key
in the driver process (A B B A ...), after two warm-up applies that start the helper.
Prints the medians of each and their ratio, and the recompute of the final table once
for scale. The view's result is checked against the recompute at the end.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Any

from tests.perf import common
from tests.perf.incremental import LiveRows, delta_frame, fetch_columns, net_table


@dataclass
class HelperView:
    """A bulk-loaded clickstream view in the Spark store, its helper started, and the
    deltas still to apply (1,000 rows each: half inserts, half deletes)."""

    spark: Any
    sample: Any
    base: Any
    live: LiveRows
    view: Any
    deltas: list[Any]

    @classmethod
    def start(cls, base_rows: int, users: int, deltas: int, seed: int) -> HelperView:
        from pyspark.sql import functions as F

        spark = common.session()
        sample = common.load_sample("clickstream")
        base = common.gen_clicks(spark, base_rows, users, seed=seed, view=None)
        cols = fetch_columns(base)
        view = sample.clickstream.incremental(spark, checkpoint=tempfile.mkdtemp(),
                                              store="spark")  # fmt: skip
        view.apply(base.withColumn("_sign", F.lit(1)))
        live = LiveRows(*cols, seed=seed + 6)
        frames = []
        for _ in range(deltas + 2):
            rows, signs = live.delta(500, 500)
            frames.append(delta_frame(spark, rows, signs))
        view.apply(frames.pop(0)).collect()  # (starts the helper)
        deadline = time.monotonic() + 120
        while not view._impl.pool.ready(view._impl) and time.monotonic() < deadline:
            time.sleep(0.2)
        view.apply(frames.pop(0)).collect()
        return cls(spark, sample, base, live, view, frames)

    def check(self, net: Any = None) -> list[str]:
        """Problems of the view's result against a recompute of its table (``net``, the
        live rows' cached table, when at hand) ([]: none)."""
        net = net if net is not None else net_table(self.spark, self.base, self.live)
        got = common.keyed_rows(tuple(r) for r in self.view.result().collect())
        want = common.keyed_rows(tuple(r) for r in self.sample.clickstream(net).collect())
        problems = common.compare_keyed(want, got)
        print("check: the view equals the recompute" if not problems else f"check: {problems[:3]}")
        return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", type=int, default=20_000_000)
    ap.add_argument("--users", type=int, default=20_000)
    ap.add_argument("--rounds", type=int, default=12)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)

    import looplift.viewpool as vp

    hv = HelperView.start(args.base, args.users, 2 * args.rounds, args.seed)
    spark, sample, view, deltas = hv.spark, hv.sample, hv.view, hv.deltas
    shared = view._impl.pool.size > 0 and bool(view._impl.pool.ready(view._impl))
    print(f"base {args.base:,} clicks, {args.users:,} users; helper ready: {shared}", flush=True)
    times: dict[bool, list[float]] = {True: [], False: []}
    for i in range(2 * args.rounds):
        with_helper = (i % 4) in (0, 3)
        vp.HELPER_KEYS = 200 if with_helper else 10**9
        common._collect_garbage(spark)
        start = time.perf_counter()
        out = view.apply(deltas.pop(0))
        times[with_helper].append(time.perf_counter() - start)
        out.collect()
    vp.HELPER_KEYS = 200
    net = net_table(spark, hv.base, hv.live)
    recompute, _, _ = common.run_once(sample.clickstream, net)
    a, b = statistics.median(times[True]), statistics.median(times[False])
    print(f"apply with the helper:    median {a:.3f} s (min {min(times[True]):.3f})")
    print(f"apply in the driver only: median {b:.3f} s (min {min(times[False]):.3f})")
    print(f"helper / driver only: {a / b:.2f}; one recompute: {recompute:.2f} s "
          f"(recompute / apply: {recompute / a:.1f} and {recompute / b:.1f})")  # fmt: skip
    problems = hv.check(net)
    view.close()
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
