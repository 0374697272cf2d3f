"""The all-keys-at-once reader of IntervalSequence equals event-by-event states."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from looplift.states import IntervalSequence
from looplift.states.interval import grouped_average_closed_size

EVENTS = st.lists(
    st.tuples(st.integers(-2, 3), st.integers(0, 3), st.integers(-3, 8)), max_size=40
)


@settings(max_examples=500, deadline=None)
@given(EVENTS)
def test_grouped_average_equals_per_key_state(events) -> None:
    keys = np.array([e[0] for e in events], dtype=np.int64)
    codes = np.array([e[1] for e in events], dtype=np.int64)  # 3: a row without action
    times = np.array([e[2] for e in events], dtype=np.int64)
    ukeys, avg = grouped_average_closed_size(keys, codes, times)
    assert sorted(ukeys.tolist()) == sorted({e[0] for e in events})
    for key, got in zip(ukeys.tolist(), avg.tolist(), strict=True):
        state = IntervalSequence()
        for k, c, t in events:
            if k == key and c < 3:
                (state.open, state.close, state.insert)[c](t)
        want = state.average_closed_size()
        if want is None:
            assert math.isnan(got)
        else:
            assert math.isclose(got, want, rel_tol=1e-12)


def test_grouped_reader_is_offered_for_average_only() -> None:
    assert IntervalSequence.grouped_reader("average_closed_size") is grouped_average_closed_size
    assert IntervalSequence.grouped_reader("closed_sizes") is None
