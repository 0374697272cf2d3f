"""IntervalSequence's maintained structures equal the from-scratch readers after every step.

Random sequences of actions, undos (some of events that are not in the state), small
signed batches and pickle round-trips, on ints, floats, ints mixed with floats and
datetimes with many ties. After every step each reader is compared with the old
from-scratch oracle ``closed_intervals(opens, closes, inserts)`` run on a model
multiset kept by the test.
"""

from __future__ import annotations

import pickle
from collections import Counter
from datetime import datetime, timedelta

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from looplift.states import IntervalSequence, interval
from looplift.states.interval import closed_intervals

KINDS = ("open", "close", "insert")
T0 = datetime(2024, 3, 1, 12)
TIMES = {
    "int": [-3, -1, 0, 1, 2, 4, 5],
    "float": [-1.5, 0.0, 0.25, 1.0, 2.5],
    "mixed": [0, 0.5, 1, 1.0, 2, 2.5, 3],  # 1 and 1.0 are one timestamp
    "datetime": [T0 + timedelta(seconds=s) for s in (0, 1, 1.5, 3, 60)],
}

ACT = st.tuples(
    st.just("act"), st.sampled_from(KINDS), st.sampled_from([1, 1, -1]), st.integers(0, 6)
)
PICKLE = st.tuples(st.just("pickle"), st.integers(0, 4))  # 0: the highest protocol
BATCH = st.tuples(
    st.just("batch"),
    st.lists(
        st.tuples(st.integers(0, 2), st.sampled_from([1, 1, -1]), st.integers(0, 6)), max_size=5
    ),
    st.sampled_from([0, interval._REBUILD_RATIO, 10**9]),  # never/default/always re-sort
)
# mostly single actions and undos, now and then a pickle round-trip or a small batch
STEP = st.integers(0, 9).flatmap(lambda i: ACT if i < 8 else PICKLE if i == 8 else BATCH)
STEPS = st.lists(STEP, min_size=8, max_size=60)


def expect_same(state: IntervalSequence, model: dict[str, Counter]) -> None:
    assert state.opens == model["open"]
    assert state.closes == model["close"]
    assert state.inserts == model["insert"]
    want = closed_intervals(dict(model["open"]), dict(model["close"]), dict(model["insert"]))
    assert want == closed_intervals(
        dict(model["open"]), dict(model["close"]), dict(model["insert"]), use_numpy=False
    )
    assert state.closed_intervals() == want
    assert state.closed_sizes() == [n for _, _, n in want]
    avg = state.average_closed_size()
    if want:
        assert avg == sum(n for _, _, n in want) / len(want)
    else:
        assert avg is None


def readings(state: IntervalSequence) -> tuple:
    return (
        dict(state.opens),
        dict(state.closes),
        dict(state.inserts),
        state.closed_intervals(),
        state.average_closed_size(),
    )


@settings(deadline=None, max_examples=400)
@given(st.sampled_from(sorted(TIMES)), STEPS)
def test_every_step_matches_the_from_scratch_readers(kind, steps):
    times = TIMES[kind]
    state = IntervalSequence()
    model = {k: Counter() for k in KINDS}
    for step in steps:
        if step[0] == "act":
            _, name, sign, i = step
            t = times[i % len(times)]
            if sign < 0 and model[name][t] == 0:
                before = readings(state)
                with pytest.raises(ValueError, match=rf"IntervalSequence\.{name}\.undo"):
                    getattr(state, name).undo(t)
                assert readings(state) == before  # unchanged
            else:
                getattr(state, name).apply(sign, t)
                model[name][t] += sign
                model[name] = +model[name]  # drop zeros, as the state does
        elif step[0] == "pickle":
            protocol = step[1] or pickle.HIGHEST_PROTOCOL
            state = pickle.loads(pickle.dumps(state, protocol=protocol))
        else:
            rows = [(c, s, times[i % len(times)]) for c, s, i in step[1]]
            net = Counter()
            for c, s, t in rows:
                net[(KINDS[c], t)] += s
            valid = all(model[name][t] + k >= 0 for (name, t), k in net.items())
            codes, signs, args = [r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows]
            ratio, interval._REBUILD_RATIO = interval._REBUILD_RATIO, step[2]
            try:
                if valid:
                    IntervalSequence.batch_apply(codes, args, signs, state=state)
                else:
                    before = readings(state)
                    with pytest.raises(ValueError, match=r"IntervalSequence\.\w+\.undo"):
                        IntervalSequence.batch_apply(codes, args, signs, state=state)
                    assert readings(state) == before
            finally:
                interval._REBUILD_RATIO = ratio
            if valid:
                for (name, t), k in net.items():
                    model[name][t] += k
                    model[name] = +model[name]
        expect_same(state, model)


@settings(deadline=None, max_examples=100)
@given(
    st.lists(st.tuples(st.integers(0, 2), st.integers(0, 60)), min_size=1, max_size=120),
    st.lists(
        st.tuples(st.integers(0, 2), st.sampled_from([1, -1]), st.integers(0, 60)), max_size=8
    ),
)
def test_numeric_bulk_build_then_small_batches(events, extra):
    # a fresh numeric batch is built with numpy; later small ones are applied event by event
    codes = np.array([c for c, _ in events], dtype=np.int64)
    args = np.array([t for _, t in events], dtype=np.int64)
    state = IntervalSequence.batch_apply(codes, args, np.ones(len(events), dtype=np.int64))
    model = {k: Counter() for k in KINDS}
    for c, t in events:
        model[KINDS[c]][t] += 1
    expect_same(state, model)
    for c, sign, t in extra:
        if sign < 0 and model[KINDS[c]][t] == 0:
            continue
        IntervalSequence.batch_apply([c], [t], [sign], state=state)
        model[KINDS[c]][t] += sign
        model[KINDS[c]] = +model[KINDS[c]]
        expect_same(state, model)
    again = pickle.loads(pickle.dumps(state))
    assert readings(again) == readings(state)


# A state pickled by the class before the maintained structures (three dicts in
# __dict__): open 1 twice, inserts 2, 2, 5, 7.5, close 4, open 6, close 9.
OLD_PICKLE = bytes.fromhex(
    "80059583000000000000008c186c6f6f706c6966742e7374617465732e696e74657276616c948c10"
    "496e74657276616c53657175656e63659493942981947d94288c056f70656e73947d94284b014b02"
    "4b064b01758c06636c6f736573947d94284b044b014b094b01758c07696e7365727473947d94284b"
    "024b024b054b0147401e0000000000004b017575622e"
)


def test_old_pickles_still_load():
    s = pickle.loads(OLD_PICKLE)
    assert s.opens == {1: 2, 6: 1} and s.inserts == {2: 2, 5: 1, 7.5: 1}
    assert s.closed_intervals() == [(1, 4, 2), (6, 9, 1)]
    assert s.average_closed_size() == 1.5
    s.open.undo(1)  # one copy of the open at 1 stays
    s.insert(3)
    s.close.undo(4)  # [1, 6) is no longer closed by 4, and 9 comes after the open at 6
    assert s.closed_intervals() == [(6, 9, 1)]
    s2 = pickle.loads(pickle.dumps(s))
    assert readings(s2) == readings(s)


def test_pickle_is_compact_and_keeps_repeats():
    s = IntervalSequence.batch_apply(
        np.array([0, 2, 2, 1] * 500), np.arange(2000) // 2 * 3, np.ones(2000, dtype=np.int64)
    )
    s.open(0)  # a repeated open
    new = pickle.dumps(s, protocol=4)
    old = pickle.dumps({"opens": s.opens, "closes": s.closes, "inserts": s.inserts}, protocol=4)
    assert len(new) < 1.5 * len(old)  # the closed intervals ride along
    back = pickle.loads(new)
    assert back.opens[0] == 2 and readings(back) == readings(s)


# a packed state (int64 timestamps, held as arrays) meets timestamps it cannot hold
PACKED_TIMES = [-(2**63), -3, 0, 1, 2, 5, 2**63 - 1, 2**64, 0.5, -1.5]


@settings(deadline=None, max_examples=200)
@given(
    st.lists(st.tuples(st.integers(0, 2), st.integers(0, 6)), min_size=1, max_size=40),
    st.lists(st.one_of(ACT, PICKLE), max_size=40),
)
def test_packed_state_steps_match_the_from_scratch_readers(events, steps):
    """A state built from an int64 batch is packed, pickles packed (narrowed to the
    smallest int type that holds it) and keeps packed under int64 actions; an action
    with any other timestamp (a float, an int beyond 64 bits) unpacks it first."""
    times = PACKED_TIMES
    codes = np.array([c for c, _ in events], dtype=np.int64)
    args = np.array([times[i % 7] for _, i in events], dtype=np.int64)  # (the int64 ones)
    state = IntervalSequence.batch_apply(codes, args)
    assert state._packed
    state = pickle.loads(pickle.dumps(state))
    assert state._packed
    model = {k: Counter() for k in KINDS}
    for c, t in zip(codes.tolist(), args.tolist(), strict=True):
        model[KINDS[c]][t] += 1
    expect_same(state, model)
    for step in steps:
        if step[0] == "pickle":
            protocol = step[1] or pickle.HIGHEST_PROTOCOL
            state = pickle.loads(pickle.dumps(state, protocol=protocol))
        else:
            _, name, sign, i = step
            t = times[(i + 3 * (sign < 0)) % len(times)]
            if sign < 0 and model[name][t] == 0:
                with pytest.raises(ValueError, match=rf"IntervalSequence\.{name}\.undo"):
                    getattr(state, name).undo(t)
            else:
                getattr(state, name).apply(sign, t)
                model[name][t] += sign
                model[name] = +model[name]
                if not isinstance(t, int) or not -(2**63) <= t < 2**63:
                    assert not state._packed
        expect_same(state, model)
        got, want = sorted(state.inserts, key=float), sorted(model["insert"], key=float)
        assert [type(t) for t in got] == [type(t) for t in want]


def test_packed_pickle_narrows_small_ints():
    s = IntervalSequence.batch_apply(
        np.array([0, 2, 2, 1] * 500), np.arange(2000) // 2 * 3, np.ones(2000, dtype=np.int64)
    )
    assert s._packed
    listed = pickle.loads(pickle.dumps(s))
    listed._unpack()  # (the same contents as lists: pickled as Python ints)
    assert len(pickle.dumps(s)) < len(pickle.dumps(listed))
    assert readings(pickle.loads(pickle.dumps(s))) == readings(listed)
