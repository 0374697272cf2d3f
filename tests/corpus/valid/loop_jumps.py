"""`continue` and `break` in loop bodies, and `enumerate` of an ordered stream.

`continue` skips the rest of an iteration in any loop: over rows (a None or a
cancelled row), over groups (a group key to leave out) and over a container's
items. `break` stops a loop whose rows come in an order (`order_by=`,
`sorted_by`); `enumerate` numbers an ordered group's rows, from `start`. `return`
inside a top-level loop in an order returns from the algorithm (also when it is
called per group from another one, and as a bare `return` of a table algorithm)."""

from typing import Optional

from looplift import RowStream, dataflow, group_by, sorted_by


@dataflow(columns=("user", "total"))
def valid_total(rows: RowStream[int, Optional[float], str]):  # noqa: UP045
    for user, g in group_by(0, rows):
        if user < 0:
            continue
        total = 0.0
        for _u, amount, status in g:
            if amount is None:
                continue
            if status == "cancelled":
                continue
            total += amount
        yield user, total


@dataflow
def positive_sum(xs: RowStream[int]) -> int:
    s = 0
    for (x,) in xs:
        if x <= 0:
            continue
        s += x
    return s


@dataflow(columns=("user", "n_big"))
def frequent_big(rows: RowStream[int, str, int]):
    for user, g in group_by(0, rows):
        counts = {}
        for _u, cat, v in g:
            if v < 10:
                continue
            counts[cat] = counts.get(cat, 0) + 1
        n = 0
        for _cat, c in sorted(counts.items()):
            if c < 2:
                continue
            n += c
        yield user, n


@dataflow(columns=("user", "reached_at", "spent"))
def budget_reached(rows: RowStream[int, int, int], budget: int):
    for user, g in group_by(0, rows, order_by=1):
        spent = 0
        reached_at = None
        for _u, t, amount in g:
            spent += amount
            if spent >= budget:
                reached_at = t
                break
        yield user, reached_at, spent


@dataflow(columns=("t", "v", "rank", "first"))
def first_three(rows: RowStream[int, int]):
    first = True
    for i, (t, v) in enumerate(sorted_by(rows, 0), 1):
        if i > 3:
            break
        yield t, v, i, first
        first = False


@dataflow
def first_negative_at(rows: RowStream[int, int]) -> Optional[int]:  # noqa: UP045
    for t, v in sorted_by(rows, 0):
        if v < 0:
            return t
    return None


@dataflow(columns=("k", "t"))
def first_negative_per_key(rows: RowStream[int, int, int]):
    for k, g in group_by(0, rows):
        yield k, first_negative_at(g.project(1, 2))


@dataflow(columns=("t", "v"))
def until_zero(rows: RowStream[int, int]):
    for t, v in sorted_by(rows, (0, 1)):
        if v == 0:
            return
        yield t, v


EXAMPLES = {
    "valid_total": [
        ([(1, 2.5, "ok"), (1, None, "ok"), (1, 4.0, "cancelled"), (-1, 9.0, "ok"), (2, 1.0, "ok")],),
        ([],),
    ],
    "positive_sum": [([(3,), (-2,), (0,), (5,)],), ([],)],
    "frequent_big": [([(1, "a", 10), (1, "a", 12), (1, "b", 50), (1, "b", 3), (2, "c", 1)],)],
    "budget_reached": [
        ([(1, 3, 5), (1, 1, 4), (1, 2, 2), (2, 1, 1), (2, 2, 1)], 10),
        ([(1, 1, 20), (1, 2, 30)], 10),
    ],
    "first_three": [([(4, 40), (1, 10), (3, 30), (2, 20), (5, 50)],), ([(1, 1)],)],
    "first_negative_at": [([(3, -1), (1, 5), (2, -7)],), ([(1, 1)],)],
    "first_negative_per_key": [([(1, 3, -1), (1, 1, 5), (1, 2, -7), (2, 1, 4)],)],
    "until_zero": [([(3, 0), (1, 5), (2, 7), (4, 1)],), ([(1, 2)],)],
}

EXPECTED = {
    # user 1: 2.5 (None and cancelled skipped); user -1 skipped; user 2: 1.0
    "valid_total": [[(1, 2.5), (2, 1.0)], []],
    # 3 + 5; nothing
    "positive_sum": [8, 0],
    # user 1: a counted twice (10, 12), b once (50; 3 is < 10) -> a only: 2; user 2: none
    "frequent_big": [[(1, 2), (2, 0)]],
    # user 1 by time: 4, 2 (6), 5 (11 >= 10) at t=3; user 2: 1 + 1 = 2, never
    # second: 20 >= 10 at t=1, the row at t=2 is never added
    "budget_reached": [[(1, 3, 11), (2, None, 2)], [(1, 1, 20)]],
    # the three earliest, ranked from 1
    "first_three": [[(1, 10, 1, True), (2, 20, 2, False), (3, 30, 3, False)], [(1, 1, 1, True)]],
    # by t: 5, -7 at t=2 -> 2; no negative -> None
    "first_negative_at": [2, None],
    # key 1 as above: 2; key 2: none
    "first_negative_per_key": [[(1, 2), (2, None)]],
    # by t: 5, 7, then 0 at t=3 returns; nothing stops the second
    "until_zero": [[(1, 5), (2, 7)], [(1, 2)]],
}
