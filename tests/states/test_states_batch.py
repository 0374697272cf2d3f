"""batch_apply gives the same state as applying the actions one at a time."""

from __future__ import annotations

from array import array

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from looplift.states import (
    Average,
    Count,
    Distinct,
    IntervalSequence,
    Max,
    Median,
    Min,
    Product,
    Sum,
    TopK,
    Variance,
)

# (class, constructor args, the values an argument takes)
CASES = [
    (IntervalSequence, (), st.integers(-5, 5)),
    (Min, (), st.integers(-5, 5)),
    (Max, (), st.integers(-5, 5)),
    (Product, (), st.integers(-5, 5)),
    (Median, (), st.integers(-5, 5)),
    (Distinct, (), st.integers(-5, 5)),
    (TopK, (3,), st.integers(-5, 5)),
    (Median, (), st.sampled_from([-2.5, 0.0, 1.25, 3.0])),
    (Distinct, (), st.sampled_from(["a", "b", "c"])),
    (Max, (), st.sampled_from(["a", "b", "c"])),
    (IntervalSequence, (), st.integers(-(2**62), 2**62)),
    (Sum, (), st.integers(-5, 5)),
    (Average, (), st.integers(-5, 5)),
    (Variance, (), st.integers(-5, 5)),
    (Count, (), st.none()),
]
IDS = [f"{c.__name__}-{i}" for i, (c, _, _) in enumerate(CASES)]

#: how a state holds its contents, not what they are (IntervalSequence: int64 lists
#: packed as arrays, ``opens``/``closes`` of a loaded state made when first read)
_FORM = ("_packed", "_opens", "_closes", "_lo_rep", "_hi_rep")


def contents(state):
    """A state's contents, whatever form holds them."""
    out = {k: list(v) if isinstance(v, array) else v
           for k, v in vars(state).items() if k not in _FORM}  # fmt: skip
    if isinstance(state, IntervalSequence):
        out.update(opens=state.opens, closes=state.closes)
    return out


def signed_batch(cls, values):
    """A valid signed batch: actions, some undone later, interleaved in any order."""

    @st.composite
    def build(draw):
        n_codes = len(cls.codes())
        acts = draw(st.lists(st.tuples(st.integers(0, n_codes - 1), values), max_size=40))
        undone = draw(st.lists(st.booleans(), min_size=len(acts), max_size=len(acts)))
        tokens = [(i, 1) for i in range(len(acts))] + [(i, -1) for i, u in enumerate(undone) if u]
        order = draw(st.permutations(tokens))
        # an undo must come after its action in the one-at-a-time path
        seen, rows, pending = set(), [], {}
        for i, sign in order:
            if sign > 0:
                seen.add(i)
                rows.append((acts[i], 1))
                if i in pending:
                    rows.append(pending.pop(i))
            elif i in seen:
                rows.append((acts[i], -1))
            else:
                pending[i] = (acts[i], -1)
        codes = [c for (c, _), _ in rows]
        args = [a for (_, a), _ in rows]
        signs = [s for _, s in rows]
        return codes, args, signs

    return build()


def one_at_a_time(cls, ctor_args, codes, args, signs):
    state = cls(*ctor_args)
    names = cls.codes()
    for code, arg, sign in zip(codes, args, signs, strict=True):
        call = () if cls is Count else (arg,)
        state.apply(names[code], sign, *call)
    return state


def readings(state):
    return {name: getattr(state, name)() for name in type(state).readers()}


@pytest.mark.parametrize(("cls", "ctor_args", "values"), CASES, ids=IDS)
@settings(deadline=None, max_examples=60)
@given(data=st.data())
def test_batch_equals_one_at_a_time(cls, ctor_args, values, data):
    codes, args, signs = data.draw(signed_batch(cls, values))
    expected = one_at_a_time(cls, ctor_args, codes, args, signs)
    got = cls.batch_apply(codes, args, signs, ctor_args=ctor_args)
    assert contents(got) == contents(expected)
    assert readings(got) == readings(expected)
    # the order of the rows inside a batch does not matter, nor does its container
    rev = cls.batch_apply(codes[::-1], args[::-1], signs[::-1], ctor_args=ctor_args)
    assert readings(rev) == readings(expected)
    if args and all(type(a) is int for a in args):
        arr = cls.batch_apply(
            np.array(codes), np.array(args, dtype=np.int64), np.array(signs), ctor_args=ctor_args
        )
        assert readings(arr) == readings(expected)


@pytest.mark.parametrize(("cls", "ctor_args", "values"), CASES[:6], ids=IDS[:6])
@settings(deadline=None, max_examples=40)
@given(data=st.data())
def test_batches_compose(cls, ctor_args, values, data):
    codes, args, signs = data.draw(signed_batch(cls, values))
    cut = data.draw(st.integers(0, len(codes)))
    state = cls.batch_apply(codes[:cut], args[:cut], signs[:cut], ctor_args=ctor_args)
    same = cls.batch_apply(codes[cut:], args[cut:], signs[cut:], state=state)
    assert same is state
    expected = one_at_a_time(cls, ctor_args, codes, args, signs)
    assert readings(state) == readings(expected)


def test_interval_batch_by_hand():
    # open 10, insert 11 (twice, one deleted again), close 12, a deleted open at 11
    s = IntervalSequence.batch_apply(
        [0, 2, 2, 1, 2, 0, 0], [10, 11, 11, 12, 11, 11, 11], [1, 1, 1, 1, -1, 1, -1]
    )
    assert s.closed_sizes() == [1] and s.average_closed_size() == 1.0
    named = IntervalSequence.batch_apply(["open", "insert", "close"], [10, 11, 12])
    assert named.closed_sizes() == [1]


def test_batch_nets_a_delete_before_its_insert():
    # in a batch, a -1 row may come before its +1 row
    m = Max.batch_apply([0, 0, 0], [7, 7, 3], [-1, 1, 1])
    assert m.value() == 3 and m.counts == {3: 1}


def test_batch_rejects_net_negative_counts_and_leaves_state_unchanged():
    s = Median.batch_apply([0, 0], [1, 2], [1, 1])
    with pytest.raises(ValueError, match=r"Median\.add\.undo: cannot undo 5"):
        Median.batch_apply([0, 0, 0], [9, 1, 5], [1, -1, -1], state=s)
    assert s.counts == {1: 1, 2: 1}
    with pytest.raises(ValueError, match=r"IntervalSequence\.close\.undo"):
        IntervalSequence.batch_apply(np.array([0, 1]), np.array([1, 2]), np.array([1, -1]))


def test_batch_zero_signs_are_skipped_and_signs_default_to_plus():
    assert Min.batch_apply([0, 0], [1, -4], [1, 0]).value() == 1
    assert Min.batch_apply([0, 0], [1, -4]).value() == -4
    assert Sum.batch_apply([0, 0, 0], [1, 2, 4], [1, 0, -1]).value() == -3


def test_batch_bad_codes_and_lengths():
    with pytest.raises(ValueError, match="out of range"):
        IntervalSequence.batch_apply([3], [1])
    with pytest.raises(ValueError, match="out of range"):
        IntervalSequence.batch_apply(np.array([0, 5]), np.array([1, 2]))
    with pytest.raises(ValueError, match="no action 'push'"):
        Max.batch_apply(["push"], [1])
    with pytest.raises(ValueError, match="differ in length"):
        Max.batch_apply([0, 0], [1])


def test_generic_batch_for_additive_states():
    c = Count.batch_apply([0, 0, 0, 0], [None] * 4, [1, 1, -1, 1])
    assert c.value() == 2
    v = Variance.batch_apply([0] * 4, [1, 2, 3, 4])
    assert v.value() == 1.25
    assert TopK.batch_apply([0] * 4, [4, 8, 1, 8], ctor_args=(2,)).values() == [8, 8]


def test_large_numeric_batch():
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 3, 100_000)
    args = rng.integers(0, 20_000, 100_000)
    s = IntervalSequence.batch_apply(codes, args, np.ones(100_000, dtype=np.int64))
    expected = IntervalSequence()
    for c, a in zip(codes.tolist(), args.tolist(), strict=True):
        getattr(expected, IntervalSequence.codes()[c])(a)
    assert contents(s) == contents(expected)
    assert s.closed_intervals() == expected.closed_intervals()
