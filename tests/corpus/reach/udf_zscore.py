"""Per-group normalization (pandas grouped-map style): value minus group mean."""
from looplift import RowStream, dataflow, group_by


@dataflow(columns=("g", "id", "centered"))
def centered(rows: RowStream[int, int, float]):
    for k, grp in group_by(0, rows):
        total = 0.0
        n = 0
        for _k, _i, v in grp:
            total += v
            n += 1
        mean = total / n
        for _k, i, v in grp:
            yield k, i, v - mean
