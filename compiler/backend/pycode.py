"""Render IR as Python source: the body of an ordered loop, run by a Python reducer.

>>> py_name("count.carry")
'v_count__carry'
"""

from __future__ import annotations

import re

from ..ir.nodes import (
    CARRY,
    Apply,
    Builtin,
    Expr,
    Host,
    Lambda,
    Let,
    Lit,
    Prim,
    StateCall,
    StateNew,
    Var,
    attr,
)
from ..ir.prims import DATETIME_ATTRS, DATETIME_METHODS, PRIMS
from .sql import BackendError
from .strtypes import STRING_OPS

__all__ = ["py_name", "PyEmitter"]

_BIN = {
    "add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%",
    "pow": "**", "eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=",
    "bitand": "&", "bitor": "|", "bitxor": "^", "lshift": "<<", "rshift": ">>",
}  # fmt: skip


def _is_each(e: Expr) -> bool:
    return isinstance(e, Apply) and isinstance(e.fn, Builtin) and e.fn.name == "each"


def py_name(name: str) -> str:
    return "v_" + re.sub(r"\W", "__", name)


class PyEmitter:
    """Emits Python statements for let-normal IR (no loops inside)."""

    def __init__(self, class_alias: dict[str, str], host_alias: dict[str, str]) -> None:
        self.class_alias = class_alias  # state class ref -> name in the generated module
        self.host_alias = host_alias
        self.row_lists: set[str] = set()  # names bound to the rows of an `each`

    def block(self, e: Expr, indent: str, out: list[str]) -> None:
        while isinstance(e, Let):
            self.binding(e.name, e.value, indent, out)
            e = e.body
        if not (isinstance(e, Lit) and e.value is None):
            out.append(f"{indent}{self.expr(e)}")

    def binding(self, name: str, v: Expr, indent: str, out: list[str]) -> None:
        target = "_" if name == "_" else py_name(name)
        if isinstance(v, Apply) and isinstance(v.fn, Builtin) and v.fn.name == "if":
            # branches may hold effects: a real if statement, its value in `target`
            out.append(f"{indent}if {self.expr(v.args[0])}:")
            for lam in v.args[1:]:
                assert isinstance(lam, Lambda)
                body = lam.body
                sub: list[str] = []
                self._branch(body, target, indent + "    ", sub)
                out.extend(sub or [f"{indent}    pass"])
                if lam is v.args[1]:
                    out.append(f"{indent}else:")
            return
        if isinstance(v, Apply) and isinstance(v.fn, Builtin) and v.fn.name == "smap":
            raise BackendError(
                "a loop inside an ordered loop is not supported by the Spark backend"
            )
        if isinstance(v, Apply) and isinstance(v.fn, Builtin) and v.fn.name == "yield":
            row = v.args[0]
            if _is_each(row):  # the rows of a loop over a list's values
                self.binding("_rows", row, indent, out)
                out.append(f"{indent}_out.extend({py_name('_rows')})")
            elif isinstance(row, Var) and row.name in self.row_lists:
                out.append(f"{indent}_out.extend({py_name(row.name)})")
            else:
                out.append(f"{indent}_out.append({self.expr(row)})")
            return
        if _is_each(v):  # `for x in <list>:` yielding rows: a Python loop collecting them
            lst, lam = v.args
            assert isinstance(lam, Lambda)
            rows = py_name(name)
            out.append(f"{indent}{rows} = []")
            out.append(f"{indent}for {py_name(lam.params[0])} in {self.expr(lst)}:")
            e = lam.body
            while isinstance(e, Let):
                self.binding(e.name, e.value, indent + "    ", out)
                e = e.body
            out.append(f"{indent}    {rows}.extend({self.expr(e)})")
            self.row_lists.add(name)
            return
        out.append(f"{indent}{target} = {self.expr(v)}")

    def _branch(self, e: Expr, target: str, indent: str, out: list[str]) -> None:
        while isinstance(e, Let):
            self.binding(e.name, e.value, indent, out)
            e = e.body
        out.append(f"{indent}{target} = {self.expr(e)}")

    def expr(self, e: Expr) -> str:
        if isinstance(e, Var):
            return py_name(e.name)
        if isinstance(e, Lit):
            return repr(e.value)
        if isinstance(e, Apply):
            f = e.fn
            args = [self.expr(x) for x in e.args if not isinstance(x, Lambda)]
            if isinstance(f, Prim):
                op = f.op
                if op in _BIN:
                    return f"({args[0]} {_BIN[op]} {args[1]})"
                if op == "neg":
                    return f"(-{args[0]})"
                if op == "pos":
                    return f"(+{args[0]})"
                if op == "invert":
                    return f"(~{args[0]})"
                if op == "not":
                    return f"(not {args[0]})"
                if op == "is_none":
                    return f"({args[0]} is None)"
                if op == "is_not_none":
                    return f"({args[0]} is not None)"
                if op in ("in", "not_in"):
                    word = "in" if op == "in" else "not in"
                    return f"({args[0]} {word} ({', '.join(args[1:])},))"
                if op == "tuple":
                    return f"({', '.join(args)}{',' if len(args) == 1 else ''})"
                if op == "nth":
                    return f"{args[0]}[{args[1]}]"
                if op in ("make_datetime", "make_date", "make_timedelta"):
                    return f"__import__('datetime').{op[5:]}({', '.join(args)})"
                if op in ("dt.strptime", "dt.strftime", "win.tumble", "win.hop"):
                    return f"ll.PY_IMPLS[{op!r}]({', '.join(args)})"
                if op in DATETIME_ATTRS.values():
                    return f"{args[0]}.{op[3:]}"
                if op in DATETIME_METHODS.values():
                    return f"{args[0]}.{op[3:]}()"
                if op in ("table_item", "table_get"):
                    table = f"dict({args[2]})"
                    if op == "table_get":
                        return f"{table}.get({args[0]}, {args[3]})"
                    err = e.args[3].value if isinstance(e.args[3], Lit) else "KeyError"
                    assert err.isidentifier()
                    throw = f"(_ for _ in ()).throw({err}({args[0]}))"
                    return f"({table}[{args[0]}] if {args[0]} in {table} else {throw})"
                if op == "raise" and isinstance(e.args[0], Lit) and e.args[0].value.isidentifier():
                    # a raise as an expression: throw into an empty generator
                    return f"(_ for _ in ()).throw({e.args[0].value}({args[1]}))"
                if op.startswith("math."):
                    return f"math.{op[5:]}({', '.join(args)})"
                if op == "raise_code":  # a try's test (trysql.py)
                    from .trysql import parse_spec

                    spec = e.args[0]
                    assert isinstance(spec, Lit)
                    name, handlers = parse_spec(spec.value)
                    assert all(n.isidentifier() for h in handlers for n in h)
                    inner = self.expr(Apply(Prim(name), e.args[1:], span=e.span))
                    return f"ll.try_code(lambda: {inner}, {handlers!r})"
                if op in ("int_ok", "float_ok"):  # a try's test
                    return f"ll.STRING_IMPLS[{op!r}]({', '.join(args)})"
                if op in STRING_OPS:  # str methods, re, slices: the runtime's implementations
                    return f"ll.STRING_IMPLS[{op!r}]({', '.join(args)})"
                if op.startswith("c_"):
                    from .containers import container_py

                    return container_py(op, args)
                if op in PRIMS:
                    return f"{op}({', '.join(args)})"
            if isinstance(f, Builtin) and f.name == "if":
                c = self.expr(e.args[0])
                t = self._lam(e.args[1])
                o = self._lam(e.args[2])
                return f"({t} if {c} else {o})"
            if isinstance(f, StateCall):
                return f"{py_name(f.state)}.{f.method}({', '.join(args)})"
            if isinstance(f, StateNew):
                if f.cls == CARRY:
                    return f"ll.Carry({', '.join(args)})"
                return f"{self.class_alias[f.cls]}({', '.join(args)})"
            if isinstance(f, Host):
                return f"{self.host_alias[f.ref]}({', '.join(args)})"
            if isinstance(f, Builtin) and f.name == "project":
                fields = attr(f, "fields")
                return f"[tuple(r[i] for i in {fields!r}) for r in {args[0]}]"
        raise BackendError(f"no Python translation for {e!r:.80}")

    def _lam(self, lam: Expr) -> str:
        assert isinstance(lam, Lambda)
        e = lam.body
        if isinstance(e, Let):
            raise BackendError("effects inside a conditional expression")
        return self.expr(e)
