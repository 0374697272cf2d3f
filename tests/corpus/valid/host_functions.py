"""Host functions: module-level plain Python functions and standard-library
functions called through their module; a host function returning a tuple
that is unpacked."""

import html
import posixpath

from looplift import RowStream, dataflow


def initials(name: str) -> str:
    return "".join(part[0].upper() for part in name.split() if part)


def parse_amount(text: str) -> float:
    return float(text.replace(",", "").strip() or "0")


@dataflow(columns=("id", "file", "safe"))
def files(rows: RowStream[int, str]):
    for i, path in rows:
        yield i, posixpath.basename(path), html.escape(path)


@dataflow(columns=("id", "initials", "ext"))
def people(rows: RowStream[int, str, str]):
    for i, name, fname in rows:
        stem, ext = posixpath.splitext(fname)
        yield i, initials(name), ext if ext != "" else stem


@dataflow
def total_amount(rows: RowStream[str]) -> float:
    total = 0.0
    for (text,) in rows:
        total += parse_amount(text)
    return total


EXAMPLES = {
    "files": [([(1, "/tmp/a<b>.txt"), (2, "rel/x&y")],)],
    "people": [([(1, "ada lovelace", "notes.md"), (2, "Grace", "README")],)],
    "total_amount": [([("1,250.5",), (" 3 ",), ("",)],)],
}

EXPECTED = {
    "files": [[(1, "a<b>.txt", "/tmp/a&lt;b&gt;.txt"), (2, "x&y", "rel/x&amp;y")]],
    "people": [[(1, "AL", ".md"), (2, "G", "README")]],
    "total_amount": [1253.5],
}
