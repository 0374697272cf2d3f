"""Flink's Top2 table aggregate as a state without undo."""
from looplift import RowStream, State, action, dataflow, group_by


class Top2(State):
    def __init__(self):
        self.first = None
        self.second = None

    @action
    def add(self, v):
        if self.first is None or v > self.first:
            self.second = self.first
            self.first = v
        elif self.second is None or v > self.second:
            self.second = v

    def value(self):
        return self.first, self.second


@dataflow(columns=("key", "first", "second"))
def top2(rows: RowStream[int, int]):
    for k, g in group_by(0, rows):
        t = Top2()
        for _k, v in g:
            t.add(v)
        first, second = t.value()
        yield k, first, second
