"""``try``/``except ValueError`` around ``int()`` / ``float()`` conversions, as an ``if``.

The parsing idiom::

    try:
        n = int(s)
    except ValueError:
        n = 0

is an ``if`` whose test is whether every conversion of the ``try`` body would succeed
(Python's grammar for ``int(s)`` and ``float(s)`` of a string, a float that is not NaN
for ``int(x)``), checked in evaluation order (inner conversions first, each only when
those before it succeeded)::

    if <int(s) succeeds>:
        n = int(s)
    else:
        n = 0

It is exact when nothing else in the body can raise ValueError, so the body may call
only the conversions, ``str``, ``len``, ``abs``, ``bool``, ``round`` and string methods that
do not raise it, and its conversions must all be in its first statement (Python would
keep the effects of the statements before a failing one). ``except (ValueError,
TypeError)`` also takes a None argument as a failure. Other ``try`` statements stay
unsupported (reported by ``reject.py``).
"""

from __future__ import annotations

import builtins
from typing import Any

import libcst as cst

from ..ir.nodes import Apply, Expr, Lit, Prim
from .base import Context, OriginTransformer
from .env import Env
from .syntax import flatten, if_expr

__all__ = ["TRY_OK", "TryMixin"]

#: the test of a rewritten ``try`` (a call no user code makes)
TRY_OK = "__looplift_try_ok__"
_SAFE_CALLS = frozenset(("int", "float", "str", "len", "abs", "bool", "round"))
_SAFE_METHODS = frozenset(("strip", "lstrip", "rstrip", "lower", "upper", "casefold", "title",
                           "capitalize", "swapcase", "replace", "startswith", "endswith", "zfill"))  # fmt: skip
_SIMPLE = (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Expr, cst.Pass)


def _conversions(node: cst.CSTNode, out: list[cst.Call]) -> bool:
    """Collect the ``int(x)`` / ``float(x)`` calls under ``node`` in evaluation order
    (arguments first); False when something else there may raise ValueError."""
    if isinstance(node, cst.Lambda):
        return False
    for child in node.children:
        if not _conversions(child, out):
            return False
    if isinstance(node, cst.Call):
        f = node.func
        if isinstance(f, cst.Name) and f.value in ("int", "float"):
            if len(node.args) != 1 or node.args[0].keyword is not None or node.args[0].star:
                return False  # int(s, base): not this form
            out.append(node)
        elif isinstance(f, cst.Name) and f.value in _SAFE_CALLS:
            pass
        elif not (isinstance(f, cst.Attribute) and f.attr.value in _SAFE_METHODS):
            return False
    return True


class _Tries(OriginTransformer):
    def leave_Try(self, original_node: cst.Try, updated_node: cst.Try) -> Any:
        got = self.ctx.try_as_if(updated_node)  # type: ignore[attr-defined]
        return got if got is not None else updated_node


class TryMixin(Context):
    """Supported ``try`` statements rewritten before translation; the test's IR."""

    def rewrite_tries(self, fn: cst.FunctionDef) -> cst.FunctionDef:
        if not any(isinstance(n, cst.Try) for n in _walk(fn.body)):
            return fn
        return fn.visit(_Tries(self))  # type: ignore[return-value]

    def _builtin(self, name: str) -> bool:
        return self.global_obj(name) is getattr(builtins, name, None)

    def try_as_if(self, t: cst.Try) -> cst.If | None:
        if len(t.handlers) != 1 or t.orelse is not None or t.finalbody is not None:
            return None
        h = t.handlers[0]
        if h.name is not None or h.type is None:
            return None
        names = ([e.value for e in h.type.elements] if isinstance(h.type, cst.Tuple)
                 else [h.type])  # fmt: skip
        if not all(isinstance(n, cst.Name) and self._builtin(n.value) for n in names):
            return None
        caught = {n.value for n in names}  # type: ignore[union-attr]
        if "ValueError" not in caught or not caught <= {"ValueError", "TypeError"}:
            return None
        body = flatten(list(t.body.body))
        if not body or not all(isinstance(s, _SIMPLE) for s in body):
            return None
        if not all(self._builtin(n) for n in ("int", "float")):
            return None
        convs: list[cst.Call] = []
        for i, s in enumerate(body):
            found: list[cst.Call] = []
            if not _conversions(s, found):
                return None
            if found and i > 0:
                return None  # a failure there would keep the effects of the statements before
            convs += found
        args = [cst.Arg(c) for c in convs]
        args.append(cst.Arg(cst.Name("True" if "TypeError" in caught else "False"),
                            keyword=cst.Name("none_fails")))  # fmt: skip
        test = cst.Call(cst.Name(TRY_OK), args)
        self.origin_tree([test], t)
        return cst.If(test=test, body=t.body, orelse=cst.Else(body=h.body))

    def try_ok(self, node: cst.Call, env: Env) -> Expr:
        """The test of a rewritten ``try``: every conversion, in order, would succeed."""
        sp = self.span(node)
        none_fails = any(a.keyword is not None and a.keyword.value == "none_fails"
                         and isinstance(a.value, cst.Name) and a.value.value == "True"
                         for a in node.args)  # fmt: skip
        cond: Expr | None = None
        for a in node.args:
            if a.keyword is not None:
                continue
            call = a.value
            assert isinstance(call, cst.Call) and isinstance(call.func, cst.Name)
            x = self.expr(call.args[0].value, env)  # type: ignore[attr-defined]
            ok: Expr = Apply(Prim(f"{call.func.value}_ok"), (x,), span=self.span(call))
            if none_fails:
                ok = if_expr(Apply(Prim("is_not_none"), (x,), span=sp), ok, Lit(False), sp)
            cond = ok if cond is None else if_expr(cond, ok, Lit(False), sp)
        return cond if cond is not None else Lit(True, span=sp)


def _walk(node: cst.CSTNode):  # noqa: ANN202
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(n.children)
