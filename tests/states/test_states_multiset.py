"""Multiset-backed states: Min, Max, Distinct, Median, TopK."""

from __future__ import annotations

import statistics
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from looplift.states import Distinct, Max, Median, Min, MultisetState, TopK

SMALL_LISTS = st.lists(st.integers(-5, 5), max_size=25)


def fill(state, xs):
    for x in xs:
        state.add(x)
    return state


def test_min_max_follow_retractions():
    lo, hi = fill(Min(), [3, -2, 8, -2]), fill(Max(), [3, -2, 8, 8])
    assert (lo.value(), hi.value()) == (-2, 8)
    lo.add.undo(-2)
    hi.add.undo(8)
    assert (lo.value(), hi.value()) == (-2, 8)  # the duplicate is still there
    lo.add.undo(-2)
    hi.add.undo(8)
    assert (lo.value(), hi.value()) == (3, 3)
    for x in (3, 8):
        lo.add.undo(x)
    for x in (3, -2):
        hi.add.undo(x)
    assert lo.value() is None and hi.value() is None
    assert lo.counts == {} and hi.counts == {}


def test_empty_readers():
    assert Min().value() is None
    assert Max().value() is None
    assert Median().value() is None
    assert Distinct().count() == 0 and Distinct().values() == []
    assert TopK(3).values() == []


def test_distinct():
    d = fill(Distinct(), [4, 1, 4, -1, 1])
    assert d.count() == 3 and d.values() == [-1, 1, 4]
    d.add.undo(4)
    assert d.values() == [-1, 1, 4]
    d.add.undo(4)
    assert d.count() == 2 and d.values() == [-1, 1]


def test_median_by_hand():
    m = Median()
    m.add(7)
    assert m.value() == 7  # [7]
    m.add(1)
    assert m.value() == 4.0 and isinstance(m.value(), float)  # [1, 7] -> (1 + 7) / 2
    m.add(1)
    assert m.value() == 1  # [1, 1, 7]
    m.add(10)
    assert m.value() == 4.0  # [1, 1, 7, 10] -> (1 + 7) / 2
    m.add(10)
    assert m.value() == 7  # [1, 1, 7, 10, 10]
    m.add.undo(1)
    m.add.undo(1)
    assert m.value() == 10  # [7, 10, 10]
    m.add(-3)
    assert m.value() == 8.5  # [-3, 7, 10, 10] -> (7 + 10) / 2


def test_median_of_equal_middle_values_and_floats():
    assert fill(Median(), [2, 2, 2, 2]).value() == 2.0
    assert fill(Median(), [0.5, 1.5]).value() == 1.0
    assert fill(Median(), [-1, -2]).value() == -1.5


def test_topk_by_hand():
    t = fill(TopK(3), [5, 9, 5, 1, 7])
    assert t.values() == [9, 7, 5]
    t.add(9)
    assert t.values() == [9, 9, 7]  # duplicates kept
    t.add.undo(7)
    assert t.values() == [9, 9, 5]
    t.add.undo(9)
    t.add.undo(9)
    assert t.values() == [5, 5, 1]
    assert fill(TopK(5), [2, -1]).values() == [2, -1]  # fewer than k
    assert fill(TopK(0), [2, -1]).values() == []


@pytest.mark.parametrize("k", [-1, 1.5, "3", True])
def test_topk_rejects_bad_k(k):
    with pytest.raises(ValueError, match="k >= 0"):
        TopK(k)


@settings(deadline=None)
@given(SMALL_LISTS, st.data())
def test_readers_match_python(xs, data):
    undone = data.draw(st.lists(st.sampled_from(xs), unique_by=id) if xs else st.just([]))
    left = list((Counter(xs) - Counter(undone)).elements())
    k = data.draw(st.integers(0, 6))
    states = [Min(), Max(), Distinct(), Median(), TopK(k)]
    for s in states:
        fill(s, xs)
        for x in undone:
            s.add.undo(x)
    lo, hi, distinct, median, top = states
    assert lo.value() == (min(left) if left else None)
    assert hi.value() == (max(left) if left else None)
    assert distinct.values() == sorted(set(left)) and distinct.count() == len(set(left))
    assert median.value() == (statistics.median(left) if left else None)
    assert top.values() == sorted(left, reverse=True)[:k]


@pytest.mark.parametrize("cls", [Min, Max, Distinct, Median, MultisetState])
def test_undo_of_a_value_never_added_raises(cls):
    s = fill(cls(), [1, 2])
    with pytest.raises(ValueError, match=rf"{cls.__name__}\.add\.undo\(3\).*not in the state"):
        s.add.undo(3)
    s.add.undo(2)
    with pytest.raises(ValueError, match="already undone"):
        s.add.undo(2)
    assert s.counts == {1: 1}  # a failed undo changes nothing


def test_topk_undo_never_added_raises():
    with pytest.raises(ValueError, match=r"TopK\.add\.undo\('x'\)"):
        TopK(2).add.undo("x")


def test_strings_and_signed_apply():
    d = Distinct()
    for sign, x in [(1, "b"), (1, "a"), (1, "b"), (-1, "b"), (-1, "b")]:
        d.apply("add", sign, x)
    assert d.values() == ["a"]
