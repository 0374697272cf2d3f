"""A user-defined additive state (every action only does `self.f += e`), so no
undo is written; two actions, readers that are expressions over the fields."""

from looplift import RowStream, State, action, dataflow, group_by


class Moments(State):
    def __init__(self):
        self.n = 0
        self.s = 0.0
        self.ss = 0.0

    @action
    def add(self, x):
        self.n += 1
        self.s += x
        self.ss += x * x

    @action
    def add_weighted(self, x, w):
        self.n += w
        self.s += x * w
        self.ss += x * x * w

    def count(self):
        return self.n

    def mean(self):
        return self.s / self.n if self.n else 0.0

    def variance(self):
        return self.ss / self.n - (self.s / self.n) ** 2 if self.n else 0.0


@dataflow
def moments(xs: RowStream[float]) -> tuple[int, float, float]:
    m = Moments()
    for (x,) in xs:
        m.add(x)
    return m.count(), m.mean(), m.variance()


@dataflow(columns=("k", "mean", "variance"))
def weighted(rows: RowStream[str, float, int]):
    for k, g in group_by(0, rows):
        m = Moments()
        for _k, x, w in g:
            m.add_weighted(x, w)
        yield k, m.mean(), m.variance()


EXAMPLES = {
    "moments": [([(1.0,), (3.0,)],), ([],)],
    "weighted": [([("a", 1.0, 1), ("a", 4.0, 2), ("b", 2.0, 3)],)],
}

EXPECTED = {
    # mean 2, variance (1 + 9) / 2 - 4 = 1
    "moments": [(2, 2.0, 1.0), (0, 0.0, 0.0)],
    # a: n 3, s 1 + 8 = 9, ss 1 + 32 = 33 -> mean 3, variance 11 - 9 = 2; b: 2.0, 12/3 - 4 = 0
    "weighted": [[("a", 3.0, 2.0), ("b", 2.0, 0.0)]],
}
