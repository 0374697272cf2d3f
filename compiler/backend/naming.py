"""Names in a generated plan: columns after the user's variables, consecutive frame names.

Columns are named after what the user wrote (``category``, ``ts``,
``avg_clicks``); a clash (Spark compares column names case-insensitively)
gets a suffix ``_2``, ``_3`` ... Python variables of the plan (frames,
reducers) are consecutive per role: ``rows``, ``rows_2``, ``agg``, ``agg_2``.

>>> n = Namer(reserved={"spark"})
>>> n.fresh("rows"), n.fresh("rows"), n.fresh("spark")
('rows', 'rows_2', 'spark_2')
>>> c = ColumnNames()
>>> c.get("x", "count.total"), c.get("y", "Total"), c.get("z", "2 words")
('total', 'Total_2', 'v2_words')
"""

from __future__ import annotations

import keyword
import re

__all__ = ["Namer", "ColumnNames", "identifier"]


def identifier(text: str) -> str:
    """``text`` as a valid Python / SQL identifier (word characters, no leading digit)."""
    out = re.sub(r"\W", "_", text).strip("_") or "v"
    if out[0].isdigit():
        out = "v" + out
    if keyword.iskeyword(out):
        out += "_"
    return out


class Namer:
    """Fresh Python variable names of the generated ``plan`` function."""

    def __init__(self, reserved: set[str] = frozenset()) -> None:  # type: ignore[assignment]
        self.taken: set[str] = set(reserved)

    def fresh(self, base: str) -> str:
        base = identifier(base)
        name, i = base, 1
        while name in self.taken:
            i += 1
            name = f"{base}_{i}"
        self.taken.add(name)
        return name


class ColumnNames:
    """One column name per value (binder or source field), unique ignoring case."""

    RESERVED = frozenset({"_sign", "k", "c", "a"})  # helper columns of generated steps

    def __init__(self) -> None:
        self.of: dict[str, str] = {}
        self.taken: set[str] = {r.lower() for r in self.RESERVED}

    def get(self, key: str, wanted: str) -> str:
        """The column of ``key`` (named ``wanted`` the first time it is asked for)."""
        if key not in self.of:
            base = identifier(wanted.split(".")[-1])[:48]
            name, i = base, 1
            while name.lower() in self.taken or name.startswith("__"):
                i += 1
                name = f"{base}_{i}"
            self.taken.add(name.lower())
            self.of[key] = name
        return self.of[key]
