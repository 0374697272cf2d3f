# expect: 32:13 argument
# expect: 33:13 append
# expect: 34:32 action
"""Misusing a user-defined state: its action used as a value, called with too
many arguments, and a plain list mutated next to it."""

from looplift import RowStream, State, action, dataflow, group_by


class Tally(State):
    def __init__(self):
        self.n = 0

    @action
    def bump(self, k):
        self.n += k

    def value(self):
        return self.n


def fresh_list():
    return []


@dataflow(columns=("user", "n", "flag"))
def tallies(rows: RowStream[int, int]):
    for user, g in group_by(0, rows):
        t = Tally()
        log = fresh_list()
        for _u, v in g:
            t.bump(v, 1)
            log.append(v)
        yield user, t.value(), t.bump(0)
