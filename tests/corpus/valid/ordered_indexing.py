"""Python written against a sorted list of a group's rows: `rows = sorted(g, key=...)`
then `for i in range(1, len(rows))` reading `rows[i]`, `rows[i - 1]` (a field of it, or the
whole row) and `rows[i - 2]`, with `continue`; `len(g)`; the first and last of a sorted
group; an average over a comprehension guarded by its truth value; a sorted set of
normalized labels joined into one string; `srt[-2][1]`, `srt[1][1]` of a sorted input; consecutive rows as
`zip(srt, srt[1:])` and `itertools.pairwise(srt)`."""

from itertools import pairwise
from typing import Optional

from looplift import RowStream, dataflow, group_by, sorted_by


@dataflow(columns=("k", "gaps", "rises", "turns"))
def gaps_and_turns(rows: RowStream[int, int, int]):
    for k, g in group_by(0, rows):
        srt = sorted(g, key=lambda r: (r[1], r[2]))
        gaps = 0
        rises = 0
        turns = 0
        for i in range(2, len(srt)):
            if srt[i][1] - srt[i - 1][1] > 5:
                gaps += 1
            prev = srt[i - 1]
            if srt[i][2] > prev[2]:
                rises += 1
            if srt[i - 2][2] == srt[i][2]:
                continue
            if (srt[i][2] - srt[i - 1][2]) * (srt[i - 1][2] - srt[i - 2][2]) < 0:
                turns += 1
        yield k, gaps, rises, turns


@dataflow(columns=("k", "n", "first_t", "last_t"))
def size_and_ends(rows: RowStream[int, int, int]):
    for k, g in group_by(0, rows):
        srt = sorted(g, key=lambda r: r[1])
        yield k, len(g), srt[0][1], srt[-1][1]


@dataflow(columns=("k", "avg"))
def avg_present(rows: RowStream[int, Optional[float]]):  # noqa: UP045
    for k, g in group_by(0, rows):
        vals = [v for _, v in g if v is not None]
        yield k, sum(vals) / len(vals) if vals else None


@dataflow(columns=("k", "labels"))
def labels(rows: RowStream[int, str]):
    for k, g in group_by(0, rows):
        names = sorted({s.strip().lower() for _, s in g})
        yield k, ",".join(names)


@dataflow
def second_to_last(rows: RowStream[int, int]) -> int:
    srt = sorted_by(rows, 0)
    return srt[-2][1] * 10 + srt[1][1]


@dataflow(columns=("k", "dist", "jumps"))
def consecutive(rows: RowStream[int, int, float]):
    for k, g in group_by(0, rows):
        srt = sorted(g, key=lambda r: (r[1], r[2]))
        dist = 0.0
        jumps = 0
        for a, b in zip(srt, srt[1:]):
            dist += abs(b[2] - a[2])
        for (_, t0, _), (_, t1, _) in pairwise(srt):
            if t1 - t0 > 10:
                jumps += 1
        yield k, dist, jumps


EXAMPLES = {
    "gaps_and_turns": [
        ([(1, 1, 5), (1, 3, 7), (1, 10, 4), (1, 11, 4), (1, 20, 9), (2, 1, 1), (2, 2, 2)],),
    ],
    "size_and_ends": [([(1, 5, 0), (1, 2, 0), (1, 9, 0), (2, 4, 0)],)],
    "avg_present": [([(1, 2.0), (1, None), (1, 4.0), (2, None)],)],
    "labels": [([(1, " B"), (1, "a "), (1, "b"), (2, "Zed")],)],
    "second_to_last": [([(3, 7), (1, 5), (2, 6)],)],
    "consecutive": [([(1, 5, 1.0), (1, 2, 3.5), (1, 30, 2.0), (2, 4, 9.0)],)],
}

EXPECTED = {
    # k 1 sorted: (1,5) (3,7) (10,4) (11,4) (20,9); i = 2..4:
    #   i=2: 10-3 > 5 gap; 4 > 7 no; 5 != 4; (4-7)*(7-5) < 0 turn
    #   i=3: 11-10 no; 4 > 4 no; 7 != 4; (4-4)*(...) = 0 no
    #   i=4: 20-11 > 5 gap; 9 > 4 rise; 4 == 9? no; (9-4)*(4-4) = 0 no
    # k 2: two rows, no i
    "gaps_and_turns": [[(1, 2, 1, 1), (2, 0, 0, 0)]],
    "size_and_ends": [[(1, 3, 2, 9), (2, 1, 4, 4)]],
    "avg_present": [[(1, 3.0), (2, None)]],
    "labels": [[(1, "a,b"), (2, "zed")]],
    # by t: 5, 6, 7: second to last 6, second 6 -> 66 (fewer than 2 rows: IndexError)
    "second_to_last": [66],
    # k 1 by t: 3.5, 1.0, 2.0 -> |1.0 - 3.5| + |2.0 - 1.0| = 3.5; t 2, 5, 30: one jump > 10
    "consecutive": [[(1, 3.5, 1), (2, 0.0, 0)]],
}
