"""Registering compiled algorithms in a session: :func:`register`, :func:`registered`.

Registration makes an algorithm callable from :func:`looplift.sql` (spliced) and from
plain ``spark.sql``: scalar algorithms as SQL functions (inlined by Spark), aggregates as
grouped Arrow UDAFs and table algorithms as Python UDTFs running the reference Python.
"""

from __future__ import annotations

import re
import types
import weakref
from typing import Any

from ..fieldtypes import FIELD_TYPES, base_type, spark_cast
from ..registry import Algorithm
from ..sqltext import quote_ident
from .udfs import arrow_udf, param_order

__all__ = ["register", "registered"]

_REGISTRY: weakref.WeakKeyDictionary[Any, dict[str, Algorithm]] = weakref.WeakKeyDictionary()
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def registered(spark: Any) -> dict[str, Algorithm]:
    """The algorithms registered in a session, by lower-case name."""
    return dict(_REGISTRY.get(spark, {}))


def register(spark: Any, *algorithms: Any, **renamed: Any) -> dict[str, Algorithm]:
    """Make compiled algorithms callable by name from :func:`sql` and ``spark.sql``.

    Each argument is a ``@dataflow`` algorithm, a module (its ``@dataflow``
    algorithms, or a build package's), or a compiled :class:`Algorithm`.
    Keyword arguments register one algorithm under another name
    (``register(spark, top_pages=mode)``). Returns the registered algorithms.
    """
    from ..sessions import prepare_session
    from ..spark import ship

    todo: list[Algorithm] = []
    for a in algorithms:
        todo.extend(_algorithms_of(a))
    for name, a in renamed.items():
        found = _algorithms_of(a)
        if len(found) != 1:
            raise TypeError(f"register(..., {name}=...) takes one algorithm, not {a!r}")
        todo.append(found[0].renamed(name))
    names: dict[str, Algorithm] = {}
    for alg in todo:
        if not _NAME.match(alg.name):
            raise ValueError(f"`{alg.name}` is not a plain SQL name; register it under another")
        if alg.name.lower() in names and names[alg.name.lower()] != alg:
            raise ValueError(f"two algorithms named `{alg.name}`; rename one with name=algorithm")
        names[alg.name.lower()] = alg
    prepare_session(spark)
    ship(sorted({r for alg in names.values() for r in alg.refs}))
    builtins = _builtin_functions(spark)
    for alg in names.values():
        if alg.name.lower() in builtins:
            raise ValueError(
                f"`{alg.name}` is a Spark built-in function; register it under another name, "
                f"e.g. looplift.register(spark, my_{alg.name}={alg.name})"
            )
    for alg in names.values():
        _register_plain(spark, alg)
    reg = _REGISTRY.setdefault(spark, {})
    reg.update(names)
    return names


def _algorithms_of(a: Any) -> list[Algorithm]:
    from ..api import Dataflow

    if isinstance(a, Algorithm):
        return [a]
    if isinstance(a, Dataflow):
        return [a.algorithm()]
    if isinstance(a, types.ModuleType):
        built = getattr(a, "ALGORITHMS", None)
        if isinstance(built, dict):
            return list(built.values())
        found = [v for v in vars(a).values()
                 if isinstance(v, Dataflow) and v.fn.__module__ == a.__name__]  # fmt: skip
        if not found:
            raise TypeError(f"module {a.__name__} has no @dataflow algorithms")
        return [v.algorithm() for v in sorted(found, key=lambda d: d.name)]
    raise TypeError(f"register() takes @dataflow algorithms or modules, not {a!r}")


_BUILTINS: weakref.WeakKeyDictionary[Any, set[str]] = weakref.WeakKeyDictionary()


def _builtin_functions(spark: Any) -> set[str]:
    cache = _BUILTINS.get(spark)
    if cache is None:
        rows = spark.sql("SHOW SYSTEM FUNCTIONS").collect()
        cache = {r[0].split(".")[-1].lower() for r in rows}
        _BUILTINS[spark] = cache
    return cache


def _register_plain(spark: Any, alg: Algorithm) -> None:
    """Register ``alg`` for plain ``spark.sql`` (and its helpers for :func:`sql`)."""
    from ..spark import register_pycalls

    if alg.kind == "scalar":
        assert alg.scalar is not None
        register_pycalls(spark, alg.scalar["pycalls"])
        create = alg.scalar["create"]
        spark.sql(create)  # the hashed name :func:`sql` splices
        fn = quote_ident(alg.scalar["function"])
        spark.sql(create.replace(fn, quote_ident(alg.name), 1))
    elif alg.kind == "aggregate":
        spark.udf.register(alg.name, _reference_udaf(alg))
    else:
        spark.udtf.register(alg.name, _reference_udtf(spark, alg))


# -- plain spark.sql: the reference Python as a UDAF / UDTF ---------------------------------------


def _reference_udaf(alg: Algorithm) -> Any:
    """A grouped Arrow aggregate: the group's rows through the reference function."""
    from ..spark import _out, _pylist

    ref, nfields, rtype = alg.reference(), len(alg.fields), alg.output[0][1]
    order = param_order(alg)

    labels = [f"argument {i + 1}" for i in range(nfields)]

    def reduce_group(*cols: Any) -> Any:
        from ..spark import refuse_nulls

        lists = [_pylist(c) for c in cols]
        rows = list(zip(*lists[:nfields], strict=True))
        refuse_nulls(alg.name, alg.fields, rows, labels)
        scalars = iter(lst[0] if lst else None for lst in lists[nfields:])
        args = [rows if k == "rows" else next(scalars) for k in order]
        return _out(ref(*args), rtype)

    return arrow_udf(reduce_group, rtype, "GROUPED_AGG")


def _reference_udtf(spark: Any, alg: Algorithm) -> Any:
    """A Python UDTF over a ``TABLE(...)`` argument: all rows, then the reference function."""
    from pyspark.sql.functions import udtf
    from pyspark.sql.udtf import AnalyzeResult

    schema = _output_schema(spark, alg)
    ref, order = alg.reference(), param_order(alg)
    ftypes = [f.dataType.simpleString() for f in schema.fields]

    class ReferenceTable:
        @staticmethod
        def analyze(*_args: Any) -> Any:
            return AnalyzeResult(schema=schema, withSinglePartition=True)

        def __init__(self) -> None:
            self.rows: list[tuple] = []
            self.scalars: list[Any] = []

        def eval(self, row: Any, *scalars: Any) -> None:
            from ..spark import refuse_nulls

            values = tuple(row)
            labels = getattr(row, "__fields__", None) or [f"field {i}" for i in range(len(values))]
            if alg.row_fields:  # a named row type: its fields are the columns of their names
                from ..rowtypes import bind_columns

                cols = bind_columns(list(labels), alg.row_fields, alg.name)
                at = {c: v for c, v in zip(labels, values, strict=True)}
                values, labels = tuple(at[c] for c in cols), cols
            refuse_nulls(alg.name, alg.fields, [values], labels)
            self.rows.append(values)
            self.scalars = list(scalars)

        def terminate(self) -> Any:
            from ..spark import _out

            it = iter(self.scalars)
            args = [self.rows if k == "rows" else next(it, None) for k in order]
            for r in ref(*args):
                yield tuple(_out(v, t) for v, t in zip(r, ftypes, strict=True))

    ReferenceTable.__name__ = f"looplift_{alg.name}"
    return udtf(ReferenceTable)


def _output_schema(spark: Any, alg: Algorithm) -> Any:
    """A table algorithm's output schema, as its compiled plan produces it."""
    from pyspark.sql.types import StructType

    names = alg.row_fields or [f"f{i}" for i in range(len(alg.fields))]
    ddl = ", ".join(f"{quote_ident(n)} {spark_cast(t)}"
                    for n, t in zip(names, alg.fields, strict=True))  # fmt: skip
    empty = spark.createDataFrame([], ddl)
    scalars = [_zero(t) for _, t in alg.scalar_params]
    out = alg.plan().plan(spark, empty, *scalars)
    assert isinstance(out.schema, StructType)
    return out.schema


def _zero(t: str) -> Any:
    ft = FIELD_TYPES.get(base_type(t))
    return ft.zero if ft is not None else None
