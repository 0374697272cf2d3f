"""The hostile-input table (issue 12): bad data and bad identifiers for a handful of samples.

Every case is a list of rows for one sample algorithm, derived from the sample's own
example rows by one hostile change, and :func:`expected` says what it must give in
every call form (DataFrame, ``f.agg``, ``looplift.sql``, plain ``spark.sql``, the build
package, incremental views):

- a null in a field that is not ``Optional``: an error naming the column, whatever
  Python does with the None;
- otherwise CPython's outcome on the same rows: the same result (floats to 1e-9, NaN
  equal to NaN), or an error standing for the same Python exception class; an int result
  past 64 bits counts as Python raising ``OverflowError`` (never a wrapped value).

The samples cover a scalar (``page_class``), an additive state (``sum``), an action
state (``avg_path``, ``clickstream``), ordered loops (``running_balance`` over a str
key, ``stock_levels`` with ``max`` over floats), a container (``cohort_activity``),
string code (``parse_access``) and Optional floats with ``min``/``max`` reductions
(``reading_summary``). Column names are hostile in every form (:data:`NAMES`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from tests.helpers import SAMPLES, import_path
from tests.spark.harness import FieldType, kind_of, row_types

NAN, INF = math.nan, math.inf
INT_EDGES = (2**63 - 1, -(2**63), -(2**63 - 1))
FLOAT_EDGES = {"nan": (NAN,), "inf": (INF,), "-inf": (-INF,), "inf-inf": (INF, -INF),
               "tiny-huge": (5e-324, 1.7976931348623157e308, -0.0)}  # fmt: skip
STRINGS = (
    "it's \\ \n",  # a quote, a backslash, a newline
    "a`b; DROP TABLE t; --",
    '"\';\r\n\t',
    "e\u0301\u0327",  # combining marks
    "\u202eevil\u202c \u05e9\u05dc\u05d5\u05dd",  # RTL override, Hebrew
    "🙂👍🏽🏳️‍🌈",  # emoji, a modifier, a ZWJ sequence
    "nul\x00byte",
    "",
)
# column names of the input in every form (positional binding must not care)
NAMES = ("a`b", "x; DROP TABLE t --", "it's \\ \n", "ü\u0301ber", "\u202eid", "🙂", "a.b", "c d")

# the samples: module, algorithm, example rows (the sample's doctest rows or like them)
LOG = [
    (1, '203.0.113.9 - - [10/Oct/2024:13:55:36 +0000] "GET /Shop/Cart?id=7 HTTP/1.1" 200 2326',
     "Mozilla/5.0"),
    (2, "  # rotated  ", None),
    (3, '10.0.0.2 - bob [10/Oct/2024:14:02:01 +0000] "POST /api/orders HTTP/1.1" 503 -',
     "Googlebot/2.1"),
    (4, "garbage", None),
]  # fmt: skip
SAMPLES_USED: dict[str, tuple[str, str, list[tuple]]] = {
    "page_class": ("pages", "page_class", [(0,), (1,), (7,), (42,), (-5,)]),
    "sum": ("sum", "sum", [(1, 10), (2, 5), (1, -3)]),
    "avg_path": ("clickstream", "avg_path", [(0, 10), (5, 11), (1, 12), (0, 13), (2, 14), (1, 20)]),
    "clickstream": ("clickstream", "clickstream",
                    [(1, 0, 10), (1, 5, 11), (1, 1, 12), (2, 0, 1), (2, 3, 2), (2, 1, 4)]),
    "running_balance": ("ledger", "running_balance",
                        [("a", 2, 1, -30), ("a", 1, 1, 100), ("a", 1, 2, None), ("b", 1, 1, 5)]),
    "stock_levels": ("stock", "stock_levels",
                     [("nut", 1, 5.0), ("nut", 2, -7.5), ("nut", 3, 2.0), ("bolt", 1, -1.0)]),
    "cohort_activity": ("cohorts", "cohort_activity",
                        [(1, 3, 3), (1, 3, 4), (2, 3, 4), (3, 4, 4), (1, 3, 4)]),
    "parse_access": ("logparse", "parse_access", LOG),
    "reading_summary": ("sensors", "reading_summary", [(1, 2.0), (1, None), (2, 4.0), (2, -1.5)]),
}  # fmt: skip


def algorithm(key: str) -> Any:
    module, name, _rows = SAMPLES_USED[key]
    return getattr(import_path(SAMPLES / f"{module}.py"), name)


@dataclass(frozen=True)
class Hostile:
    """One row of the table: an algorithm and its input."""

    algo: str  # a key of SAMPLES_USED
    what: str  # the hostile change, e.g. "null f1", "int64 f2", "nan f2", "str f1"
    rows: tuple[tuple, ...]
    null_field: int | None = None  # a None in this non-Optional field: must raise naming it

    @property
    def id(self) -> str:
        return f"{self.algo}: {self.what}"

    def __repr__(self) -> str:
        return self.id


def _with(row: tuple, i: int, v: Any) -> tuple:
    return (*row[:i], v, *row[i + 1 :])


def cases_of(key: str) -> list[Hostile]:
    """The hostile cases of one algorithm, derived from its field types."""
    base = [tuple(r) for r in SAMPLES_USED[key][2]]
    fts: tuple[FieldType, ...] = row_types(algorithm(key))
    out = [Hostile(key, "example", tuple(base)), Hostile(key, "empty", ())]
    for i, ft in enumerate(fts):
        if not ft.optional:
            out.append(Hostile(key, f"null f{i}", tuple([_with(base[0], i, None), *base[1:]]),
                               null_field=i))  # fmt: skip
        if ft.base is int:
            edges = [_with(base[0], i, e) for e in INT_EDGES]
            out.append(Hostile(key, f"int64 f{i}", tuple(base + edges)))
            past = [_with(base[0], i, INT_EDGES[0])] * 2  # sums past 2**63 - 1
            out.append(Hostile(key, f"past int64 f{i}", tuple(base + past)))
        elif ft.base is float:  # in place of the field's values (appended rows would tie
            for name, vs in FLOAT_EDGES.items():  # with others in an order_by and make
                rows = [_with(r, i, vs[j]) if j < len(vs) else r  # Python's sort arbitrary)
                        for j, r in enumerate(base)]  # fmt: skip
                out.append(Hostile(key, f"{name} f{i}", tuple(rows)))
        elif ft.base is str:
            extra = [_with(base[j % len(base)], i, s) for j, s in enumerate(STRINGS)]
            out.append(Hostile(key, f"str f{i}", tuple(base + extra)))
    return out


TABLE: list[Hostile] = [c for key in SAMPLES_USED for c in cases_of(key)]


def huge_group(n: int = 200_000) -> Hostile:
    """One user with ``n`` clicks (start, two products, end, repeated), for clickstream."""
    pages = (0, 2, 3, 1)
    return Hostile("clickstream", f"one group of {n} rows",
                   tuple((7, pages[t % 4], t) for t in range(n)))  # fmt: skip


def kind(key: str) -> str:
    return kind_of(algorithm(key))
