"""The ``@dataflow`` decorators of a module, checked on its source before it is imported.

A decorator misused this way either fails at import or leaves an object the compiler cannot
read (``@dataflow`` twice wraps a ``Dataflow`` in a ``Dataflow``; ``@functools.cache`` under it
hides the function). Reported, each at the decorator:

- ``@dataflow`` twice on one function, on a class or on a method;
- another decorator on a ``@dataflow`` function;
- arguments other than ``columns=`` and ``strict=True/False``; a literal ``columns`` that is not a tuple or list of
  distinct string literals.
"""

from __future__ import annotations

import libcst as cst

from ..errors import Diagnostic
from .parse import ParsedModule
from .syntax import code_of

__all__ = ["check_decorators"]

_COLUMNS_HINT = 'name the output columns with string literals: @dataflow(columns=("user_id", "n"))'


def check_decorators(parsed: ParsedModule) -> list[Diagnostic]:
    """Every misuse of ``@dataflow`` in the module, in source order."""
    found: list[Diagnostic] = []

    def error(node: cst.CSTNode, message: str, hint: str) -> None:
        found.append(Diagnostic(parsed.span(node), message, hint))

    class Visit(cst.CSTVisitor):
        def __init__(self) -> None:
            super().__init__()
            self.classes: list[str | None] = []  # the enclosing class of each nested def

        def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
            self.classes.pop()

        def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
            self.classes.pop()

        def visit_ClassDef(self, node: cst.ClassDef) -> None:
            self.classes.append(node.name.value)
            for d in node.decorators:
                if _is_dataflow(d.decorator):
                    error(d.decorator, f"@dataflow decorates functions, not the class "
                          f"`{node.name.value}`",
                          "decorate a module-level function; a state class needs no decorator")  # fmt: skip

        def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
            owner = self.classes[-1] if self.classes else None
            self.classes.append(None)
            flows = [d for d in node.decorators if _is_dataflow(d.decorator)]
            if not flows:
                return
            name = node.name.value
            if owner is not None:
                error(flows[0].decorator, f"@dataflow on the method `{owner}.{name}`",
                      "algorithms are module-level functions; state actions are marked "
                      "@action")  # fmt: skip
                return
            for d in flows[1:]:
                error(d.decorator, f"@dataflow is applied twice to `{name}`",
                      "keep one @dataflow decorator")  # fmt: skip
            for d in node.decorators:
                if not _is_dataflow(d.decorator):
                    error(d.decorator, f"`@{code_of(d.decorator)}` on the @dataflow function "
                          f"`{name}` is not supported",
                          "remove it: @dataflow must be the function's only decorator")  # fmt: skip
            for d in flows:
                if isinstance(d.decorator, cst.Call):
                    _check_arguments(d.decorator, error)

    parsed.wrapper.module.visit(Visit())
    return found


def _is_dataflow(e: cst.BaseExpression) -> bool:
    if isinstance(e, cst.Call):
        e = e.func
    return code_of(e) in ("dataflow", "looplift.dataflow")


def _check_arguments(call: cst.Call, error) -> None:  # type: ignore[no-untyped-def]
    for a in call.args:
        kw = a.keyword.value if a.keyword is not None else None
        if kw == "strict" and not a.star:
            if not (isinstance(a.value, cst.Name) and a.value.value in ("True", "False")):
                error(a.value, f"`strict={code_of(a.value)}` is not True or False",
                      "write @dataflow(strict=True) to refuse Python islands")  # fmt: skip
            continue
        if kw == "largest_group" and not a.star:
            if not isinstance(a.value, cst.Integer):
                error(a.value, f"`largest_group={code_of(a.value)}` is not an int literal",
                      "write @dataflow(largest_group=50_000_000): the rows of the largest group")  # fmt: skip
            continue
        if kw != "columns" or a.star:
            error(a, f"@dataflow takes only `columns=`, `strict=` and `largest_group=`, not "
                  f"`{code_of(a).rstrip(', ')}`", _COLUMNS_HINT)  # fmt: skip
            continue
        v = a.value
        if isinstance(v, cst.Tuple | cst.List):
            names: list[str] = []
            for el in v.elements:
                s = el.value
                if not isinstance(s, cst.SimpleString) or isinstance(el, cst.StarredElement):
                    error(s, f"column name `{code_of(s)}` is not a string literal", _COLUMNS_HINT)
                    continue
                n = s.evaluated_value
                if not isinstance(n, str):
                    error(s, f"column name `{code_of(s)}` is not a string", _COLUMNS_HINT)
                elif n in names:
                    error(s, f"column `{n}` is named twice", "give each output column its own name")
                names.append(n)  # type: ignore[arg-type]
        elif isinstance(v, cst.BaseString | cst.Integer | cst.Float | cst.Dict | cst.Set) or (
            isinstance(v, cst.Name) and v.value in ("True", "False")
        ):
            error(v, f"`columns={code_of(v)}` is not a tuple of column names", _COLUMNS_HINT)
