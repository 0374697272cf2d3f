"""Algorithms over named rows (issue 26 item 1): ``RowStream[Click]`` of a NamedTuple,
fields bound to columns by name, read as ``c.page``; keys and orders by name or lambda;
NamedTuple outputs. ``tests/spark/test_named_rows.py`` runs them on Spark against
CPython."""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple, Optional

from looplift import RowStream, dataflow, group_by


class Click(NamedTuple):
    user_id: int
    page: int
    ts: int


class PerUser(NamedTuple):
    user_id: int
    clicks: int
    last_page: int


class PageAt(NamedTuple):  # Click's fields in another order, without user_id
    ts: int
    page: int


class Sale(NamedTuple):
    shop: str
    day: datetime.date
    amount: Optional[float]  # noqa: UP045 - the Optional[...] spelling
    note: str | None


@dataclass
class Visit:
    user_id: int
    page: int


@dataflow
def per_user(clicks: RowStream[Click]):
    """The issue's example: string key and order, attribute reads, a NamedTuple out."""
    for uid, g in group_by("user_id", clicks, order_by="ts"):
        n = 0
        last = -1
        for c in g:
            n += 1
            last = c.page
        yield PerUser(uid, n, last)


@dataflow
def per_user_lambda(clicks: RowStream[Click]) -> Iterator[PerUser]:
    """Lambda key and order; the output named by the return annotation, built by keyword."""
    for uid, g in group_by(lambda c: c.user_id, clicks, order_by=lambda c: c.ts):
        n = 0
        last = -1
        for c in g:
            n += 1
            last = c.page
        yield PerUser(last_page=last, clicks=n, user_id=uid)


@dataflow
def first_page_desc(clicks: RowStream[Click]):
    """Descending order by name: the page of each user's latest click."""
    for uid, g in group_by("user_id", clicks, order_by="ts", desc=True):
        first = -1
        seen = 0
        for c in g:
            if seen == 0:
                first = c.page
            seen += 1
        yield uid, first


@dataflow
def unpacked(clicks: RowStream[Click]):
    """Positional unpacking of a named row (the class's field order: user_id, page, ts)."""
    for user_id, page, ts in clicks:
        if page > 2:
            yield user_id, ts - page


@dataflow
def filtered(clicks: RowStream[Click]):
    """A per-row filter reading fields by name."""
    for c in clicks:
        if c.page % 2 == 0:
            yield c.user_id, c.ts * 10 + c.page


@dataflow
def mean_page(clicks: RowStream[Click]) -> float:
    """An aggregate over named rows."""
    total = 0
    n = 0
    for c in clicks:
        total += c.page
        n += 1
    return total / n if n else 0.0


@dataflow(columns=("user_id", "mean_page"))
def per_user_mean(clicks: RowStream[Click]):
    """A named group passed to another @dataflow that takes RowStream[Click]."""
    for uid, g in group_by("user_id", clicks):
        yield uid, mean_page(g)


@dataflow
def latest_page(pages: RowStream[PageAt]) -> int:
    """Takes other named rows: Click's ts and page, in the other order."""
    best = -1
    best_ts = -1
    for p in pages:
        if p.ts > best_ts:
            best_ts = p.ts
            best = p.page
    return best


@dataflow(columns=("user_id", "latest"))
def per_user_latest(clicks: RowStream[Click]):
    """A Click group passed where PageAt rows are taken: bound by field name."""
    for uid, g in group_by("user_id", clicks):
        yield uid, latest_page(g)


@dataflow(columns=("user_id", "pages"))
def projected(clicks: RowStream[Click]):
    """A projection by names keeps named rows."""
    for uid, g in group_by("user_id", clicks):
        total = 0
        for r in g.project("ts", "page"):
            total += r.page * 1000 + r.ts
        yield uid, total


@dataflow(columns=("shop", "day", "total", "notes"))
def daily(sales: RowStream[Sale]):
    """A tuple key by names; Optional fields with nulls."""
    for (shop, day), g in group_by(("shop", "day"), sales):
        total = 0.0
        notes = 0
        for s in g:
            if s.amount is not None:
                total += s.amount
            if s.note is not None:
                notes += 1
        yield shop, day, total, notes


@dataflow
def visits(rows: RowStream[Visit]):
    """A dataclass as the row type."""
    for uid, g in group_by("user_id", rows):
        n = 0
        for v in g:
            n += v.page
        yield uid, n


@dataflow(columns=("user_id", "latest_page", "late_pages", "top_two"))
def shortcuts(clicks: RowStream[Click]):
    """Python's shortcuts over named rows: max with a key, a generator sum, a top-N of a
    sorted group, a row held whole."""
    for uid, g in group_by("user_id", clicks):
        best = max(g, key=lambda c: c.ts)
        late = sum(c.page for c in g if c.ts > 2)
        top = 0
        for c in sorted(g, key=lambda c: -c.page)[:2]:
            row = c
            top += row.page
        yield uid, best.page, late, top
