"""``python -m tests.fuzz -n 5000 --seed 1 [--out DIR]``: run mutants, report failures.

Each failing mutant is printed (diff and output) and written to ``DIR`` (default
``build/mutants``) as a ``.py`` file to replay plus a ``.txt`` report. Exit 1 on any failure.
"""

from __future__ import annotations

import argparse
import collections
import time
from pathlib import Path

from tests.fuzz.mutate import ROOT
from tests.fuzz.pool import run_mutants, write_failure


def main() -> int:
    p = argparse.ArgumentParser(prog="python -m tests.fuzz")
    p.add_argument("-n", type=int, default=300, help="how many mutants")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--start", type=int, default=0, help="first mutant index")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--out", default=str(ROOT / "build/mutants"))
    p.add_argument("-q", "--quiet", action="store_true", help="only the summary per failure")
    args = p.parse_args()
    start = time.monotonic()
    failures: collections.Counter[str] = collections.Counter()
    rcs: collections.Counter[int | None] = collections.Counter()
    n = 0
    for o in run_mutants(args.seed, range(args.start, args.start + args.n), args.workers):
        n += 1
        rcs[o.rc] += 1
        if o.failure:
            failures[o.failure] += 1
            path = write_failure(o, Path(args.out))
            print(f"FAIL {path}: {o.failure}" if args.quiet else o.report())
    took = time.monotonic() - start
    print(f"{n} mutants (seed {args.seed}) in {took:.1f} s: {sum(failures.values())} failures "
          f"{dict(failures)}; exit codes {dict(rcs)}")  # fmt: skip
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
