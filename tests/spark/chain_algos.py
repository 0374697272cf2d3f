"""Action codes of ``if``/``elif``/``else`` chains (issue 27; ``test_action_chain.py``):
the compiled map part is ``CASE WHEN c0 THEN 0 WHEN c1 THEN 1 ELSE 2 END``; an Optional
field compared with ``==`` is False for None in Python, so None takes the ``else``.

>>> per_user([(1, 0, 10), (1, None, 11), (1, 1, 12)])
[(1, 1.0)]
"""

from looplift import RowStream, dataflow, group_by
from looplift.states import IntervalSequence


@dataflow(columns=("user", "avg"))
def per_user(clicks: RowStream[int, int | None, int]):
    for uid, g in group_by(0, clicks):
        seq = IntervalSequence()
        for _u, category, ts in g:
            if category == 0:
                seq.open(ts)
            elif category == 1:
                seq.close(ts)
            else:
                seq.insert(ts)
        yield uid, seq.average_closed_size()


@dataflow
def four_way(clicks: RowStream[int, int]) -> list:
    """Four branches, the last an ``else``; the sizes of the closed intervals."""
    seq = IntervalSequence()
    for category, ts in clicks:
        if category == 0:
            seq.open(ts)
        elif category == 1:
            seq.close(ts)
        elif category > 5:
            seq.insert(ts)
        else:
            seq.insert(ts + 1)
    return seq.closed_sizes()
