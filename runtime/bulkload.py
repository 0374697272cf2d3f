"""The Spark store's native bulk load: each scope key's states built from native aggregates.

A view in state mode whose states all have a native build (action states whose class
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

Any other view loads by replay (:class:`looplift.sparkview._BulkWriter`);
:func:`bulk_form` says which, and why.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterator
from typing import Any

from .deltarows import DeltaError, DeltaRows

__all__ = ["bulk_form", "bulk_form_of", "native_load"]

_PLANS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # dataflow -> (plan, module, why)


def _compiled(dataflow: Any) -> tuple[Any, Any, str]:
    """(the bulk plan, its module, "") or (None, None, why there is none), per dataflow."""
    if dataflow in _PLANS:
        return _PLANS[dataflow]
    import types

    try:
        from .compiler.backend.bulk import NotNative, bulk_plan
    except ImportError:  # a build package without the compiler
        got: tuple[Any, Any, str] = (None, None, "the compiler is not installed")
    else:
        try:
            plan = bulk_plan(dataflow.compile())
        except NotNative as e:
            got = (None, None, str(e))
        else:
            mod = types.ModuleType(f"looplift_bulk_plan_{dataflow.name}")
            mod.__file__ = f"<looplift bulk plan of {dataflow.name}>"
            exec(compile(plan.module.source, mod.__file__, "exec"), mod.__dict__)  # noqa: S102
            got = (plan, mod, "")
    try:
        _PLANS[dataflow] = got
    except TypeError:  # (not weakly referenceable: not cached)
        pass
    return got


def bulk_form(view: Any) -> tuple[str, str]:
    """("native", "") or ("replay", why): how the Spark store ``view`` loads its first
    batch."""
    return _form(view.dataflow, view.shape, view.live_format)


def bulk_form_of(dataflow: Any) -> tuple[str, str]:
    """:func:`bulk_form` of a new Spark-store view of ``dataflow`` (for explain)."""
    from .delta import shape_of
    from .viewfiles import live_format

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


def native_load(view: Any, keyed: Any, norm: DeltaRows) -> Any:
    """The per-key aggregate of ``keyed`` (the typed fields, ``__s``, ``__h``, ``__row``)
    written as records by the executors: an Arrow table of (bucket, kind, payload)."""
    plan, mod, _ = _compiled(view.dataflow)
    args = list(view.step.scalars)
    args.insert(view.shape.rows_index, keyed)
    per_key = mod.plan(view._session(), *args)
    step, data, buckets, states = view.step, view.data, view.buckets, plan.states

    def build(batches: Iterator[Any]) -> Iterator[Any]:
        from .sparkview import _error, _result_batch

        try:
            out = _NativeWriter(step, norm, data, buckets, states).run(batches)
        except DeltaError as e:
            out = [(-1, "error", str(e).encode())]
        except Exception as e:  # noqa: BLE001 - the user's code raised: the load fails
            out = [_error(-1, e)]
        yield _result_batch(out)

    return per_key.mapInArrow(build, "bucket int, kind string, payload binary").toArrow()


class _NativeWriter:
    """One task of a native load: per key (a row of the bulk plan), its record."""

    def __init__(self, step: Any, norm: DeltaRows, data: str, buckets: int, states: tuple) -> None:
        from .viewfiles import BucketFiles

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
        ev = batch.column(names.index("__ev"))
        offsets = ev.offsets.to_numpy()
        cols = [pc.fill_null(c, 0).to_numpy() for c in ev.values.flatten()]
        rows = self.norm.rows_of_columns(
            [c.to_pylist() for c in batch.column(names.index("__row")).flatten()])  # fmt: skip
        dels = batch.column(names.index("__del")).to_pylist()
        sums = {n: batch.column(i).to_pylist() for i, n in enumerate(names) if n.startswith("__f")}
        for i, row in enumerate(rows):
            lo, hi = int(offsets[i]), int(offsets[i + 1])
            u, first, inv = np.unique(cols[0][lo:hi], return_index=True, return_inverse=True)
            n = np.bincount(inv.ravel(), weights=cols[1][lo:hi], minlength=len(u)).astype("<i8")
            if (n < 0).any():
                raise DeltaError(self._bad_delete(int(u[np.flatnonzero(n < 0)[0]]), dels[i]))
            live = n > 0
            if not live.any():
                continue
            at, mult = lo + first[live], n[live]
            states = [self._state(spec, cols, at, mult, sums, i) for spec in self.states]
            self._record(row, states, u[live], mult)

    def _state(self, spec: tuple, cols: list, at: Any, mult: Any, sums: dict, i: int) -> Any:
        import numpy as np

        obj = spec[1]()  # (the class the reference code constructs)
        if spec[0] == "additive":
            for fname, init, col, taken in spec[2]:
                if sums[taken][i]:
                    setattr(obj, fname, init + sums[col][i])
            return obj
        _, _, codes, col = spec
        if col < 0:
            return obj
        site = cols[col][at]
        took = site >= 0
        if took.any():
            table = np.array([codes[j] for j in range(len(codes))], "<i8")
            reps = mult[took]
            obj.batch_apply(np.repeat(table[site[took]], reps),
                            np.repeat(cols[col + 1][at][took], reps), state=obj)  # fmt: skip
        return obj

    def _record(self, row: tuple, states: list, hashes: Any, counts: Any) -> None:
        from .incremental import _dumps
        from .viewfiles import encode_live, key_hash, new_record

        built, out = self.step.read(states, row)
        if len(built) != len(states) or any(a is not b for a, b in zip(built, states, strict=True)):
            raise RuntimeError(
                "looplift: the natively built states are not the ones the code constructs "
                f"({[type(s).__name__ for s in states]} built, "
                f"{[type(s).__name__ for s in built]} constructed); create the view with a "
                "replay load (report this)"
            )
        kb = _dumps(tuple(row[j] for j in self.step.shape.key))
        self.files.add(new_record(key_hash(kb), kb, encode_live(hashes, counts), states, out))

    def _bad_delete(self, h: int, dels: list) -> str:
        for d in dels or []:
            if d["__h"] == h:
                values = [d["__row"][k] for k in d["__row"]]
                row = self.norm.rows_of_columns([[v] for v in values])[0]
                return f"delete of a row that is not live: {row!r}; nothing was applied"
        return "delete of a row that is not live; nothing was applied"
