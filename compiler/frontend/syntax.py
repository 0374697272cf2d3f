"""Small questions about libcst trees, shared by the translators and the state-class reader."""

from __future__ import annotations

from typing import Any

import libcst as cst

from ..ir.nodes import Apply, Builtin, Expr, Lambda, Span

__all__ = [
    "MISSING", "MUTATORS", "SCALAR_TYPES", "assigned_names", "code_of", "contains",
    "contains_return", "flatten", "group_by_fn", "if_expr", "int_literal", "is_name",
    "mentions", "norm_type", "read_names", "reads_before_write", "terminates", "walk",
    "walk_blocks",
]  # fmt: skip

SCALAR_TYPES = {"int", "float", "str", "bool", "datetime", "date"}
MUTATORS = {
    "append", "extend", "insert", "pop", "remove", "clear", "update", "add", "discard",
    "setdefault", "popitem", "sort", "reverse", "__setitem__",
}  # fmt: skip

MISSING = object()


def walk_blocks(s: cst.CSTNode) -> list[list[cst.BaseStatement]]:
    """The statement blocks nested directly in a compound statement."""
    out = []
    for attr_name in ("body", "orelse", "finalbody"):
        part = getattr(s, attr_name, None)
        if isinstance(part, (cst.Else, cst.Finally)):
            part = part.body
        if isinstance(part, cst.BaseSuite) and isinstance(part, cst.IndentedBlock):
            out.append(list(part.body))
    for h in getattr(s, "handlers", ()) or ():
        if isinstance(h.body, cst.IndentedBlock):
            out.append(list(h.body.body))
    return out


def group_by_fn() -> Any:
    from looplift.streams import group_by

    return group_by


def if_expr(c: Expr, a: Expr, b: Expr, sp: Span) -> Expr:
    return Apply(Builtin("if"), (c, Lambda((), a), Lambda((), b)), span=sp)


_EMPTY_MODULE = cst.Module(body=[])


def code_of(node: cst.CSTNode) -> str:
    return _EMPTY_MODULE.code_for_node(node)


def norm_type(t: str) -> str:
    return {
        "datetime.datetime": "datetime",
        "datetime.date": "date",
        "builtins.int": "int",
    }.get(t, t)


def int_literal(node: cst.BaseExpression) -> int | None:
    if isinstance(node, cst.Integer):
        return int(node.value, 0)
    if (
        isinstance(node, cst.UnaryOperation)
        and isinstance(node.operator, cst.Minus)
        and isinstance(node.expression, cst.Integer)
    ):
        return -int(node.expression.value, 0)
    return None


def is_name(node: cst.CSTNode, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name


def mentions(node: cst.CSTNode, name: str) -> bool:
    return any(isinstance(n, cst.Name) and n.value == name for n in walk(node))


def walk(node: cst.CSTNode):
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(n.children)


def contains(node: cst.CSTNode, kinds: tuple[type, ...]) -> bool:
    for n in walk(node):
        if isinstance(n, kinds):
            return True
    return False


def flatten(stmts: list[cst.CSTNode]) -> list[cst.CSTNode]:
    """Statement lines → small statements (``a = 1; b = 2`` gives two)."""
    out: list[cst.CSTNode] = []
    for s in stmts:
        if isinstance(s, cst.SimpleStatementLine):
            out.extend(s.body)
        else:
            out.append(s)
    return out


def contains_return(node: cst.CSTNode) -> bool:
    """Does ``node`` hold a ``return`` (or a ``raise``, which ends its branch the same way)?"""
    for n in walk(node):
        if isinstance(n, (cst.Return, cst.Raise)):
            return True
    return False


def terminates(flat: list[cst.CSTNode]) -> bool:
    """Does this statement list end in a return on every path?"""
    if not flat:
        return False
    last = flat[-1]
    if isinstance(last, (cst.Return, cst.Raise)):
        return True
    if isinstance(last, cst.If):
        then = flatten(list(last.body.body))
        if last.orelse is None:
            return False
        if isinstance(last.orelse, cst.If):
            return terminates(then) and terminates([last.orelse])
        return terminates(then) and terminates(flatten(list(last.orelse.body.body)))
    return False


def assigned_names(stmts: list[cst.CSTNode], deep: bool = False) -> set[str]:
    """Names assigned by these statements (into nested ifs; into loops if ``deep``)."""
    out: set[str] = set()

    def targets(t: cst.CSTNode) -> None:
        if isinstance(t, cst.Name):
            out.add(t.value)
        elif isinstance(t, (cst.Tuple, cst.List)):
            for e in t.elements:
                targets(e.value)

    def visit(s: cst.CSTNode) -> None:
        if isinstance(s, cst.SimpleStatementLine):
            for x in s.body:
                visit(x)
        elif isinstance(s, cst.Assign):
            for t in s.targets:
                targets(t.target)
        elif isinstance(s, (cst.AugAssign, cst.AnnAssign)):
            targets(s.target)
        elif isinstance(s, cst.If):
            for x in s.body.body:
                visit(x)
            if s.orelse is not None:
                if isinstance(s.orelse, cst.If):
                    visit(s.orelse)
                else:
                    for x in s.orelse.body.body:
                        visit(x)
        elif isinstance(s, cst.For) and deep:
            for x in s.body.body:
                visit(x)

    for s in stmts:
        visit(s)
    return out


def read_names(stmts: list[cst.CSTNode]) -> set[str]:
    out: set[str] = set()
    for s in stmts:
        for n in walk(s):
            if isinstance(n, cst.Name):
                out.add(n.value)
    return out


def reads_before_write(stmts: list[cst.CSTNode], name: str) -> bool:
    """Is ``name`` read (in this loop body) before an unconditional assignment to it?

    Any read inside a nested compound statement, or in the right-hand side of its
    own assignment (``x += 1``, ``x = f(x)``), counts as a read before write.
    """
    for s in flatten(stmts):
        if isinstance(s, cst.Assign):
            if mentions(s.value, name):
                return True
            if any(is_name(t.target, name) for t in s.targets):
                return False
            continue
        if isinstance(s, cst.AugAssign):
            if is_name(s.target, name) or mentions(s.value, name):
                return True
            continue
        if mentions(s, name):
            return True
    return False
