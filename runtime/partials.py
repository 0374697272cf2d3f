"""The Python partial/merge pair of a mergeable state reduced in Python (SPEC §3 ``@merge``).

Without it, an action state's Arrow reducer receives every row of its scope key after
the shuffle. With it (``compiler/backend/partial.py`` records when), the plan runs:

1. ``mapInArrow(pair.partials, pair.schema(...))`` before the shuffle: each input
   partition's rows are folded into a fresh state per scope key (the action reducer's
   fold), and each state goes out pickled, one row per (partition, scope key);
2. ``groupBy(keys).agg(pair.udf(_st))`` after it: per scope key, the pickled partials are
   merged into a fresh state (the class's ``@merge``) and its readers evaluated.

So a scope key sends one state per input partition through the shuffle, not its rows.
"""

from __future__ import annotations

from typing import Any

__all__ = ["PartialPair"]

STATE_COL = "_st"


class PartialPair:
    """The partial (per input partition) and merge (per scope key) steps of a state.

    Args:
        reducer: the state's :class:`looplift.spark.ActionReducer` (its fold and readers).
        nkeys: how many scope key columns lead the partial step's input; the action
            columns follow them.
    """

    def __init__(self, reducer: Any, nkeys: int) -> None:
        if reducer.cls.merger() is None:
            raise TypeError(f"{reducer.cls.__name__} has no @merge method")
        self.reducer, self.nkeys = reducer, nkeys
        self._udf: Any = None
        self._schema: Any = None

    def schema(self, keys_schema: Any) -> Any:
        """The partial step's output schema: the scope key columns (``keys_schema``, a
        StructType) and the pickled state (binary)."""
        from pyspark.sql import types as T

        out = T.StructType([*keys_schema.fields, T.StructField(STATE_COL, T.BinaryType())])
        self._schema = out
        return out

    def partials(self, batches: Any) -> Any:
        """mapInArrow: one pickled state per scope key of the partition's rows."""
        import pyarrow as pa
        from pyspark import cloudpickle

        tables = [pa.Table.from_batches([b]) for b in batches]
        if not tables:
            return
        table = pa.concat_tables(tables)
        if table.num_rows == 0:
            return
        n = self.nkeys
        rows: dict[tuple[Any, ...], list[int]] = {}
        if n == 0:  # a global state: one partial of the whole partition
            rows[()] = list(range(table.num_rows))
        for i, key in enumerate(zip(*(table.column(j).to_pylist() for j in range(n)), strict=True)):
            rows.setdefault(key, []).append(i)
        actions = table.select(list(range(n, table.num_columns)))
        keys, states = [], []
        for key, idx in rows.items():
            part = actions.take(pa.array(idx, type=pa.int64()))
            state = self.reducer.fold([c.combine_chunks() for c in part.columns])
            keys.append(key)
            states.append(cloudpickle.dumps(state))
        arrays = [pa.array([k[j] for k in keys], type=table.schema.field(j).type) for j in range(n)]
        names = [*table.schema.names[:n], STATE_COL]
        yield pa.RecordBatch.from_arrays([*arrays, pa.array(states, type=pa.binary())], names=names)

    def merge(self, pickled: Any) -> dict[str, Any]:
        """One scope key's pickled partial states (an Arrow array) merged, then read."""
        import pickle

        from looplift.state import merged

        r = self.reducer
        states = (pickle.loads(b) for b in pickled.to_pylist() if b is not None)
        state = merged(states, lambda: r.cls(*r.ctor))
        return {f"_{i + 1}": v for i, v in enumerate(r._read(state))}

    @property
    def udf(self) -> Any:
        """The merge step as a grouped Arrow aggregate (a struct of the readers)."""
        if self._udf is None:
            from looplift.spark import _arrow_udf

            fields = ", ".join(f"_{i + 1}: {t}" for i, t in enumerate(self.reducer.types))
            pair = self

            def merge_group(col: Any) -> Any:
                return pair.merge(col)

            self._udf = _arrow_udf(merge_group, f"struct<{fields}>", "GROUPED_AGG")
        return self._udf
