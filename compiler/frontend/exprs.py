"""Expressions: a libcst expression → IR (literals, names, operators, comparisons, streams).

Calls are in ``calls.py``. The same translator reads state classes (see
``classes.py``): there ``self`` is bound to ``SelfFields`` and ``self.f``
becomes ``Var("self.f")``.
"""

from __future__ import annotations

import ast
import math
import types
from typing import Any

import libcst as cst

from ..ir.nodes import Apply, Builtin, Expr, Let, Lit, Prim, StateCall, Var
from ..ir.prims import BINOPS, COMPAREOPS, DATETIME_ATTRS, UNARYOPS
from .base import Context
from .env import (
    Carry,
    Container,
    Env,
    MaybeUnbound,
    Pattern,
    Poison,
    Rows,
    RowValue,
    SelfFields,
    StateVar,
    Stop,
    Value,
)  # fmt: skip
from .named_rows import NamedRowMixin
from .order import OrderMixin
from .reject import rule_for
from .strings import is_fstring
from .syntax import MISSING, code_of, if_expr, int_literal
from .values import ValueMixin, const_datetime, is_const_table

__all__ = ["ExprMixin"]


class ExprMixin(OrderMixin, NamedRowMixin, ValueMixin, Context):
    """Expressions other than calls; ``call`` comes from ``CallMixin``."""

    def stream_of(self, node: cst.BaseExpression, env: Env) -> Rows | None:
        """The stream ``node`` denotes, or None (also where reading it is an error: the
        rewrites that ask only decline, and the translation reports it)."""
        try:
            st = self.try_stream(node, env)
        except Stop:
            return None
        return st[1] if st is not None else None

    def try_stream(self, node: cst.BaseExpression, env: Env) -> tuple[Expr, Rows] | None:
        """If ``node`` denotes a stream, its IR and a ``Rows`` binding describing it."""
        ordered = self.ordered_stream(node, env)
        if ordered is not None:
            return ordered
        if isinstance(node, cst.Name):
            b = env.names.get(node.value)
            if isinstance(b, Rows):
                return Var(b.var, span=self.span(node)), b
            return None
        if (
            isinstance(node, cst.Call)
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "project"
        ):
            inner = self.try_stream(node.func.value, env)
            if inner is None:
                return None
            iexpr, ib = inner
            if any(a.keyword is not None for a in node.args) or not node.args:
                raise self.error(
                    node, "project takes field indices: `.project(1, 2)`", "write `g.project(1, 2)`"
                )
            idx = []
            for a in node.args:
                v = self.field_literal(a.value, ib)  # an index, or a named row's field name
                if v is None:
                    raise self.error(
                        a.value,
                        "project takes integer literal field indices",
                        "write `g.project(1, 2)`",
                    )
                if not -ib.arity <= v < ib.arity:
                    raise self.error(
                        a.value,
                        f"field index {v} is out of range: the stream has {ib.arity} field"
                        f"{'s' if ib.arity != 1 else ''}",
                        "fields are numbered from 0",
                    )
                idx.append(v % ib.arity)
            expr = Apply(Builtin("project", (("fields", tuple(idx)),)), (iexpr,))
            expr = Apply(expr.fn, expr.args, span=self.span(node))
            return expr, Rows(
                "", self.span(node), 0, len(idx), tuple(ib.types[i] for i in idx), ib.ordered,
                names=self.row_names_of(ib, tuple(idx)), row_type=ib.row_type,
            )
        return None

    # -- expressions -----------------------------------------------------------------
    def expr(self, node: cst.BaseExpression, env: Env) -> Expr:
        sp = self.span(node)
        if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary)):
            if isinstance(node, cst.Imaginary):
                raise self.reject(node)
            return Lit(ast.literal_eval(node.value), span=sp)
        if is_fstring(node):
            return self.fstring(node, env)
        if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
            v = ast.literal_eval(code_of(node))
            if isinstance(v, bytes):
                raise (
                    self.reject(node)
                    if rule_for(node, None)
                    else self.error(node, "bytes literals are not supported", "use a str")
                )
            return Lit(v, span=sp)
        if isinstance(node, cst.Name):
            return self.name(node, env)
        if isinstance(node, cst.Attribute):
            return self.attribute(node, env)
        if isinstance(node, cst.BinaryOperation):
            op = BINOPS.get(type(node.operator).__name__)
            fmt = _format_text(node.left, env, self.global_obj) if op == "mod" else None
            if fmt is not None:  # "n=%d" % x, FORMAT % (a, b)
                return self.percent_format(node, fmt, env)  # type: ignore[attr-defined]
            operands = self.exprs([node.left, node.right], env)
            if op is None:
                raise self.reject(node.operator, node)
            return Apply(Prim(op), tuple(operands), span=sp)
        if isinstance(node, cst.UnaryOperation):
            op = UNARYOPS.get(type(node.operator).__name__)
            if op == "not":
                operand = self.truth_test(node.expression, env)  # type: ignore[attr-defined]
            else:
                (operand,) = self.exprs([node.expression], env)
            if op is None:
                raise self.reject(node.operator, node)
            if op == "neg" and isinstance(operand, Lit) and type(operand.value) in (int, float):
                return Lit(-operand.value, span=sp)  # a negative literal
            return Apply(Prim(op), (operand,), span=sp)
        if isinstance(node, cst.BooleanOperation):
            left, right = self.exprs([node.left, node.right], env)
            tmp = self.fresh("b")
            # `a and b` is `b if a else a`; `a or b` is `a if a else b` (operands returned)
            if isinstance(node.operator, cst.And):
                ife = if_expr(Var(tmp), right, Var(tmp), sp)
            else:
                ife = if_expr(Var(tmp), Var(tmp), right, sp)
            return Let(tmp, left, ife, span=sp)
        if isinstance(node, cst.Comparison):
            return self.comparison(node, env)
        if isinstance(node, cst.IfExp):
            test = self.truth_test(node.test, env)  # type: ignore[attr-defined]
            body, orelse = self.exprs([node.body, node.orelse], env)
            return if_expr(test, body, orelse, sp)
        if isinstance(node, cst.Call):
            return self.call(node, env, statement=False)
        if isinstance(node, cst.Tuple):
            if any(isinstance(e, cst.StarredElement) for e in node.elements):
                raise self.error(
                    node, "starred elements are not supported", "list the elements explicitly"
                )
            elems = self.exprs([e.value for e in node.elements], env)
            return Apply(Prim("tuple"), tuple(elems), span=sp)
        if isinstance(node, cst.Subscript):
            return self.subscript(node, env)
        if isinstance(node, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
            return self.comprehension_value(node, env)  # over a container's values
        if rule_for(node, None) is not None:
            raise self.reject(node)
        raise self.error(
            node,
            f"unsupported expression `{code_of(node)}`",
            "use literals, names, arithmetic, comparisons, calls and conditional expressions",
        )

    def comparison(self, node: cst.Comparison, env: Env) -> Expr:
        sp = self.span(node)
        left = self.expr(node.left, env)
        parts: list[Expr] = []
        prev = left
        lets: list[tuple[str, Expr]] = []
        for i, ct in enumerate(node.comparisons):
            opname = type(ct.operator).__name__
            table = self.const_table(ct.comparator, env) if opname in ("In", "NotIn") else None
            if table is not None:  # `x in RATES`: a module-level lookup table's keys
                parts.append(self.table_in(table[1], prev, opname == "NotIn", sp))
                prev = Lit(None, span=sp)
                continue
            cin = None
            if opname in ("In", "NotIn"):
                cin = self.container_in(prev, ct.comparator, opname == "NotIn", env)
            right = self.expr(ct.comparator, env) if cin is None else Lit(None)
            if i < len(node.comparisons) - 1 and not isinstance(right, (Var, Lit)):
                tmp = self.fresh("c")
                lets.append((tmp, right))
                right = Var(tmp)
            if opname in ("Is", "IsNot"):
                if not (isinstance(right, Lit) and right.value is None):
                    raise self.error(ct, "`is` is only supported against None", "use == for values")
                parts.append(
                    Apply(Prim("is_none" if opname == "Is" else "is_not_none"), (prev,), span=sp)
                )
            elif cin is not None:
                parts.append(cin)
            elif opname in ("In", "NotIn") and self.string_in(ct.comparator, env):
                # `x in s` on a string (or a list): a substring / element test
                op = "contains" if opname == "In" else "not_contains"
                parts.append(Apply(Prim(op), (prev, right), span=sp))
            elif opname in ("In", "NotIn"):
                if not isinstance(ct.comparator, cst.Tuple):
                    raise self.error(
                        ct.comparator,
                        "`in` is only supported against a literal tuple: `x in (1, 2, 3)`",
                        "compare against a literal tuple: `x in (1, 2, 3)`",
                    )
                elems = right.args if isinstance(right, Apply) else ()
                parts.append(Apply(Prim(COMPAREOPS[opname]), (prev, *elems), span=sp))
            else:
                op = COMPAREOPS.get(opname)
                if op is None:
                    raise self.error(
                        ct,
                        f"comparison `{code_of(ct.operator).strip()}` is not supported",
                        "use ==, !=, <, <=, >, >=, `is None`, `is not None` or `in (...)`",
                    )
                parts.append(Apply(Prim(op), (prev, right), span=sp))
            prev = right
        out = parts[-1]
        for p in reversed(parts[:-1]):
            tmp = self.fresh("b")
            out = Let(tmp, p, if_expr(Var(tmp), out, Var(tmp), sp), span=sp)
        for name, val in reversed(lets):
            out = Let(name, val, out, span=sp)
        return out

    def subscript(self, node: cst.Subscript, env: Env) -> Expr:
        item = self.row_item(node, env)
        if item is not None:
            return item
        base = node.value.value if isinstance(node.value, cst.Subscript) else node.value
        if isinstance(base, cst.Name) and isinstance(env.names.get(base.value), Rows):
            # a stream read by position where no rewrite took it (genexps.py reads constant
            # positions of an order): not a value that exists at run time
            raise self.error(node, f"`{code_of(node)}` reads the stream `{base.value}` by a "
                             "position that is not a constant, or in a place where it cannot "
                             "be read first", "read constant positions (`srt[0][1]`, `srt[-1]`) "
                             "in a statement of their own, or loop over the rows")  # fmt: skip
        table = self.const_table(node.value, env)
        if table is not None and len(node.slice) == 1 and isinstance(node.slice[0].slice, cst.Index):
            name, obj = table
            key = self.expr(node.slice[0].slice.value, env)
            if isinstance(obj, tuple) and isinstance(key, Lit) and type(key.value) is int:
                if -len(obj) <= key.value < len(obj):
                    return self.const_value(name, obj[key.value], self.span(node))
            return self.table_item(name, obj, key, self.span(node))
        got = self.container_subscript(node, env)
        if got is not None:
            return got
        sliced = self.string_subscript(node, env)
        if sliced is not None:
            return sliced
        if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
            raise self.error(
                node,
                "only indexing with an integer literal is supported: `t[0]`",
                "index tuples with a constant, e.g. `t[0]`",
            )
        idx = int_literal(node.slice[0].slice.value)
        if idx is None:
            raise self.error(
                node.slice[0],
                "only indexing with an integer literal is supported",
                "index tuples with a constant, e.g. `t[0]`",
            )
        base = self.expr(node.value, env)
        return Apply(Prim("nth"), (base, Lit(idx)), span=self.span(node))

    def name(self, node: cst.Name, env: Env) -> Expr:
        n = node.value
        sp = self.span(node)
        if n in ("True", "False", "None"):
            return Lit({"True": True, "False": False, "None": None}[n], span=sp)
        match env.names.get(n):
            case None:
                pass
            case Poison():
                return Lit(None, span=sp)  # its statement was reported
            case Value(var=var) | Rows(var=var):
                return Var(var, span=sp)
            case RowValue():
                return self.row_tuple(env.names[n], node)  # type: ignore[arg-type]
            case Carry(var=var):
                return Apply(StateCall(var, "get"), (), span=sp)
            case Pattern():
                self.error(node, f"the compiled pattern `{n}` is used as a value",
                           f"call its methods: `{n}.match(s)`, `{n}.sub(r, s)`, ...")  # fmt: skip
                return Lit(None, span=sp)
            case Container() as cb:
                self.container_use_error(node, cb)
                return Lit(None, span=sp)  # reported; go on to find more problems
            case StateVar(cls=cls):
                self.error(
                    node,
                    f"state `{n}` is used as a value",
                    f"call one of its readers, e.g. `{n}.{next(iter(cls.readers()), 'value')}()`",
                )
                return Lit(None, span=sp)  # reported; go on to find more problems
        if n in env.loop_locals:
            lb, loop_span = env.loop_locals[n]
            if isinstance(lb, MaybeUnbound):
                self.error(
                    node,
                    f"`{n}` may be unbound here: it is assigned in only one branch of the "
                    f"`if` at {loop_span}",
                    "assign it before the `if` or in every branch",
                )
                return Lit(None, span=sp)  # reported; go on to find more problems
            if isinstance(lb, StateVar):
                self.error(
                    node,
                    f"state `{n}` is created inside the loop at {loop_span} (its scope is one "
                    "iteration of that loop) but used outside that scope",
                    "create the state before the loop, or use it only inside the loop",
                )
                return Lit(None, span=sp)  # reported; go on to find more problems
            self.error(
                node,
                f"`{n}` is assigned inside the loop at {loop_span} and read after it; its value "
                "would be the last iteration's, which depends on row order",
                "accumulate it with a reduction (`x += ...`, `x = max(x, ...)`) or a State",
            )
            return Lit(None, span=sp)  # reported; go on to find more problems
        obj = self.global_obj(n)
        if obj is MISSING:
            self.error(node, f"unknown name `{n}`", "define or import it in the module")
            return Lit(None, span=sp)
        return self.global_value(node, n, obj)

    def global_value(self, node: cst.CSTNode, n: str, obj: Any) -> Expr:
        sp = self.span(node)
        if isinstance(obj, (bool, int, float, str)) or obj is None:
            return Lit(obj, span=sp)
        dt = const_datetime(obj)
        if dt is not None:
            return dt
        if is_const_table(obj) and isinstance(node, cst.Name):
            name, value = self.const_table(node, Env())  # (the caller checked the locals)
            if isinstance(value, tuple):
                return self.const_value(name, value, sp)
            raise self.error(
                node,
                f"the module-level dict `{n}` can only be used as a lookup table",
                f"read it with `{n}[key]`, `{n}.get(key, default)` or `key in {n}`",
            )
        raise self.error(
            node,
            f"`{n}` cannot be used as a value here",
            "module-level constants (int, float, str, bool) and calls are supported",
        )

    def attribute(self, node: cst.Attribute, env: Env) -> Expr:
        field = self.named_attr(node, env)
        if field is not None:  # `c.user_id` of a named row (named_rows.py)
            return field
        base = node.value
        me = env.names.get(base.value) if isinstance(base, cst.Name) else None
        if isinstance(me, SelfFields) and node.attr.value in me.fields:
            return Var(f"{me.var}.{node.attr.value}", span=self.span(node))  # a state's field
        is_global = isinstance(base, cst.Name) and base.value not in env.names
        if node.attr.value in DATETIME_ATTRS and not is_global and not isinstance(me, SelfFields):
            # `ts.year`, `delta.days` (the name tells a datetime field from a timedelta's)
            value = self.expr(base, env)
            return Apply(Prim(DATETIME_ATTRS[node.attr.value]), (value,), span=self.span(node))
        if isinstance(base, cst.Name) and base.value not in env.names:
            obj = self.global_obj(base.value)
            if obj is math:
                v = getattr(math, node.attr.value, MISSING)
                if isinstance(v, float):
                    return Lit(v, span=self.span(node))
            if isinstance(obj, types.ModuleType):
                v = getattr(obj, node.attr.value, MISSING)
                if isinstance(v, (bool, int, float, str)):
                    return Lit(v, span=self.span(node))
        raise self.error(
            node,
            f"attribute access `{code_of(node)}` is not supported",
            "call a state's reader (`s.value()`) or use module constants",
        )

    def call_args(self, call: cst.Call, env: Env) -> list[Expr]:
        bad = False
        for a in call.args:
            if a.star:
                self.reject(a, call)
                bad = True
            elif a.keyword is not None:
                self.error(
                    a, "keyword arguments are not supported here", "pass arguments positionally"
                )
                bad = True
        out = self.exprs([a.value for a in call.args], env)
        if bad:
            raise Stop()
        return out

    def exprs(self, nodes: list[cst.BaseExpression], env: Env) -> list[Expr]:
        """Translate each node; a problem in one does not hide the problems in the others."""
        out: list[Expr] = []
        stop: Stop | None = None
        for node in nodes:
            try:
                out.append(self.expr(node, env))
            except Stop as e:
                stop = e
        if stop is not None:
            raise stop
        return out


def _format_text(node: cst.BaseExpression, env: Env, global_obj: Any) -> str | None:
    """The text of a constant str on the left of ``%``: a literal (not an f-string) or a
    module-level str constant; None for anything else (then ``%`` is a remainder)."""
    if isinstance(node, (cst.SimpleString, cst.ConcatenatedString)) and not is_fstring(node):
        v = ast.literal_eval(code_of(node))
        return v if isinstance(v, str) else None
    if isinstance(node, cst.Name) and node.value not in env.names and node.value not in env.loop_locals:
        v = global_obj(node.value)
        return v if isinstance(v, str) else None
    return None
