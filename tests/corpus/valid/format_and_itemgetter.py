"""`str.format` on a literal (positional, numbered and keyword fields, specs, `!r`,
escaped braces) as the f-string it means, and `operator.itemgetter` as a sort key."""

from operator import itemgetter

from looplift import RowStream, dataflow, group_by


@dataflow(columns=("k", "code", "label", "pct"))
def formatted(rows: RowStream[int, int, str, float]):
    for k, v, s, x in rows:
        yield k, "{}-{:03d}".format(s, v), "{name}: {0!r} {{x}}".format(s, name=s.upper()), "{:.1f}%".format(x)


@dataflow(columns=("k", "first", "last"))
def ends_by_itemgetter(rows: RowStream[int, int, str]):
    for k, g in group_by(0, rows):
        srt = sorted(g, key=itemgetter(1, 2))
        yield k, srt[0][2], max(g, key=itemgetter(1))[2]


EXAMPLES = {
    "formatted": [([(1, 5, 'a"b', 2.25), (2, -7, "é", 0.5)],)],
    "ends_by_itemgetter": [([(1, 3, "c"), (1, 1, "a"), (1, 9, "z"), (2, 4, "d")],)],
}

EXPECTED = {
    # "{:03d}" of -7 is "-07"; "{:.1f}" of 2.25 rounds half to even: "2.2"
    "formatted": [[(1, 'a"b-005', """A"B: 'a"b' {x}""", "2.2%"), (2, "é--07", "É: 'é' {x}", "0.5%")]],
    "ends_by_itemgetter": [[(1, "a", "z"), (2, "d", "d")]],
}
