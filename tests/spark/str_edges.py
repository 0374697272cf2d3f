"""Edge cases and test algorithms generated from the string entries of the table of
primitives (``looplift.compiler.primitives.strmethods``).

Every edge of an entry (``Primitive.edges``: the literal arguments after the receiver,
:class:`~looplift.compiler.primitives.strmethods.Col` for one that varies per row) is a
*form*: one call written in source (``s.split(",", 1)``, ``re.sub("\\s+", " ", s)``,
``s[1:c1]``). Its rows are every receiver of ``STRINGS`` times the values of its columns;
CPython's outcome on each row (a value, or the class it raises) is the expectation.

The algorithms are generated as source, one per form and context:

- ``scalar``: ``return <call>``, called on Columns (``sql``: the same one from
  ``looplift.sql``);
- ``guard``: ``r = <zero>; if c: r = <call>`` (rows with ``c`` false must not raise, and
  are run on every input, the raising ones too);
- ``group``: a table algorithm yielding ``<call>`` per row of each group;
- ``opt``: the scalar form with an Optional receiver (``None``'s AttributeError).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from looplift.compiler.primitives import STRING_PRIMS, Primitive
from looplift.compiler.primitives.strmethods import STRINGS, Col
from looplift.strings import IMPLS

CONTEXTS = ("scalar", "guard", "group", "sql")


def _annotation(t: Any, nullable: bool = False) -> str:
    if isinstance(t, tuple) and t[0] == "list":
        out = f"list[{_annotation(t[1])}]"
    elif isinstance(t, tuple) and t[0] == "tuple":
        out = f"tuple[{', '.join(_annotation(u) for u in t[1])}]"
    else:
        out = {"str": "str", "int": "int", "float": "float", "bool": "bool"}[t]
    return f"{out} | None" if nullable else out


ZERO = {"str": "''", "int": "0", "float": "0.0", "bool": "False"}


@dataclass(frozen=True)
class Form:
    """One edge of an entry, as a call in source over the receiver ``s`` and the columns
    ``c1``, ``c2``... (one per :class:`Col` of the edge)."""

    prim: Primitive
    k: int  # which edge of the entry
    edge: tuple[Any, ...]

    @property
    def ident(self) -> str:
        base = self.prim.name.replace("str.", "").replace(".", "_").replace("(", "_")
        return f"{base.replace(')', '')}_{self.k}"

    def cols(self) -> list[tuple[str, Col]]:
        return [(f"c{i + 1}", v) for i, v in enumerate(v for v in self.edge if isinstance(v, Col))]

    def _args(self, names: dict[int, str]) -> list[str]:
        """The edge's arguments as source (a column by its name)."""
        out, j = [], 0
        for v in self.edge:
            if isinstance(v, Col):
                j += 1
                out.append(f"c{j}")
            else:
                out.append(repr(v))
        return out

    def call(self) -> str:
        name, a = self.prim.name, self._args({})
        if name.startswith("str."):
            return f"s.{name[4:]}({', '.join(a)})"
        if name in ("re.match", "re.search", "re.fullmatch"):  # a match object: its group 0
            m = f"re.{name[3:]}({a[0]}, s{''.join(', ' + x for x in a[1:])})"
            return f"{m}.group(0) if {m} else None"
        if name in ("re.findall", "re.split"):
            return f"re.{name[3:]}({a[0]}, s{''.join(', ' + x for x in a[1:])})"
        if name == "re.sub":
            return f"re.sub({a[0]}, {a[1]}, s{''.join(', ' + x for x in a[2:])})"
        if name == "slice":
            lo, hi, step = ("" if x == "None" else x for x in a)
            return f"s[{lo}:{hi}:{step}]" if step else f"s[{lo}:{hi}]"
        if name == "getitem":
            return f"s[{a[0]}]"
        if name == "contains":
            return f"{a[0]} in s"
        if name == "not_contains":
            return f"{a[0]} not in s"
        if name == "format":
            return f"format(s, {a[0]})"
        if name == "pct":
            return f"{'%' + self.edge[0]!r} % s"
        if name in ("repr", "ascii"):
            return f"{name}(s)"
        if name in ("int(str)", "float(str)"):
            return f"{name[:-5]}(s)"
        if name == "match.group":
            return f"re.match({a[0]}, s).group({', '.join(a[1:])})"
        raise AssertionError(f"{name}: no syntax for this entry")

    def args(self, s: Any, cols: tuple[Any, ...]) -> tuple[Any, ...]:
        """The primitive's arguments on one row (its partiality reads them)."""
        it = iter(cols)
        edge = tuple(next(it) if isinstance(v, Col) else v for v in self.edge)
        name = self.prim.name
        if name.startswith("str.") or name in ("slice", "getitem", "format", "repr", "ascii"):
            return (s, *edge)
        if name in ("int(str)", "float(str)"):
            return (s,)
        if name == "re.sub":
            return (edge[0], edge[1], s, *edge[2:])
        if name.startswith("re."):
            return (edge[0], s, *edge[1:])
        if name in ("contains", "not_contains"):
            return (edge[0], s)
        if name == "pct":
            return (s, edge[0])
        if name == "match.group":
            return (IMPLS["re.match"](edge[0], s), *edge[1:])
        raise AssertionError(name)

    def result(self) -> tuple[Any, bool]:
        ts = ["str"] * (1 + len(self.edge))
        lits = [None, *(None if isinstance(v, Col) else v for v in self.edge)]
        if self.prim.name.startswith("re.") or self.prim.name == "match.group":
            lits = [self.edge[0], None, *lits[2:]]
        got = self.prim.type_at(ts, lits) if self.prim.type_at else (self.prim.result, False)
        assert got is not None
        if isinstance(got[0], tuple) and got[0][0] == "match":
            return "str", True
        return got

    def rows(self) -> list[tuple[Any, ...]]:
        """``(s, c1, ...)`` for every receiver and column value."""
        values = [c.values for _, c in self.cols()]
        return [(s, *cs) for s in STRINGS for cs in itertools.product(*values)]


def forms(prim: Primitive) -> list[Form]:
    return [Form(prim, k, tuple(e)) for k, e in enumerate(prim.edges)]


def all_forms() -> Iterator[Form]:
    for p in STRING_PRIMS:
        yield from forms(p)


# -- generated source -------------------------------------------------------------------

HEADER = """# generated by tests/spark/str_edges.py
import re

from looplift import RowStream, dataflow, group_by

"""


def algo_name(context: str, form: Form) -> str:
    return f"{context}_{form.ident}"


def source(context: str, form: Form) -> str:
    t, nullable = form.result()
    r = _annotation(t, nullable)
    name = algo_name(context, form)
    cols = form.cols()
    recv = "str | None" if context == "opt" else "str"
    ptypes = [recv] + [
        "str | None" if any(isinstance(v, str) for v in c.values) else "int | None" for _, c in cols
    ]
    names = ["s"] + [n for n, _ in cols]
    params = ", ".join(f"{n}: {pt}" for n, pt in zip(names, ptypes, strict=True))
    call = form.call()
    if context in ("scalar", "opt"):
        return f"@dataflow\ndef {name}({params}) -> {r}:\n    return {call}\n"
    if context == "guard":
        zero = "None" if nullable or t not in ZERO else ZERO[t]
        rr = r if zero != "None" or nullable else f"{r} | None"
        return (f"@dataflow\ndef {name}(c: bool, {params}) -> {rr}:\n    r = {zero}\n"
                f"    if c:\n        r = {call}\n    return r\n")  # fmt: skip
    if context == "group":
        return (f"@dataflow(columns=(\"k\", \"r\"))\ndef {name}(rows: RowStream[int, "
                f"{', '.join(ptypes)}]):\n    for k, g in group_by(0, rows):\n"
                f"        for _k, {', '.join(names)} in g:\n            yield k, {call}\n")  # fmt: skip
    raise ValueError(context)


def module_source(fs: list[Form]) -> str:
    parts = [HEADER]
    for f in fs:
        for context in ("scalar", "guard", "group", "opt"):
            parts.append(source(context, f) + "\n")
    return "\n".join(parts)


def context_row(context: str, row: tuple, i: int, c: bool = True) -> tuple:
    if context == "guard":
        return (c, *row)
    if context == "group":
        return (i, *row)
    return row
