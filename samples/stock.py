"""Stock levels that never go negative: a running total that resets at 0.

Each movement is ``(item, ts, qty)``: a delivery (``qty > 0``) or a pick
(``qty < 0``). A pick larger than the stock takes what is there and the rest
is back-ordered, so the level stays at 0 rather than going negative:
``level = max(0.0, level + qty)``, a running sum that depends on the order of
the rows (``group_by(0, moves, order_by=1)``). Every movement is listed with
the level after it and the quantity that could not be picked.

>>> stock_levels([("nut", 1, 5.0), ("nut", 2, -7.5), ("nut", 3, 2.0), ("bolt", 1, -1.0)])
[('nut', 1, 5.0, 0.0), ('nut', 2, 0.0, 2.5), ('nut', 3, 2.0, 0.0), ('bolt', 1, 0.0, 1.0)]
"""

from looplift import RowStream, dataflow, group_by


@dataflow(columns=("item", "ts", "level", "short"))
def stock_levels(moves: RowStream[str, int, float]):
    """Per item and movement: the stock level after it and the quantity back-ordered."""
    for item, item_moves in group_by(0, moves, order_by=1):
        level = 0.0
        for _item, ts, qty in item_moves:
            short = 0.0
            if level + qty < 0:
                short = -(level + qty)
            level = max(0.0, level + qty)
            yield item, ts, level, short
