"""States created outside any loop (global to the call) and fed from inside a
group_by loop and its nested row loop; reductions over groups."""

from looplift import RowStream, dataflow, group_by
from looplift.states import Distinct, Sum


@dataflow
def global_over_groups(rows: RowStream[str, int, int]) -> tuple[int, int, int]:
    users = Distinct()
    total = Sum()
    groups = 0
    for _shop, g in group_by(0, rows):
        groups += 1
        for _s, user, amount in g:
            users.add(user)
            total.add(amount)
    return groups, users.count(), total.value()


@dataflow
def best_group_share(rows: RowStream[str, int, int]) -> float:
    everything = Sum()
    best = 0
    for _shop, g in group_by(0, rows):
        shop_total = 0
        for _s, _u, amount in g:
            shop_total += amount
            everything.add(amount)
        best = max(best, shop_total)
    return best / everything.value() if everything.value() != 0 else 0.0


ROWS = [("a", 1, 10), ("b", 1, 5), ("a", 2, 1)]

EXAMPLES = {
    "global_over_groups": [(ROWS,), ([],)],
    "best_group_share": [(ROWS,), ([],)],
}

EXPECTED = {
    # shops a, b; users 1, 2; 10 + 5 + 1
    "global_over_groups": [(2, 2, 16), (0, 0, 0)],
    # shop a has 11 of 16
    "best_group_share": [0.6875, 0.0],
}
