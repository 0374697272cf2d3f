"""Every library state obeys the laws of SPEC §3, and check_laws catches broken states."""

from __future__ import annotations

import os

import pytest
from hypothesis import strategies as st
from looplift import State, action
from looplift.states import (
    Average,
    BitAnd,
    BitOr,
    BitXor,
    Count,
    Distinct,
    IntervalSequence,
    LawViolation,
    Max,
    Median,
    Min,
    MultisetState,
    Product,
    Sum,
    TopK,
    Variance,
    check_laws,
)

# Small ranges with negatives: duplicates and cancellations are common.
SMALL = st.integers(-4, 4)
# per library state; action lists of at most 12 small values: 200 draws cover their
# shapes (the broken states below, which must be caught, keep their own budgets)
LAW_EXAMPLES = int(os.environ.get("LOOPLIFT_LAW_EXAMPLES", "100"))


def acts(*names: str, values: st.SearchStrategy = SMALL, max_size: int = 12):
    """Lists of (action, (value,)) drawn from ``names``."""
    return st.lists(st.tuples(st.sampled_from(names), st.tuples(values)), max_size=max_size)


LIBRARY = [
    (Sum, acts("add"), ()),
    (Count, st.lists(st.just(("add", ())), max_size=12), ()),
    (Average, acts("add"), ()),
    (Variance, acts("add"), ()),
    (Min, acts("add"), ()),
    (Max, acts("add"), ()),
    (Distinct, acts("add"), ()),
    (Median, acts("add"), ()),
    (TopK, acts("add"), (3,)),
    (Product, acts("add", values=st.integers(-(2**40), 2**40)), ()),
    (IntervalSequence, acts("open", "close", "insert"), ()),
    # one type per state, as the compiler types them (0 and False are one dict key)
    *((cls, acts("add", values=values), ()) for cls in (BitOr, BitAnd, BitXor)
      for values in (st.integers(-(2**63), 2**63 - 1) | SMALL, st.booleans())),
]


@pytest.mark.parametrize(
    ("cls", "strategy", "ctor_args"), LIBRARY,
    ids=[f"{c.__name__}{i}" for i, (c, _, _) in enumerate(LIBRARY)]
)
def test_library_state_obeys_laws(cls, strategy, ctor_args):
    check_laws(cls, strategy, ctor_args=ctor_args, max_examples=LAW_EXAMPLES)


def test_topk_with_k_zero_and_one_obeys_laws():
    check_laws(TopK, acts("add"), ctor_args=(0,), max_examples=50)
    check_laws(TopK, acts("add"), ctor_args=(1,), max_examples=50)


def test_interval_sequence_with_float_timestamps_obeys_laws():
    times = st.sampled_from([-1.5, 0.0, 0.5, 1.0, 2.25])
    check_laws(IntervalSequence, acts("open", "close", "insert", values=times), max_examples=100)


# -- deliberately broken states ------------------------------------------------------


class Last(State):
    """Order-dependent: remembers the last value added."""

    def __init__(self):
        self.last = None
        self.n = 0

    @action
    def add(self, x):
        self.last = x
        self.n += 1

    @add.undo
    def add(self, x):
        self.n -= 1
        if self.n == 0:
            self.last = None

    def value(self):
        return self.last


class WrongUndo(State):
    """Order-independent, but the undo takes back twice what the action added."""

    def __init__(self):
        self.total = 0

    @action
    def add(self, x):
        self.total += x

    @add.undo
    def add(self, x):
        self.total -= 2 * x

    def value(self):
        return self.total


class SetMax(State):
    """A max over a *set*: undoing one of two equal values forgets both."""

    def __init__(self):
        self.values = set()

    @action
    def add(self, x):
        self.values.add(x)

    @add.undo
    def add(self, x):
        self.values.discard(x)

    def value(self):
        return max(self.values) if self.values else None


class StaleCache(MultisetState):
    """Caches its reader and forgets to invalidate the cache on undo."""

    def __init__(self):
        super().__init__()
        self._cache = None

    @action
    def add(self, x):
        self.counts[x] = self.counts.get(x, 0) + 1
        self._cache = None

    @add.undo
    def add(self, x):
        self.counts[x] -= 1
        if not self.counts[x]:
            del self.counts[x]

    def value(self):
        if self._cache is None:
            self._cache = sum(k * c for k, c in self.counts.items())
        return self._cache


class DirtyFresh(State):
    """Fresh states remember that they were ever touched."""

    def __init__(self):
        self.total = 0
        self.touched = False

    @action
    def add(self, x):
        self.total += x
        self.touched = True

    @add.undo
    def add(self, x):
        self.total -= x

    def value(self):
        return (self.total, self.touched)


def test_catches_order_dependence():
    with pytest.raises(LawViolation) as err:
        check_laws(Last, acts("add"), max_examples=500)
    assert isinstance(err.value, AssertionError)
    msg = str(err.value)
    assert "Last violates law 1 (order independence)" in msg
    # the shrunk counterexample: two different values, in both orders
    assert "add(" in msg and "reordered" not in msg


def test_catches_wrong_undo():
    with pytest.raises(LawViolation, match=r"WrongUndo violates law 2 \(undo\)") as err:
        check_laws(WrongUndo, acts("add"), max_examples=500)
    assert "add.undo(" in str(err.value)


def test_catches_undo_of_duplicates():
    with pytest.raises(LawViolation, match="SetMax violates law 2"):
        check_laws(SetMax, acts("add"), max_examples=500)


def test_catches_stale_cache_with_a_midway_read():
    with pytest.raises(LawViolation, match="StaleCache violates law 2"):
        check_laws(StaleCache, acts("add"), max_examples=500)


def test_catches_dirty_fresh_state():
    with pytest.raises(LawViolation, match="DirtyFresh violates law [23]"):
        check_laws(DirtyFresh, acts("add"), max_examples=500)


def test_an_action_that_raises_is_reported():
    class Fragile(State):
        def __init__(self):
            self.n = 0

        @action
        def add(self, x):
            if x == 3:
                raise RuntimeError("boom")
            self.n += 1

        def value(self):
            return self.n

    with pytest.raises(LawViolation, match=r"add\(3\) raised RuntimeError"):
        check_laws(Fragile, acts("add"), max_examples=200)


def test_unknown_action_in_strategy_is_a_type_error():
    with pytest.raises(TypeError, match="not an action of Sum"):
        check_laws(Sum, acts("push"), max_examples=10)


def test_malformed_strategy_is_a_type_error():
    with pytest.raises(TypeError, match="action_name, args_tuple"):
        check_laws(Sum, st.lists(st.just("add"), min_size=1), max_examples=10)


def test_readers_by_name_and_by_function():
    check_laws(Variance, acts("add"), readers=["sample"], max_examples=30)
    check_laws(TopK, acts("add"), ctor_args=(2,), readers={"top": TopK.values}, max_examples=30)
    with pytest.raises(TypeError, match="no reader 'mean'"):
        check_laws(Variance, acts("add"), readers=["mean"], max_examples=5)


def test_readers_restricted_to_an_order_independent_one_pass():
    # Last.n is order independent; observing only it, Last passes.
    check_laws(Last, acts("add"), readers={"n": lambda s: s.n}, max_examples=100)


def test_a_reader_that_raises_is_observed_as_its_exception():
    class Ratio(State):
        def __init__(self):
            self.n = 0
            self.s = 0

        @action
        def add(self, x):
            self.n += 1
            self.s += x

        def value(self):
            return self.s / self.n  # ZeroDivisionError when empty, consistently

    check_laws(Ratio, acts("add"), max_examples=100)
