"""Return types of unannotated readers of user states, read from the class source.

The state's fields are typed by every assignment in the class, then the reader's
``return`` statements are typed like a host function's (:mod:`.host_types`).
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Mapping
from typing import Any

from .host_probe import probed_host_type
from .host_reader import SourceReader, returned_type
from .types import host_hook
from .typevocab import Type

__all__ = ["infer_state_reader", "state_reader_type"]


@host_hook("state_reader")
def state_reader_type(
    cls: Any,
    ref: str,
    method: str,
    action_args: Mapping[str, list[Type]],
    init_args: list[Type],
) -> tuple[Type, bool] | None:
    """(type, nullable) of reader ``method`` of the user state class ``cls`` (``ref``) whose
    annotation says nothing: what its source returns (:func:`infer_state_reader`), else
    what a DataFrame call saw it return on its first rows; None when nothing says it."""
    read = infer_state_reader(cls, method, action_args, init_args)
    if read is not None:
        return read
    return probed_host_type(f"{ref}.{method}", [])


def infer_state_reader(
    cls: Any,
    method: str,
    action_args: Mapping[str, list[Type]],
    init_args: list[Type],
) -> tuple[Type, bool] | None:
    """(type, nullable) of reader ``cls.method``'s result from the class source, or None.

    The state's fields (``self.f``) are typed by every assignment in the class (its
    ``__init__``, its actions and undos, its readers), the actions' parameters by the
    argument types at their call sites (``action_args``: action name → types), the
    constructor's by ``init_args``. Then the reader's ``return`` expressions are typed
    like a host function's. The Flink-style ``Top2`` (``self.first = None`` in
    ``__init__``, ``self.first = v`` in ``add(v)``, ``return self.first, self.second``)
    reads as a tuple of two nullable ints when ``add`` is called with ints.
    """
    try:
        src = textwrap.dedent(inspect.getsource(cls))
        mod = ast.parse(src)
    except (OSError, TypeError, SyntaxError):
        return None
    cdef = mod.body[0] if mod.body else None
    if not isinstance(cdef, ast.ClassDef):
        return None
    env: dict[str, tuple[Type, bool]] = {}
    body: list[ast.stmt] = []
    reader_def: ast.FunctionDef | None = None
    for i, fn in enumerate(cdef.body):
        if not isinstance(fn, ast.FunctionDef):
            continue
        params = [*fn.args.posonlyargs, *fn.args.args][1:]  # without self
        given = init_args if fn.name == "__init__" else action_args.get(fn.name, [])
        prefix = f"{i}.{fn.name}."
        local = {p.arg for p in params} | {
            n.id for n in ast.walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
        }
        renamed = _FieldNames(prefix, local).visit(fn)
        for k, p in enumerate(params):
            if k < len(given) and given[k] != "any":
                env[prefix + p.arg] = (given[k], False)
        body.extend(renamed.body)
        if fn.name == method:
            reader_def = renamed
    if reader_def is None:
        return None
    reader = SourceReader(getattr(cls, method, None), env, 0)
    reader.locals_(body)
    return returned_type(reader, reader_def.body)


class _FieldNames(ast.NodeTransformer):
    """``self.f`` → the name ``self.f`` (shared by every method); a method's own locals
    and parameters get the method's prefix (methods do not share locals)."""

    def __init__(self, prefix: str, local: set[str]) -> None:
        self.prefix = prefix
        self.local = local

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST:
        if isinstance(node.value, ast.Name) and node.value.id == "self":
            return ast.copy_location(ast.Name(id=f"self.{node.attr}", ctx=node.ctx), node)
        self.generic_visit(node)
        return node

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in self.local:
            return ast.copy_location(ast.Name(id=self.prefix + node.id, ctx=node.ctx), node)
        return node
