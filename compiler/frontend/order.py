"""Ordered and ranked streams: ``sorted_by``, ``sorted(g, key=...)``, slices, ``enumerate``.

- ``sorted_by(g, order)`` and ``sorted(g, key=lambda r: ...)`` over a stream are
  *ordered* streams: a loop over one is an ordered loop (``sorted_by`` builtin).
- ``sorted(g, key=...)[start:stop]`` and ``enumerate(sorted(...))`` are *ranked*
  streams (``ranked`` builtin): each row gets its rank in the order (1-based, a
  native ``row_number()`` window), and the loop body runs for the rows with
  ``start < rank <= stop``; the loop itself is unordered.

A key function is a ``lambda`` of field reads: ``r[i]``, ``-r[i]`` (descending)
or a tuple of them; ``reverse=True`` flips every given field. Ties are broken by
the remaining fields, ascending (a stream iterates in that canonical order in
CPython, and Python's sort is stable).

Whole rows: ``for row in rows:`` on a multi-field stream binds ``row`` to its
fields (:class:`RowValue`): ``row[i]``, ``len(row)``, ``a, b = row``.
"""

from __future__ import annotations

import libcst as cst

from ..ir.nodes import UNIT, Apply, Builtin, Expr, Lambda, Let, Lit, Prim, StateCall, StateNew, Var
from .base import Context
from .env import Env, Rows, RowValue, Value
from .parse import ref_of
from .syntax import code_of, int_literal

__all__ = ["OrderMixin", "Order"]

Order = tuple[tuple[int, bool], ...]

_KEY_HINT = "write `key=lambda r: (r[1], -r[2])`: fields of the row, negated for descending"


class OrderMixin(Context):
    """Streams in an order, key lambdas, whole-row values."""

    def ordered_stream(self, node: cst.BaseExpression, env: Env) -> tuple[Expr, Rows] | None:
        """``sorted_by(...)``, ``sorted(stream, ...)`` or a slice of one, else None."""
        if isinstance(node, cst.Subscript):
            inner = self._sort_call(node.value, env)
            if inner is None:
                return None
            start, stop = self._rank_slice(node)
            return self._ranked(node, inner, env, (start, stop))
        got = self._sort_call(node, env)
        if got is None:
            return None
        sexpr, src, order = got
        expr = Apply(Builtin("sorted_by", (("order", order),)), (sexpr,), span=self.span(node))
        return expr, Rows("", self.span(node), 0, src.arity, src.types, True,
                          names=src.names, row_type=src.row_type)

    def enumerated_stream(self, node: cst.BaseExpression, env: Env) -> tuple[Expr, Rows] | None:
        """``enumerate(<ordered or ranked stream>)``: a ranked stream (index = rank - 1)."""
        if not (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Name)
            and node.func.value not in env.names
            and self.global_obj(node.func.value) is enumerate
            and len(node.args) == 1
            and node.args[0].keyword is None
        ):
            return None
        arg = node.args[0].value
        if isinstance(arg, cst.Subscript):
            return self.ordered_stream(arg, env)
        got = self._sort_call(arg, env)
        if got is None:
            if self.try_stream(arg, env) is not None:
                raise self.error(
                    node,
                    "`enumerate` over a stream numbers rows in no defined order",
                    "enumerate an order: `enumerate(sorted(g, key=lambda r: r[1]))`",
                )
            return None
        return self._ranked(node, got, env, (0, None))

    def _ranked(
        self,
        node: cst.CSTNode,
        got: tuple[Expr, Rows, Order],
        env: Env,
        window: tuple[int, int | None],
    ) -> tuple[Expr, Rows]:
        sexpr, src, order = got
        expr = Apply(Builtin("ranked", (("order", order),)), (sexpr,), span=self.span(node))
        return expr, Rows("", self.span(node), 0, src.arity, src.types, False, window,
                          names=src.names, row_type=src.row_type)

    def _rank_slice(self, node: cst.Subscript) -> tuple[int, int | None]:
        hint = "take the first rows with a constant slice: `sorted(g, key=...)[:3]`"
        sl = node.slice[0].slice if len(node.slice) == 1 else None
        if not isinstance(sl, cst.Slice) or sl.step is not None:
            raise self.error(node, "a sorted stream can only be sliced: `[:n]`", hint)
        bounds = []
        for part, default in ((sl.lower, 0), (sl.upper, None)):
            if part is None:
                bounds.append(default)
                continue
            v = int_literal(part)
            if v is None or v < 0:
                raise self.error(
                    part,
                    f"slice bound `{code_of(part)}` of a sorted stream must be a non-negative "
                    "integer literal",
                    hint,
                )
            bounds.append(v)
        return bounds[0], bounds[1]

    def _sort_call(self, node: cst.BaseExpression, env: Env) -> tuple[Expr, Rows, Order] | None:
        """``sorted_by(stream, order, desc=)`` / ``sorted(stream, key=, reverse=)``."""
        from looplift.streams import sorted_by

        if not (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Name)
            and node.func.value not in env.names
        ):
            return None
        obj = self.global_obj(node.func.value)
        if obj is not sorted_by and obj is not sorted:
            return None
        pos = [a for a in node.args if a.keyword is None]
        kws = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        if not pos:
            return None
        st = self.try_stream(pos[0].value, env)
        if st is None:
            return None  # sorted(...) of something else (a container)
        sexpr, src = st
        if src.window is not None:
            raise self.error(pos[0].value, "a ranked stream cannot be sorted again",
                             "sort the stream once: `sorted(g, key=...)[:n]`")  # fmt: skip
        if obj is sorted_by:
            if len(pos) != 2 or set(kws) - {"desc"}:
                raise self.error(
                    node,
                    "sorted_by takes (stream, order) and optionally desc=True",
                    "write `sorted_by(rows, 1)`, `sorted_by(rows, (1, -2))` or "
                    "`sorted_by(rows, 0, desc=True)`",
                )
            if isinstance(pos[1].value, cst.Lambda):
                flip = kws.get("desc") is not None and code_of(kws["desc"]).strip() == "True"
                order = self.key_order(pos[1].value, src)
                return sexpr, src, tuple((i, d != flip) for i, d in order)
            order = self.order_spec(pos[1].value, kws.get("desc"), src)  # type: ignore[attr-defined]
            return sexpr, src, order
        if len(pos) != 1 or set(kws) - {"key", "reverse"}:
            raise self.error(
                node, "sorted over a stream takes key= and reverse=",
                "write `sorted(g, key=lambda r: r[2], reverse=True)`",
            )  # fmt: skip
        flip = False
        if "reverse" in kws:
            rv = kws["reverse"]
            if not (isinstance(rv, cst.Name) and rv.value in ("True", "False")):
                raise self.error(rv, "reverse= takes True or False", _KEY_HINT)
            flip = rv.value == "True"
        if "key" in kws:
            order = self.key_order(kws["key"], src)
        else:
            order = tuple((i, False) for i in range(src.arity))
        return sexpr, src, tuple((i, d != flip) for i, d in order)

    def lambda_order(self, key: cst.Lambda, desc: cst.BaseExpression | None, src: Rows) -> Order:
        """``order_by=lambda c: c.ts`` of group_by (``desc=True`` flips every field)."""
        flip = desc is not None and code_of(desc).strip() == "True"
        return tuple((i, d != flip) for i, d in self.key_order(key, src))

    def key_order(self, key: cst.BaseExpression, src: Rows) -> Order:
        """A key ``lambda`` of field reads as an order over the stream's fields."""
        key = self.as_lambda(key)
        if not isinstance(key, cst.Lambda):
            raise self.error(key, f"sort key `{code_of(key)}` must be a lambda of row fields",
                             _KEY_HINT)  # fmt: skip
        ps = key.params
        extra = ps.kwonly_params or ps.posonly_params or ps.star_kwarg is not None
        if len(ps.params) != 1 or isinstance(ps.star_arg, cst.CSTNode) or extra:
            raise self.error(key, "a sort key takes one row: `lambda r: ...`", _KEY_HINT)
        row = ps.params[0].name.value
        body = key.body
        elems = [e.value for e in body.elements] if isinstance(body, cst.Tuple) else [body]
        out: list[tuple[int, bool]] = []
        for e in elems:
            desc = False
            if isinstance(e, cst.UnaryOperation) and isinstance(e.operator, cst.Minus):
                desc, e = True, e.expression
            i = self._field_read(e, row, src)
            if desc and src.types[i] not in ("int", "float", "bool"):
                raise self.error(
                    e,
                    f"`-{code_of(e)}` negates a {src.types[i]} field",
                    "order it descending with `reverse=True` (or sorted_by(g, -i))",
                )
            if all(f != i for f, _ in out):
                out.append((i, desc))
        return tuple(out)

    def _field_read(self, e: cst.BaseExpression, row: str, src: Rows) -> int:
        if (
            src.names
            and isinstance(e, cst.Attribute)
            and isinstance(e.value, cst.Name)
            and e.value.value == row
        ):  # `c.ts` of a named row
            if e.attr.value not in src.names:
                raise self.error(e.attr, f"the row `{row}` ({src.row_type}) has no field "
                                 f"`{e.attr.value}`", f"its fields are: {', '.join(src.names)}")  # fmt: skip
            return src.names.index(e.attr.value)
        if (
            isinstance(e, cst.Subscript)
            and isinstance(e.value, cst.Name)
            and e.value.value == row
            and len(e.slice) == 1
            and isinstance(e.slice[0].slice, cst.Index)
        ):
            v = int_literal(e.slice[0].slice.value)
            if v is not None and -src.arity <= v < src.arity:
                return v % src.arity
            if v is not None:
                raise self.error(e, f"field index {v} is out of range: the stream has "
                                 f"{src.arity} fields", "fields are numbered from 0")  # fmt: skip
        raise self.error(
            e, f"sort key part `{code_of(e)}` is not a field of the row `{row}`", _KEY_HINT
        )

    # -- computed keys ---------------------------------------------------------------
    def computed_key(
        self, lam: cst.Lambda, src: Rows, env: Env
    ) -> tuple[tuple[int, ...], tuple[tuple[int, Expr, str], ...]]:
        """``group_by(lambda r: (r[0], r[2] // 7), rows)``: the key's fields (-1 where
        computed) and the computed parts (position, IR over ``_kf.<i>`` field vars, type)."""
        hint = (
            "a computed key is a lambda of the row: fields `r[i]`, arithmetic, casts, `str` "
            "methods and datetime parts, e.g. `group_by(lambda r: (r[0], r[2] // 7), rows)` "
            "or `group_by(lambda r: r[1].month, rows)`"
        )
        ps = lam.params
        if len(ps.params) != 1 or isinstance(ps.star_arg, cst.CSTNode) or ps.kwonly_params:
            raise self.error(lam, "a key function takes one row: `lambda r: ...`", hint)
        row = ps.params[0].name.value
        fields = tuple(f"_kf.{i}" for i in range(src.arity))
        inner = env.copy()
        inner.names = {n: b for n, b in env.names.items() if not isinstance(b, Value)}
        inner.names[row] = RowValue(row, self.span(lam), env.depth, fields, src.types,
                                    src.names, src.row_type)
        for f, ty in zip(fields, src.types, strict=True):
            inner.names[f] = Value(f, self.span(lam), depth=env.depth, types=(ty,))
        body = lam.body
        elems = [e.value for e in body.elements] if isinstance(body, cst.Tuple) else [body]
        key: list[int] = []
        computed: list[tuple[int, Expr, str]] = []
        for pos, e in enumerate(elems):
            ir = self.expr(e, inner)  # type: ignore[attr-defined]
            if isinstance(ir, Var) and ir.name in fields:
                key.append(fields.index(ir.name))
                continue
            ty = _key_type(ir, dict(zip(fields, src.types, strict=True)))
            if _has_session(ir) and not (_is_session(ir) and not _has_session(ir.args[0])):  # type: ignore[attr-defined]
                raise self.error(e, "`session(...)` is a whole part of a group key",
                                 "write `group_by(lambda r: (r[0], session(r[1], gap=GAP)), rows)`")  # fmt: skip
            if _is_session(ir) and any(_is_session(x) for x in computed_exprs(computed)):
                raise self.error(e, "a group key holds at most one `session(...)`",
                                 "group by one session window")  # fmt: skip
            if ty is None:
                raise self.error(e, f"key part `{code_of(e)}` is not a native expression of "
                                 "the row's fields", hint)  # fmt: skip
            key.append(-1)
            computed.append((pos, ir, ty))
        return tuple(key), tuple(computed)

    # -- max / min of a stream ------------------------------------------------------
    def stream_best(self, node: cst.Call, env: Env) -> Expr | None:
        """``max(g, key=lambda r: ...)`` / ``min(...)`` of a stream: its best row, as an
        ArgBest state fed by a loop over the stream (ties: the first row, as CPython)."""
        if not (isinstance(node.func, cst.Name) and node.func.value in ("max", "min")
                and node.func.value not in env.names):  # fmt: skip
            return None
        fn = self.global_obj(node.func.value)
        pos = [a for a in node.args if a.keyword is None]
        kws = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        if fn not in (max, min) or len(pos) != 1 or set(kws) - {"key", "default"}:
            return None
        st = self.try_stream(pos[0].value, env)
        if st is None:
            return None
        sexpr, src = st
        hint = "write `max(g, key=lambda r: r[2])`, or `max(rows, key=..., default=None)`"
        if src.depth == 0 and "default" not in kws:
            raise self.error(node, f"`{node.func.value}` of a whole input raises on no rows",
                             hint)  # fmt: skip
        default = self.expr(kws["default"], env) if "default" in kws else Lit(None)
        if not isinstance(default, Lit):
            raise self.error(kws["default"], "default= must be a literal", hint)
        from looplift.states import ArgBest

        ref = ref_of(ArgBest)
        self.refs[ref] = ArgBest
        sp = self.span(node)
        fields = tuple(self.fresh("best_row") for _ in range(src.arity))
        inner = env.copy()
        inner.depth = env.depth + 1
        for f, ty in zip(fields, src.types, strict=True):
            inner.names[f] = Value(f, sp, depth=inner.depth, types=(ty,))
        row_t = Apply(Prim("tuple"), tuple(Var(f) for f in fields), span=sp)
        if "key" in kws:
            lam = self.as_lambda(kws["key"])
            if not (isinstance(lam, cst.Lambda) and len(lam.params.params) == 1):
                raise self.error(lam, "the key must be a lambda of the row", hint)
            inner.names[lam.params.params[0].name.value] = RowValue(
                "", sp, inner.depth, fields, src.types, src.names, src.row_type
            )
            key = self.expr(lam.body, inner)  # type: ignore[attr-defined]
        else:
            key = row_t
        state, k, r = self.fresh("best"), self.fresh("best_key"), self.fresh("best_row")
        mode = "gt" if fn is max else "lt"
        offer = Apply(StateCall(state, "offer"), (Var(k), Var(r), Var(r)), span=sp)
        body = Let(k, key, Let(r, row_t, Let("_", offer, UNIT)))
        loop = Apply(Builtin("smap", (("ordered", False),)), (Lambda(fields, body), sexpr), span=sp)
        new = Apply(StateNew(ref), (default, Lit(None), Lit(mode)), span=sp)
        get = Apply(StateCall(state, "get"), (), span=sp)
        return Let(state, new, Let("_loop", loop, get, span=sp), span=sp)

    # -- whole rows ------------------------------------------------------------------
    def row_item(self, node: cst.Subscript, env: Env) -> Expr | None:
        """``row[i]`` of a whole-row binding, else None."""
        if not isinstance(node.value, cst.Name):
            return None
        b = env.names.get(node.value.value)
        if not isinstance(b, RowValue):
            return None
        sl = node.slice[0].slice if len(node.slice) == 1 else None
        v = int_literal(sl.value) if isinstance(sl, cst.Index) else None
        n = len(b.fields)
        if v is None:
            raise self.error(node, f"index the row `{node.value.value}` with an integer literal",
                             f"write `{node.value.value}[0]` ... `{node.value.value}[{n - 1}]`")  # fmt: skip
        if not -n <= v < n:
            raise self.error(node, f"field index {v} is out of range: the row has {n} fields",
                             "fields are numbered from 0 (negative from the end)")  # fmt: skip
        return Var(b.fields[v % n], span=self.span(node))

    def row_len(self, node: cst.Call, env: Env) -> Expr | None:
        """``len(row)`` of a whole-row binding: its number of fields."""
        if (
            isinstance(node.func, cst.Name)
            and node.func.value == "len"
            and node.func.value not in env.names
            and len(node.args) == 1
            and isinstance(node.args[0].value, cst.Name)
            and isinstance(env.names.get(node.args[0].value.value), RowValue)
        ):
            b = env.names[node.args[0].value.value]
            assert isinstance(b, RowValue)
            return Lit(len(b.fields), span=self.span(node))
        return None

    def row_tuple(self, b: RowValue, node: cst.CSTNode) -> Expr:
        return Apply(Prim("tuple"), tuple(Var(f) for f in b.fields), span=self.span(node))


_KEY_PRIMS = {"add", "sub", "mul", "floordiv", "mod", "truediv", "neg", "abs"}
_CASTS = {"int": "int", "float": "float", "str": "str", "bool": "bool", "round": "int",
          "len": "int"}  # fmt: skip
_KEY_TYPES = ("int", "float", "str", "bool", "datetime", "date")


def _is_session(e: Expr) -> bool:
    return isinstance(e, Apply) and e.fn == Prim("win.session")


def _has_session(e: Expr) -> bool:
    """Does ``session(...)`` occur in ``e`` (at the top or inside)?"""
    if _is_session(e):
        return True
    return isinstance(e, Apply) and any(_has_session(x) for x in e.args)


def computed_exprs(computed: list[tuple[int, Expr, str]]) -> list[Expr]:
    return [e for _, e, _ in computed]


def _key_type(e: Expr, fields: dict[str, str]) -> str | None:
    """The type of a computed key part, or None when it is not a native scalar expression
    of the row's fields (arithmetic, casts, ``str`` methods, datetime parts)."""
    from ..primitives import PRIMITIVES, STRING_NAMES
    from ..primitives.datetimes import datetime_type

    if isinstance(e, Lit):
        return {int: "int", float: "float", str: "str", bool: "bool"}.get(type(e.value))
    if isinstance(e, Var):
        t = fields.get(e.name)
        if t is not None and t.startswith("Optional["):
            t = t[len("Optional[") : -1]
        return t if t in _KEY_TYPES else None
    if not (isinstance(e, Apply) and isinstance(e.fn, Prim)):
        return None
    op = e.fn.op
    ts = [_key_type(x, fields) for x in e.args]
    if None in ts:
        return None
    if op in _KEY_PRIMS:
        if op == "add" and "str" in ts:
            return "str" if all(t == "str" for t in ts) else None
        dt = datetime_type(op, ts)
        if dt is not None:
            return dt if dt in _KEY_TYPES else None
        if any(t not in ("int", "float", "bool") for t in ts):
            return None
        return "float" if op == "truediv" or "float" in ts else "int"
    if op in ("eq", "ne", "lt", "le", "gt", "ge", "not"):
        return "bool"
    if op in _CASTS:
        return _CASTS[op]
    if op in ("win.tumble", "win.hop", "win.session"):  # a window's start (hop: a group per
        t = PRIMITIVES["win.tumble"].result_type(ts)  # window, session: per session)
        return t if t in _KEY_TYPES else None
    dt = datetime_type(op, ts)
    if dt is not None:
        return dt if dt in _KEY_TYPES else None
    if op in STRING_NAMES:  # the table's type rule
        lits = [x.value if isinstance(x, Lit) else None for x in e.args]
        got = PRIMITIVES[op].type_at(ts, lits)  # type: ignore[misc]
        return got[0] if got is not None and got[0] in _KEY_TYPES else None
    return None
