"""``looplift.windows`` on edge values: before the epoch (floor), window edges, microsecond
precision, ints beyond 64 bits, the errors (class and message), and against brute-force
definitions of the windows on generated values."""

from __future__ import annotations

import datetime as d

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from looplift import group_by, hop, session, session_windows, tumble
from looplift.windows import EPOCH, group_rows, session_starts

US = d.timedelta(microseconds=1)
MIN5 = d.timedelta(minutes=5)


def test_before_the_epoch_floors() -> None:
    assert tumble(d.datetime(1969, 12, 31, 23, 59, 59, 999_999), minutes=5) == d.datetime(1969, 12, 31, 23, 55)
    assert tumble(EPOCH - US, size=US) == EPOCH - US
    assert tumble(-1, size=10) == -10 and tumble(-10, size=10) == -10 and tumble(-11, size=10) == -20
    assert tumble(d.datetime(1, 1, 1), days=1) == d.datetime(1, 1, 1)


def test_edges_are_half_open() -> None:
    t = d.datetime(2024, 5, 1, 9, 5)
    assert tumble(t, minutes=5) == t
    assert tumble(t - US, minutes=5) == d.datetime(2024, 5, 1, 9, 0)
    assert hop(t, size=d.timedelta(minutes=10), slide=MIN5) == [t - MIN5, t]
    assert hop(10, size=10, slide=5) == [5, 10] and hop(9, size=10, slide=5) == [0, 5]


def test_microseconds_and_keyword_durations() -> None:
    t = d.datetime(2024, 5, 1, 9, 7, 30, 123_457)
    assert tumble(t, milliseconds=1) == d.datetime(2024, 5, 1, 9, 7, 30, 123_000)
    assert tumble(t, microseconds=2) == d.datetime(2024, 5, 1, 9, 7, 30, 123_456)
    assert tumble(t, hours=1, minutes=30) == d.datetime(2024, 5, 1, 9, 0)  # 9:00 = 19116*24h
    assert tumble(t, weeks=1) == d.datetime(2024, 4, 25)  # the epoch was a Thursday
    assert tumble(t, size=d.timedelta(days=1), offset=d.timedelta(hours=6)) == d.datetime(2024, 5, 1, 6)


def test_aware_datetimes_are_utc() -> None:
    cet = d.timezone(d.timedelta(hours=1))
    assert tumble(d.datetime(2024, 1, 1, 0, 30, tzinfo=cet), hours=1) == d.datetime(2023, 12, 31, 23)


def test_big_ints() -> None:
    assert tumble(2**70 + 3, size=2**64) == 2**70
    assert tumble(-(2**63), size=10) == -(2**63) - 2
    assert hop(2**64, size=3, slide=2) == [2**64 - 2, 2**64]


def test_sizes_not_dividing_slide() -> None:
    assert hop(-3, size=2, slide=5) == [] and hop(-4, size=2, slide=5) == [-5]
    assert hop(-5, size=2, slide=5) == [-5]
    assert hop(0, size=7, slide=3) == [-6, -3, 0]


@pytest.mark.parametrize(("call", "cls", "message"), [
    (lambda: tumble(None, minutes=5), TypeError,
     "tumble() timestamp must be datetime.datetime or int, not NoneType"),
    (lambda: tumble(1.5, size=1), TypeError, "tumble() timestamp must be datetime.datetime or int, not float"),
    (lambda: tumble(True, size=1), TypeError, "tumble() timestamp must be datetime.datetime or int, not bool"),
    (lambda: tumble(5), TypeError, "tumble() needs size= for an int timestamp"),
    (lambda: tumble(5, minutes=1), TypeError,
     "tumble() durations must be int for an int timestamp, not timedelta"),
    (lambda: tumble(EPOCH, size=5), TypeError,
     "tumble() durations must be timedelta for a datetime timestamp, not int"),
    (lambda: tumble(EPOCH, size=MIN5, minutes=5), TypeError,
     "tumble() takes size= or keyword durations, not both"),
    (lambda: tumble(EPOCH), ValueError, "tumble() size must be positive"),
    (lambda: tumble(EPOCH, minutes=-5), ValueError, "tumble() size must be positive"),
    (lambda: tumble(5, size=0), ValueError, "tumble() size must be positive"),
    (lambda: tumble(d.datetime(1, 1, 1), days=7), OverflowError, "date value out of range"),
    (lambda: hop(None, size=MIN5, slide=MIN5), TypeError,
     "hop() timestamp must be datetime.datetime or int, not NoneType"),
    (lambda: hop(5, size=0, slide=1), ValueError, "hop() size must be positive"),
    (lambda: hop(5, size=1, slide=-1), ValueError, "hop() slide must be positive"),
    (lambda: hop(d.datetime(1, 1, 1), size=d.timedelta(days=2), slide=d.timedelta(days=1)),
     OverflowError, "date value out of range"),
    (lambda: session(None, gap=MIN5), TypeError,
     "session() timestamp must be datetime.datetime or int, not NoneType"),
    (lambda: session(EPOCH, gap=5), TypeError,
     "session() durations must be timedelta for a datetime timestamp, not int"),
    (lambda: session(5, gap=MIN5), TypeError,
     "session() durations must be int for an int timestamp, not timedelta"),
    (lambda: session(5, gap=0), ValueError, "session() gap must be positive"),
    (lambda: session(EPOCH, gap=-US), ValueError, "session() gap must be positive"),
    (lambda: group_rows([(session(1, gap=1), session(1, gap=1))]), ValueError,
     "a group key holds at most one session(...)"),
])  # fmt: skip
def test_errors(call, cls, message) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(cls) as e:
        call()
    assert type(e.value) is cls and str(e.value) == message


def test_sessions() -> None:
    assert session_windows([0, 3, 8, 20], gap=5) == [(0, 8), (8, 13), (20, 25)]
    assert session_starts([0, 3, 8, 20], gap=5) == [0, 0, 8, 20]  # 8 - 3 = 5: at the end
    assert session_windows([1, 1, 1], gap=1) == [(1, 2)]
    t = d.datetime(2024, 1, 1)
    assert session_windows([t, t + MIN5], gap=MIN5) == [(t, t + MIN5), (t + MIN5, t + 2 * MIN5)]



def test_session_keys() -> None:
    t = d.datetime(2024, 1, 1)
    cet = d.timezone(d.timedelta(hours=1))
    rows = [(1, t + MIN5), (2, t), (1, t), (1, t + 2 * MIN5 - US), (1, (t + MIN5).replace(tzinfo=cet))]
    got = {k: list(g) for k, g in group_by(lambda r: (r[0], session(r[1], gap=MIN5)), rows)}
    # t and t+5 are a gap apart: two sessions; the aware row is t-55 (UTC): a session alone
    assert got == {(1, t - 11 * MIN5): [rows[4]], (1, t): [rows[2]], (1, t + MIN5): [rows[0], rows[3]],
                   (2, t): [rows[1]]}  # fmt: skip
    assert list(group_rows([session(3, gap=2), session(3, gap=2), session(5, gap=2)])) == [3, 5]


@given(st.lists(st.tuples(st.integers(1, 3), st.integers(-30, 30)), max_size=20), st.integers(1, 6))
def test_session_keys_are_session_windows(rows: list[tuple[int, int]], gap: int) -> None:
    """Each row's group is the ``session_windows`` session of its user's times holding it."""
    got = group_rows([(u, session(t, gap=gap)) for u, t in rows])
    for j, (u, t) in enumerate(rows):
        wins = session_windows(sorted(s for v, s in rows if v == u), gap=gap)
        start = next(a for a, b in wins if a <= t < b)
        assert j in got[(u, start)]
    assert sorted(j for js in got.values() for j in js) == list(range(len(rows)))


ints = st.integers(-(2**65), 2**65)
steps = st.integers(1, 2**20) | st.integers(1, 2**66)


@given(ints, steps, ints)
def test_tumble_is_the_window_containing_ts(t: int, size: int, off: int) -> None:
    s = tumble(t, size=size, offset=off)
    assert s <= t < s + size and (s - off) % size == 0


@given(st.integers(-1000, 1000), st.integers(1, 40), st.integers(1, 40), st.integers(-50, 50))
def test_hop_is_every_window_containing_ts(t: int, size: int, slide: int, off: int) -> None:
    brute = [s for s in range(t - size - slide, t + 1) if (s - off) % slide == 0 and s <= t < s + size]
    assert hop(t, size=size, slide=slide, offset=off) == brute


@given(st.datetimes(min_value=d.datetime(1, 1, 2), max_value=d.datetime(9999, 12, 30)),
       st.integers(1, 10**12), st.integers(-(10**12), 10**12))  # fmt: skip
def test_datetimes_match_microsecond_ints(t: d.datetime, size: int, off: int) -> None:
    us = (t - EPOCH) // US
    want = EPOCH + tumble(us, size=size, offset=off) * US
    if want.year >= 1:
        assert tumble(t, size=size * US, offset=off * US) == want


@given(st.lists(st.integers(-50, 50)), st.integers(1, 10))
def test_session_starts_match_windows(ts: list[int], gap: int) -> None:
    ts.sort()
    wins = session_windows(ts, gap=gap)
    starts = session_starts(ts, gap=gap)
    assert [next(a for a, b in wins if a <= t < b) for t in ts] == starts


@settings(deadline=None)  # the first example imports the sample (slow on a loaded machine)
@given(st.lists(st.tuples(st.integers(1, 3), st.integers(-5000, 5000)), max_size=30))
def test_session_sample_matches_session_windows(rows: list[tuple[int, int]]) -> None:
    """``samples/windows.py``'s ordered loop gives the sessions of ``session_windows``."""
    from tests.test_samples_reference import sample

    m = sample("windows")
    clicks = [(u, EPOCH + d.timedelta(minutes=k)) for u, k in rows]
    want = []
    for u in sorted({u for u, _ in clicks}):
        times = sorted(t for v, t in clicks if v == u)
        for a, b in session_windows(times, gap=m.GAP):
            want.append((u, a, b, sum(1 for t in times if a <= t < b)))
    assert sorted(m.session_summary(clicks)) == sorted(want)
