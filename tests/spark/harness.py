"""Differential harness: a compiled algorithm on Spark against its CPython reference.

The API contract under test (SPEC §5):

- *table* algorithm (has ``yield``): ``algo(df, *scalars)`` is a DataFrame whose
  columns are ``algo.columns`` (else ``_1, _2, ...``); its rows equal the
  reference ``algo(rows, *scalars)`` as a multiset.
- *aggregate* (a RowStream parameter, returns a value): ``algo(df, *scalars)`` is
  a one-row DataFrame with one column named after the algorithm (a struct with
  fields ``_1.._n`` when the value is a tuple).
- *scalar* (no RowStream parameter): ``algo(col, ...)`` is a Column;
  ``df.select(algo(...))`` equals ``algo(a, ...)`` row by row.
- Where Python raises, collecting the compiled result raises too, with an error
  that stands for the same Python exception class (:func:`same_error_class`: a
  ``ZeroDivisionError`` matched by Spark's ``DIVIDE_BY_ZERO`` passes, matched by
  an ``AnalysisException`` or a ``ValueError`` it fails). A Python int result
  outside the 64-bit range counts as "Python raises" ``OverflowError`` (the
  compiled plan must fail rather than wrap).

Comparison rules (``same``): floats to 1e-9 relative (1e-12 absolute), an int
and a float of equal value are equal (Spark may type a median as double), None
only equals None, NaN equals NaN, bools only equal bools, sequences compare
element-wise (a Spark struct comes back as a tuple, an array as a list).

Every compiled call goes through :func:`call_algorithm`, so a test can swap in
a stand-in backend (``tests/spark/fake_backend.py``) to check this harness
without the real one.
"""

from __future__ import annotations

import ast
import builtins
import datetime
import decimal
import doctest
import inspect
import math
import os
import re
import types
import typing
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import strategies as st
from looplift import Dataflow
from looplift.streams import rowstream_fields

from tests.frames import create_frame

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
REL_TOL = 1e-9
ABS_TOL = 1e-12

# -- field types -----------------------------------------------------------------

BASE_TYPES = (bool, int, float, str, datetime.datetime, datetime.date)


@dataclass(frozen=True)
class FieldType:
    """One RowStream field or scalar parameter: a base type, maybe Optional."""

    base: type
    optional: bool = False

    def __repr__(self) -> str:
        name = self.base.__name__
        return f"Optional[{name}]" if self.optional else name


def field_type(annotation: Any, fn: Callable[..., Any] | None = None) -> FieldType:
    """``int``, ``Optional[float]``, ``str | None``, ``"datetime.date"``, ... as a FieldType.

    Unresolvable annotations (``Any``, a name the module cannot evaluate) count as int.
    """
    if isinstance(annotation, str):
        scope: dict[str, Any] = dict(vars(builtins))
        if fn is not None:
            scope.update(fn.__globals__)
        try:
            annotation = eval(annotation, scope)  # noqa: S307 - an annotation of our own corpus
        except Exception:  # noqa: BLE001
            return FieldType(int)
    origin = typing.get_origin(annotation)
    if origin is typing.Union or isinstance(annotation, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        inner = field_type(args[0], fn) if len(args) == 1 else FieldType(int)
        return FieldType(inner.base, optional=True)
    if annotation in BASE_TYPES:
        return FieldType(annotation)
    return FieldType(int)


@dataclass(frozen=True)
class Param:
    name: str
    is_rows: bool
    types: tuple[FieldType, ...]  # the fields of a RowStream; one entry for a scalar


def params_of(algo: Dataflow) -> list[Param]:
    out = []
    for p in algo.signature.parameters.values():
        fields = rowstream_fields(p.annotation, algo.fn)
        if fields is not None:
            out.append(Param(p.name, True, tuple(field_type(t, algo.fn) for t in fields)))
        else:
            ann = p.annotation if p.annotation is not inspect.Parameter.empty else int
            out.append(Param(p.name, False, (field_type(ann, algo.fn),)))
    return out


def kind_of(algo: Dataflow) -> str:
    """``"table"``, ``"aggregate"`` or ``"scalar"`` (SPEC §2), from the signature."""
    rows = [p for p in params_of(algo) if p.is_rows]
    if not rows:
        return "scalar"
    if len(rows) > 1:
        raise NotImplementedError(f"{algo.name}: the harness handles one RowStream parameter")
    return "table" if inspect.isgeneratorfunction(algo.fn) else "aggregate"


def row_types(algo: Dataflow) -> tuple[FieldType, ...]:
    """The field types of the RowStream parameter (of the arguments, for a scalar algorithm)."""
    ps = params_of(algo)
    rows = [p for p in ps if p.is_rows]
    if rows:
        return rows[0].types
    return tuple(p.types[0] for p in ps)


def scalar_types(algo: Dataflow) -> tuple[FieldType, ...]:
    """The types of the scalar parameters next to the RowStream (table and aggregate)."""
    return tuple(p.types[0] for p in params_of(algo) if not p.is_rows)


def bind(algo: Dataflow, rows: Any, scalars: Sequence[Any]) -> list[Any]:
    """Positional arguments: ``rows`` for the RowStream parameter, ``scalars`` in order."""
    it = iter(scalars)
    args = [rows if p.is_rows else next(it) for p in params_of(algo)]
    rest = list(it)
    assert not rest, f"{algo.name}: too many scalar arguments {rest!r}"
    return args


def split_args(algo: Dataflow, args: Sequence[Any]) -> tuple[list[tuple], tuple]:
    """Example arguments (as in a corpus ``EXAMPLES`` entry) -> (rows, scalars)."""
    ps = params_of(algo)
    assert len(args) == len(ps), f"{algo.name}: {len(ps)} parameters, example {args!r}"
    rows = [list(a) for p, a in zip(ps, args, strict=True) if p.is_rows]
    scalars = tuple(a for p, a in zip(ps, args, strict=True) if not p.is_rows)
    return [tuple(r) for r in rows[0]], scalars


def coerce_value(value: Any, ft: FieldType) -> Any:
    """An int given for a float field becomes a float (what the DataFrame will hold)."""
    if ft.base is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


def coerce_rows(rows: Sequence[Sequence[Any]], fts: Sequence[FieldType]) -> list[tuple]:
    return [tuple(coerce_value(v, ft) for v, ft in zip(row, fts, strict=True)) for row in rows]


# -- strategies ------------------------------------------------------------------


@dataclass
class Pools:
    """Literals of an algorithm's module, mixed into generated data so that
    comparisons against constants (``kind == "deposit"``, ``v > LIMIT``) take
    both branches."""

    ints: list[int] = field(default_factory=list)
    floats: list[float] = field(default_factory=list)
    strs: list[str] = field(default_factory=list)
    # str keys and items of module-level lookup tables (``RATES = {"EUR": ...}``): values
    # that must be hit often, or most rows only test the KeyError path
    keys: list[str] = field(default_factory=list)


def literal_pools(module: Any) -> Pools:
    """Int, float and short str literals in the module's source (docstrings excluded)."""
    try:
        tree = ast.parse(inspect.getsource(module))
    except (OSError, TypeError, SyntaxError):
        return Pools()
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.FunctionDef | ast.ClassDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0].value))
    ints: set[int] = set()
    floats: set[float] = set()
    strs: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or id(node) in docstrings:
            continue
        v = node.value
        if isinstance(v, bool):
            continue
        if isinstance(v, int) and abs(v) <= 10**6:
            ints.update({v - 1, v, v + 1, -v})
        elif isinstance(v, float) and math.isfinite(v) and abs(v) <= 1e6:
            floats.update({v, -v})
        elif isinstance(v, str) and len(v) <= 12:
            strs.add(v)
    keys: set[str] = set()
    for node in tree.body:
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict | ast.Tuple)
                and not any(isinstance(t, ast.Name) and t.id in ("EXAMPLES", "EXPECTED")
                            for t in node.targets)):  # fmt: skip
            elems = node.value.keys if isinstance(node.value, ast.Dict) else node.value.elts
            keys.update(e.value for e in elems
                        if isinstance(e, ast.Constant) and isinstance(e.value, str))  # fmt: skip
    return Pools(sorted(ints), sorted(floats), sorted(strs), sorted(keys))


def weighted(*pairs: tuple[int, st.SearchStrategy]) -> st.SearchStrategy:
    """Draw from one of the strategies with the given relative weights (first one simplest)."""
    choices = [s for w, s in pairs for _ in range(w)]
    return st.sampled_from(choices).flatmap(lambda s: s)


LARGE_INTS = [
    2**62,
    -(2**62),
    2**62 + 12345,
    -(2**62) - 1,
    3 * 2**61,
    INT64_MAX,
    INT64_MIN,
]
TRICKY_FLOATS = [0.1, 0.2, 0.5, 1.5, 2.5, -2.5, 2.675, 1 / 3, -0.0, 1e-7, 123456.789]
STRINGS = ["", "a", "b", "ab", "B", "a b", "é", "日本", "x/y", " a ", "🙂"]
DT_BASE = datetime.datetime(2024, 2, 28, 22, 0)  # three days around a leap day and midnights
DATE_BASE = datetime.date(2024, 2, 26)


def ints(pools: Pools | None = None, large: bool = True) -> st.SearchStrategy[int]:
    """Mostly small (groups repeat), some medium, some module literals, rarely near ±2**62."""
    pool = (pools.ints if pools else []) or [0, 1, -1]
    return weighted(
        (30, st.integers(-3, 3)),
        (10, st.sampled_from(pool)),
        (8, st.integers(-1000, 1000)),
        (1 if large else 0, st.sampled_from(LARGE_INTS)),  # 2%: a tenth of the inputs
    )


def floats(pools: Pools | None = None) -> st.SearchStrategy[float]:
    """Mostly quarter steps in [-8, 8] (exact in binary, so sums do not depend on the
    order), some awkward decimals, module literals, and rarely any finite float."""
    pool = [float(x) for x in (pools.ints if pools else [])] + (pools.floats if pools else [])
    return weighted(
        (10, st.integers(-32, 32).map(lambda k: k / 4)),
        (2, st.sampled_from(TRICKY_FLOATS)),
        (2, st.sampled_from(pool or [0.0])),
        (1, st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)),
    )


def strings(pools: Pools | None = None) -> st.SearchStrategy[str]:
    pool = (pools.strs if pools else []) or ["z"]
    alphabet = st.characters(codec="utf-8", exclude_categories=("Cs", "Cc"))
    keys = pools.keys if pools else []
    return weighted(
        (6, st.sampled_from(STRINGS)),
        (4, st.sampled_from(pool)),
        (1, st.text(alphabet, max_size=5)),
        (22 if keys else 0, st.sampled_from(keys or ["z"])),
    )


def datetimes() -> st.SearchStrategy[datetime.datetime]:
    """Three days in 2024 (across Feb 29), mostly whole minutes, some microseconds."""
    minutes = st.integers(0, 3 * 24 * 60).map(lambda m: DT_BASE + datetime.timedelta(minutes=m))
    micros = st.integers(0, 3 * 24 * 3600 * 10**6).map(
        lambda us: DT_BASE + datetime.timedelta(microseconds=us)
    )
    return weighted((4, minutes), (1, micros))


def dates() -> st.SearchStrategy[datetime.date]:
    return st.integers(0, 6).map(lambda d: DATE_BASE + datetime.timedelta(days=d))


def values(ft: FieldType, pools: Pools | None = None, large: bool = True) -> st.SearchStrategy:
    """Values of one field type; None often (a third of the time) for Optional fields."""
    base: st.SearchStrategy
    if ft.base is bool:
        base = st.booleans()
    elif ft.base is int:
        base = ints(pools, large)
    elif ft.base is float:
        base = floats(pools)
    elif ft.base is str:
        base = strings(pools)
    elif ft.base is datetime.datetime:
        base = datetimes()
    elif ft.base is datetime.date:
        base = dates()
    else:  # pragma: no cover - field_type only makes the types above
        raise TypeError(ft)
    if ft.optional:
        return weighted((2, base), (1, st.none()))
    return base


def scalar_values(ft: FieldType, pools: Pools | None = None) -> st.SearchStrategy:
    """A scalar parameter next to a RowStream (a SQL literal at the call): small values."""
    if ft.base is int:
        return weighted(
            (4, st.integers(0, 5)),
            (2, st.integers(-3, 50)),
            (2, st.sampled_from((pools.ints if pools else []) or [0])),
        )
    return values(FieldType(ft.base), pools, large=False)


@st.composite
def row_lists(
    draw: Any, fts: Sequence[FieldType], pools: Pools | None = None, max_size: int = 25
) -> list[tuple]:
    """0..max_size rows (mostly 2..8; empty and single-row inputs now and then), sometimes
    with exact duplicates of some rows appended."""
    row = st.tuples(*[values(ft, pools) for ft in fts])
    sizes = weighted(
        (1, st.just(0)),  # hypothesis tries the empty input first anyway
        (2, st.just(1)),
        (10, st.integers(2, 8)),
        (5, st.integers(2, 25)),
    )
    size = min(draw(sizes), max_size)
    rows = draw(st.lists(row, min_size=size, max_size=size))
    if rows and draw(st.integers(0, 3)) == 0:
        rows = rows + draw(st.lists(st.sampled_from(rows), min_size=1, max_size=4))
    return rows


def table_inputs(
    algo: Dataflow, pools: Pools | None = None, max_size: int = 25
) -> st.SearchStrategy:
    """``(rows, scalars)`` for a table or aggregate algorithm."""
    return st.tuples(
        row_lists(row_types(algo), pools, max_size),
        st.tuples(*[scalar_values(ft, pools) for ft in scalar_types(algo)]),
    )


def scalar_inputs(
    algo: Dataflow, pools: Pools | None = None, max_size: int = 40
) -> st.SearchStrategy:
    """A batch of argument tuples for a scalar algorithm (one Spark job per batch)."""
    row = st.tuples(*[values(ft, pools) for ft in row_types(algo)])
    return st.lists(row, min_size=1, max_size=max_size)


# -- to and from Spark -------------------------------------------------------------


def spark_type(ft: FieldType) -> Any:
    from pyspark.sql import types as T

    return {
        bool: T.BooleanType(),
        int: T.LongType(),
        float: T.DoubleType(),
        str: T.StringType(),
        datetime.datetime: T.TimestampType(),
        datetime.date: T.DateType(),
    }[ft.base]


def column_names(n: int, names: Sequence[str] | None = None) -> list[str]:
    if names is None:
        return [f"c{i}" for i in range(n)]
    assert len(names) == n, (names, n)
    return list(names)


def spark_schema(
    fts: Sequence[FieldType], names: Sequence[str] | None = None, nullable: bool | None = None
) -> Any:
    """The DataFrame schema for RowStream fields: Optional fields are nullable, the
    others not (``nullable=True`` makes every column nullable, like most real tables)."""
    from pyspark.sql import types as T

    return T.StructType(
        [
            T.StructField(name, spark_type(ft), ft.optional if nullable is None else nullable)
            for name, ft in zip(column_names(len(fts), names), fts, strict=True)
        ]
    )


def to_spark_value(v: Any) -> Any:
    """Naive datetimes are UTC (the session time zone): pass them to Spark as aware
    values, so that the machine's local time zone never enters."""
    if isinstance(v, datetime.datetime) and v.tzinfo is None:
        return v.replace(tzinfo=datetime.UTC)
    if isinstance(v, list):
        return [to_spark_value(x) for x in v]
    if isinstance(v, tuple):
        return tuple(to_spark_value(x) for x in v)
    return v


def to_df(
    spark: Any,
    rows: Sequence[Sequence[Any]],
    fts: Sequence[FieldType],
    names: Sequence[str] | None = None,
    nullable: bool | None = None,
) -> Any:
    """A DataFrame of ``rows`` with the explicit schema of ``fts`` (columns ``c0, c1, ...``
    unless ``names`` are given)."""
    data = [tuple(to_spark_value(v) for v in r) for r in coerce_rows(rows, fts)]
    return create_frame(spark, data, spark_schema(fts, names, nullable))


def from_spark(value: Any, dtype: Any = None) -> Any:
    """A collected Spark value as the Python value the reference would give: Row/struct
    -> tuple, array -> list, timestamps -> naive UTC datetimes. Decimals are never
    expected (no looplift type maps to one)."""
    from pyspark.sql import Row
    from pyspark.sql import types as T

    if value is None:
        return None
    if isinstance(value, decimal.Decimal):
        raise AssertionError(f"Spark returned a Decimal ({value!r}); the contract has none")
    if isinstance(value, Row):
        fields = dtype.fields if isinstance(dtype, T.StructType) else [None] * len(value)
        return tuple(
            from_spark(v, getattr(f, "dataType", None)) for v, f in zip(value, fields, strict=True)
        )
    if isinstance(value, list):
        elem = dtype.elementType if isinstance(dtype, T.ArrayType) else None
        return [from_spark(v, elem) for v in value]
    if isinstance(value, dict):
        kt, vt = (dtype.keyType, dtype.valueType) if isinstance(dtype, T.MapType) else (None, None)
        return {from_spark(k, kt): from_spark(v, vt) for k, v in value.items()}
    if isinstance(value, datetime.datetime):
        if value.tzinfo is None and isinstance(dtype, T.TimestampNTZType):
            return value
        # TimestampType: PySpark gives a naive datetime in the machine's local time
        # zone (astimezone reads a naive value as local time): back to naive UTC.
        return value.astimezone(datetime.UTC).replace(tzinfo=None)
    return value


def collect(df: Any) -> list[tuple]:
    """Collect a DataFrame as Python tuples (schema-aware conversion)."""
    fields = df.schema.fields
    return [
        tuple(from_spark(v, f.dataType) for v, f in zip(row, fields, strict=True))
        for row in df.collect()
    ]


# -- comparison --------------------------------------------------------------------


def same(got: Any, want: Any) -> bool:
    """Equality per the harness rules (module docstring)."""
    if got is None or want is None:
        return got is None and want is None
    if isinstance(got, bool) or isinstance(want, bool):
        return isinstance(got, bool) and isinstance(want, bool) and got == want
    if isinstance(got, int | float) and isinstance(want, int | float):
        if isinstance(got, int) and isinstance(want, int):
            return got == want
        g, w = float(got), float(want)
        if math.isnan(g) or math.isnan(w):
            return math.isnan(g) and math.isnan(w)
        if math.isinf(g) or math.isinf(w):
            return g == w
        return math.isclose(g, w, rel_tol=REL_TOL, abs_tol=ABS_TOL)
    if isinstance(got, list | tuple) and isinstance(want, list | tuple):
        return len(got) == len(want) and all(same(g, w) for g, w in zip(got, want, strict=True))
    if isinstance(got, datetime.date) or isinstance(want, datetime.date):
        # datetime is a subclass of date: a date never equals a timestamp
        return type(got) is type(want) and got == want
    return type(got) is type(want) and got == want


def _sort_key(v: Any) -> Any:
    if v is None:
        return (0, "")
    if isinstance(v, bool):
        return (1, str(v))
    if isinstance(v, int | float):
        return (2, "nan" if isinstance(v, float) and math.isnan(v) else f"{float(v):+.6e}")
    if isinstance(v, list | tuple):
        return (3, tuple(_sort_key(x) for x in v))
    return (4, f"{type(v).__name__}:{v!s}")


def _fmt_rows(rows: Sequence[Any], limit: int = 40) -> str:
    shown = "\n".join(f"    {r!r}" for r in sorted(rows, key=_sort_key)[:limit])
    more = f"\n    ... {len(rows) - limit} more" if len(rows) > limit else ""
    return shown + more


def assert_same(kind: str, got: Any, want: Any, context: str = "") -> None:
    """``table``: multisets of rows; ``aggregate``: one value; ``scalar``: lists of
    values, row by row."""
    ctx = f"{context}\n" if context else ""
    if kind == "table":
        left = list(want)
        unmatched = []
        for row in got:
            for i, w in enumerate(left):
                if same(row, w):
                    del left[i]
                    break
            else:
                unmatched.append(row)
        if unmatched or left:
            raise AssertionError(
                f"{ctx}rows differ (multiset): {len(got)} compiled, {len(want)} reference\n"
                f"  only in compiled:\n{_fmt_rows(unmatched)}\n"
                f"  only in reference:\n{_fmt_rows(left)}"
            )
    elif kind == "aggregate":
        if not same(got, want):
            raise AssertionError(f"{ctx}compiled {got!r} != reference {want!r}")
    elif kind == "scalar":
        assert len(got) == len(want), f"{ctx}{len(got)} compiled rows, {len(want)} reference"
        bad = [(i, g, w) for i, (g, w) in enumerate(zip(got, want, strict=True)) if not same(g, w)]
        if bad:
            lines = "\n".join(
                f"    row {i}: compiled {g!r} != reference {w!r}" for i, g, w in bad[:20]
            )
            raise AssertionError(f"{ctx}{len(bad)} of {len(got)} rows differ\n{lines}")
    else:
        raise ValueError(kind)


# -- running -----------------------------------------------------------------------


class Int64Overflow(OverflowError):
    """The reference computed an int outside the 64-bit range: Python does not raise,
    but the compiled plan must (SPEC §4), so the reference counts as raising."""


def check_int64(value: Any, what: str = "result") -> Any:
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and not INT64_MIN <= value <= INT64_MAX:
        raise Int64Overflow(f"{what} {value} does not fit in 64 bits")
    if isinstance(value, list | tuple):
        for v in value:
            check_int64(v, what)
    return value


def run_reference(
    algo: Dataflow, rows: Sequence[Sequence[Any]], scalars: Sequence[Any] = ()
) -> Any:
    """The CPython reference on the same (coerced) data the DataFrame holds.

    table -> list of row tuples; aggregate -> its value; scalar -> list of values,
    one per argument tuple in ``rows``. Raises where Python raises, and
    :class:`Int64Overflow` for an int result beyond 64 bits.
    """
    data = coerce_rows(rows, row_types(algo))
    if kind_of(algo) == "scalar":
        assert not scalars, "a scalar algorithm takes its arguments as rows"
        return [check_int64(algo(*args)) for args in data]
    scalars = tuple(coerce_value(v, ft) for v, ft in zip(scalars, scalar_types(algo), strict=True))
    return check_int64(algo(*bind(algo, data, scalars)))


def call_algorithm(algo: Dataflow, *args: Any) -> Any:
    """The one place that calls a compiled algorithm (a test may replace it)."""
    return algo(*args)


class CallError(AssertionError):
    """Calling the algorithm with Spark arguments failed before any data was read, or
    returned the wrong kind of object: the API contract is not met."""


def _call(algo: Dataflow, *args: Any) -> Any:
    try:
        return call_algorithm(algo, *args)
    except Exception as e:
        raise CallError(
            f"calling {algo.name} with Spark arguments failed: {type(e).__name__}: {e}"
        ) from e


def expected_columns(algo: Dataflow, width: int | None) -> list[str] | None:
    if algo.columns is not None:
        return list(algo.columns)
    if width is None:
        return None
    return [f"_{i}" for i in range(1, width + 1)]


def compiled_frame(
    spark: Any,
    algo: Dataflow,
    rows: Sequence[Sequence[Any]],
    scalars: Sequence[Any] = (),
    names: Sequence[str] | None = None,
    nullable: bool | None = None,
) -> Any:
    """``algo(df, *scalars)`` for a table or aggregate algorithm (not collected)."""
    from pyspark.sql import DataFrame

    df = to_df(spark, rows, row_types(algo), names, nullable)
    scalars = tuple(coerce_value(v, ft) for v, ft in zip(scalars, scalar_types(algo), strict=True))
    out = _call(algo, *bind(algo, df, scalars))
    if not isinstance(out, DataFrame):
        raise CallError(f"{algo.name}(df) returned {type(out).__name__}, not a DataFrame")
    return out


def run_compiled(
    spark: Any,
    algo: Dataflow,
    rows: Sequence[Sequence[Any]],
    scalars: Sequence[Any] = (),
    names: Sequence[str] | None = None,
    nullable: bool | None = None,
) -> Any:
    """The compiled run, in the reference's shape (see :func:`run_reference`).

    Raises :class:`CallError` when the call itself breaks the contract, and whatever
    Spark raises while collecting.
    """
    if kind_of(algo) == "scalar":
        return run_compiled_scalar(spark, algo, rows)
    out = checked_frame(spark, algo, rows, scalars, names, nullable)
    return result_of(algo, collect(out))


def checked_frame(
    spark: Any,
    algo: Dataflow,
    rows: Sequence[Sequence[Any]],
    scalars: Sequence[Any] = (),
    names: Sequence[str] | None = None,
    nullable: bool | None = None,
) -> Any:
    """:func:`compiled_frame`, its columns checked against the contract (:class:`CallError`)."""
    out = compiled_frame(spark, algo, rows, scalars, names, nullable)
    cols = list(out.columns)
    if kind_of(algo) == "table":
        want = expected_columns(algo, None)
        if want is not None and cols != want:
            raise CallError(f"{algo.name}: columns {cols}, expected {want}")
        if want is None and cols != expected_columns(algo, len(cols)):
            raise CallError(f"{algo.name}: columns {cols}, expected _1.._{len(cols)}")
    elif cols != [algo.name]:
        raise CallError(f"{algo.name}: aggregate columns {cols}, expected [{algo.name!r}]")
    return out


def result_of(algo: Dataflow, collected: list[tuple]) -> Any:
    """A table's collected rows, or an aggregate's one value (exactly one row)."""
    if kind_of(algo) == "table":
        return collected
    if len(collected) != 1:
        raise AssertionError(f"{algo.name}: aggregate gave {len(collected)} rows, expected 1")
    return collected[0][0]


def run_compiled_scalar(spark: Any, algo: Dataflow, arg_rows: Sequence[Sequence[Any]]) -> list[Any]:
    """``df.select(algo(F.col("c0"), ...))`` over a DataFrame of argument rows, in order."""
    from pyspark.sql import Column
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    fts = row_types(algo)
    # a row id next to the arguments, to compare row by row whatever the output order
    schema = T.StructType([T.StructField("_id", T.LongType(), False), *spark_schema(fts).fields])
    data = [(i, *to_spark_value(tuple(r))) for i, r in enumerate(coerce_rows(arg_rows, fts))]
    df = create_frame(spark, data, schema)
    col = _call(algo, *[F.col(c) for c in column_names(len(fts))])
    if not isinstance(col, Column):
        raise CallError(f"{algo.name}(Column, ...) returned {type(col).__name__}, not a Column")
    out = df.select(F.col("_id"), col.alias("result"))
    got = sorted(collect(out), key=lambda r: r[0])
    assert [r[0] for r in got] == list(range(len(arg_rows))), "rows lost or duplicated"
    return [r[1] for r in got]


# -- the verdict -------------------------------------------------------------------


@dataclass
class Outcome:
    value: Any = None
    error: BaseException | None = None

    @property
    def raised(self) -> bool:
        return self.error is not None


def attempt(fn: Callable[[], Any]) -> Outcome:
    try:
        return Outcome(value=fn())
    except CallError:
        raise
    except Exception as e:  # noqa: BLE001 - any error is an outcome here
        return Outcome(error=e)


def _has_large_int(values: Any) -> bool:
    if isinstance(values, bool):
        return False
    if isinstance(values, int):
        return abs(values) > 2**31
    if isinstance(values, list | tuple):
        return any(_has_large_int(v) for v in values)
    return False


def overflow_allowed(error: BaseException, rows: Any, scalars: Any) -> bool:
    """A compiled run may fail with an overflow error where Python did not overflow
    in its *result* but the inputs hold ints beyond 32 bits: Python's unbounded
    intermediates (``a * b // c``, a sum that overflows and comes back) cannot be
    reproduced in 64 bits, and an error is the documented answer (SPEC §4)."""
    return "overflow" in str(error).lower() and (_has_large_int(rows) or _has_large_int(scalars))


VERDICTS: Counter[str] = Counter()  # what the comparisons of this session found
BATCHES: Counter[str] = Counter()  # inputs compared by expect_same_batch, batches run alone


def mirrors_at_call(error: BaseException | None, python_error: BaseException) -> bool:
    """May an error raised while *building* the plan stand for Python's error? Only
    Python's own validation of the call (``TopK(k)`` with ``k < 0`` -> ValueError),
    never a backend that cannot build the plan (NotImplementedError, TypeError,
    AttributeError, PySpark's own errors): data-dependent errors need the data."""
    if error is None or isinstance(error, NotImplementedError | TypeError | AttributeError):
        return False
    if type(error).__module__.startswith(("pyspark", "py4j")):
        return False
    expected = OverflowError if isinstance(python_error, Int64Overflow) else type(python_error)
    return isinstance(error, expected)


# Spark error conditions and the Python exception each stands for (ANSI mode).
SPARK_CONDITIONS = {
    "DIVIDE_BY_ZERO": "ZeroDivisionError",
    "INTERVAL_DIVIDED_BY_ZERO": "ZeroDivisionError",
    "REMAINDER_BY_ZERO": "ZeroDivisionError",
    "ARITHMETIC_OVERFLOW": "OverflowError",
    "BINARY_ARITHMETIC_OVERFLOW": "OverflowError",
    "CAST_OVERFLOW": "OverflowError",
    "CAST_OVERFLOW_IN_TABLE_INSERT": "OverflowError",
    "NUMERIC_VALUE_OUT_OF_RANGE": "OverflowError",
    "CAST_INVALID_INPUT": "ValueError",
    "INVALID_ARRAY_INDEX": "IndexError",
    "INVALID_ARRAY_INDEX_IN_ELEMENT_AT": "IndexError",
}
_NAMED = re.compile(r"\b([A-Z][A-Za-z]*(?:Error|Exception|Overflow))\b")
_RAISED_LINE = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception|Overflow))(?::|$)", re.M)


def _builtin_exception(name: str) -> bool:
    import statistics

    obj = getattr(builtins, name, None) or getattr(statistics, name, None)
    return isinstance(obj, type) and issubclass(obj, BaseException)


def python_error_of(error: BaseException) -> str | None:
    """The Python exception class a compiled run's error stands for, or None when it
    stands for none (a plan that Spark could not analyse, an internal failure).

    - a plain Python exception (raised while building the plan or in the driver): its class;
    - a Python worker's error (``PythonException``): the class on the traceback's last line;
    - an ANSI error condition (``DIVIDE_BY_ZERO`` ...): :data:`SPARK_CONDITIONS`;
    - ``raise_error`` (``USER_RAISED_EXCEPTION``): the Python class its message names
      (``looplift: ... (Python raises TypeError)``, ``ZeroDivisionError: ...``), or
      ``OverflowError`` for looplift's 64-bit overflow checks;
    - ``AnalysisException`` and any other Spark error: None.
    """
    module = type(error).__module__
    if not module.startswith(("pyspark", "py4j")):
        return "OverflowError" if isinstance(error, OverflowError) else type(error).__name__
    from pyspark.errors import AnalysisException, PythonException

    if isinstance(error, AnalysisException):
        return None
    message = str(error)
    if isinstance(error, PythonException):
        raised = _RAISED_LINE.findall(message)
        name = raised[-1].rsplit(".", 1)[-1] if raised else None
        return "OverflowError" if name == Int64Overflow.__name__ else name
    condition = getattr(error, "getCondition", lambda: None)() or ""
    if condition in SPARK_CONDITIONS:
        return SPARK_CONDITIONS[condition]
    if condition.startswith("USER_RAISED_EXCEPTION"):
        named = [n for n in _NAMED.findall(message) if _builtin_exception(n)]
        if named:
            return named[0]
        if "64 bits" in message or "overflow" in message.lower():
            return "OverflowError"
    return None


def same_error_class(python_error: BaseException, compiled_error: BaseException) -> bool:
    """Does the compiled run's error stand for the class Python raised (or a base
    class of it other than ``Exception``)? An ``Int64Overflow`` reference stands for
    ``OverflowError``."""
    got = python_error_of(compiled_error)
    if got is None:
        return False
    want = OverflowError if isinstance(python_error, Int64Overflow) else type(python_error)
    accepted = {c.__name__ for c in want.__mro__} - {"Exception", "BaseException", "object"}
    return got in accepted


def describe(algo: Dataflow, rows: Any, scalars: Any) -> str:
    return f"{algo.__module__}.{algo.name}: rows={list(rows)!r} scalars={tuple(scalars)!r}"


def judge(
    kind: str,
    want: Outcome,
    got: Outcome,
    context: str,
    rows: Any = (),
    scalars: Any = (),
    allow_overflow: bool = True,
) -> str:
    """Compare two outcomes; return ``"same"``, ``"both raised"`` or
    ``"overflow allowed"`` (see :func:`overflow_allowed`; off with
    ``allow_overflow=False``), or raise AssertionError."""
    if want.raised:
        if not got.raised:
            raise AssertionError(
                f"{context}\nthe reference raises {type(want.error).__name__}: {want.error}\n"
                f"but the compiled run returned {got.value!r}"
            )
        if not same_error_class(want.error, got.error):
            raise AssertionError(
                f"{context}\nthe reference raises {type(want.error).__name__}: {want.error}\n"
                f"but the compiled run raised {type(got.error).__name__} (standing for "
                f"{python_error_of(got.error) or 'no Python exception'}): "
                f"{str(got.error)[:2000]}"
            ) from got.error
        return "both raised"
    if got.raised:
        if allow_overflow and overflow_allowed(got.error, rows, scalars):
            return "overflow allowed"
        raise AssertionError(
            f"{context}\nthe compiled run raised {type(got.error).__name__}: "
            f"{str(got.error)[:2000]}\nthe reference returned {want.value!r}"
        ) from got.error
    assert_same(kind, got.value, want.value, context)
    return "same"


def expect_same_or_both_raise(
    spark: Any,
    algo: Dataflow,
    rows: Sequence[Sequence[Any]],
    scalars: Sequence[Any] = (),
    names: Sequence[str] | None = None,
    nullable: bool | None = None,
    allow_overflow: bool = True,
) -> str:
    """Run both sides; they must agree, or both raise (any exception on the Spark side
    while collecting). For a scalar algorithm ``rows`` are argument tuples and the
    batch counts as raising when any row raises; see :func:`check_scalar_batch`."""
    kind = kind_of(algo)
    want = attempt(lambda: run_reference(algo, rows, scalars))
    try:
        got = attempt(lambda: run_compiled(spark, algo, rows, scalars, names, nullable))
    except CallError as e:
        if not (want.raised and mirrors_at_call(e.__cause__, want.error)):
            raise
        got = Outcome(error=e.__cause__)
    verdict = judge(kind, want, got, describe(algo, rows, scalars), rows, scalars, allow_overflow)
    VERDICTS[verdict] += 1
    return verdict


def expect_same_batch(
    spark: Any,
    algo: Dataflow,
    inputs: Sequence[tuple[list, tuple]],
    allow_overflow: bool = True,
) -> None:
    """:func:`expect_same_or_both_raise` for several ``(rows, scalars)`` inputs of a table
    or aggregate algorithm on which the reference does not raise, in one Spark action:
    each input's compiled frame (columns checked) gets its input's index as a last
    column, the frames are unioned and collected once, and each input's rows are
    compared with its reference. Spark runs the inputs' query stages side by side,
    which saves most of the per-action cost of running them one by one. When the
    batch fails (a type that does not union, a 64-bit overflow the harness allows
    for one input), every input runs alone, judged as before (``allow_overflow``: see
    :func:`judge`)."""
    from functools import reduce

    from pyspark.sql import functions as F

    inputs = list(inputs)
    if len(inputs) < 2:
        for rows, scalars in inputs:
            expect_same_or_both_raise(spark, algo, rows, scalars, allow_overflow=allow_overflow)
        return
    frames = []
    for i, (rows, scalars) in enumerate(inputs):
        out = checked_frame(spark, algo, rows, scalars)
        width = len(out.columns)
        frames.append(out.toDF(*[f"c{j}" for j in range(width)]).withColumn("_input", F.lit(i)))
    got = attempt(lambda: collect(reduce(lambda a, b: a.union(b), frames)))
    if got.raised:
        BATCHES["batches run alone"] += 1
        for rows, scalars in inputs:
            expect_same_or_both_raise(spark, algo, rows, scalars, allow_overflow=allow_overflow)
        return
    per_input: list[list[tuple]] = [[] for _ in inputs]
    for row in got.value:
        per_input[row[-1]].append(tuple(row[:-1]))
    kind = kind_of(algo)
    for (rows, scalars), collected in zip(inputs, per_input, strict=True):
        want = attempt(lambda rows=rows, scalars=scalars: run_reference(algo, rows, scalars))
        value = attempt(lambda collected=collected: result_of(algo, collected))
        verdict = judge(kind, want, value, describe(algo, rows, scalars), rows, scalars)
        VERDICTS[verdict] += 1
    BATCHES["inputs run in batches"] += len(inputs)


@st.composite
def tied_inputs(draw: Any, fields: tuple, scalars: tuple, min_size: int = 0,
                max_size: int = 20) -> tuple[list, tuple]:  # fmt: skip
    """Rows of ``fields`` (sometimes with exact duplicates: ties in every field) and
    scalars, for the ordered loops' differential tests."""
    rows = draw(st.lists(st.tuples(*fields), min_size=min_size, max_size=max_size))
    if rows and draw(st.booleans()):
        rows += draw(st.lists(st.sampled_from(rows), min_size=1, max_size=3))
    return rows, draw(st.tuples(*scalars))


def drawn(strategy: Any, n: int, digest: str = "") -> list:
    """``n`` values of ``strategy``, derandomized (by ``digest`` too): one per Hypothesis
    example, so the batch holds the simplest value once and ``n - 1`` generated ones.
    (One example of ``st.lists(strategy, min_size=n)`` is no batch: Hypothesis' first
    example is the simplest, n copies of the simplest value.)"""
    from hypothesis import HealthCheck, Phase, given, settings

    out: list = []

    def body(value: Any) -> None:
        out.append(value)

    config = settings(max_examples=n, deadline=None, derandomize=True, database=None,
                      phases=[Phase.generate], suppress_health_check=list(HealthCheck))  # fmt: skip
    body._hypothesis_internal_add_digest = digest.encode()  # type: ignore[attr-defined]
    config(given(strategy)(body))()
    return out


def batch_of(strategy: Any, n: int, digest: str = "") -> Callable[[Callable[[list], None]], Callable[[], None]]:
    """Decorator: run the check once, on :func:`drawn`'s ``n`` values of ``strategy``."""
    return lambda check: lambda: check(drawn(strategy, n, digest or check.__qualname__))


def run_in_one_batch(spark: Any, algo: Dataflow, strategy: Any, n: int, digest: str,
                     allow_overflow: bool) -> None:  # fmt: skip
    """``n`` inputs of ``strategy`` (derandomized by ``digest``): one input on which Python
    raises is checked alone, then the rows that make Python raise go, and everything left
    runs on Spark as one batch against CPython."""
    from hypothesis import HealthCheck, Phase, given, settings

    batch: list[tuple[list, tuple]] = []

    def body(drawn: tuple) -> None:
        rows, scalars = drawn
        if not reference_ok(algo, rows, scalars):
            expect_same_or_both_raise(spark, algo, rows, scalars, allow_overflow=allow_overflow)
            rows = repair(algo, rows, scalars)
        if rows is not None:
            batch.append((rows, scalars))

    config = settings(max_examples=n, deadline=None, derandomize=True, database=None,
                      phases=[Phase.generate], suppress_health_check=list(HealthCheck))  # fmt: skip
    body._hypothesis_internal_add_digest = digest.encode()  # type: ignore[attr-defined]
    config(given(strategy)(body))()
    expect_same_batch(spark, algo, batch, allow_overflow=allow_overflow)


def reference_ok(
    algo: Dataflow, rows: Sequence[Sequence[Any]], scalars: Sequence[Any] = ()
) -> bool:
    return not attempt(lambda: run_reference(algo, rows, scalars)).raised


def repair(
    algo: Dataflow, rows: Sequence[Sequence[Any]], scalars: Sequence[Any] = ()
) -> list | None:
    """A sub-list of ``rows`` on which the reference does not raise (greedy, in order),
    or None. Generated data that makes Python raise (``math.log`` of a negative, a
    zero divisor, an overflow) is still worth comparing without the offending rows."""
    kept: list = []
    for r in rows:
        if reference_ok(algo, [*kept, r], scalars):
            kept.append(r)
    return kept if reference_ok(algo, kept, scalars) else None


def check_scalar_batch(
    spark: Any,
    algo: Dataflow,
    arg_rows: Sequence[Sequence[Any]],
    max_raise_checks: int = 1,
    allow_overflow: bool = True,
) -> dict[str, int]:
    """A scalar algorithm over a batch of argument tuples: the rows on which Python
    does not raise are compared in one Spark job; up to ``max_raise_checks`` rows
    on which it raises are run alone and must raise."""
    good, bad = [], []
    for args in arg_rows:
        (good if reference_ok(algo, [args]) else bad).append(args)
    counts = {"rows": len(good), "raising rows": 0, "overflow allowed": 0}
    if good:
        want = attempt(lambda: run_reference(algo, good))
        got = attempt(lambda: run_compiled_scalar(spark, algo, good))
        verdict = judge("scalar", want, got, describe(algo, good, ()), good, (), allow_overflow)
        VERDICTS[verdict] += 1
        VERDICTS["scalar rows compared"] += len(good)
        if verdict == "overflow allowed":
            counts["overflow allowed"] += 1
    for args in bad[:max_raise_checks]:
        expect_same_or_both_raise(spark, algo, [args], allow_overflow=allow_overflow)
        counts["raising rows"] += 1
    return counts


# -- the algorithms of a module and their examples ---------------------------------


def module_examples(module: Any, algos: Sequence[Dataflow]) -> dict[str, list[tuple]]:
    """Example argument tuples per algorithm: the module's ``EXAMPLES`` dict (the
    corpus convention), else the calls in its doctests (the samples' convention),
    recorded by running the doctests with the algorithms wrapped."""
    own = {a.name: a for a in algos}
    if hasattr(module, "EXAMPLES"):
        return {
            name: [tuple(args) for args in calls]
            for name, calls in module.EXAMPLES.items()
            if name in own
        }
    calls: dict[str, list[tuple]] = {}

    def recorder(algo: Dataflow) -> Callable[..., Any]:
        def record(*args: Any) -> Any:
            calls.setdefault(algo.name, []).append(args)
            return algo(*args)

        return record

    parser = doctest.DocTestParser()
    docs = [module.__doc__ or ""] + [a.fn.__doc__ or "" for a in algos]
    namespace = dict(vars(module))
    namespace.update({name: recorder(a) for name, a in own.items()})
    for doc in docs:
        for ex in parser.get_examples(doc):
            exec(compile(ex.source, f"<doctest {module.__name__}>", "exec"), namespace)  # noqa: S102
    return calls


@dataclass(frozen=True)
class Case:
    """One algorithm of one module, with the module's literal pools and examples."""

    id: str
    path: Path
    algo: Dataflow
    pools: Pools
    examples: tuple[tuple, ...]

    @property
    def kind(self) -> str:
        return kind_of(self.algo)

    def __repr__(self) -> str:
        return self.id


def cases_of(path: Path, module: Any) -> list[Case]:
    from looplift.compiler.cli import algorithms_of

    algos = algorithms_of(module)
    if not algos:
        return []
    pools = literal_pools(module)
    examples = module_examples(module, algos)
    label = f"{path.parent.name}/{path.stem}"
    return [
        Case(f"{label}::{a.name}", path, a, pools, tuple(examples.get(a.name, ()))) for a in algos
    ]


# -- the edge tests' quick run ------------------------------------------------------


EDGES_ALL = os.environ.get("LOOPLIFT_EDGES_ALL") == "1"


def context_share(items: Sequence[Any], context: str, contexts: Sequence[str],
                  every: Sequence[str] = ("scalar",)) -> list[Any]:  # fmt: skip
    """The edge cases (signatures, forms) one context runs: all of them in the contexts
    ``every`` names (and with ``LOOPLIFT_EDGES_ALL=1``); in each other context every n-th,
    rotating, so that each case runs in one of them as well (a Spark job costs per case,
    about a second in a group or fold context, more than per row)."""
    if EDGES_ALL or context in every:
        return list(items)
    others = [c for c in contexts if c not in every]
    i = others.index(context)
    return [x for k, x in enumerate(items) if k % len(others) == i]
