"""What ``--check`` and the build tell a user whose host function's result type nothing
says: no annotation, or a bare ``tuple`` / ``list`` / ``dict`` (the hint spells the full
annotation with what the ``return`` statements say of the items), or items no Spark column
holds as Python has them. The types themselves are read in :mod:`.host_types`."""

from __future__ import annotations

import ast
import inspect
from typing import Any

from ..errors import Diagnostic
from ..ir.nodes import Span
from .host_annotations import known_type, return_annotation, spelled, written_annotation
from .host_reader import SourceReader, join_types, reader_for, returns_of
from .types import host_hook
from .typevocab import Type

__all__ = ["unresolved_diagnostic"]


@host_hook("unresolved_host")
def unresolved_diagnostic(fn: Any, span: Span, arg_types: list[Type]) -> Diagnostic:
    """Host function ``fn``, called at ``span``, has a result type nothing says: no
    annotation, or a bare ``tuple`` / ``list`` / ``dict`` (then the hint spells the full
    annotation, with what the source says of the items)."""
    name = getattr(fn, "__qualname__", getattr(fn, "__name__", "?"))
    try:
        where = f" (defined at {inspect.getsourcefile(fn)}:{inspect.getsourcelines(fn)[1]})"
    except (OSError, TypeError):
        where = ""
    params = ", ".join(inspect.signature(fn).parameters)
    _, bare = return_annotation(fn)
    tail = (" (a DataFrame call learns it from its input's first rows, a build or SQL "
            "registration has no rows)")  # fmt: skip
    written = written_annotation(fn)
    if bare is not None and written not in (bare, None):
        # `-> list[set[int]]`, `-> dict[float, int]`, `-> tuple[int, ...]`: items no column holds
        return Diagnostic(
            span,
            f"host function `{name}`{where} is annotated `-> {written}`, whose items looplift "
            f"has no Spark column type for (the result is {_SPARK_KIND[bare]} of int, float, "
            "str, bool, datetime.date or datetime.datetime items, Optional[...] of these, or "
            "tuples, lists and dicts of them; dict keys are not floats, tuples have a fixed "
            "width)",
            f"annotate the items as one of these, e.g. `-> {_EXAMPLE_FULL[bare]}`",
        )
    if bare is not None:
        shape = _container_shape(fn, arg_types, bare)
        return Diagnostic(
            span,
            f"host function `{name}`{where} is annotated `-> {bare}`, which does not say the "
            f"types of its items, and they cannot be read from its `return` statements; the "
            f"Spark column of its result ({_SPARK_KIND[bare]}) needs them before any row is "
            "seen" + tail,
            f"annotate the item types: `def {name}({params}) -> {shape}:` (items: int, float, "
            "str, bool, datetime.date, datetime.datetime, Optional[...], or tuples, lists and "
            "dicts of these)",
        )
    types = (
        "int, float, str, bool, datetime.date, datetime.datetime, Optional[...], "
        "tuple[...], list[...] or dict[str, ...] of these"
    )
    hint = f"annotate its result, e.g. `def {name}({params}) -> int:` ({types})"
    if _library(fn):  # not the user's to annotate
        call = f"{getattr(fn, '__module__', None) or '?'}.{name}"
        hint = (f"`{call}` is library code: call it from a function of your module whose "
                "return annotation says the type of what the algorithm uses, e.g. `def "
                f"{name.rpartition('.')[2]}_value(x) -> int: return len({call}(x))` ({types})")  # fmt: skip
    return Diagnostic(
        span,
        f"host function `{name}`{where} has no return annotation and its result type cannot "
        "be read from its `return` statements; the Spark column of its result needs a type "
        "before any row is seen" + tail,
        hint,
    )


_SPARK_KIND = {"tuple": "a struct", "list": "an array", "dict": "a map"}
_EXAMPLE_FULL = {"tuple": "tuple[int, str]", "list": "list[str]", "dict": "dict[str, int]"}
# the annotation's shape when the `return` statements say nothing of the items
_EXAMPLE = {
    "tuple": "tuple[<type>, <type>]",
    "list": "list[<type>]",
    "dict": "dict[<type>, <type>]",
}


def _container_shape(fn: Any, arg_types: list[Type], kind: str) -> str:
    """The annotation a bare ``kind`` stands for, as far as the ``return`` statements say
    (``tuple[int, <type>]``: the second item's type is unknown), else an example."""
    got = reader_for(fn, arg_types, 0, displays=True)
    if got is None:
        return _EXAMPLE[kind]
    reader, tree = got
    shapes: list[list[Type]] = []
    for r in returns_of(tree.body):
        v = r.value
        if v is None or isinstance(v, ast.Constant) and v.value is None:
            continue  # None: the result is Optional, the items are said elsewhere
        if kind == "tuple" and isinstance(v, ast.Tuple):
            items = v.elts
        elif kind == "list" and isinstance(v, ast.List):
            items = [ast.List(elts=v.elts, ctx=ast.Load())] if v.elts else []
        elif kind == "dict" and isinstance(v, ast.Dict) and v.keys:
            items = [ast.List(elts=v.keys, ctx=ast.Load()), ast.List(elts=v.values, ctx=ast.Load())]
        else:
            continue
        shapes.append([_item_type(reader, x, kind) for x in items])
    widths = {len(s) for s in shapes if s}
    if len(widths) != 1:
        return _EXAMPLE[kind]
    cols = list(zip(*[s for s in shapes if s], strict=True))
    parts = []
    for col in cols:
        t: Type = "none"
        for x in col:
            t = join_types(t, x) if t is not None and x is not None else None
        parts.append(t if t is not None and known_type(t) else None)
    if kind == "tuple":
        return spelled(("tuple", tuple(parts)))
    return spelled(("list", parts[0]) if kind == "list" else ("dict", *parts))


def _item_type(reader: SourceReader, x: ast.expr, kind: str) -> Type | None:
    if kind != "tuple":  # a list display of the items: their joined type
        got = reader._either([reader.expr(e) for e in x.elts])  # type: ignore[attr-defined]
    else:
        got = reader.expr(x)
    return got[0] if got is not None else None


def _library(fn: Any) -> bool:
    """Is ``fn`` the standard library's or an installed package's (not the user's code)?"""
    import sys
    import sysconfig

    top = (getattr(fn, "__module__", None) or "").partition(".")[0]
    if top in sys.stdlib_module_names:
        return True
    try:
        path = inspect.getsourcefile(fn) or ""
    except TypeError:
        return True  # a builtin
    paths = sysconfig.get_paths()
    return any(path.startswith(paths[k]) for k in ("stdlib", "purelib", "platlib") if k in paths)
