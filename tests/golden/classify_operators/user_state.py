from looplift import RowStream, State, action, dataflow


class Spread(State):
    """Sum of positive and of negative values (additive, undo derived)."""

    def __init__(self):
        self.pos = 0
        self.neg = 0

    @action
    def add_pos(self, x):
        self.pos += x

    @action
    def add_neg(self, x):
        self.neg -= x

    def value(self):
        return self.pos - self.neg


class Last(State):
    """Keeps a bag of values (explicit undo)."""

    def __init__(self):
        self.bag = {}

    @action
    def add(self, x):
        self.bag[x] = self.bag.get(x, 0) + 1

    @add.undo
    def add(self, x):
        self.bag[x] -= 1

    def size(self):
        return sum(self.bag.values())


@dataflow
def spread(rows: RowStream[int]) -> tuple:
    s = Spread()
    b = Last()
    for (x,) in rows:
        if x >= 0:
            s.add_pos(x)
        else:
            s.add_neg(x)
        b.add(x)
    return s.value(), b.size()
