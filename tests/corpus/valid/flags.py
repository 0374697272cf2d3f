"""Flags in unordered loops: a local set to one constant under a condition."""

from looplift import RowStream, dataflow, group_by


@dataflow(columns=("user_id", "bought", "label"))
def activity(events: RowStream[int, int, str]):
    for uid, g in group_by(0, events):
        bought = False
        label = "browser"
        for _u, amount, kind in g:
            if kind == "purchase":
                bought = True
            if amount > 100:
                label = "big spender"
        yield uid, bought, label


@dataflow
def any_negative(xs: RowStream[int]) -> bool:
    seen = False
    for (x,) in xs:
        if x < 0:
            seen = True
    return seen


EXAMPLES = {
    "activity": [([(1, 5, "view"), (1, 150, "purchase"), (2, 3, "view")],)],
    "any_negative": [([(1,), (-2,)],), ([(3,)],)],
}
