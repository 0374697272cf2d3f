"""Edge cases and test algorithms generated from the table's container reads
(``looplift.compiler.primitives.containers``: the ``c_*`` entries).

A container is filled from a group's rows (``xs.append(v)`` for a list of
``float | None``, ``d[key] = v`` for a dict of ``int`` to ``str | None``) and read after
the loop by a template of each entry. The lists are the entries' own edges: empty, one
element, None elements, NaN elements in either order, ``-0.0`` and ``0.0``, infinities;
the dicts: empty, a duplicate key (the last assignment counts), a None value. Contexts:

- ``ordered``: an ordered group loop (``group_by(0, rows, order_by=1)``), the list in
  row order;
- ``guard``: the same, the read under ``if k % 2 == 0`` (odd groups must not raise);
- ``group``: an unordered group loop, for the templates that do not depend on order.

NaN in a sort (``sorted``, the medians, ``set``, ``max(key=...)``): CPython's result
depends on where the NaN is (its comparisons are all false), which no sort in Spark
reproduces: those cases are listed in :data:`NAN_ORDER` and not compared. So are the
Counters' and a starting set's NaN: CPython keeps two NaN objects apart (``Counter([nan,
nan])`` has two keys when they are two objects, as values from rows are), Spark's
``array_distinct`` makes them one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from looplift.compiler.primitives import PRIMITIVES

CONTEXTS = ("ordered", "guard", "group")
ENTRIES = [p for p in PRIMITIVES.values() if p.domain == "container"]
ZERO = {"float": "0.0", "str": '""', "bool": "False", "int": "0"}


@dataclass(frozen=True)
class Template:
    entry: str
    expr: str  # over ``xs`` (a list) or ``d`` (a dict)
    result: str
    ordered: bool = False  # depends on the order of the elements (ordered loops only)
    dict: bool = False
    start: str = ""  # the container's starting value, when not empty (``xs = [1.0]``)
    fill: str = ""  # how a row adds to it, when not ``xs.append(v)`` / ``d[key] = v``

    @property
    def ident(self) -> str:
        return f"{self.entry}_{TEMPLATES.index(self)}"


TEMPLATES: list[Template] = [
    Template("c_max", "max(xs)", "float"),
    Template("c_max", "max(xs, default=-1.0)", "float"),
    Template("c_min", "min(xs)", "float"),
    Template("c_min", "min(xs, default=-1.0)", "float"),
    Template("c_sum", "sum(xs)", "float"),
    Template("c_sorted", "sorted(xs)[0]", "float"),
    Template("c_sorted", "sorted(xs, reverse=True)[-1]", "float"),
    Template("c_reversed", "list(reversed(xs))[0]", "float", ordered=True),
    Template("c_slice", "xs[1:][0]", "float", ordered=True),
    Template("c_slice", "len(xs[-2:])", "int", ordered=True),
    Template("c_index", "xs[0]", "float", ordered=True),
    Template("c_index", "xs[-1]", "float", ordered=True),
    Template("c_index", "xs[2]", "float", ordered=True),
    Template("c_index", "xs[-3]", "float", ordered=True),
    Template("c_contains", "1.0 in xs", "bool"),
    Template("c_contains", "None in xs", "bool"),
    Template("c_first", "max(xs, key=lambda v: v)", "float"),
    Template("c_distinct", "sorted(set(xs))[0]", "float"),
    Template("c_mean", "statistics.mean(xs)", "float"),
    Template("c_fmean", "statistics.fmean(xs)", "float"),
    Template("c_median", "statistics.median(xs)", "float"),
    Template("c_median_low", "statistics.median_low(xs)", "float"),
    Template("c_median_high", "statistics.median_high(xs)", "float"),
    Template("c_list", "sum(xs)", "float", start="xs = [1.0, -0.0]"),
    Template("c_concat", "xs[0]", "float", ordered=True, start="xs = [2.0]"),
    Template("c_union", "len(xs)", "int", start="xs = {1.0, None}", fill="xs.add(v)"),
    Template("c_merge_sums", "sum(d.values()) * 10 + d[1]", "int", dict=True,
             start="d = {1: 5, 3: 0}", fill="d[key] = d.get(key, 0) + 1"),
    Template("c_merge_sums", "list(d)[-1]", "int", ordered=True, dict=True,
             start="d = {3: 0, 1: 5}", fill="d[key] = d.get(key, 0) + 1"),
    Template("c_count", "len(collections.Counter(xs))", "int"),
    Template("c_count", "collections.Counter(xs)[1.0]", "int"),
    Template("c_count", "sum(collections.Counter(xs).values()) + (None in collections.Counter(xs))",
             "int"),
    Template("c_most_common", "collections.Counter(xs).most_common(1)[0][0]", "float",
             ordered=True),
    Template("c_most_common", "len(collections.Counter(xs).most_common(2))", "int"),
    Template("c_getitem", "d[1]", "str", ordered=True, dict=True),
    Template("c_get", "d.get(1, 'z')", "str", ordered=True, dict=True),
    Template("c_keys", "sum(d.keys())", "int", ordered=True, dict=True),
    Template("c_values", "max(d.values())", "str", ordered=True, dict=True),
]

#: entries with no template here, and where their edges are tested instead
ELSEWHERE = {
    "c_enumerate": "a loop form (``for i, v in enumerate(xs)``): tests/spark/test_containers.py",
    "c_zip": "a loop form (``zip``): tests/spark/test_containers.py",
    "c_range": "a loop form (``for i in range(n)``, ``range(a, b, step)``): tests/spark/test_containers.py, "
               "tests/spark/test_explode.py",
    **{f"c_{f}": f"a loop form (``itertools.{f}``): tests/spark/test_explode.py"
       for f in ("combinations", "permutations", "product")},
    "c_row": "the rows an ``each`` loop yields: tests/spark/test_containers.py",
    "c_empty": "the rows an ``each`` loop yields: tests/spark/test_containers.py",
    "dict_get": "a host function's dict: tests/spark/test_host_returns.py",
    "c_unpack": "a statement (``a, b = s.split()``): tests/spark/test_explode.py",
}

#: templates that sort floats: NaN cases are CPython's order-dependent answers
NAN_ORDER = {"c_count", "c_most_common", "c_union", "c_sorted", "c_distinct", "c_median", "c_median_low", "c_median_high", "c_first"}


#: reads whose NaN answer depends on the order of the elements, defined in ordered loops only
NAN_ANY_ORDER = {"c_max", "c_min"}


def _float(v: Any) -> Any:
    return float(v) if isinstance(v, int) and not isinstance(v, bool) else v


def list_cases() -> list[list[Any]]:
    """Every list among the container entries' edges (as float | None elements)."""
    out: list[list[Any]] = []
    for p in ENTRIES:
        for e in p.edges:
            if e and isinstance(e[0], list) and all(not isinstance(v, (tuple, str)) for v in e[0]):
                xs = [_float(v) for v in e[0]]
                if repr(xs) not in map(repr, out):
                    out.append(xs)
    return out


def dict_cases() -> list[list[tuple[int, Any]]]:
    """The entries' item lists with int keys (assigned in order: a duplicate key's last
    value counts)."""
    out: list[list[tuple[int, Any]]] = []
    for p in ENTRIES:
        for e in p.edges:
            if e and isinstance(e[0], list) and all(isinstance(v, tuple) for v in e[0]):
                items = list(e[0])
                if all(type(k) is int for k, _ in items) and items not in out:
                    out.append(items)
    return out + [[(2, "x"), (1, None)], [(2, "x")]]


def cases(t: Template, context: str = "ordered") -> list[Any]:
    """The template's containers (in an unordered loop, no NaN where the answer depends
    on where it is: ``max([nan, 1.0])`` is nan, ``max([1.0, nan])`` 1.0, and the loop's
    order is any)."""
    found = dict_cases() if t.dict else list_cases()
    if t.entry in NAN_ORDER or (context == "group" and t.entry in NAN_ANY_ORDER):
        found = [xs for xs in found if not any(isinstance(v, float) and math.isnan(v) for v in xs)]
    return found


def rows_of(t: Template, k: int, case: Any) -> list[tuple]:
    """A group's rows: (k, i, keep, *element); an empty container is one row not kept."""
    if not case:
        return [(k, 0, False, *((0, None) if t.dict else (None,)))]
    if t.dict:
        return [(k, i, True, key, v) for i, (key, v) in enumerate(case)]
    return [(k, i, True, v) for i, v in enumerate(case)]


HEADER = """# generated by tests/spark/container_edges.py
import collections
import statistics

from looplift import RowStream, dataflow, group_by

"""


def algo_name(context: str, t: Template) -> str:
    return f"{context}_{t.ident}"


def source(context: str, t: Template) -> str:
    fields = "int, int, bool, int, str | None" if t.dict else "int, int, bool, float | None"
    elems = "key, v" if t.dict else "v"
    fill = t.fill or ("d[key] = v" if t.dict else "xs.append(v)")
    init = t.start or ("d = {}" if t.dict else "xs = []")
    order = "" if context == "group" else ", order_by=1"
    read = f"        yield k, {t.expr}\n"
    if context == "guard":
        read = (f"        r = {ZERO[t.result]}\n        if k % 2 == 0:\n            r = {t.expr}\n"
                "        yield k, r\n")  # fmt: skip
    return (f"@dataflow(columns=(\"k\", \"r\"))\ndef {algo_name(context, t)}(rows: RowStream"
            f"[{fields}]):\n    for k, g in group_by(0, rows{order}):\n        {init}\n"
            f"        for _k, _i, keep, {elems} in g:\n            if keep:\n"
            f"                {fill}\n{read}")  # fmt: skip


def templates(context: str) -> list[Template]:
    return [t for t in TEMPLATES if context != "group" or not t.ordered]


def module_source() -> str:
    parts = [HEADER]
    for context in CONTEXTS:
        for t in templates(context):
            parts.append(source(context, t) + "\n")
    return "\n".join(parts)
