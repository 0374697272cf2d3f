# expect: 19:17 order
# expect: 20:17 order
"""The clickstream algorithm written with flags and counters instead of a
state: the "inside an interval" flag and the reset of the click counter are
order-dependent updates in an unordered loop. Each local is reported once,
at its first such assignment; the `+=` updates alone would be reductions."""

from looplift import RowStream, dataflow, group_by


@dataflow(columns=("user_id", "avg_clicks"))
def clickstream(clicks: RowStream[int, int, int]):
    for uid, user_clicks in group_by(0, clicks):
        inside = False
        clicks_in_path = 0
        paths = 0
        for _uid, category, _ts in user_clicks:
            if category == 0:
                inside = True
                clicks_in_path = 0
            elif category == 1 and inside:
                paths += 1
                inside = False
            else:
                clicks_in_path += 1
        yield uid, clicks_in_path / paths if paths > 0 else 0.0
