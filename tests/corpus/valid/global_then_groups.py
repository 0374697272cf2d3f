"""A global aggregate computed in a first loop and read inside a later
group_by loop (joined to every group)."""

from looplift import RowStream, dataflow, group_by
from looplift.states import Average


@dataflow(columns=("team", "points", "above_average"))
def above_average(scores: RowStream[str, int]):
    total = 0
    n = 0
    for _team, pts in scores:
        total += pts
        n += 1
    league_mean = total / n if n > 0 else 0.0
    for team, g in group_by(0, scores):
        t_total = 0
        t_n = 0
        for _team, pts in g:
            t_total += pts
            t_n += 1
        yield team, t_total, t_total / t_n > league_mean


@dataflow(columns=("team", "diff"))
def against_league(scores: RowStream[str, int]):
    league = Average()
    for _team, pts in scores:
        league.add(pts)
    for team, g in group_by(0, scores):
        mine = Average()
        for _team, pts in g:
            mine.add(pts)
        yield team, mine.value() - league.value()


SCORES = [("x", 10), ("y", 4), ("x", 6), ("z", 8)]

EXAMPLES = {
    "above_average": [(SCORES,), ([],)],
    "against_league": [(SCORES,)],
}

EXPECTED = {
    # league mean 28 / 4 = 7; x averages 8, y 4, z 8
    "above_average": [[("x", 16, True), ("y", 4, False), ("z", 8, True)], []],
    "against_league": [[("x", 1.0), ("y", -3.0), ("z", 1.0)]],
}
