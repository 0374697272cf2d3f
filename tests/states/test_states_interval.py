"""IntervalSequence: hand-worked scenarios, a brute-force model, both reader paths."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from looplift import RowStream, dataflow, group_by
from looplift.states import IntervalSequence
from looplift.states.interval import closed_intervals

OPEN, CLOSE, INSERT = "open", "close", "insert"
KIND_ORDER = {OPEN: 0, CLOSE: 1, INSERT: 2}


def seq_of(events):
    s = IntervalSequence()
    for kind, t in events:
        getattr(s, kind)(t)
    return s


def walk_model(events):
    """SPEC §3 read literally: sort the events (open < close < insert at equal
    timestamps) and walk them once, duplicates as separate events."""
    current = None  # [lo, items] of the interval opened last and not closed yet
    out = []
    for kind, t in sorted(events, key=lambda e: (e[1], KIND_ORDER[e[0]])):
        if kind == OPEN:
            current = [t, 0]  # a new lower bound: the previous interval stays unclosed
        elif kind == CLOSE:
            if current is not None:
                out.append((current[0], t, current[1]))
                current = None  # later closes before the next open are ignored
        elif current is not None:
            current[1] += 1
    return out


# -- the SPEC example -----------------------------------------------------------------


@dataflow
def avg_path(clicks: RowStream[int, int]) -> float:
    seq = IntervalSequence()
    for category, ts in clicks:
        if category == 0:
            seq.open(ts)
        elif category == 1:
            seq.close(ts)
        else:
            seq.insert(ts)
    return seq.average_closed_size()


@dataflow(columns=("user_id", "avg_clicks"))
def clickstream(clicks: RowStream[int, int, int]):
    for uid, user_clicks in group_by(0, clicks):
        yield uid, avg_path(user_clicks.project(1, 2))


def test_spec_clickstream_example():
    # user 1: open at 10, insert at 11, close at 12 -> one closed interval of size 1
    assert clickstream([(1, 0, 10), (1, 5, 11), (1, 1, 12)]) == [(1, 1.0)]


def test_spec_clickstream_example_in_every_row_order():
    rows = [(1, 0, 10), (1, 5, 11), (1, 1, 12), (2, 0, 1), (2, 3, 2), (2, 3, 3), (2, 1, 4)]
    rng = random.Random(7)
    for _ in range(20):
        rng.shuffle(rows)
        assert sorted(clickstream(rows)) == [(1, 1.0), (2, 2.0)]


# -- hand-worked scenarios ------------------------------------------------------------


def test_empty_and_unclosed():
    s = IntervalSequence()
    assert s.closed_sizes() == [] and s.average_closed_size() is None
    # open 1, insert 2, insert 3: the interval [1, ...) is never closed
    s = seq_of([(OPEN, 1), (INSERT, 2), (INSERT, 3)])
    assert s.closed_sizes() == [] and s.average_closed_size() is None
    # close without any open: no lower bound, nothing closed
    s = seq_of([(INSERT, 1), (CLOSE, 2)])
    assert s.closed_sizes() == []


def test_two_intervals_and_items_outside():
    # insert 0 (before any open: nowhere)
    # open 1, insert 2, insert 2, insert 3, close 4  -> [1, 4) holds 2, 2, 3: size 3
    # insert 5 (after the close, before the next open: nowhere)
    # open 6, close 7                                -> [6, 7) holds nothing: size 0
    # insert 8, open 9, insert 10 (never closed)
    s = seq_of(
        [
            (INSERT, 0),
            (OPEN, 1),
            (INSERT, 2),
            (INSERT, 2),
            (INSERT, 3),
            (CLOSE, 4),
            (INSERT, 5),
            (OPEN, 6),
            (CLOSE, 7),
            (INSERT, 8),
            (OPEN, 9),
            (INSERT, 10),
        ]
    )
    assert s.closed_intervals() == [(1, 4, 3), (6, 7, 0)]
    assert s.closed_sizes() == [3, 0]
    assert s.average_closed_size() == 1.5


def test_equal_timestamps_order_open_close_insert():
    # insert 5 and open 5: the insert comes after the open, so it is inside [5, 8)
    # insert 8 and close 8: the insert comes after the close, so it is outside
    s = seq_of([(INSERT, 5), (OPEN, 5), (INSERT, 8), (CLOSE, 8)])
    assert s.closed_intervals() == [(5, 8, 1)]
    # open, close and insert all at 3: open < close < insert -> closed, empty
    s = seq_of([(INSERT, 3), (CLOSE, 3), (OPEN, 3)])
    assert s.closed_intervals() == [(3, 3, 0)]
    # open 1, insert 2, then open 4 and close 4: the close follows the open at 4,
    # so [1, 4) is unclosed and [4, 4) is the closed (empty) interval
    s = seq_of([(OPEN, 1), (INSERT, 2), (OPEN, 4), (CLOSE, 4)])
    assert s.closed_intervals() == [(4, 4, 0)]


def test_several_closes_after_one_open():
    # open 1, insert 2, close 3, insert 4, close 5: the first close (3) closes [1, 3);
    # the close at 5 has no open after [1, 3) closed and is ignored; insert 4 is outside
    s = seq_of([(OPEN, 1), (INSERT, 2), (CLOSE, 3), (INSERT, 4), (CLOSE, 5)])
    assert s.closed_intervals() == [(1, 3, 1)]
    # undoing the first close makes the second one the upper bound: [1, 5) holds 2, 4
    s.close.undo(3)
    assert s.closed_intervals() == [(1, 5, 2)]


def test_several_opens_before_one_close():
    # open 1, insert 2, open 3, insert 4, insert 4, close 6:
    # [1, 3) has no close before the open at 3 -> unclosed; [3, 6) holds 4, 4
    s = seq_of([(OPEN, 1), (INSERT, 2), (OPEN, 3), (INSERT, 4), (INSERT, 4), (CLOSE, 6)])
    assert s.closed_sizes() == [2]
    # deleting the open at 3 merges: [1, 6) holds 2, 4, 4
    s.open.undo(3)
    assert s.closed_sizes() == [3]
    assert s.average_closed_size() == 3.0


def test_a_late_open_splits_a_closed_interval():
    # open 0, insert 1..4, close 5: [0, 5) size 4
    s = seq_of([(OPEN, 0)] + [(INSERT, t) for t in range(1, 5)] + [(CLOSE, 5)])
    assert s.closed_sizes() == [4]
    # a late open at 3: [0, 3) is no longer closed, [3, 5) holds 3, 4
    s.open(3)
    assert s.closed_intervals() == [(3, 5, 2)]
    # a late close at 2: [0, 2) holds 1; [3, 5) unchanged
    s.close(2)
    assert s.closed_intervals() == [(0, 2, 1), (3, 5, 2)]
    assert s.average_closed_size() == 1.5


def test_duplicate_events():
    # two opens at 1 act as one; two closes at 4 act as one; two inserts at 2 count twice
    s = seq_of([(OPEN, 1), (OPEN, 1), (INSERT, 2), (INSERT, 2), (CLOSE, 4), (CLOSE, 4)])
    assert s.closed_intervals() == [(1, 4, 2)]
    # the bound stays until every copy is undone
    s.open.undo(1)
    s.close.undo(4)
    assert s.closed_intervals() == [(1, 4, 2)]
    s.insert.undo(2)
    assert s.closed_intervals() == [(1, 4, 1)]
    s.close.undo(4)
    assert s.closed_intervals() == []


def test_spec_example_in_every_arrival_order():
    events = [(OPEN, 10), (INSERT, 11), (CLOSE, 12)]
    for order in ([0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]):
        s = seq_of([events[i] for i in order])
        assert s.average_closed_size() == 1.0 and s.closed_sizes() == [1]


def test_datetimes():
    from datetime import datetime, timedelta

    t0 = datetime(2024, 1, 1)
    s = seq_of([(OPEN, t0), (INSERT, t0 + timedelta(seconds=1)), (CLOSE, t0 + timedelta(1))])
    assert s.closed_intervals() == [(t0, t0 + timedelta(1), 1)]


def test_undo_of_an_event_never_added_raises():
    s = seq_of([(OPEN, 1), (INSERT, 2)])
    with pytest.raises(ValueError, match=r"IntervalSequence\.close\.undo\(1\)"):
        s.close.undo(1)
    with pytest.raises(ValueError, match=r"IntervalSequence\.insert\.undo\(1\)"):
        s.insert.undo(1)  # an insert at 1 was never added, only an open
    s.open.undo(1)
    with pytest.raises(ValueError, match="already undone"):
        s.open.undo(1)


def test_sign_apply_and_action_codes():
    assert IntervalSequence.codes() == ("open", "close", "insert")
    s = IntervalSequence()
    for name, sign, t in [
        ("open", 1, 1),
        ("insert", 1, 2),
        ("insert", 1, 3),
        ("close", 1, 4),
        ("insert", -1, 3),
    ]:
        s.apply(name, sign, t)
    assert s.closed_sizes() == [1]


# -- model checks ---------------------------------------------------------------------

EVENTS = st.lists(
    st.tuples(st.sampled_from([OPEN, CLOSE, INSERT]), st.integers(-5, 5)), max_size=30
)


@settings(deadline=None, max_examples=300)
@given(EVENTS)
def test_matches_the_walk_model(events):
    s = seq_of(events)
    expected = walk_model(events)
    assert s.closed_intervals() == expected
    assert s.closed_sizes() == [n for _, _, n in expected]
    avg = s.average_closed_size()
    if expected:
        assert avg == sum(n for _, _, n in expected) / len(expected)
    else:
        assert avg is None


@settings(deadline=None, max_examples=300)
@given(EVENTS, EVENTS, st.randoms(use_true_random=False))
def test_deletions_match_the_model_of_what_remains(kept, deleted, rng):
    # apply kept + deleted in a random order, then delete `deleted` in a random order
    s = IntervalSequence()
    both = kept + deleted
    rng.shuffle(both)
    for kind, t in both:
        getattr(s, kind)(t)
    rng.shuffle(deleted)
    for kind, t in deleted:
        getattr(s, kind).undo(t)
    assert s.closed_intervals() == walk_model(kept)


TIMES = st.one_of(st.integers(-(2**40), 2**40), st.integers(-8, 8))


@settings(deadline=None, max_examples=300)
@given(st.lists(st.tuples(st.sampled_from([OPEN, CLOSE, INSERT]), TIMES), max_size=60))
def test_numpy_path_equals_python_path(events):
    s = seq_of(events)
    py = closed_intervals(s.opens, s.closes, s.inserts, use_numpy=False)
    np_ = closed_intervals(s.opens, s.closes, s.inserts, use_numpy=True)
    assert np_ == py == walk_model(events)


@settings(deadline=None, max_examples=100)
@given(
    st.lists(
        st.tuples(
            st.sampled_from([OPEN, CLOSE, INSERT]), st.sampled_from([-1.5, 0.0, 0.25, 2.0, 3.5])
        ),
        max_size=40,
    )
)
def test_numpy_path_equals_python_path_for_floats(events):
    s = seq_of(events)
    assert closed_intervals(s.opens, s.closes, s.inserts, use_numpy=True) == walk_model(events)


def test_numpy_path_falls_back_for_non_numbers():
    s = seq_of([(OPEN, "a"), (INSERT, "b"), (CLOSE, "c")])
    assert closed_intervals(s.opens, s.closes, s.inserts, use_numpy=True) == [("a", "c", 1)]
    # mixed ints and floats stay in Python (exact comparison of big ints)
    s = seq_of([(OPEN, 2**60), (INSERT, 2**60 + 1), (CLOSE, float(2**61))])
    assert closed_intervals(s.opens, s.closes, s.inserts, use_numpy=True) == [
        (2**60, float(2**61), 1)
    ]


def test_large_state_uses_the_fast_path_and_agrees():
    rng = random.Random(3)
    events = [
        (rng.choice([OPEN, CLOSE, INSERT, INSERT, INSERT]), rng.randrange(5000))
        for _ in range(20000)
    ]
    s = seq_of(events)
    expected = walk_model(events)
    assert len(s.opens) + len(s.closes) + len(s.inserts) > 256
    assert s.closed_intervals() == expected
    assert closed_intervals(s.opens, s.closes, s.inserts, use_numpy=False) == expected
