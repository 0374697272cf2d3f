"""The ``@dataflow`` decorator and the objects it makes.

A decorated function stays callable as ordinary Python (the reference
semantics): RowStream arguments may be any iterable of tuples, a table
algorithm returns the list of yielded rows, an aggregate its value.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any

from .streams import Rows, _RowStreamAlias

__all__ = ["Dataflow", "dataflow"]


class Dataflow:
    """A ``@dataflow`` algorithm: Python-callable, compilable."""

    def __init__(self, fn: Callable[..., Any], columns: Sequence[str] | None = None):
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.name = fn.__name__
        self.columns = tuple(columns) if columns is not None else None
        self.signature = inspect.signature(fn)
        self._compiled: Any = None

    # -- reference semantics -------------------------------------------------
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        bound = self.signature.bind(*args, **kwargs)
        for name, value in bound.arguments.items():
            ann = self.signature.parameters[name].annotation
            if _is_rowstream(ann, self.fn) and not isinstance(value, Rows):
                bound.arguments[name] = Rows(value)
        result = self.fn(*bound.args, **bound.kwargs)
        if inspect.isgenerator(result):
            return [r if isinstance(r, tuple) else (r,) for r in result]
        return result

    # -- compilation -----------------------------------------------------------
    def compile(self) -> Any:
        """Compile (once) and return the :class:`looplift.compiler.Compiled` result."""
        if self._compiled is None:
            from .compiler import compile_dataflow

            self._compiled = compile_dataflow(self)
        return self._compiled

    def explain(self, file: Any = None) -> str:
        """Print (and return) the dataflow graph with native and Python parts marked."""
        text = self.compile().explain()
        print(text, file=file)
        return text

    def __repr__(self) -> str:
        return f"<dataflow {self.__module__}.{self.name}{self.signature}>"


def dataflow(fn: Callable[..., Any] | None = None, *, columns: Sequence[str] | None = None) -> Any:
    """Mark a module-level function as a looplift algorithm.

    Use bare (``@dataflow``) or with output column names for a table algorithm
    (``@dataflow(columns=("user_id", "avg_clicks"))``).
    """
    if fn is not None:
        return Dataflow(fn, columns)
    return lambda f: Dataflow(f, columns)


def _is_rowstream(annotation: Any, fn: Callable[..., Any]) -> bool:
    return rowstream_fields(annotation, fn) is not None


def rowstream_fields(annotation: Any, fn: Callable[..., Any]) -> tuple[Any, ...] | None:
    """The field types of a ``RowStream[...]`` annotation (also when it is a string,
    as under ``from __future__ import annotations``), or None for other annotations."""
    if isinstance(annotation, str):
        text = annotation.replace(" ", "")
        if not (text.startswith("RowStream[") or text.startswith("looplift.RowStream[")):
            return None
        try:
            annotation = eval(annotation, fn.__globals__)  # noqa: S307 - the user's own annotation
        except Exception:  # noqa: BLE001 - unresolvable names: count the fields
            inner = text[text.index("[") + 1 : -1]
            depth, n = 0, 1
            for ch in inner:
                depth += ch == "["
                depth -= ch == "]"
                n += ch == "," and depth == 0
            return (Any,) * n
    if isinstance(annotation, _RowStreamAlias):
        return annotation.fields
    return None
