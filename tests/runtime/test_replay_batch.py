"""Batch mode of signed replay (a bulk load's fresh keys): library states' actions are
collected and applied with their vectorized ``batch_apply``. The result must equal the
plain replay and the plain call, also when the code reads a state inside its loop."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from looplift.delta import replay
from looplift.states import IntervalSequence, Median


def _median_each_row(rows):  # reads the state inside the loop: it must see every action
    m = Median()
    seen = []
    for (x,) in rows:
        m.add(x)
        seen.append(m.value())
    return seen, m.value()


def _clicks(rows):
    seq = IntervalSequence()
    for page, ts in rows:
        if page == 0:
            seq.open(ts)
        elif page == 1:
            seq.close(ts)
        else:
            seq.insert(ts)
    return seq.closed_intervals(), seq.average_closed_size()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(-5, 5)), min_size=1, max_size=30))
def test_reader_inside_the_loop_sees_every_action(rows):
    want = _median_each_row(rows)
    states, got = replay(_median_each_row, rows, [1] * len(rows), [], [], 0, batch=True)
    assert got == want
    assert states[0].value() == want[1]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 40)), max_size=60))
def test_batched_replay_equals_plain(rows):
    plain_states, plain = replay(_clicks, rows, [1] * len(rows), [], [], 0)
    states, got = replay(_clicks, rows, [1] * len(rows), [], [], 0, batch=True)
    assert got == plain == _clicks(rows)
    assert states[0].closed_intervals() == plain_states[0].closed_intervals()
