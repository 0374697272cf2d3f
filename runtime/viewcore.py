"""What both stores of an incremental view share: the local one
(:class:`looplift.incremental.LocalView`, SQLite) and the Spark one
(:class:`looplift.sparkview.SparkView`, Parquet), and the per-key stream
(:mod:`looplift.streaming`).

- a scope key's step (:class:`KeyStep`: signed replay on its states, or the reference
  over its live rows) and what a view knows of its algorithm (:func:`bind_view`,
  :func:`check_ident`);
- the changes a step makes (:func:`diff_rows`) and a batch's changes netted over its keys
  (:func:`net_changes`);
- how keys, rows and states are pickled (:func:`dumps`, the same bytes in every process);
- deltas in and changes out as DataFrames (:func:`collect_delta`, :func:`change_frame`);
- the crash points tests kill a process at to check a commit's atomicity
  (:func:`crash_point`).
"""

from __future__ import annotations

import os
import pickle
from collections import Counter
from typing import Any

from .delta import Shape, outputs, replay, shape_of
from .deltarows import SIGN, DeltaError, DeltaRows, row_hash_sql, sign_columns, typed_sql
from .pyvalues import _out
from .registry import Algorithm
from .spark import _arrow_schema
from .sqltext import quote_ident

__all__ = [
    "KeyStep",
    "bind_view",
    "change_frame",
    "check_ident",
    "collect_delta",
    "crash_point",
    "diff_rows",
    "dumps",
    "net_changes",
    "output_arrays",
    "output_schema",
    "resolve",
]

_PICKLE = 4


def dumps(v: Any) -> bytes:
    """A key's, row's, state's or output's pickle as every store keeps it (a class its
    module no longer names is pickled by value)."""
    try:
        return pickle.dumps(v, protocol=_PICKLE)
    except (pickle.PicklingError, AttributeError, TypeError):
        # a user's State class that its module no longer names (a script's module,
        # a module loaded twice): pickled by value
        from pyspark import cloudpickle

        return cloudpickle.dumps(v, protocol=_PICKLE)


def resolve(target: Any) -> tuple[Algorithm, Any]:
    """(the compiled algorithm, the reference function) of a ``@dataflow`` or of an
    :class:`~looplift.registry.Algorithm` (a build package's, which needs no compiler)."""
    if isinstance(target, Algorithm):
        return target, target.reference()
    return target.algorithm(), target


class KeyStep:
    """One scope key's step, shared by the view (driver) and the stream (workers)."""

    def __init__(self, dataflow: Any, shape: Shape, scalars: tuple) -> None:
        self.fn, self.shape, self.scalars = dataflow, shape, tuple(scalars)

    def fresh_output(self) -> list[tuple]:
        """The result on no rows (an aggregate still has its one row)."""
        return outputs(self.shape.kind, self._call([])) if self.shape.kind == "aggregate" else []

    def initial_output(self) -> list[tuple]:
        """The output before any row, the base the first changes apply to: none when the
        reference raises on no rows (an aggregate whose value needs a row)."""
        try:
            return self.fresh_output()
        except Exception:  # noqa: BLE001 - there was no result to retract
            return []

    def _call(self, rows: list[tuple]) -> Any:
        args = list(self.scalars)
        args.insert(self.shape.rows_index, rows)
        return self.fn(*args)

    def run(self, live: Counter, states: list[Any] | None, delta: Counter,
            batch: bool = False) -> tuple[list, list]:  # fmt: skip
        """New (states, output rows) of a key whose live rows are now ``live`` (already
        updated with ``delta``). ``batch``: a new key's first rows (a bulk load), whose
        library states' actions may be applied in batches."""
        new_states, out = self._run(live, states, delta, batch)
        for row in out:
            _check_int64(row)
        return new_states, out

    def read(self, states: list[Any], row: tuple) -> tuple[list, list]:
        """(the states, in construction order; the output rows) of a key whose states are
        complete (built natively), its code run on one of its rows with no action."""
        built, result = replay(self.fn, [row], [1], states, list(self.scalars),
                               self.shape.rows_index, actions=False)  # fmt: skip
        out = outputs(self.shape.kind, result)
        for r in out:
            _check_int64(r)
        return built, out

    def _run(self, live: Counter, states: list[Any] | None, delta: Counter,
             batch: bool = False) -> tuple[list, list]:  # fmt: skip
        if not live:
            return [], self.fresh_output()
        if self.shape.mode == "state":
            rows, signs = [], []
            for sign in (1, -1):  # inserts first: an undo never precedes its action
                for r, n in delta.items():
                    if (n > 0) == (sign > 0):
                        rows.extend([r] * abs(n))
                        signs.extend([sign] * abs(n))
            args = list(self.scalars)
            built, result = replay(self.fn, rows, signs, states or [], args, self.shape.rows_index,
                                   batch=batch and not states)  # fmt: skip
            return built, outputs(self.shape.kind, result)
        return [], outputs(self.shape.kind, self._call(list(live.elements())))


#: A new view (``store="auto"``) moves to the Spark store when its first batch has at least


def bind_view(view: Any, alg: Any, dataflow: Any, spark: Any, scalars: tuple) -> None:
    """What a view of either store knows of its algorithm: the step, fields and outputs."""
    view.dataflow, view.spark, view.name = dataflow, spark, alg.name
    view.shape = shape_of(alg)
    view.step = KeyStep(dataflow, view.shape, scalars)
    view.fields = alg.fields
    view.row_fields = alg.row_fields  # a named row type: its columns bound by name
    view.rows = DeltaRows(alg.name, alg.fields,
                          tuple(f"field {i}" for i in range(len(alg.fields))), "rows")  # fmt: skip
    view.columns = [n for n, _ in alg.output]
    view.types = [t for _, t in alg.output]


def check_ident(stored: tuple, alg: Any, scalars: tuple, where: str) -> None:
    """Refuse a checkpoint written for another algorithm or other scalar arguments
    (``stored``: the (ref, params, output, shape, scalars) it was created with)."""
    if tuple(stored[:2]) != (alg.ref, alg.params):
        raise DeltaError(
            f"checkpoint {where} belongs to another algorithm ({stored[0]}), not {alg.ref}"
        )
    if tuple(stored[4]) != tuple(scalars):  # its results were computed with those
        raise DeltaError(
            f"checkpoint {where} holds `{alg.name}` with the scalar arguments "
            f"{tuple(stored[4])!r}, not {tuple(scalars)!r}; reopen it with the same arguments "
            "(or use a new checkpoint)"
        )


def collect_delta(view: Any, df: Any, hashes: bool = False) -> Any:
    """A delta DataFrame's rows and signs, typed and checked, on the driver; with
    ``hashes``, also each row's :func:`~looplift.deltarows.row_hash` (computed by Spark
    in the same job), as (rows, signs, hashes)."""
    sign_col, cdf, data = sign_columns(list(df.columns), row_fields=view.row_fields, name=view.name)
    typed = typed_sql(df, data, view.fields, view.name)  # types, before running
    norm = DeltaRows(view.name, view.fields, tuple(data), "delta", sign_col, cdf)
    exprs = [f"{e} AS `__c{i}`" for i, e in enumerate(typed)]
    exprs.append(f"{quote_ident(sign_col)} AS __s")
    if hashes:
        exprs.append(f"{row_hash_sql(typed, view.fields)} AS __h")  # of the typed values
    pairs = df.selectExpr(*exprs)
    table = pairs.toArrow()
    columns = [table.column(i).to_pylist() for i in range(len(data) + 1)]
    signs = norm.signs_of(columns[-1])
    rows = norm.rows_of_columns(columns[:-1])
    if hashes:
        return rows, signs, table.column(len(data) + 1).to_pylist()
    return rows, signs


def output_schema(names: Any, types: Any, with_sign: bool) -> str:
    """The DDL schema of a view's output rows (and their sign)."""
    schema = ", ".join(f"`{n}` {t}" for n, t in zip(names, types, strict=True))
    return schema + f", `{SIGN}` int" if with_sign else schema


def output_arrays(rows: list[tuple], types: Any, arrow: Any, signs: list[int] | None) -> list:
    """Output rows (and ``signs``) as Arrow arrays of the ``arrow`` schema (naive
    datetimes are UTC, as Spark's Python workers read them)."""
    import pyarrow as pa

    cols = [[_out(r[i], t) for r in rows] for i, t in enumerate(types)]
    if signs is not None:
        cols.append(signs)
    return [pa.array(c, type=arrow.field(i).type) for i, c in enumerate(cols)]


def change_frame(view: Any, rows: list[tuple], with_sign: bool, spark: Any = None) -> Any:
    """A DataFrame of a view's output rows (and signs) from Python rows, sent to Spark as
    one Arrow table (:func:`output_arrays`)."""
    import pyarrow as pa

    schema = output_schema(view.columns, view.types, with_sign)
    arrow = _arrow_schema(schema)
    signs = [r[-1] for r in rows] if with_sign else None
    table = pa.Table.from_arrays(output_arrays(rows, view.types, arrow, signs), schema=arrow)
    spark = spark or view.spark
    if spark is None:
        from pyspark.sql import SparkSession

        spark = SparkSession.getActiveSession()
    if spark is None:
        raise RuntimeError("looplift: no SparkSession (pass one to incremental())")
    return spark.createDataFrame(table, schema)


def _check_int64(value: Any) -> None:
    """An int output beyond 64 bits is an error, as in the compiled plan (SPEC §4)."""
    if isinstance(value, int) and not isinstance(value, bool):
        if not -(2**63) <= value < 2**63:
            raise OverflowError(f"looplift: the result {value} does not fit in 64 bits")
    elif isinstance(value, (list, tuple)):
        for v in value:
            _check_int64(v)


def diff_rows(old: list[tuple], new: list[tuple]) -> list[tuple]:
    """Retractions of rows that went away, inserts of rows that came (multisets)."""
    if old == new:  # (most keys of a small delta: no change; == is the tally's equality)
        return []
    orig = {_freeze(r): r for r in [*old, *new]}
    o, n = Counter(map(_freeze, old)), Counter(map(_freeze, new))
    out = [(*orig[r], -1) for r, c in (o - n).items() for _ in range(c)]
    out += [(*orig[r], 1) for r, c in (n - o).items() for _ in range(c)]
    return out


def net_changes(changes: list[tuple]) -> list[tuple]:
    """A batch's changes netted over its keys: a row one key retracts and another
    inserts (two input rows mapped to equal output rows) is no change."""
    orig: dict[Any, tuple] = {}
    tally: Counter = Counter()
    for c in changes:
        f = _freeze(c[:-1])
        orig.setdefault(f, c[:-1])
        tally[f] += c[-1]
    out = [(*orig[f], -1) for f, n in tally.items() if n < 0 for _ in range(-n)]
    out += [(*orig[f], 1) for f, n in tally.items() if n > 0 for _ in range(n)]
    return out


def _freeze(v: Any) -> Any:
    """A hashable stand-in for an output row (lists, e.g. a TopK reader, become tuples)."""
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, tuple(_freeze(x) for x in v))
    if isinstance(v, float) and v != v:
        return ("nan",)
    return v


def crash_point(where: str, version: int) -> None:
    """Tests kill the process here (``LOOPLIFT_CRASH_AT=apply:3``) to check atomicity."""
    want = os.environ.get("LOOPLIFT_CRASH_AT")
    if want and want == f"{where}:{version}":
        import signal

        os.kill(os.getpid(), signal.SIGKILL)
