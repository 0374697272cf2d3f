"""Compiled algorithms as the runtime sees them: :class:`Algorithm`.

An ``Algorithm`` is everything Spark needs to run one compiled ``@dataflow``
without the compiler: its kind and signature, the generated plan module
(table and aggregate algorithms), the SQL function (scalar algorithms), the
aggregate expression (aggregates that are one expression over aggregate
functions), and the reference implementation's ``module:qualname``. It comes
either from a :class:`~looplift.Dataflow` compiled in this process
(:meth:`Dataflow.algorithm`) or from a build package's ``manifest.json``
(``uda-compile -o build``), and is what :func:`looplift.register` and
:func:`looplift.sql` consume.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

__all__ = ["Algorithm", "load_manifest"]


@dataclass(frozen=True)
class Algorithm:
    name: str  # the name SQL calls it by
    kind: str  # "scalar" | "aggregate" | "table"
    ref: str  # module:qualname of the @dataflow (the Python reference semantics)
    params: tuple[tuple[str, str, tuple[str, ...]], ...]  # (name, "rows"|"scalar", field types)
    output: tuple[tuple[str, str], ...]  # (column, Spark DDL type)
    refs: tuple[str, ...] = ()  # modules the workers need (states, host functions)
    # scalar: {"function": SQL name, "create": CREATE FUNCTION text, "pycalls": [...]}
    scalar: dict[str, Any] | None = None
    # aggregate as one expression: {"sql", "reducers", "pycalls", "return_type"}; None if the
    # states do not allow it (``agg_error`` says why)
    agg: dict[str, Any] | None = None
    agg_error: str | None = None
    plan_module: str | None = None  # importable module name of the plan (builds)
    # what incremental maintenance needs, computed by the compiler
    # (``IncrementalShape.to_json()``: kind, key, mode, rows_index, why, error)
    shape: dict[str, Any] | None = None
    # a named row type (``RowStream[Click]``): its field names, bound to columns by name
    row_fields: tuple[str, ...] = ()
    _plan: Callable[[], Any] | None = field(default=None, compare=False, repr=False)

    # -- signature ------------------------------------------------------------------------
    @property
    def rows_param(self) -> tuple[str, str, tuple[str, ...]] | None:
        return next((p for p in self.params if p[1] == "rows"), None)

    @property
    def fields(self) -> tuple[str, ...]:
        """Field types of the RowStream parameter (aggregates, tables)."""
        p = self.rows_param
        return p[2] if p else ()

    @property
    def scalar_params(self) -> tuple[tuple[str, str], ...]:
        """(name, type) of each scalar parameter, in order."""
        return tuple((p[0], p[2][0] if p[2] else "any") for p in self.params if p[1] == "scalar")

    def renamed(self, name: str) -> Algorithm:
        return replace(self, name=name)

    # -- running ----------------------------------------------------------------------------
    def plan(self) -> Any:
        """The generated plan module (``plan(spark, df, *scalars)``)."""
        if self._plan is not None:
            return self._plan()
        if self.plan_module is None:
            raise TypeError(f"`{self.name}` is a {self.kind} algorithm and has no plan")
        return importlib.import_module(self.plan_module)

    def reference(self) -> Any:
        """The ``@dataflow`` object (callable as plain Python), its RowStream parameters'
        row classes resolved (:meth:`~looplift.api.Dataflow.call_shape`): the UDTFs and
        UDAFs of ``register`` ship it to workers that may not resolve them."""
        from .spark import import_ref

        ref = import_ref(self.ref)
        ref.call_shape()
        return ref

    # -- manifest -----------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """The manifest entry (JSON-able, stable key order)."""
        named = {"row_fields": list(self.row_fields)} if self.row_fields else {}
        return {
            "name": self.name,
            "kind": self.kind,
            "ref": self.ref,
            "params": [{"name": n, "kind": k, "types": list(t)} for n, k, t in self.params],
            "output": [{"name": n, "type": t} for n, t in self.output],
            "refs": list(self.refs),
            "scalar": _jsonable(self.scalar),
            "agg": _jsonable(self.agg),
            "agg_error": self.agg_error,
            "plan_module": self.plan_module,
            "shape": _jsonable(self.shape),
            **named,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Algorithm:
        return cls(
            name=d["name"],
            kind=d["kind"],
            ref=d["ref"],
            params=tuple((p["name"], p["kind"], tuple(p["types"])) for p in d["params"]),
            output=tuple((o["name"], o["type"]) for o in d["output"]),
            refs=tuple(d.get("refs", ())),
            scalar=d.get("scalar"),
            agg=d.get("agg"),
            agg_error=d.get("agg_error"),
            plan_module=d.get("plan_module"),
            shape=d.get("shape"),
            row_fields=tuple(d.get("row_fields", ())),
        )


def _jsonable(v: Any) -> Any:
    return None if v is None else json.loads(json.dumps(v))


def load_manifest(package: str) -> dict[str, Algorithm]:
    """The algorithms of a build package (its ``manifest.json``), by name.

    Works from a directory and from a zip on ``sys.path`` (``spark-submit --py-files``).
    """
    from importlib import resources

    text = resources.files(package).joinpath("manifest.json").read_text(encoding="utf-8")
    manifest = json.loads(text)
    return {d["name"]: Algorithm.from_json(d) for d in manifest["algorithms"]}
