"""Result types of host functions learnt from data: what a DataFrame call sees them return.

A host function (or a user state's reader) whose source does not say its result type
(:mod:`.host_reader`) gets it from its first :data:`PROBE_ROWS` input rows: the
algorithm's IR runs in CPython on them (:func:`learn_host_types`) and the plan is built
within :func:`probed_types`. Only a DataFrame call has rows before it needs its plan; a
build, ``looplift.sql`` and ``register`` ask for an annotation instead.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from ..ir.interp import evaluate
from .host_annotations import known_type
from .host_reader import join_types
from .types import infer_types, unresolved_host_calls, unresolved_readers
from .typevocab import Type

__all__ = ["PROBE_ROWS", "learn_host_types", "needs_host_probe", "probed_host_type", "probed_types"]

# host function ref -> (type, nullable), observed by running it on the first values of an
# input (:func:`learn_host_types`); set only around building one call's plan
_PROBED: contextvars.ContextVar[Mapping[str, tuple[Type, bool]] | None] = contextvars.ContextVar(
    "looplift_probed_host_types", default=None
)
PROBE_ROWS = 100  # how many input rows a DataFrame call runs unreadable host functions on


@contextmanager
def probed_types(found: Mapping[str, tuple[Type, bool]]) -> Iterator[None]:
    """Within the block, host result types observed on data complete what source says."""
    token = _PROBED.set(found)
    try:
        yield
    finally:
        _PROBED.reset(token)


def probed_host_type(ref: str, arg_types: list[Type]) -> tuple[Type, bool] | None:
    return (_PROBED.get() or {}).get(ref)


def needs_host_probe(prog: Any) -> bool:
    """Whether some host function's or state reader's result type is known only from
    data (a DataFrame call then runs them on its first rows; nothing else does)."""
    wanted, readers = _unresolved(prog)
    return bool(wanted or readers)


def _unresolved(prog: Any) -> tuple[set[str], list[tuple[str, str]]]:
    ty = infer_types(prog.analysis, prog.refs, strict=False)
    wanted = {v.fn.ref for v in unresolved_host_calls(prog.analysis, prog.refs, ty)}
    return wanted, list(unresolved_readers(prog.analysis, prog.refs, ty))


def learn_host_types(prog: Any, args: list[Any]) -> dict[str, tuple[Type, bool]]:
    """Result types of the host functions whose source does not say them, observed by
    running the algorithm's IR in CPython on ``args`` (a DataFrame call's first rows).

    Only a DataFrame call does this (it has data before it needs the plan); a build,
    ``looplift.sql`` and ``register`` have none and ask for an annotation instead.
    Returns {} when every host function's type is known without data.
    """
    wanted, readers = _unresolved(prog)
    if not wanted and not readers:
        return {}
    seen: dict[str, list[Any]] = {r: [] for r in wanted}
    refs = dict(prog.refs)
    for r in wanted:

        def record(*xs: Any, _fn: Any = prog.refs[r], _seen: list = seen[r]) -> Any:
            v = _fn(*xs)
            _seen.append(v)
            return v

        refs[r] = record
    # a user state's readers: a subclass records what they return
    by_class: dict[str, list[str]] = {}
    for cls_ref, method in readers:
        by_class.setdefault(cls_ref, []).append(method)
    for cls_ref, methods in by_class.items():
        cls = prog.refs[cls_ref]
        recorders = {}
        for m in methods:
            seen[f"{cls_ref}.{m}"] = []

            def reader(self: Any, *xs: Any, _m: str = m, _seen: list = seen[f"{cls_ref}.{m}"],
                       _cls: Any = cls) -> Any:  # fmt: skip
                v = getattr(_cls, _m)(self, *xs)
                _seen.append(v)
                return v

            recorders[m] = reader
        refs[cls_ref] = type(cls.__name__, (cls,), recorders)
    try:
        evaluate(prog.fn, refs, args)
    except Exception:  # noqa: BLE001 - the values seen before Python raised still count
        pass
    out = {}
    for r, values in seen.items():
        t = _observed(values)
        if t is not None:
            out[r] = t
    return out


def _observed(values: list[Any]) -> tuple[Type, bool] | None:
    """The column type of the values a function returned (None: no non-None value, or
    values no one column holds)."""
    t: Type = "none"
    for v in values:
        vt = _value_type(v)
        t = join_types(t, vt) if vt is not None and t is not None else None
        if t is None:
            return None
    if t == "none" or not known_type(t):
        return None
    return t, any(v is None for v in values)


def _value_type(v: Any) -> Type | None:
    import datetime

    if v is None:
        return "none"
    if isinstance(v, tuple):
        parts = [_value_type(x) for x in v]
        return None if any(p is None for p in parts) else ("tuple", tuple(parts))
    if isinstance(v, (list, dict)):
        items = [list(v), *([list(v.values())] if isinstance(v, dict) else [])]
        joined: list[Type] = []
        for xs in items:
            t: Type = "none"
            for x in xs:
                xt = _value_type(x)
                t = join_types(t, xt) if xt is not None and t is not None else None
            joined.append(t)
        if any(t is None for t in joined):
            return None
        return ("list", joined[0]) if isinstance(v, list) else ("dict", joined[0], joined[1])
    for py, name in ((bool, "bool"), (int, "int"), (float, "float"), (str, "str"),
                     (datetime.datetime, "datetime"), (datetime.date, "date")):  # fmt: skip
        if isinstance(v, py):
            return name
    return None
