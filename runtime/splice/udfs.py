"""The Arrow functions spliced aggregates need: an action state's reducer over each group's
collected (code, arg) pairs, and the reference Python over each group's collected rows."""

from __future__ import annotations

import weakref
from typing import Any

from ..registry import Algorithm

__all__ = ["arrow_udf", "param_order", "reducer_list_udf", "reference_list_udf", "register_once"]


def arrow_udf(fn: Any, rtype: str, kind: str) -> Any:
    """``arrow_udf`` with an explicit function type (without Spark's nudge toward hints)."""
    import warnings

    from pyspark.sql.functions import ArrowUDFType
    from pyspark.sql.functions import arrow_udf as make

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return make(fn, rtype, functionType=getattr(ArrowUDFType, kind))


def param_order(alg: Algorithm) -> list[str]:
    return [kind for _, kind, _ in alg.params]


_UDFS: weakref.WeakKeyDictionary[Any, set[str]] = weakref.WeakKeyDictionary()


def register_once(spark: Any, name: str, make: Any) -> None:
    done = _UDFS.setdefault(spark, set())
    if name not in done:
        spark.udf.register(name, make())
        done.add(name)


def reducer_list_udf(spec: dict[str, Any]) -> Any:
    """Arrow scalar function: per group, the list of (code, arg) pairs → the readers."""
    import pyarrow as pa

    from ..spark import ActionReducer, _arrow_schema, import_ref

    kw = dict(spec)
    cls = import_ref(kw.pop("cls"))
    kw["sites"] = [tuple(s) for s in kw["sites"]]
    kw["readers"] = [r if isinstance(r, str) else (r[0], tuple(r[1])) for r in kw["readers"]]
    fields = ", ".join(f"_{i + 1}: {t}" for i, t in enumerate(kw["types"]))
    rtype = f"struct<{fields}>"
    out_type = _arrow_schema(f"r {rtype}").field("r").type

    def finish(lists: Any) -> Any:
        reducer = ActionReducer(cls, **kw)
        if reducer.grouped():
            return pa.StructArray.from_arrays(
                _grouped_lists(reducer, lists), names=[f"_{j + 1}" for j in range(len(kw["types"]))]
            ).cast(out_type)
        out = []
        for i in range(len(lists)):
            items = lists[i].values if lists[i].is_valid else None
            if items is None or len(items) == 0:
                out.append(dict(zip([f"_{j + 1}" for j in range(len(kw["types"]))],
                                    reducer.fresh(), strict=True)))  # fmt: skip
                continue
            out.append(reducer.apply([items.field("c"), items.field("a")]))
        return pa.array(out, type=out_type)

    return arrow_udf(finish, rtype, "SCALAR")


def _grouped_lists(reducer: Any, lists: Any) -> list[Any]:
    """All groups' (code, arg) lists at once through the state's grouped readers: one
    vectorized pass instead of a state object per group."""
    import numpy as np
    import pyarrow as pa

    n = len(lists)
    lengths = lists.value_lengths().fill_null(0).to_numpy(zero_copy_only=False)
    flat = lists.flatten()
    keys = np.repeat(np.arange(n, dtype=np.int64), lengths)
    fresh = reducer.fresh()
    out = [[fresh[j]] * n for j in range(len(reducer.readers))]
    if len(keys):
        ukeys, columns = reducer.grouped_read(keys, flat.field("c"), flat.field("a"))
        for values, got in zip(out, columns, strict=True):
            for k, v in zip(ukeys.tolist(), got, strict=True):
                values[k] = v
    return [pa.array(values) for values in out]


def reference_list_udf(alg: Algorithm) -> Any:
    """Arrow scalar function: per group, the list of rows → the reference function's value."""
    import pyarrow as pa

    from ..spark import _arrow_schema, _out, _pylist

    fn, rtype, order = alg.reference(), alg.output[0][1], param_order(alg)
    nfields = len(alg.fields)
    out_type = _arrow_schema(f"r {rtype}").field("r").type

    def finish(lists: Any, *scalars: Any) -> Any:
        out = []
        for i in range(len(lists)):
            items = lists[i].values
            cols = [_pylist(items.field(f"f{j}")) for j in range(nfields)]
            rows = list(zip(*cols, strict=True)) if cols else []
            it = iter(s[i].as_py() for s in scalars)
            args = [rows if k == "rows" else next(it) for k in order]
            out.append(_out(fn(*args), rtype))
        return pa.array(out, type=out_type)

    return arrow_udf(finish, rtype, "SCALAR")
