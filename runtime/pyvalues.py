"""Python values crossing the Arrow boundary of the functions plans call: arguments as
Python has them (:func:`_pylist`, :func:`_py_in`) and results as their declared Spark
type holds them, exactly or not at all (:func:`_out`: an int past 64 bits raises
OverflowError, a value of another type than declared raises TypeError).

>>> _out((1, {"a": [2]}), "struct<_1: bigint, _2: map<string, array<bigint>>>")
{'_1': 1, '_2': {'a': [2]}}
>>> _py_in({"_1": 1, "_2": [("a", [2])]}, "struct<_1: bigint, _2: map<string, array<bigint>>>")
(1, {'a': [2]})
"""

from __future__ import annotations

import datetime
from typing import Any

__all__ = ["_out", "_pylist", "_py_in", "_nested", "_split_schema"]


def _pylist(arr: Any) -> list[Any]:
    out = arr.to_pylist()
    if out and isinstance(next((x for x in out if x is not None), None), datetime.datetime):
        out = [
            x.astimezone(datetime.UTC).replace(tzinfo=None)
            if isinstance(x, datetime.datetime) and x.tzinfo is not None
            else x
            for x in out
        ]
    return out


def _out(value: Any, spark_type: str) -> Any:
    """A Python value as the declared Spark type expects it."""
    if value is None:
        return None
    if hasattr(value, "item") and not isinstance(value, (list, tuple)):
        value = value.item()  # numpy scalars
    if spark_type == "bigint":
        if isinstance(value, float) and value.is_integer():
            return int(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"looplift: a reader returned {value!r} where an int was expected")
        if not -(2**63) <= value < 2**63:  # Python's int went past 64 bits: never wrap
            raise OverflowError(f"looplift: the result {value} does not fit in 64 bits")
        return value
    if spark_type == "double":
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        raise TypeError(
            f"looplift: a reader returned {value!r} ({type(value).__name__}); annotate the "
            "reader's return type so the plan knows its column type"
        )
    if spark_type == "string" and not isinstance(value, str):
        raise TypeError(
            f"looplift: a host function returned {value!r} ({type(value).__name__}) where str "
            "was assumed; annotate its return type"
        )
    if spark_type in _EXACT:
        return _exact(value, spark_type)
    if spark_type.startswith("array<"):
        inner = spark_type[len("array<") : -1]
        if not isinstance(value, (list, tuple)):
            raise _mismatch(value, "a list")
        return [_out(v, inner) for v in value]
    if spark_type.startswith("map<"):
        return _map_out(value, spark_type)
    if spark_type.startswith("struct<") and isinstance(value, tuple):
        inner = _split_schema(spark_type[len("struct<") : -1])
        if len(inner) != len(value):
            raise _mismatch(value, f"a tuple of {len(inner)} items")
        return {f.split(":")[0].strip(): _out(v, f.split(":", 1)[1].strip())
                for f, v in zip(inner, value, strict=True)}  # fmt: skip
    if spark_type.startswith("struct<") and not isinstance(value, dict):
        raise _mismatch(value, "a tuple")
    return value


_EXACT = ("boolean", "timestamp", "timestamp_ntz", "date")


def _nested(spark_type: str) -> bool:
    return spark_type.startswith(("struct<", "map<", "array<"))


def _py_in(value: Any, spark_type: str) -> Any:
    """An argument as Python had it: a struct (a dict from Arrow) is a tuple, a map (a list
    of pairs) a dict, a timestamp naive UTC; recursively (the inverse of :func:`_out`)."""
    if value is None:
        return None
    if spark_type.startswith("array<"):
        inner = spark_type[len("array<") : -1]
        return [_py_in(v, inner) for v in value]
    if spark_type.startswith("map<"):
        kt, vt = _split_schema(spark_type[len("map<") : -1])
        pairs = value.items() if isinstance(value, dict) else value
        return {_py_in(k, kt): _py_in(v, vt) for k, v in pairs}
    if spark_type.startswith("struct<") and isinstance(value, dict):
        fields = _split_schema(spark_type[len("struct<") : -1])
        return tuple(_py_in(value[f.split(":")[0].strip()], f.split(":", 1)[1].strip())
                     for f in fields)  # fmt: skip
    if isinstance(value, datetime.datetime) and value.tzinfo is not None:
        return value.astimezone(datetime.UTC).replace(tzinfo=None)
    return value


def _exact(value: Any, spark_type: str) -> Any:
    """A bool, datetime or date as its Spark type holds it (never a lossy conversion).

    ``timestamp``: a naive datetime is UTC wall time (the session time zone looplift
    sets, as for ``datetime.datetime`` fields); an aware one becomes its instant (what
    Python compares), as naive UTC. ``date``: a datetime is refused (Python's value is a
    datetime, the column would drop its time)."""
    if spark_type == "boolean":
        if not isinstance(value, bool):
            raise _mismatch(value, "a bool")
        return value
    if spark_type == "date":
        if not isinstance(value, datetime.date) or isinstance(value, datetime.datetime):
            raise _mismatch(value, "a datetime.date")
        return value
    if not isinstance(value, datetime.datetime):
        raise _mismatch(value, "a datetime.datetime")
    if value.tzinfo is not None and value.utcoffset() is not None:
        return value.astimezone(datetime.UTC).replace(tzinfo=None)
    return value.replace(tzinfo=None)


def _map_out(value: Any, spark_type: str) -> Any:
    """A dict as a Spark map holds it, in the dict's order (keys must not be None); a dict
    again (pyarrow and pyspark's own result conversion both take one)."""
    if not isinstance(value, dict):
        raise _mismatch(value, "a dict")
    kt, vt = _split_schema(spark_type[len("map<") : -1])
    out = {}
    for k, v in value.items():
        if k is None:
            raise TypeError("looplift: a dict key is None; a Spark map has no null keys")
        out[_out(k, kt)] = _out(v, vt)
    return out


def _mismatch(value: Any, want: str) -> TypeError:
    return TypeError(
        f"looplift: a host function or reader returned {value!r} ({type(value).__name__}) "
        f"where {want} was declared; fix its return annotation"
    )


def _split_schema(schema: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in schema:
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
            continue
        depth += ch == "<"
        depth -= ch == ">"
        cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts
