"""Sustained applies of the Spark store: the log's upkeep in a helper vs in the apply.

    python -m tests.perf.view_sustained [--base 20000000] [--users 20000] [--applies 30]
                                        [--gap 0.0]

One clickstream view in the Spark store over ``--base`` clicks (bulk-loaded), its
helper started, then ``--applies`` applies of 1,000-row deltas (half inserts, half
deletes, drawn as in ``tests.perf.incremental``) with ``--gap`` seconds between them,
twice: with the log flushed and compacted by the idle helper in the background (the
default, ``viewpool.BACKGROUND_UPKEEP``) and by the driver process inside the apply
that finds the log too long. The two series alternate in blocks of ``--block`` applies
on the same view. Prints each series' median, mean, 90th percentile and maximum, and
how many flushes ran where. The view's result is checked against the recompute at the
end.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from tests.perf.view_helpers import HelperView


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", type=int, default=20_000_000)
    ap.add_argument("--users", type=int, default=20_000)
    ap.add_argument("--applies", type=int, default=30, help="per series")
    ap.add_argument("--block", type=int, default=10)
    ap.add_argument("--gap", type=float, default=0.0)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)

    import looplift.viewpool as vp

    hv = HelperView.start(args.base, args.users, 2 * args.applies, args.seed)
    view, deltas = hv.view, hv.deltas
    inner = view._impl
    print(f"base {args.base:,} clicks; helpers: {len(inner.pool.helpers)}; gap {args.gap} s",
          flush=True)  # fmt: skip

    here = {"n": 0}
    upkeep = vp.upkeep

    def counted(*a: object) -> object:
        here["n"] += 1
        return upkeep(*a)

    vp.upkeep = counted
    taken = {"n": 0}
    take = vp.HelperPool.take_upkeep

    def counted_take(self: object, view: object, files: object, log: object, wait: bool
                     ) -> object:  # fmt: skip
        pending = self.upkeep is not None
        out = take(self, view, files, log, wait)
        taken["n"] += pending and self.upkeep is None
        return out

    vp.HelperPool.take_upkeep = counted_take
    times: dict[bool, list[float]] = {True: [], False: []}
    flushes: dict[bool, list[int]] = {True: [0, 0], False: [0, 0]}
    for i in range(2 * args.applies):
        background = (i // args.block) % 2 == 0
        vp.BACKGROUND_UPKEEP = background
        h0, t0 = here["n"], taken["n"]
        start = time.perf_counter()
        view.apply(deltas.pop(0))
        times[background].append(time.perf_counter() - start)
        flushes[background][0] += here["n"] - h0
        flushes[background][1] += taken["n"] - t0
        if args.gap:
            time.sleep(args.gap)
    vp.BACKGROUND_UPKEEP = True
    for background in (True, False):
        t = sorted(times[background])
        p90 = t[int(0.9 * (len(t) - 1))]
        print(f"log upkeep {'in a helper (background)' if background else 'in the apply':26s}: "
              f"median {statistics.median(t):.3f} s, mean {statistics.mean(t):.3f}, "
              f"p90 {p90:.3f}, max {t[-1]:.3f}; flushes in the driver {flushes[background][0]}, "
              f"in the background {flushes[background][1]}")  # fmt: skip
    problems = hv.check()
    view.close()
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
