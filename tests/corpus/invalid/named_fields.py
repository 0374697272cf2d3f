# expect: 25:28 field
# expect: 26:28 field
# expect: 28:48 field
"""Named rows (issue 26): a field read, a key and an order naming no field of the row."""

from typing import NamedTuple

from looplift import RowStream, dataflow, group_by


class Click(NamedTuple):
    user_id: int
    page: int
    ts: int


@dataflow
def per_user(clicks: RowStream[Click]):
    for uid, g in group_by("user_id", clicks, order_by="ts"):
        n = 0
        for c in g:
            n += c.page
        yield uid, n
    for c in clicks:
        yield c.user_id, c.pages
    for uid, g in group_by("user", clicks):
        yield uid, 0
    for uid, g in group_by(0, clicks, order_by="time"):
        yield uid, 1
