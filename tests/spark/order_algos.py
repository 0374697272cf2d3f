"""Algorithms of the order forms (issue 10 items 3, 4, 7), shared by
tests/compiler/test_order_forms.py (IR against CPython) and
tests/spark/test_order_forms.py (compiled plans on Spark against CPython)."""

from looplift import RowStream, dataflow, group_by, sorted_by


@dataflow(columns=("k", "first", "last"))
def desc_multi(rows: RowStream[int, int, str]):
    for k, g in group_by(0, rows, order_by=(-1, 2)):
        first = None
        last = None
        for _k, _v, s in g:
            if first is None:
                first = s
            last = s
        yield k, first, last


@dataflow(columns=("k", "first"))
def field0_desc(rows: RowStream[int, int, str]):
    for k, g in group_by(1, rows, order_by=0, desc=True):
        first = None
        for a, _v, _s in g:
            if first is None:
                first = a
        yield k, first


@dataflow
def whole_input(rows: RowStream[int, int, str]) -> int:
    acc = 0
    for a, v, _s in sorted_by(rows, (-1, 0)):
        acc = acc * 3 + v - a
    return acc


@dataflow
def one_group(rows: RowStream[int, int, str]) -> int:
    acc = 0
    for _k, g in group_by((), rows, order_by=-1):
        for a, _v, _s in g:
            acc = acc * 2 + a
    return acc


@dataflow
def key_lambda(rows: RowStream[int, int, str]) -> int:
    acc = 0
    for r in sorted(rows, key=lambda r: (r[2], -r[1])):
        acc = acc * 2 + r[0] - len(r)
    return acc


@dataflow(columns=("k", "i", "s", "v"))
def top2(rows: RowStream[int, int, str]):
    for k, g in group_by(0, rows):
        for i, row in enumerate(sorted(g, key=lambda r: r[1], reverse=True)[1:3]):
            yield k, i, row[-1], row[1]


@dataflow(columns=("k", "v", "s"))
def newest(rows: RowStream[int, int, str]):
    for k, g in group_by(0, rows):
        best = None
        s = "-"
        for row in g:
            if best is None or row[1] >= best:
                best, s = row[1], row[2]
        yield k, best, s


@dataflow
def arg_min(rows: RowStream[int, int, str]) -> str:
    lo = 5
    name = "none"
    for _k, v, s in rows:
        if lo > v:
            lo = v
            name = s
    return name


@dataflow(columns=("k", "n", "sv"))
def computed(rows: RowStream[int, int, str]):
    for (k, b), g in group_by(lambda r: (r[0] % 2, r[1] // 3), rows):
        n = 0
        sv = 0
        for _k, v, _s in g:
            n += 1
            sv += v
        yield k * 10 + b, n, sv


@dataflow(columns=("word", "div3", "n"))
def computed_text(rows: RowStream[int, int, str]):
    for (word, div3), g in group_by(lambda r: (r[2].strip().lower(), r[1] % 3 == 0), rows):
        n = 0
        for _k, _v, _s in g:
            n += 1
        yield word, div3, n


@dataflow(columns=("n", "s"))
def whole_group(rows: RowStream[int, int, str]):
    for _k, g in group_by((), rows):
        n = 0
        s = 0
        for _a, b, _c in g:
            n += 1
            s += b
        yield n, s


@dataflow
def unpack_row(rows: RowStream[int, int, str]):
    for row in rows:
        a, b, c = row
        if a > b:
            yield c, a - b, len(row)


@dataflow
def yield_row(rows: RowStream[int, int, str]):
    for row in rows:
        if row[-3] > 0:
            yield row


@dataflow(columns=("k", "ts", "s"))
def newest_row(rows: RowStream[int, int, str]):
    for k, g in group_by(0, rows):
        best_ts = None
        best = None
        for row in g:
            if best_ts is None or row[1] > best_ts:
                best_ts, best = row[1], row
        yield k, best[1], best[2]


@dataflow
def key_fn_desc(rows: RowStream[int, int, str]) -> int:
    acc = 0
    for a, v, _s in sorted_by(rows, lambda r: (-r[1], r[2]), desc=True):
        acc = acc * 3 + a - v
    return acc


@dataflow(columns=("k", "ts", "s"))
def stream_max_min(rows: RowStream[int, int, str]):
    for k, g in group_by(0, rows):
        best = max(g, key=lambda r: r[1])
        worst = min(g, key=lambda r: (r[2], -r[1]))
        yield k, best[1], worst[2]


@dataflow
def stream_max_default(rows: RowStream[int, int, str]) -> int:
    b = max(rows, key=lambda r: r[1] * 2 - r[0], default=None)
    return -1 if b is None else b[0]
