"""Python functions called from a plan's SQL by name: islands, host functions, and
primitives without an exact native lowering (``str`` methods, ``re``, ``round`` ...).

Each is registered per session as a vectorized (Arrow) function that takes its path first
(is the row on Python's path) and returns per row null off the path, else ``(v, e)``: the
value, or the error the SQL raises where it uses the value (``backend/guarded.py``).
:func:`_vectorized_call` is one batch of such a call.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable, Sequence
from typing import Any

from .errors import exception_text
from .pyprims import IMPLS as PY_IMPLS
from .pyvalues import _nested, _out, _py_in, _pylist
from .sessions import prepare_session
from .strings import IMPLS as STRING_IMPLS

__all__ = ["register_pycalls", "EVERY_ROW"]

#: the name of a function called on every row ends so: it takes no path argument
EVERY_ROW = "_all"


_PRIM_IMPLS: dict[str, Callable[..., Any]] = {"round": round, "str": str, **PY_IMPLS}
_REGISTERED: weakref.WeakKeyDictionary[Any, set[str]] = weakref.WeakKeyDictionary()


def _impl(kind: str, ref: str) -> Callable[..., Any]:
    from .spark import import_ref

    if kind == "host":
        return import_ref(ref)
    if ref.startswith("math."):
        return getattr(math, ref[5:])
    if ref in _PRIM_IMPLS:
        return _PRIM_IMPLS[ref]
    return STRING_IMPLS[ref]  # str methods, re, format, slices


def register_pycalls(spark: Any, pycalls: list[list[Any]]) -> None:
    """Register the vectorized Python functions a plan's SQL calls by name.

    Each takes its path first (true where Python calls it) and returns, per row, null off
    the path, else ``(v, e)``: the value, or the error the SQL raises where it uses it. A
    function whose name ends in :data:`EVERY_ROW` has no path (every row is on it).
    """
    from .spark import _arrow_udf

    prepare_session(spark)
    if not pycalls:
        return
    from pyspark.sql.pandas.types import to_arrow_type

    done = _REGISTERED.setdefault(spark, set())
    for name, kind, ref, arg_types, rtype in pycalls:
        if name in done:
            continue
        fn = _impl(kind, ref)
        every = name.endswith(EVERY_ROW)
        ins = [None] * every + [t if _nested(t) else None for t in arg_types]
        struct = f"struct<v: {rtype}, e: string>"
        # timestamps travel as UTC instants (naive datetimes are UTC wall time)
        arrow_type = to_arrow_type(_ddl(spark, struct), timezone="UTC")

        def call(*arrays: Any, _fn: Callable[..., Any] = fn, _t: str = rtype,
                 _at: Any = arrow_type, _ins: list = ins, _every: bool = every) -> Any:  # fmt: skip
            return _vectorized_call(_fn, (None, *arrays) if _every else arrays, _t, _at, _ins)

        spark.udf.register(name, _arrow_udf(call, struct, "SCALAR"))
        done.add(name)


#: result types whose Python values Arrow takes as they are, when every value has the type
_PLAIN_OUT = {"string": str, "bigint": int, "boolean": bool, "double": float}


def _vectorized_call(fn: Callable[..., Any], arrays: Sequence[Any], rtype: str, arrow_type: Any,
                     ins: list[str | None], distinct: bool = True) -> Any:  # fmt: skip
    """One batch of a Python function called from SQL: ``arrays`` are the path (is the row
    on Python's path; None: every row is) and the arguments; the result is a struct per row, null off the path,
    else ``(v, e)``: the value as ``rtype`` holds it, or the error raised in SQL where the
    value is used.

    The common batch (every row on the path, no error, values of the declared type) costs
    the calls and two conversions: no per-row checks past ``type()``, no error column; a
    batch whose rows repeat their values calls ``fn`` once per distinct argument tuple."""
    import pyarrow as pa

    path, *args = arrays
    n = len(args[0]) if path is None else len(path)
    every = path is None or (path.null_count == 0 and path.true_count == n)
    if distinct and every and not any(ins[1:]):
        got = _distinct_call(fn, args, rtype, arrow_type)
        if got is not None:
            return got
    cols = [_pylist(a) for a in args]
    for i, t in enumerate(ins[1:]):  # tuples, lists and dicts as Python has them
        if t is not None:
            cols[i] = [_py_in(v, t) for v in cols[i]]
    on = None if every else [v is True for v in path.to_pylist()]
    vs: list[Any] = []
    errs: dict[int, str] = {}
    if on is None and cols:  # every row calls: `map` runs the calls, resumed after an error
        its = [iter(c) for c in cols]
        while len(vs) < n:
            try:
                vs.extend(map(fn, *its))  # (what it made before an error stays in `vs`)
            except Exception as exc:  # noqa: BLE001 - raised in SQL where the value is used
                errs[len(vs)] = exception_text(exc)
                vs.append(None)
            else:
                if len(vs) < n:  # `fn` raised StopIteration, which ends a `map` quietly
                    errs[len(vs)] = exception_text(StopIteration())
                    vs.append(None)
    else:
        rows: Any = zip(*cols, strict=True) if cols else ([()] * n)
        for i, xs in enumerate(rows):
            if on is not None and not on[i]:
                vs.append(None)  # Python does not call the function here
                continue
            try:
                vs.append(fn(*xs))
            except Exception as exc:  # noqa: BLE001 - raised in SQL where the value is used
                vs.append(None)
                errs[i] = exception_text(exc)
    field_v, field_e = arrow_type.field(0), arrow_type.field(1)
    values = _plain_array(vs, rtype, field_v.type)
    if values is None:  # values to check or convert one by one (a numpy scalar, a big int, ...)
        out = []
        for i, v in enumerate(vs):
            try:
                out.append(_out(v, rtype))
            except Exception as exc:  # noqa: BLE001 - as the function's own error
                out.append(None)
                errs[i] = exception_text(exc)
        values = pa.array(out, type=field_v.type)
    if errs:
        e = pa.array([errs.get(i) for i in range(n)], type=field_e.type)
    else:
        e = pa.nulls(n, type=field_e.type)
    mask = None if on is None else pa.array([not x for x in on], type=pa.bool_())
    return pa.StructArray.from_arrays([values, e], fields=[field_v, field_e], mask=mask)


#: Arrow types whose equal values are the same Python value (not floats: 0.0 and -0.0)
_EXACT_KEYS = ("string", "large_string", "int64", "int32", "int16", "int8", "bool", "date32")
#: a batch is called per distinct argument tuple when at most this share of it is distinct
_DISTINCT_SHARE = 0.75
#: per function, the batches in a row whose values were mostly distinct (a worker's own)
_MISSES: weakref.WeakKeyDictionary[Any, int] = weakref.WeakKeyDictionary()


def _distinct_call(fn: Callable[..., Any], args: Sequence[Any], rtype: str,
                   arrow_type: Any) -> Any:  # fmt: skip
    """The batch computed with one call per distinct argument tuple (a function of a row's
    values gives equal results on equal values; rows repeat values often: codes, keys, log
    formats), or None where that saves little or the values are not exact keys.

    Arrow finds the distinct tuples (``dictionary_encode``, in C++); the results of the
    calls, errors included, are spread back to the rows with ``take``. After two batches
    of mostly distinct values in a row, a function's batches are encoded one in 16."""
    import pyarrow as pa

    n = len(args[0]) if args else 0
    if n < 256 or not 1 <= len(args) <= 4 or any(str(a.type) not in _EXACT_KEYS for a in args):
        return None
    misses = _MISSES.get(fn, 0)
    if misses >= 2 and misses % 16:  # batches of distinct values: try again now and then
        _MISSES[fn] = misses + 1
        return None
    encoded = [a.dictionary_encode(null_encoding="encode") for a in args]
    values, back = _distinct_tuples(encoded)
    if len(values[0]) > _DISTINCT_SHARE * n:
        _MISSES[fn] = misses + 1
        return None
    _MISSES[fn] = 0
    every = pa.array([True] * len(values[0]), type=pa.bool_())
    once = _vectorized_call(fn, [every, *values], rtype, arrow_type, [None] * (len(args) + 1),
                            distinct=False)  # fmt: skip
    return once.take(back)


def _distinct_tuples(encoded: list[Any]) -> tuple[list[Any], Any]:
    """(the distinct argument tuples as columns, each row's tuple number) of
    dictionary-encoded columns."""
    import numpy as np
    import pyarrow as pa

    many = [i for i, e in enumerate(encoded) if len(e.dictionary) > 1]
    if len(many) <= 1:  # one varying column: its dictionary is the tuples (O(n), no sort)
        i = many[0] if many else 0
        size = len(encoded[i].dictionary)
        zeros = pa.array(np.zeros(size, dtype=np.int64))
        values = [e.dictionary if j == i else e.dictionary.take(zeros)
                  for j, e in enumerate(encoded)]  # fmt: skip
        return values, encoded[i].indices
    codes = encoded[many[0]].indices.to_numpy().astype(np.int64)
    for i in many[1:]:  # one code per tuple (batches of at most 10k rows: no overflow)
        codes = codes * len(encoded[i].dictionary) + encoded[i].indices.to_numpy()
    _, first, back = np.unique(codes, return_index=True, return_inverse=True)
    firsts = pa.array(first)
    return [e.dictionary.take(e.indices.take(firsts)) for e in encoded], pa.array(back.reshape(-1))


def _plain_array(vs: list[Any], rtype: str, arrow_type: Any) -> Any:
    """``vs`` as an Arrow array when every value is None or exactly of ``rtype``'s Python
    type (``type()``, so a bool is no int and a numpy scalar no float), else None."""
    import pyarrow as pa

    want = _PLAIN_OUT.get(rtype)
    if want is None or not set(map(type, vs)) <= {want, type(None)}:
        return None
    try:
        return pa.array(vs, type=arrow_type)
    except (OverflowError, pa.ArrowInvalid):  # an int past 64 bits: _out says so per row
        return None


def _ddl(spark: Any, ddl: str) -> Any:
    """A DDL type string as a pyspark DataType (parsed on the driver)."""
    from pyspark.sql.types import _parse_datatype_string

    return _parse_datatype_string(ddl)
