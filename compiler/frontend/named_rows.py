"""Named rows: ``RowStream[Click]`` with ``Click`` a ``typing.NamedTuple`` (or a dataclass).

A named stream is the positional stream of its fields, in the class's field order, with
the field names attached (``Param.fields``, ``Rows.names``, ``RowValue.names``); the rest
of the compiler sees positions only::

    for uid, g in group_by("user_id", clicks, order_by="ts"):    group_by(0, clicks, order_by=2)
        for c in g:                                               for c in g:
            last = c.page                                             last = c[1]
        yield PerUser(uid, n, last)                               yield (uid, n, last)

- ``c.name`` of a named row is its field (``RowValue.fields[i]``); an unknown name is
  reported with the row's fields.
- Keys and orders take field names (``"user_id"``, ``("user_id", "day")``) where they
  take indices, and lambdas read ``c.name`` as they read ``c[i]``.
- ``Out(a, b)`` / ``Out(x=a, y=b)`` of a row class is the tuple of its fields in order;
  the fields of the class a table algorithm yields (or of ``-> Iterator[Out]``) name its
  output columns, as ``@dataflow(columns=...)`` does.
- The entry projection binds the fields to the input's columns by name (``ll.entry(...,
  by_name=[...])``, see ``looplift.rowtypes``).
"""

from __future__ import annotations

from typing import Any

import libcst as cst
from looplift.rowtypes import is_row_class, row_fields

from ..ir.nodes import Apply, Expr, Lit, Param, ParamKind, Prim, Var
from .base import Context
from .env import Env, Rows, RowValue, Value
from .syntax import MISSING, code_of, int_literal

__all__ = ["NamedRowMixin"]

_TYPES_HINT = ("fields are int, float, str, bool, datetime.datetime, datetime.date, or "
               "Optional[...] of those")  # fmt: skip
_ITERATORS = ("Iterator", "Iterable", "Generator", "typing.Iterator", "typing.Iterable",
              "typing.Generator", "collections.abc.Iterator", "collections.abc.Iterable",
              "collections.abc.Generator")  # fmt: skip


class NamedRowMixin(Context):
    """Named row types: parameters, field reads, field names as keys, row constructors."""

    # -- the row class -----------------------------------------------------------------
    def row_class_of(self, node: cst.BaseExpression | None) -> type | None:
        """The NamedTuple class or dataclass a (dotted) name denotes, else None."""
        if isinstance(node, cst.Name):
            obj = self.global_obj(node.value)
        elif isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name):
            mod = self.global_obj(node.value.value)
            obj = getattr(mod, node.attr.value, MISSING) if mod is not MISSING else MISSING
        else:
            return None
        return obj if is_row_class(obj) else None

    def named_param(self, name: str, ann: cst.Subscript, sp: Any) -> Param | None:
        """``RowStream[Click]`` of a row class: the positional stream of its fields, named;
        None when the annotation is not one."""
        if len(ann.slice) != 1 or not isinstance(ann.slice[0].slice, cst.Index):
            return None
        node = ann.slice[0].slice.value
        cls = self.row_class_of(node)
        if cls is None:
            return None
        fields = row_fields(cls)
        if not fields:
            self.error(node, f"the row type `{cls.__name__}` of `{name}` has no fields",
                       "declare its fields with types: `user_id: int`")  # fmt: skip
        types = []
        for f, t in fields:
            if t is None:
                at = self._class_field(cls, f)
                self.error(
                    at if at is not None else node,
                    f"field `{f}` of the row type `{cls.__name__}` has the unsupported type "
                    f"`{self._field_annotation(cls, f)}`",
                    _TYPES_HINT,
                )
                t = "int"
            types.append(t)
        return Param(name, ParamKind.ROWS, tuple(types), span=sp,
                     fields=tuple(f for f, _ in fields), row_type=cls.__name__)  # fmt: skip

    def _class_field(self, cls: type, field: str) -> cst.CSTNode | None:
        """The ``field: T`` line of ``cls`` in the parsed module (if it is defined there)."""
        parsed = self.positions
        node = getattr(parsed, "classes", {}).get(cls.__name__) if parsed is not None else None
        if node is None or cls.__module__ != self.globals.get("__name__"):
            return None
        for st in node.body.body:
            for small in getattr(st, "body", ()):
                if (isinstance(small, cst.AnnAssign) and isinstance(small.target, cst.Name)
                        and small.target.value == field):  # fmt: skip
                    return small.annotation.annotation
        return None

    def _field_annotation(self, cls: type, field: str) -> str:
        at = self._class_field(cls, field)
        if at is not None:
            return code_of(at)
        ann = getattr(cls, "__annotations__", {}).get(field, "?")
        return ann if isinstance(ann, str) else getattr(ann, "__name__", repr(ann))

    # -- reading rows ------------------------------------------------------------------
    def named_attr(self, node: cst.Attribute, env: Env) -> Expr | None:
        """``c.user_id`` of a named row: its field; None when ``c`` is no named row."""
        if not isinstance(node.value, cst.Name):
            return None
        b = env.names.get(node.value.value)
        if isinstance(b, RowValue) and b.names:
            names, row_type = b.names, b.row_type
        elif isinstance(b, Value) and b.row_names:
            names, row_type = b.row_names, b.row_type
        else:
            return None
        attr = node.attr.value
        if attr not in names:
            raise self.error(
                node.attr,
                f"the row `{node.value.value}` ({row_type}) has no field `{attr}`",
                f"its fields are: {', '.join(names)}",
            )
        i = names.index(attr)
        if isinstance(b, RowValue):
            return Var(b.fields[i], span=self.span(node))
        return Apply(Prim("nth"), (Var(b.var), Lit(i)), span=self.span(node))

    def named_value(self, node: cst.CSTNode, env: Env) -> dict[str, Any]:
        """What an assigned value keeps of a named row: ``r = c`` of a named row, ``best =
        max(g, key=...)`` / ``min`` of a named stream (``Value.row_names``)."""
        if isinstance(node, cst.Name):
            b = env.names.get(node.value)
            if isinstance(b, RowValue) and b.names:
                return {"row_names": b.names, "row_type": b.row_type}
            if isinstance(b, Value) and b.row_names:
                return {"row_names": b.row_names, "row_type": b.row_type}
        if (isinstance(node, cst.Call) and isinstance(node.func, cst.Name)
                and node.func.value in ("max", "min") and node.func.value not in env.names
                and node.args and node.args[0].keyword is None):  # fmt: skip
            src = self.stream_of(node.args[0].value, env)  # type: ignore[attr-defined]
            if src is not None and src.names:
                return {"row_names": src.names, "row_type": src.row_type}
        return {}

    def field_name_index(self, e: cst.BaseExpression, src: Rows) -> int | None:
        """A field given by name (a string literal): its index; None for other nodes."""
        if not isinstance(e, cst.SimpleString):
            return None
        v = e.evaluated_value
        if not isinstance(v, str):
            return None
        if not src.names:
            raise self.error(
                e,
                f"field `{v}` is given by name but the stream's rows are positional "
                f"(RowStream[{', '.join(src.types)}])",
                "give field indices, or declare the row type as a NamedTuple: `RowStream[Click]`",
            )
        if v not in src.names:
            raise self.error(
                e,
                f"the stream of {src.row_type} rows has no field `{v}`",
                f"its fields are: {', '.join(src.names)}",
            )
        return src.names.index(v)

    def field_literal(self, e: cst.BaseExpression, src: Rows) -> int | None:
        """A field given by name or by an integer literal: its index (None otherwise)."""
        v = self.field_name_index(e, src)
        return int_literal(e) if v is None else v

    def row_names_of(self, src: Rows, idx: tuple[int, ...]) -> tuple[str, ...]:
        """The field names of a projection of ``src`` (none for positional streams)."""
        return tuple(src.names[i] for i in idx) if src.names else ()

    # -- building rows -----------------------------------------------------------------
    def row_construct(self, node: cst.Call, cls: type, env: Env) -> Expr:
        """``Out(a, b)`` / ``Out(x=a, y=b)`` of a row class: the tuple of its fields."""
        names = [f for f, _ in row_fields(cls)]
        defaults = dict(getattr(cls, "_field_defaults", {}))
        given: dict[str, cst.BaseExpression] = {}
        pos = [a for a in node.args if a.keyword is None]
        hint = f"call it as `{cls.__name__}({', '.join(names)})`"
        for a in node.args:
            if a.star:
                raise self.reject(a, node)
        if len(pos) > len(names):
            raise self.error(node, f"`{cls.__name__}` takes {len(names)} fields, "
                             f"{len(pos)} given", hint)  # fmt: skip
        for f, a in zip(names, pos, strict=False):
            given[f] = a.value
        for a in node.args:
            if a.keyword is None:
                continue
            k = a.keyword.value
            if k not in names:
                raise self.error(a.keyword, f"`{cls.__name__}` has no field `{k}`",
                                 f"its fields are: {', '.join(names)}")  # fmt: skip
            if k in given:
                raise self.error(a, f"field `{k}` of `{cls.__name__}` is given twice", hint)
            given[k] = a.value
        missing = [f for f in names if f not in given and f not in defaults]
        if missing:
            raise self.error(node, f"`{cls.__name__}(...)` misses the field"
                             f"{'s' if len(missing) > 1 else ''} {', '.join(missing)}",
                             hint)  # fmt: skip
        vals = self.exprs([given[f] for f in names if f in given], env)  # type: ignore[attr-defined]
        it = iter(vals)
        args = tuple(next(it) if f in given else Lit(defaults[f]) for f in names)
        return Apply(Prim("tuple"), args, span=self.span(node))

    def output_row_class(self, fn: cst.FunctionDef) -> type | None:
        """The row class naming a table algorithm's output: ``-> Iterator[Out]``, else the
        class of the rows it yields (``yield Out(...)``)."""
        if fn.returns is not None:
            ann = fn.returns.annotation
            if (isinstance(ann, cst.Subscript) and code_of(ann.value) in _ITERATORS
                    and ann.slice and isinstance(ann.slice[0].slice, cst.Index)):  # fmt: skip
                cls = self.row_class_of(ann.slice[0].slice.value)
                if cls is not None:
                    return cls
        found: list[type] = []

        class _Yields(cst.CSTVisitor):
            def visit_Yield(inner, node: cst.Yield) -> None:  # noqa: N805
                v = node.value
                if isinstance(v, cst.Call):
                    cls = self.row_class_of(v.func)
                    if cls is not None and cls not in found:
                        found.append(cls)

            def visit_FunctionDef(inner, node: cst.FunctionDef) -> bool:  # noqa: N805
                return node is fn

            def visit_Lambda(inner, node: cst.Lambda) -> bool:  # noqa: N805
                return False

        fn.visit(_Yields())
        return found[0] if len(found) == 1 else None
