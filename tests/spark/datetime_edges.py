"""Edge cases and test algorithms generated from the table's ``datetime`` entries
(``looplift.compiler.primitives.datetimes``), as ``primitive_edges.py`` does for ``math``.

For every entry, one signature per argument type it is tested on, whose inputs are the
entry's ``edges`` (invalid dates: Feb 29 of 1900, 2000, 2023, 2024, month 0/13, day 0/32,
years 0, 1, 9999, 10000, fields beyond a C int, hour 24, negative microsecond; timedeltas
at ±999999999 days and at Spark's 64-bit limit; NaN and infinite float fields). A value
that is a datetime, date or timedelta is returned as text built from its attributes
(``str(t.year) + "-" + ...``), so that every context returns a plain column. The
contexts: ``scalar``, ``guard`` (``if c:``), ``group`` (a group loop yielding per row),
``sql`` (the scalar called from ``looplift.sql``).
"""

from __future__ import annotations

import datetime
import math
from dataclasses import dataclass
from typing import Any

from looplift.compiler.primitives import PRIMITIVES, Primitive
from looplift.compiler.primitives.datetimes import SPARK_TD_MAX_US, TD_UNITS

CONTEXTS = ("scalar", "guard", "group", "sql")
ENTRIES = [p for p in PRIMITIVES.values() if p.domain == "datetime"]
ZERO = {"int": "0", "float": "0.0", "str": '""'}
ANNOT = {"int": "int", "float": "float", "datetime": "datetime.datetime", "date": "datetime.date",
         "str": "str"}  # fmt: skip

# how a value of each type is returned: as text of its attributes (``{t}``: the value)
SHOW = {
    "date": 'str({t}.year) + "-" + str({t}.month) + "-" + str({t}.day)',
    "datetime": 'str({t}.year) + "-" + str({t}.month) + "-" + str({t}.day) + " " + str({t}.hour)'
                ' + ":" + str({t}.minute) + ":" + str({t}.second) + "." + str({t}.microsecond)',
    "timedelta": 'str({t}.days) + " " + str({t}.seconds) + " " + str({t}.microseconds)',
}  # fmt: skip


def show(v: Any) -> Any:
    """What the generated algorithm returns for a value (the reference's side of SHOW)."""
    if isinstance(v, datetime.datetime):
        return (f"{v.year}-{v.month}-{v.day} {v.hour}:{v.minute}:{v.second}."
                f"{v.microsecond}")  # fmt: skip
    if isinstance(v, datetime.date):
        return f"{v.year}-{v.month}-{v.day}"
    if isinstance(v, datetime.timedelta):
        return f"{v.days} {v.seconds} {v.microseconds}"
    return v


@dataclass(frozen=True)
class Sig:
    prim: Primitive
    params: tuple[str, ...]  # the parameters' types (int, float, datetime, date, str)
    cases: tuple[tuple[Any, ...], ...]
    const: tuple[Any, ...] = ()  # constant last arguments (strptime's format), in the source
    tag: str = ""

    @property
    def ident(self) -> str:
        return f"{self.prim.name.replace('.', '_')}_{'_'.join(self.params)}{self.tag}"

    @property
    def result(self) -> str:
        r = self.prim.result_type(["int"] * len(self.params))
        return "str" if r in SHOW else r

    def call(self, xs: list[str]) -> str:
        """The expression of the entry on the parameters ``xs``."""
        name = self.prim.name
        if name == "dt.strptime":
            return f"datetime.datetime.strptime({xs[0]}, {self.const[0]!r})"
        if name == "dt.strftime":
            return f"{xs[0]}.strftime({self.const[0]!r})"
        if name.startswith("make_"):
            cls = {"make_date": "date", "make_datetime": "datetime",
                   "make_timedelta": "timedelta"}[name]  # fmt: skip
            return f"datetime.{cls}({', '.join(xs)})"
        attr = name[3:]
        method = attr in ("weekday", "isoweekday", "date", "total_seconds")
        base = xs[0]
        if name.startswith("td."):  # a timedelta of (days, microseconds)
            base = f"datetime.timedelta(days={xs[0]}, microseconds={xs[1]})"
        return f"{base}.{attr}{'()' if method else ''}"


def _td_args(td: datetime.timedelta) -> tuple[int, int]:
    return (td.days, td.seconds * 1_000_000 + td.microseconds)


def signatures(prim: Primitive) -> list[Sig]:
    n = prim.arity[1]
    if prim.name.startswith("make_"):
        ints = tuple(e for e in prim.edges if all(type(v) is int for v in e))
        out = [Sig(prim, ("int",) * n, ints)]
        floats = tuple(tuple(float(v) for v in e) for e in prim.edges if e not in ints)
        if floats:
            out.append(Sig(prim, ("float",) * n, floats))
        return out
    if prim.name.startswith("td."):
        return [Sig(prim, ("int", "int"), tuple(_td_args(e[0]) for e in prim.edges))]
    if prim.name in ("dt.strptime", "dt.strftime"):  # one algorithm per constant format
        formats = list(dict.fromkeys(e[1] for e in prim.edges))
        kind = "str" if prim.name == "dt.strptime" else "datetime"
        return [Sig(prim, (kind,), tuple(e[:1] for e in prim.edges if e[1] == f), (f,), f"_{k}")
                for k, f in enumerate(formats)]
    out = []
    for kind, cls in (("datetime", datetime.datetime), ("date", datetime.date)):
        cases = tuple(e for e in prim.edges if type(e[0]) is cls)
        if cases:
            out.append(Sig(prim, (kind,), cases))
    return out


def all_signatures() -> list[Sig]:
    return [s for p in ENTRIES for s in signatures(p)]


def reference(sig: Sig, args: tuple) -> Any:
    """CPython's outcome on ``args``: the returned value (as the algorithm shows it) or
    the class raised; a timedelta beyond Spark's 64-bit interval counts as OverflowError
    (the entry's ``beyond64`` clause)."""
    try:
        if sig.prim.name.startswith("td."):
            v = sig.prim.reference(datetime.timedelta(days=args[0], microseconds=args[1]))
        else:
            v = sig.prim.reference(*args, *sig.const)
    except Exception as e:  # noqa: BLE001 - the class is the outcome
        return type(e)
    if isinstance(v, datetime.timedelta):
        us = sum(x * u for x, u in zip(args, TD_UNITS, strict=False))
        if abs(round(us)) > SPARK_TD_MAX_US:
            return OverflowError
    return show(v)


def raises(v: Any) -> bool:
    return isinstance(v, type) and issubclass(v, BaseException)


HEADER = """# generated by tests/spark/datetime_edges.py
import datetime

from looplift import RowStream, dataflow, group_by

"""


def algo_name(context: str, sig: Sig, optional: bool = False) -> str:
    return f"{context}_{sig.ident}{'_opt' if optional else ''}"


def source(context: str, sig: Sig, optional: bool = False) -> str:
    xs = [f"x{i}" for i in range(len(sig.params))]
    ts = [ANNOT[t] + (" | None" if optional else "") for t in sig.params]
    kind = sig.prim.result_type(["int"] * len(xs))
    value = sig.call(xs)
    body = [f"t = {value}", f"r = {SHOW[kind].format(t='t')}" if kind in SHOW else "r = t"]
    r = sig.result
    name = algo_name(context, sig, optional)
    params = ", ".join(f"{x}: {t}" for x, t in zip(xs, ts, strict=True))
    if context == "scalar":
        lines = "\n".join(f"    {b}" for b in body)
        return f"@dataflow\ndef {name}({params}) -> {r}:\n{lines}\n    return r\n"
    if context == "guard":
        lines = "\n".join(f"        {b}" for b in body)
        return (f"@dataflow\ndef {name}(c: bool, {params}) -> {r}:\n    r = {ZERO[r]}\n"
                f"    if c:\n{lines}\n    return r\n")  # fmt: skip
    if context == "group":
        lines = "\n".join(f"            {b}" for b in body)
        return (f"@dataflow(columns=(\"k\", \"r\"))\ndef {name}(rows: RowStream[int, "
                f"{', '.join(ts)}]):\n    for k, g in group_by(0, rows):\n"
                f"        for _k, {', '.join(xs)} in g:\n{lines}\n            yield k, r\n")  # fmt: skip
    raise ValueError(context)


def module_source(sigs: list[Sig]) -> str:
    parts = [HEADER]
    for sig in sigs:
        for context in ("scalar", "guard", "group"):
            parts.append(source(context, sig) + "\n")
        if sig.params[0] != "float":
            parts.append(source("scalar", sig, optional=True) + "\n")
    return "\n".join(parts)


def context_row(context: str, args: tuple, i: int, c: bool = True) -> tuple:
    if context == "guard":
        return (c, *args)
    if context == "group":
        return (i, *args)
    return args


def none_case(sig: Sig) -> tuple:
    """The arguments with the first one None (Python raises TypeError or AttributeError)."""
    return (None, *sig.cases[0][1:])


_ = math
