"""Containers filled under a guard, in groups where no row passes it: the group still
yields, with its containers empty (a dict of counts, a set, a list), next to a counter
updated under the same guard; a container's truth value (`if counts`, `not seen`)."""

from looplift import RowStream, dataflow, group_by


@dataflow(columns=("user", "n", "cats", "big_total", "top"))
def guarded_fill(rows: RowStream[int, str, int]):
    for user, g in group_by(0, rows):
        n = 0
        counts = {}
        cats = set()
        big = []
        for _u, cat, v in g:
            if v >= 10:
                n += 1
                cats.add(cat)
                counts[cat] = counts.get(cat, 0) + 1
            elif v < 0:
                big.append(-v)
        top = max(counts.values()) if counts else 0
        yield user, n, len(cats), sum(big), top


@dataflow(columns=("user", "first", "kinds"))
def truthiness(rows: RowStream[int, str, int]):
    for user, g in group_by(0, rows):
        seen = set()
        amounts = []
        for _u, cat, v in g:
            if v > 0:
                seen.add(cat)
                amounts.append(v)
        kinds = 0
        if seen and len(seen) > 1:
            kinds = 2
        elif not seen:
            kinds = -1
        yield user, min(amounts) if amounts else None, kinds


EXAMPLES = {
    "guarded_fill": [
        ([(1, "a", 10), (1, "a", 12), (1, "b", 50), (1, "b", 3), (2, "c", 1), (3, "d", -4)],),
        ([(5, "x", 0)],),
    ],
    "truthiness": [([(1, "a", 3), (1, "b", 2), (2, "a", 0), (3, "c", 7), (3, "c", 9)],)],
}

EXPECTED = {
    # user 1: three rows >= 10 (a, a, b): n 3, cats {a, b}, big [] -> 0, top a: 2
    # user 2: no row passes either guard; user 3: -4 -> big [4]
    "guarded_fill": [[(1, 3, 2, 0, 2), (2, 0, 0, 0, 0), (3, 0, 0, 4, 0)], [(5, 0, 0, 0, 0)]],
    # user 1: {a, b}, min 2 -> kinds 2; user 2: nothing -> None, -1; user 3: {c} -> 7, 0
    "truthiness": [[(1, 2, 2), (2, None, -1), (3, 7, 0)]],
}
