"""IntervalSequence per action: maintained structures (now) vs from-scratch readers (before).

    python -m tests.perf.interval [--sizes 1000,10000,100000] [--keys 20000]
                                  [--events 1000] [--repeats 7] [--quick]

No Spark: the state class alone, as an incremental view and the batch reducer use it.
"Before" is ``states/interval.py`` as of commit ``BEFORE`` (the class whose readers
re-sort every event), loaded from git history next to the current one.

1. **Action + read.** On a state of N events (a click-stream shape: 10% opens, 10%
   closes, 80% inserts, millisecond timestamps with ties), one action (open, close or
   insert at a fresh timestamp, cycling, undone again in the next round so the state
   keeps its size) followed by one ``average_closed_size()``: microseconds per pair.
2. **Pickle.** ``pickle.dumps`` / ``pickle.loads`` of such a state (protocol 4, as the
   view store), and the pickled size.
3. **Bulk load.** ``batch_apply`` of a fresh state per key for ``--keys`` keys of
   ``--events`` numeric events each (numpy arrays, as the batch reducer passes them):
   alone, plus one ``average_closed_size()`` per key, plus that and ``pickle.dumps`` (a
   view's bulk load); and ``grouped_average_closed_size`` (the all-keys reader of the
   batch reducer, the same function before and after) on the same events.

Every measurement is a median over ``--repeats`` rounds; in each round the variants
run interleaved, the first one alternating.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import pickle
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from looplift.states import interval as after_mod

ROOT = Path(__file__).resolve().parents[2]
#: the last commit of states/interval.py before the maintained structures
BEFORE = "e754e094e42abe52e1856f049eae94e55cea8874"
TS0 = 1_700_000_000_000


def load_before() -> Any:
    """``states/interval.py`` at ``BEFORE``, imported as ``looplift.states._interval_before``."""
    source = subprocess.run(
        ["git", "show", f"{BEFORE}:states/interval.py"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    name = "looplift.states._interval_before"
    spec = importlib.util.spec_from_loader(name, loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "looplift.states"
    sys.modules[name] = module
    exec(compile(source, f"{BEFORE[:8]}:states/interval.py", "exec"), module.__dict__)  # noqa: S102
    return module


def events(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """``n`` click-stream events: codes (0 open 10%, 1 close 10%, 2 insert) and times."""
    rng = np.random.default_rng(seed)
    codes = rng.choice(3, size=n, p=[0.1, 0.1, 0.8]).astype(np.int64)
    times = TS0 + np.sort(rng.integers(0, 60 * n, size=n))  # ~60 ms apart, some ties
    return codes, rng.permutation(times)


def timed(fn: Callable[[], Any]) -> float:
    gc.collect()
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def rounds(
    variants: dict[str, Callable[[], Any]], repeats: int, warm_up: bool = True
) -> dict[str, float]:
    """Median seconds of each variant; interleaved, the first variant alternating."""
    names = list(variants)
    for name in names if warm_up else ():
        variants[name]()
    times: dict[str, list[float]] = {name: [] for name in names}
    for r in range(repeats):
        order = names[r % len(names) :] + names[: r % len(names)]
        for name in order:
            times[name].append(timed(variants[name]))
    return {name: statistics.median(ts) for name, ts in times.items()}


def action_and_read(classes: dict[str, type], n: int, repeats: int) -> dict[str, float]:
    """Microseconds of one action + one average_closed_size() on a state of n events.

    A round applies ``ops`` actions (open, close, insert at fresh timestamps, cycling)
    and then undoes them, each followed by a read: the state ends as it began.
    """
    codes, times = events(n, seed=n)
    runs, pairs = {}, {}
    for name, cls in classes.items():
        state = cls.batch_apply(codes, times)
        state.average_closed_size()
        ops = 12 if n >= 100_000 and name == "before" else 96
        fresh = TS0 + 60 * n + np.arange(ops)
        acts = [(("open", "close", "insert")[i % 3], int(fresh[i])) for i in range(ops)]
        runs[name] = _pairs(state, acts)
        pairs[name] = 2 * ops
    med = rounds(runs, repeats)
    return {name: med[name] / pairs[name] * 1e6 for name in classes}


def _pairs(state: Any, acts: list[tuple[str, int]]) -> Callable[[], None]:
    def run() -> None:
        for name, t in acts:
            getattr(state, name)(t)
            state.average_closed_size()
        for name, t in reversed(acts):
            getattr(state, name).undo(t)
            state.average_closed_size()

    return run


def _times(reps: int, fn: Callable[..., Any], *args: Any) -> Callable[[], None]:
    def run() -> None:
        for _ in range(reps):
            fn(*args)

    return run


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--keys", type=int, default=20000)
    ap.add_argument("--events", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--quick", action="store_true", help="1k/10k states, 2000 keys, 3 rounds")
    a = ap.parse_args(argv)
    if a.quick:
        a.sizes, a.keys, a.repeats = "1000,10000", 2000, 3
    before = load_before()
    classes = {"before": before.IntervalSequence, "after": after_mod.IntervalSequence}
    sizes = [int(s) for s in a.sizes.split(",")]

    print("## one action + one average_closed_size() (µs per pair)\n")
    print("| events | before | after | before/after |")
    print("|---:|---:|---:|---:|")
    for n in sizes:
        us = action_and_read(classes, n, a.repeats)
        print(
            f"| {n:,} | {us['before']:.1f} | {us['after']:.1f} | {us['before'] / us['after']:.0f}x |"
        )

    print("\n## pickle (protocol 4) of a state (ms; size in KiB)\n")
    print(
        "| events | dumps before | dumps after | loads before | loads after | KiB before | KiB after |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for n in sizes:
        codes, times = events(n, seed=n)
        states = {name: cls.batch_apply(codes, times) for name, cls in classes.items()}
        blobs = {name: pickle.dumps(s, protocol=4) for name, s in states.items()}
        for name, s in states.items():
            assert pickle.loads(blobs[name]).closed_intervals() == s.closed_intervals()
        reps = max(1, 100_000 // n)  # time a loop: one small load is below the clock's noise
        med = rounds(
            {
                **{f"dumps {k}": _times(reps, pickle.dumps, s, 4) for k, s in states.items()},
                **{f"loads {k}": _times(reps, pickle.loads, b) for k, b in blobs.items()},
            },
            a.repeats,
        )
        med = {k: v / reps for k, v in med.items()}
        kib = {k: len(b) / 1024 for k, b in blobs.items()}
        print(
            f"| {n:,} | {med['dumps before'] * 1e3:.2f} | {med['dumps after'] * 1e3:.2f} "
            f"| {med['loads before'] * 1e3:.2f} | {med['loads after'] * 1e3:.2f} "
            f"| {kib['before']:.0f} | {kib['after']:.0f} |"
        )

    print(f"\n## bulk load: {a.keys:,} keys x {a.events:,} events (s)\n")
    per_key = [events(a.events, seed=10_000 + k) for k in range(a.keys)]

    def bulk(cls: type, then: Callable[[Any], Any] | None = None) -> Callable[[], Any]:
        def run() -> None:
            for codes, times in per_key:
                state = cls.batch_apply(codes, times, None)
                if then is not None:
                    then(state)

        return run

    def read(state: Any) -> Any:
        return state.average_closed_size()

    def read_and_dump(state: Any) -> Any:  # what a view's bulk load does per key
        return state.average_closed_size(), pickle.dumps(state, protocol=4)

    keys = np.repeat(np.arange(a.keys, dtype=np.int64), a.events)
    all_codes = np.concatenate([c for c, _ in per_key])
    all_times = np.concatenate([t for _, t in per_key])

    def grouped(mod: Any) -> Callable[[], Any]:
        return lambda: mod.grouped_average_closed_size(keys, all_codes, all_times)

    bulk_repeats = max(1, min(a.repeats, 3))
    med = rounds(
        {
            "batch_apply, before": bulk(classes["before"]),
            "batch_apply, after": bulk(classes["after"]),
            "batch_apply + read, before": bulk(classes["before"], read),
            "batch_apply + read, after": bulk(classes["after"], read),
            "batch_apply + read + dumps, before": bulk(classes["before"], read_and_dump),
            "batch_apply + read + dumps, after": bulk(classes["after"], read_and_dump),
            "grouped_reader, before": grouped(before),
            "grouped_reader, after": grouped(after_mod),
        },
        bulk_repeats,
        warm_up=False,  # seconds per run: nothing left to warm up
    )
    print("| variant | seconds |")
    print("|---|---:|")
    for name, sec in med.items():
        print(f"| {name} | {sec:.2f} |")
    ub, ua = (
        m.grouped_average_closed_size(keys, all_codes, all_times)[1] for m in (before, after_mod)
    )
    assert np.array_equal(ub, ua, equal_nan=True)
    check = [classes["after"].batch_apply(c, t).average_closed_size() for c, t in per_key[:200]]
    want = [classes["before"].batch_apply(c, t).average_closed_size() for c, t in per_key[:200]]
    assert check == want, "before and after disagree"
    print(f"\n(medians of {a.repeats} rounds, bulk load {bulk_repeats}; checked equal)")


if __name__ == "__main__":
    main()
