from looplift import RowStream, State, action, dataflow


class Keep(State):
    def __init__(self):
        self.items = {}

    @action
    def put(self, x):
        self.items[x] = True

    def size(self):
        return len(self.items)


@dataflow
def distinct_count(rows: RowStream[int]) -> int:
    k = Keep()
    for (x,) in rows:
        k.put(x)
    return k.size()
