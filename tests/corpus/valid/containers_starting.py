"""Containers that start with elements (issue 25): a dict of counts that starts with a
key (moved here from ``invalid/container_misuse.py``, where it was refused), a set that
starts with the home currency, a list that starts with a zero."""

from looplift import RowStream, dataflow


@dataflow
def nonempty_start(rows: RowStream[int]) -> int:
    d = {0: 1}
    for (v,) in rows:
        d[v] = d.get(v, 0) + 1
    return len(d) * 100 + d[0]


@dataflow
def currencies(rows: RowStream[str, float]) -> tuple:
    seen = {"EUR"}
    amounts = [0.0]
    for cur, amount in rows:
        seen.add(cur)
        amounts.append(amount)
    return len(seen), sum(amounts), len(amounts)


EXAMPLES = {
    "nonempty_start": [([(0,), (3,), (3,)],), ([],)],
    "currencies": [([("USD", 1.5), ("EUR", 2.0)],), ([],)],
}

EXPECTED = {
    # {0: 1} then 0 -> 2, 3 -> 2: two keys, d[0] = 2; no rows: one key, d[0] = 1
    "nonempty_start": [202, 101],
    # {"EUR", "USD"}; 0.0 + 1.5 + 2.0; three amounts; no rows: {"EUR"}, [0.0]
    "currencies": [(2, 3.5, 3), (1, 0.0, 1)],
}
