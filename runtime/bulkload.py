"""The Spark store's bulk load: the first batch of an empty view, computed and written by
the executors (:func:`load`), natively where :func:`bulk_form` allows, else by replay.
Each task writes its records bucket by bucket (a file per bucket and task, sorted by key
hash), so a bucket starts with one file per task; :mod:`looplift.sparkview` commits them.

**Native**: each scope key's states built from native aggregates. A view in state mode whose states all have a native build (action states whose class
sets ``native_build``, e.g. ``IntervalSequence``, with int arguments; additive states:
``Sum``, ``Count``, ``Average``, ``Variance``) loads its first batch without running
the reference code per row:

1. Spark aggregates the rows per scope key with the bulk plan
   (:mod:`looplift.compiler.backend.bulk`): every row's hash and sign, the action code
   and argument each native action state takes from it, the sign-weighted sums of the
   additive states' fields, and one row of the key.
2. One Python call per key (in ``mapInArrow`` over the keys' partitions) nets the rows
   per hash (the live rows, :func:`~looplift.viewfiles.encode_live`; a delete with no
   live row to take back fails the load), builds each state (``batch_apply`` of the
   live rows' actions on a fresh state, as replay's batch mode does; the additive fields
   from their sums), in the order of the compiler's operators, and runs the reference
   code on one row of the key with no action (:meth:`KeyStep.read`) to get the output
   rows. That run also checks the states: it must restore exactly the built ones.
3. The records are written per bucket as a replay load writes them
   (:class:`~looplift.viewfiles.BucketFiles`): the layout, manifest, commit, compaction
   and applies are unchanged.

**Replay**: any other view loads by replay: the rows partitioned by scope key and sorted
by it, each task running the step of each of its keys in turn over their rows
(:class:`looplift.viewtasks.BulkWriter`). :func:`bulk_form` says which, and why.
"""

from __future__ import annotations

import logging
import pickle
import time
import weakref
from collections.abc import Iterator
from typing import Any

from .delta import shape_of
from .deltarows import DeltaError, DeltaRows, native_sign, row_hash, sign_columns, typed_columns
from .errors import python_errors
from .sessions import is_connect
from .spark import ship
from .sqltext import quote_ident
from .viewcore import dumps
from .viewfiles import BucketFiles, encode_live, key_hash, live_format, new_record
from .viewtasks import BulkWriter, error_row, result_batch

__all__ = ["bulk_form", "bulk_form_of", "load", "load_tasks", "native_load"]

logger = logging.getLogger(__name__)

_PLANS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # dataflow -> (plan, module, why)


def _compiled(dataflow: Any) -> tuple[Any, Any, str]:
    """(the bulk plan, its module, "") or (None, None, why there is none), per dataflow."""
    if dataflow in _PLANS:
        return _PLANS[dataflow]
    got = _plan_of(dataflow)
    try:
        _PLANS[dataflow] = got
    except TypeError:  # (not weakly referenceable: not cached)
        pass
    return got


def _plan_of(dataflow: Any) -> tuple[Any, Any, str]:
    import types

    try:
        from .compiler.backend.bulk import NotNative, bulk_plan
    except ImportError:  # a build package without the compiler
        return None, None, "the compiler is not installed"
    try:
        compiled = dataflow.compile()
    except Exception as e:  # noqa: BLE001 - e.g. a build package's source in a zip
        return None, None, f"the algorithm does not compile here ({e})"
    try:
        plan = bulk_plan(compiled)
    except NotNative as e:
        return None, None, str(e)
    mod = types.ModuleType(f"looplift_bulk_plan_{dataflow.name}")
    mod.__file__ = f"<looplift bulk plan of {dataflow.name}>"
    exec(compile(plan.module.source, mod.__file__, "exec"), mod.__dict__)  # noqa: S102
    return plan, mod, ""


def bulk_form(view: Any) -> tuple[str, str]:
    """("native", "") or ("replay", why): how the Spark store ``view`` loads its first
    batch."""
    return _form(view.dataflow, view.shape, view.live_format)


def bulk_form_of(dataflow: Any) -> tuple[str, str]:
    """:func:`bulk_form` of a new Spark-store view of ``dataflow`` (for explain)."""
    alg = dataflow.algorithm()
    shape = shape_of(alg)
    return _form(dataflow, shape, live_format(shape, alg.fields))


def _form(dataflow: Any, shape: Any, live: str) -> tuple[str, str]:
    if shape.mode != "state":
        return "replay", f"the view recomputes keys from their rows ({shape.why})"
    if live != "hash":
        return "replay", "its live rows are kept as pickled rows, not row hashes"
    if not hasattr(dataflow, "compile"):
        return "replay", "the algorithm comes from a build package (no compiler)"
    plan, _mod, why = _compiled(dataflow)
    if plan is None:
        return "replay", why
    if plan.key_fields != tuple(shape.key):
        return "replay", "the plan's scope key is not the view's"
    return "native", ""


def load(view: Any, df: Any) -> dict[int, list[str]]:
    """The first batch ``df`` of the empty Spark-store ``view`` written by the executors,
    natively where ``view.bulk_form`` allows (:func:`native_load`), else by replay
    (:func:`replay_load`): each bucket's new files, sorted. A delete of a row that is not
    live, or the user's code raising, fails the load (its files are orphans, removed
    later)."""
    from pyspark.sql import functions as F

    ship(list(view.alg.refs))
    sign_col, cdf, cols = sign_columns(list(df.columns), row_fields=view.row_fields, name=view.name)
    casts = typed_columns(df, cols, view.fields, view.name)
    norm = DeltaRows(view.name, view.fields, tuple(cols), "delta", sign_col, cdf)
    native = view.bulk_form[0] == "native"
    start = time.perf_counter()
    logger.info("view %s: bulk load of the first batch (%s) into %d buckets, %d tasks",
             view.name, "native" if native else "replay", view.buckets,
             load_tasks(view._session()))  # fmt: skip
    sign = native_sign(df, sign_col, cdf) if native else F.col(quote_ident(sign_col))
    keyed = df.select(*casts, sign.alias("__s"))
    if view.hashed:  # each row's hash, next to it (the live rows are stored hashed)
        keyed = keyed.withColumn("__h", row_hash(cols, view.fields))
    if native:
        written = native_load(view, keyed, norm)
        if "replay" in written.column(1).to_pylist():  # (orphan files: removed later)
            logger.info("view %s: the native bulk load does not fit its states; loading by "
                     "replay", view.name)  # fmt: skip
            written = replay_load(view, keyed, cols, norm)
    else:
        written = replay_load(view, keyed, cols, norm)
    files: dict[int, list[str]] = {}
    for b, kind, payload in zip(written.column(0).to_pylist(), written.column(1).to_pylist(),
                                written.column(2).to_pylist(), strict=True):  # fmt: skip
        if kind == "error":
            raise DeltaError(payload.decode())
        if kind == "raise":
            raise pickle.loads(payload)
        files.setdefault(b, []).append(payload.decode())
    logger.info("view %s: bulk load wrote %d files in %d buckets in %.1f s", view.name,
             sum(map(len, files.values())), len(files), time.perf_counter() - start)  # fmt: skip
    return {b: sorted(f) for b, f in files.items()}


def load_tasks(spark: Any) -> int:
    """Tasks of a bulk load's writing stage: one per core (each task writes a file per
    bucket, and an apply reads a touched key's bucket file by file: fewer is faster)."""
    if is_connect(spark):
        return max(1, int(spark.conf.get("spark.sql.shuffle.partitions") or 4))
    return max(1, spark.sparkContext.defaultParallelism)


def replay_load(view: Any, keyed: Any, cols: list[str], norm: DeltaRows) -> Any:
    """The bulk load by replay: the rows partitioned by scope key and sorted by it;
    each task runs the step of each of its keys in turn over their rows. An Arrow table
    of (bucket, kind, payload)."""
    from pyspark.sql import functions as F

    key_cols = [F.col(quote_ident(cols[i])) for i in view.shape.key]
    step, data, buckets, hashed = view.step, view.data, view.buckets, view.hashed

    def build(batches: Iterator[Any]) -> Iterator[Any]:
        out = BulkWriter(step, norm, data, buckets, hashed).run(batches)
        yield result_batch(out)

    tasks = load_tasks(view._session())
    parts = keyed.repartition(tasks, *key_cols) if key_cols else keyed.repartition(1)
    if key_cols:
        parts = parts.sortWithinPartitions(*key_cols)
    with python_errors():  # a failing value raises as Python would
        return parts.mapInArrow(build, "bucket int, kind string, payload binary").toArrow()


def native_load(view: Any, keyed: Any, norm: DeltaRows) -> Any:
    """The per-key aggregate of ``keyed`` (the typed fields, ``__s``, ``__h``)
    written as records by the executors: an Arrow table of (bucket, kind, payload)."""
    plan, mod, _ = _compiled(view.dataflow)
    args = list(view.step.scalars)
    args.insert(view.shape.rows_index, keyed)
    per_key = mod.plan(view._session(), *args)
    step, data, buckets, states = view.step, view.data, view.buckets, plan.states

    def build(batches: Iterator[Any]) -> Iterator[Any]:
        try:
            out = _NativeWriter(step, norm, data, buckets, states).run(batches)
        except NotTheStates as e:  # the load runs again, by replay
            out = [(-1, "replay", str(e).encode())]
        except DeltaError as e:
            out = [(-1, "error", str(e).encode())]
        except Exception as e:  # noqa: BLE001 - the user's code raised: the load fails
            out = [error_row(-1, e)]
        yield result_batch(out)

    # (no shuffle: the aggregate's last stage runs in as many tasks as there are cores)
    per_key = per_key.coalesce(load_tasks(view._session()))
    with python_errors():  # a failing value raises as Python would
        return per_key.mapInArrow(build, "bucket int, kind string, payload binary").toArrow()


class NotTheStates(Exception):
    """A key's code constructs other states than the native build made (e.g. a state
    created under a condition): the load falls back to replay."""


class _NativeWriter:
    """One task of a native load: per key (a row of the bulk plan), its record."""

    def __init__(self, step: Any, norm: DeltaRows, data: str, buckets: int, states: tuple) -> None:
        self.step, self.norm, self.states = step, norm, states
        self.files = BucketFiles(data, buckets)

    def run(self, batches: Iterator[Any]) -> list[tuple[int, str, bytes]]:
        for batch in batches:
            self._batch(batch)
        self.files.flush()
        return self.files.out

    def _batch(self, batch: Any) -> None:
        import numpy as np
        import pyarrow.compute as pc

        names = batch.schema.names
        rows_in = pc.add(pc.list_value_length(batch.column(names.index("__hi"))),
                         pc.list_value_length(batch.column(names.index("__del"))))  # fmt: skip
        batch = batch.filter(pc.greater(rows_in, 0))  # (a global key over no rows: none)
        lists = {n: _List(batch.column(j)) for j, n in enumerate(names)
                 if n == "__hi" or (n.startswith("__a") and not n.endswith("x"))}  # fmt: skip
        nf = len(self.norm.fields)
        rows = self.norm.rows_of_columns([batch.column(f"__r{j}").to_pylist() for j in range(nf)])
        other = {n: batch.column(j).to_pylist() for j, n in enumerate(names)
                 if n == "__del" or n.startswith("__f") or n.endswith("x")}  # fmt: skip
        for i, row in enumerate(rows):
            dels = other["__del"][i]
            u, n = np.unique(lists["__hi"].of(i), return_counts=True)
            if dels:  # (rare in a first batch) deletes netted per row hash
                hd = np.fromiter((d["__h"] for d in dels), "<i8", len(dels))
                u, inv = np.unique(np.concatenate([u, hd]), return_inverse=True)
                w = np.concatenate([n, -np.ones(len(hd), "<i8")])
                n = np.bincount(inv.ravel(), weights=w, minlength=len(u)).astype("<i8")
                if (n < 0).any():
                    raise DeltaError(self._bad_delete(int(u[np.flatnonzero(n < 0)[0]]), dels))
                u, n = u[n > 0], n[n > 0]
            if not len(u):
                continue
            states = [self._state(spec, lists, other, i) for spec in self.states]
            self._record(row, states, u, n)

    def _state(self, spec: tuple, lists: dict, other: dict, i: int) -> Any:
        """One state of key ``i``, fresh (the class the reference code constructs), then
        built as replay's batch mode builds it from the live rows' actions."""
        import numpy as np

        obj = spec[1]()
        if spec[0] == "additive":
            for fname, init, col, taken in spec[2]:
                if other[taken][i]:
                    setattr(obj, fname, init + other[col][i])
            return obj
        _, _, bits, col = spec
        packed = lists[col].of(i)
        codes, args = packed & ((1 << bits) - 1), packed >> bits
        signs = None
        extra = other[col + "x"][i]
        if extra:  # deleted rows' actions (undone: the net is the live rows'), big arguments
            codes = np.concatenate([codes, [e["c"] for e in extra]]).astype("<i8")
            args = np.concatenate([args, [e["a"] for e in extra]]).astype("<i8")
            signs = np.concatenate([np.ones(len(packed), "<i8"), [e["s"] for e in extra]])
        if len(codes):
            obj.batch_apply(codes, args, signs, state=obj)
        return obj

    def _record(self, row: tuple, states: list, hashes: Any, counts: Any) -> None:
        built, out = self.step.read(states, row)
        if len(built) != len(states) or any(a is not b for a, b in zip(built, states, strict=True)):
            raise NotTheStates(
                f"the code constructs {[type(s).__name__ for s in built]}, not the natively "
                f"built {[type(s).__name__ for s in states]}"
            )
        kb = dumps(tuple(row[j] for j in self.step.shape.key))
        self.files.add(new_record(key_hash(kb), kb, encode_live(hashes, counts), states, out))

    def _bad_delete(self, h: int, dels: list) -> str:
        for d in dels:
            if d["__h"] == h:
                row = self.norm.rows_of_columns([[v] for v in list(d.values())[1:]])[0]
                return f"delete of a row that is not live: {row!r}; nothing was applied"
        return "delete of a row that is not live; nothing was applied"


class _List:
    """A list column of longs as numpy: each row's slice of the values, no copy."""

    def __init__(self, column: Any) -> None:
        self.offsets = column.offsets.to_numpy()
        self.values = column.values.to_numpy()

    def of(self, i: int) -> Any:
        return self.values[self.offsets[i] : self.offsets[i + 1]]
