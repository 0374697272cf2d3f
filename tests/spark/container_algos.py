from looplift import RowStream, dataflow, group_by


@dataflow(columns=("u", "nk", "mx", "tot", "has3", "g7"))
def pages(rows: RowStream[int, int, int]):
    for u, g in group_by(0, rows):
        d = {}
        for _u, k, v in g:
            d[k] = d.get(k, 0) + v
        yield u, len(d), max(d.values()), sum(d.values()), 3 in d, d.get(7, -1)

@dataflow
def distinct_pages(rows: RowStream[int, int]) -> int:
    s = set()
    lst = []
    for u, p in rows:
        s.add(p)
        lst.append(u)
    return len(s) + sum(lst) + max(lst, default=0) + sorted(lst)[len(lst) // 2]


@dataflow(columns=("u", "k", "n"))
def per_key(rows: RowStream[int, int, int]):
    for u, g in group_by(0, rows):
        d = {}
        for _u, k, v in g:
            d[k] = d.get(k, 0) + v
        for k, n in sorted(d.items()):
            if n > 2:
                yield u, k, n
