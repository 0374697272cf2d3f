"""Law 4 (``@merge``, issue 28 item 3): the library's mergeable states obey it, states
without a merge skip it, and check_laws catches broken merges.

The library states of tests/states/test_states_laws.py (Sum, Count, Average, Variance,
Min, Max, Distinct, Median, TopK, ...) are checked there: check_laws runs law 4 for every
state with a ``@merge``. Here: the containers, arg-max, a user-defined state, and merges
that must be caught.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import strategies as st
from looplift import State, action, merge
from looplift.state import merged
from looplift.states import (
    ArgBest,
    Average,
    Count,
    Distinct,
    IntervalSequence,
    LawViolation,
    Max,
    Median,
    Min,
    MultisetState,
    Sum,
    TopK,
    Variance,
    check_laws,
)
from looplift.states.containers import (
    Bag,
    InsertionDict,
    KeyedMax,
    KeyedMin,
    KeyedSums,
    Seq,
    ValueSet,
)

SMALL = st.integers(-4, 4)
EXAMPLES = int(os.environ.get("LOOPLIFT_LAW_EXAMPLES", "100"))


def acts(*names: str, values: st.SearchStrategy = SMALL, max_size: int = 10):
    return st.lists(st.tuples(st.sampled_from(names), st.tuples(values)), max_size=max_size)


DICT_KEYS = st.integers(0, 3)


def pairs(name: str, keys: st.SearchStrategy = DICT_KEYS, values=SMALL):
    return st.lists(st.tuples(st.just(name), st.tuples(keys, values)), max_size=10)


def test_library_states_declare_merge():
    for cls in (Sum, Count, Average, Variance, Min, Max, Distinct, Median, TopK, ArgBest,
                KeyedSums, KeyedMax, KeyedMin, Bag, ValueSet):  # fmt: skip
        assert cls.merger() is not None, cls.__name__
    # order-dependent containers and the interval state do not merge
    for cls in (Seq, InsertionDict, IntervalSequence):
        assert cls.merger() is None, cls.__name__
    assert "merge" not in Sum.readers() and "merge" not in TopK.readers()


CONTAINERS = [
    (KeyedSums, pairs("add"), ()),
    (KeyedSums, pairs("add", values=st.sampled_from([0.5, -1.25, 2.0])), ()),
    (KeyedMax, pairs("add"), ()),
    (KeyedMin, pairs("add", keys=st.sampled_from(["a", "b"])), ()),
    (Bag, acts("add"), ()),
    (ValueSet, acts("add", values=st.sampled_from(["x", "y", "z"])), ()),
    (TopK, acts("add"), (0,)),
    (Sum, acts("add", values=st.floats(-1e6, 1e6)), ()),
    (Variance, acts("add", values=st.floats(-100, 100)), ()),
]


@pytest.mark.parametrize(("cls", "strategy", "ctor_args"), CONTAINERS,
                         ids=[f"{c.__name__}{i}" for i, (c, _, _) in enumerate(CONTAINERS)])  # fmt: skip
def test_mergeable_state_obeys_laws(cls, strategy, ctor_args):
    check_laws(cls, strategy, ctor_args=ctor_args, max_examples=EXAMPLES, rel_tol=1e-6,
               abs_tol=1e-6)  # fmt: skip


@pytest.mark.parametrize("mode", ["gt", "ge", "lt", "le"])
def test_arg_best_obeys_laws(mode):
    # the compiler offers (key, the whole row, a value of the row): a row has one value
    offer = st.tuples(SMALL, st.integers(0, 3)).map(lambda kr: (kr[0], (kr[0], kr[1]), kr[1] * 10))
    offers = st.lists(st.tuples(st.just("offer"), offer), max_size=10)
    check_laws(ArgBest, offers, ctor_args=(None, None, mode), max_examples=EXAMPLES // 2)
    check_laws(ArgBest, offers, ctor_args=("none", 0, mode), max_examples=EXAMPLES // 4)


def test_merge_refuses_states_built_differently_and_other_classes():
    a, b = TopK(2), TopK(3)
    with pytest.raises(ValueError, match="built differently"):
        a.merge(b)
    with pytest.raises(TypeError, match="cannot merge a Max"):
        Min().merge(Max())
    s = Sum()
    with pytest.raises(ValueError, match="into itself"):
        s.merge(s)


def test_merged_combines_partials_like_one_state():
    parts = [TopK(2) for _ in range(3)]
    for i, p in enumerate(parts):
        for v in range(i, 10, 3):
            p.add(v)
    assert merged(parts, lambda: TopK(2)).values() == [9, 8]
    assert parts[0].values() == [9, 6]  # inputs unchanged
    with pytest.raises(TypeError, match="no @merge"):
        merged([], Seq)


# -- user-defined states ------------------------------------------------------------


class SpanState(State):
    """User-defined, mergeable: the width of the values seen (a multiset of them)."""

    def __init__(self):
        self.seen = {}

    @action
    def add(self, x):
        self.seen[x] = self.seen.get(x, 0) + 1

    @add.undo
    def add(self, x):
        self.seen[x] -= 1
        if not self.seen[x]:
            del self.seen[x]

    @merge
    def merge(self, other):
        for x, n in other.seen.items():
            self.seen[x] = self.seen.get(x, 0) + n

    def width(self):
        return max(self.seen) - min(self.seen) if self.seen else 0


def test_user_defined_merge_obeys_laws():
    check_laws(SpanState, acts("add"), max_examples=EXAMPLES)


class MaxOfMerge(MultisetState):
    """Broken: merge keeps only the larger maximum's multiset (not commutative in its
    counts, and loses values)."""

    @merge
    def merge(self, other):
        if other.counts and (not self.counts or max(other.counts) > max(self.counts)):
            self.counts = dict(other.counts)

    def total(self):
        return sum(k * n for k, n in self.counts.items())


class Replacing(Sum):
    """Broken: merge overwrites instead of adding (a fresh state on the right erases)."""

    @merge
    def merge(self, other):
        self.total = other.total


class Aliasing(MultisetState):
    """Broken: merge into an empty state shares the other's dict."""

    @merge
    def merge(self, other):
        if not self.counts:
            self.counts = other.counts
        else:
            for x, n in other.counts.items():
                self.counts[x] = self.counts.get(x, 0) + n

    def size(self):
        return sum(self.counts.values())


class Halving(Sum):
    """Broken in the last clause only: merge is commutative and associative with a fresh
    neutral state... of its own, but not the merge of the actions (it halves)."""

    @merge
    def merge(self, other):
        self.total = self.total + other.total - (other.total // 2 if other.total > 0 else 0)


@pytest.mark.parametrize("cls", [MaxOfMerge, Replacing, Aliasing, Halving])
def test_catches_broken_merges(cls):
    with pytest.raises(LawViolation, match=f"{cls.__name__} violates law 4"):
        check_laws(cls, acts("add"), max_examples=300)


def test_merge_law_on_demand():
    with pytest.raises(TypeError, match="no @merge method"):
        check_laws(Seq, st.lists(st.just(("append", (1,))), max_size=2), merge=True,
                   max_examples=5)  # fmt: skip
    check_laws(Replacing, acts("add"), merge=False, max_examples=20)  # laws 1-3 hold


def test_merge_needs_self_and_other():
    with pytest.raises(TypeError, match=r"\(self, other\)"):

        class Bad(State):
            @merge
            def merge(self):
                pass
