"""Several loops over one group: over the rows, over a projection of them, and
over a nested group_by whose per-group result feeds a conditional count."""

from looplift import RowStream, dataflow, group_by


@dataflow(columns=("user", "visits", "seconds", "repeat_pages"))
def user_pages(visits: RowStream[int, str, int]):
    for user, g in group_by(0, visits):
        n = 0
        for _u, _p, _s in g:
            n += 1
        seconds = 0
        for (s,) in g.project(2):
            seconds += s
        repeat = 0
        for _page, pg in group_by(1, g):
            k = 0
            for _u, _p, _s in pg:
                k += 1
            if k > 1:
                repeat += 1
        yield user, n, seconds, repeat


EXAMPLES = {
    "user_pages": [([(1, "a", 10), (1, "b", 5), (1, "a", 7), (2, "c", 1)],)],
}

EXPECTED = {
    # user 1: 3 visits, 22 s, page a seen twice; user 2: 1, 1, 0
    "user_pages": [[(1, 3, 22, 1), (2, 1, 1, 0)]],
}
