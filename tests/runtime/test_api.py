"""The runtime API as users call it on plain Python data (SPEC §2, §3, §5)."""

from __future__ import annotations

import pytest
from looplift import Rows, RowStream, State, action, dataflow, group_by, sorted_by
from looplift.api import Dataflow

from tests.helpers import SAMPLES, import_path


def test_spec_clickstream_reference_call() -> None:
    mod = import_path(SAMPLES / "clickstream.py")
    assert mod.clickstream([(1, 0, 10), (1, 5, 11), (1, 1, 12)]) == [(1, 1.0)]
    # an aggregate returns its value; no closed interval gives None
    assert mod.avg_path([(0, 10), (5, 11), (1, 12)]) == 1.0
    assert mod.avg_path([(0, 10), (5, 11)]) is None
    assert mod.clickstream.columns == ("user_id", "avg_clicks")


def test_decorator_forms_and_table_results() -> None:
    @dataflow
    def double(x: int) -> int:
        return x * 2

    @dataflow(columns=("k", "n"))
    def counts(rows: RowStream[int, int]):
        for k, g in group_by(0, rows):
            n = 0
            for _a, _b in g:
                n += 1
            yield k, n

    @dataflow
    def singles(rows: RowStream[int]):
        for (x,) in rows:
            yield x

    assert isinstance(double, Dataflow) and double(21) == 42
    assert sorted(counts([(1, 2), (2, 3), (1, 4)])) == [(1, 2), (2, 1)]
    assert counts([]) == []
    assert singles([(1,), (2,)]) == [(1,), (2,)]  # a bare yield is a one-field row
    assert counts(iter([(5, 5)])) == [(5, 1)]  # any iterable of tuples binds


def test_group_by_keys_and_order() -> None:
    rows = Rows([(1, "b", 3), (2, "a", 1), (1, "a", 2), (1, None, 0)])
    groups = dict(group_by((0, 1), rows))
    assert set(groups) == {(1, "b"), (2, "a"), (1, "a"), (1, None)}
    ordered = {k: list(g) for k, g in group_by(0, rows, order_by=2)}
    assert ordered[1] == [(1, None, 0), (1, "a", 2), (1, "b", 3)]
    # ties broken by the remaining fields, None first
    tied = Rows([(1, "b", 5), (1, None, 5), (1, "a", 5)])
    assert [r[1] for _, g in group_by(0, tied, order_by=2) for r in g] == [None, "a", "b"]
    assert list(rows.project(2, 0))[:2] == [(0, 1), (1, 2)]  # iterated in canonical order
    assert list(sorted_by(rows, -2))[:2] == [(1, "b", 3), (1, "a", 2)]
    assert [r[2] for _, g in group_by((), rows, order_by=(0, -2)) for r in g] == [3, 2, 0, 1]
    assert [r[2] for r in sorted_by(rows, 1, desc=True)] == [3, 2, 1, 0]  # None last descending


class Tally(State):
    def __init__(self):
        self.n = 0
        self.total = 0

    @action
    def add(self, x):
        self.n += 1
        self.total += x

    def mean(self):
        return self.total / self.n if self.n else None


class Bag(State):
    def __init__(self):
        self.items = {}

    @action
    def put(self, x):
        self.items[x] = self.items.get(x, 0) + 1

    @put.undo
    def put(self, x):
        self.items[x] -= 1
        if not self.items[x]:
            del self.items[x]

    @action
    def touch(self, x):
        self.items.setdefault(x, 0)

    def size(self):
        return sum(self.items.values())


def test_state_actions_readers_and_undo() -> None:
    t = Tally()
    t.add(4)
    t.add(6)
    t.add.undo(4)  # derived from the additive body
    assert (t.n, t.total, t.mean()) == (1, 6, 6.0)
    t.apply("add", -1, 6)
    assert t.mean() is None
    assert set(Tally.actions()) == {"add"} and set(Tally.readers()) == {"mean"}

    b = Bag()
    b.put(1)
    b.put(1)
    b.put.undo(1)
    assert b.size() == 1
    with pytest.raises(TypeError, match="has no undo"):
        b.touch.undo(3)


def test_undo_must_name_its_action() -> None:
    with pytest.raises(TypeError, match="must decorate a method named"):

        class Wrong(State):
            @action
            def add(self, x):
                pass

            @add.undo
            def remove(self, x):
                pass
