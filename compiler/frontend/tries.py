"""``try``/``except`` around primitives, as ``if`` statements on what each call raises.

A ``try`` whose body is simple statements (assignments, augmented assignments,
expressions, ``return``, ``pass``) and whose handlers name exception classes (a bare
``except:``, ``Exception``, a class, a tuple of classes, ``except E as e`` with ``e``
unused, several handlers in order, ``else:``)::

    try:
        a = int(p[0])
        b = a / int(p[1])
    except (ValueError, IndexError):
        b = -1.0
    except ZeroDivisionError:
        b = 0.0

is, statement by statement (Python keeps the effects of the statements before a failing
one), an ``if`` on the code of what the statement raises::

    code1 = <code of statement 1>
    if code1 <= 0:      # returns, or raises what no handler catches
        a = int(p[0])
        code2 = <code of statement 2>
        if code2 <= 0:
            b = a / int(p[1])
        elif code2 == 1:
            b = -1.0
        else:
            b = 0.0
    elif ...

The code of a statement is that of its first call, in Python's evaluation order (the
arguments first, left to right), that raises: 0 where none does, ``k`` where the ``k``-th
handler catches its class first (subclasses included: ``except LookupError`` catches
IndexError and KeyError), -1 where no handler does (the statement then runs and raises
it natively, with Python's class). Each call's code is the ``raise_code`` primitive, which
the backend renders from the table of primitives' partiality (``backend/trysql.py``):
nothing here knows what a primitive raises. The first nonzero code is a chain of ``if``s,
each call's code a term of its own (the IR evaluates a primitive's arguments first: only
an ``if``'s branch keeps the later calls from running where an earlier one raised); with
several handlers the statement's code is a local, compared once per handler. An augmented
assignment tests its value only (``total += x`` of a loop's carry raises only beyond 64
bits). A ``try`` around something that is no primitive (a host function, a state method)
or with ``finally:`` stays unsupported (``reject.py``).
"""

from __future__ import annotations

import builtins
from typing import Any

import libcst as cst

from ..ir.nodes import Apply, Builtin, Expr, Lambda, Let, Lit, Prim, StateCall, Var
from ..ir.prims import PRIMS
from ..primitives import PRIMITIVES
from .base import Context, OriginTransformer
from .env import Env
from .syntax import flatten, if_expr

__all__ = ["TRY_OK", "TryMixin"]

#: the test of a rewritten ``try`` (a call no user code makes)
TRY_OK = "__looplift_try_ok__"
_MODULES = ("math", "re", "datetime", "builtins")
_ATOMS = (cst.Name, cst.Integer, cst.Float, cst.SimpleString)
_SIMPLE = (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Expr, cst.Pass, cst.Return)
_MESSAGE = ("`try` is supported around calls of primitives whose errors looplift can test "
            "natively; here {what} is not one")  # fmt: skip
_HINT = ("move the call out of the try, or test its input with an `if`; a host function's "
         "errors surface as Spark errors")  # fmt: skip


class _Tries(OriginTransformer):
    def leave_Try(self, original_node: cst.Try, updated_node: cst.Try) -> Any:
        got = self.ctx.try_as_if(updated_node)  # type: ignore[attr-defined]
        if got is None:
            return updated_node
        return got[0] if len(got) == 1 else cst.FlattenSentinel(got)


def _uses(node: cst.CSTNode, name: str) -> bool:
    return any(isinstance(n, cst.Name) and n.value == name for n in _walk(node))


def _evaluated(s: cst.BaseSmallStatement) -> list[cst.BaseExpression] | None:
    """The expressions a simple statement evaluates, in order (None: not this form)."""
    if isinstance(s, cst.Pass):
        return []
    if isinstance(s, cst.Expr) and isinstance(s.value, cst.Yield):  # yield k, int(s)
        value = s.value.value
        if isinstance(value, cst.From):
            return None
        return [value] if value is not None else []
    if isinstance(s, cst.Expr):
        if isinstance(s.value, cst.Await):
            return None
        return [s.value]
    if isinstance(s, cst.Return):
        return [s.value] if s.value is not None else []
    if isinstance(s, cst.AnnAssign):
        if s.value is None or not isinstance(s.target, cst.Name):
            return None
        return [s.value]
    if isinstance(s, cst.Assign):
        if not all(isinstance(t.target, cst.Name) for t in s.targets):
            return None
        return [s.value]
    if isinstance(s, cst.AugAssign):
        if not isinstance(s.target, cst.Name):
            return None
        # the value only: ``total += x`` of a loop's carry is a reduction, whose own
        # operator the test must not read (it raises only beyond 64 bits)
        return [s.value]
    return None


class TryMixin(Context):
    """Supported ``try`` statements rewritten before translation; the test's IR."""

    def rewrite_tries(self, fn: cst.FunctionDef) -> cst.FunctionDef:
        if not any(isinstance(n, cst.Try) for n in _walk(fn.body)):
            return fn
        return fn.visit(_Tries(self))  # type: ignore[return-value]

    def _exception(self, node: cst.BaseExpression) -> str | None:
        """The builtin exception class a handler names."""
        if not isinstance(node, cst.Name):
            return None
        obj = self.global_obj(node.value)
        if (
            obj is getattr(builtins, node.value, None)
            and isinstance(obj, type)
            and issubclass(obj, BaseException)
        ):
            return node.value
        return None

    def _handlers(self, t: cst.Try) -> list[list[str]] | None:
        out = []
        for h in t.handlers:
            if h.type is None:
                names: list[str | None] = ["BaseException"]
            elif isinstance(h.type, cst.Tuple):
                names = [self._exception(e.value) for e in h.type.elements]
            else:
                names = [self._exception(h.type)]
            if not names or any(n is None for n in names):
                return None
            if h.name is not None:
                bound = h.name.name
                if not isinstance(bound, cst.Name) or _uses(h.body, bound.value):
                    return None
            out.append([n for n in names if n is not None])
        return out

    def try_as_if(self, t: cst.Try) -> list[cst.BaseStatement] | None:
        if t.finalbody is not None or not t.handlers:
            return None
        handlers = self._handlers(t)
        if handlers is None:
            return None
        body = flatten(list(t.body.body))
        if not body or not all(isinstance(s, _SIMPLE) for s in body):
            return None
        evals = [_evaluated(s) for s in body]
        if any(e is None for e in evals) or not all(self._primitive_calls(s) for s in body):
            return None
        spec = "|".join(",".join(h) for h in handlers)
        tail: list[cst.BaseStatement] = list(t.orelse.body.body) if t.orelse is not None else []
        out: list[cst.BaseStatement] = tail
        for s, exprs in reversed(list(zip(body, evals, strict=True))):
            line = cst.SimpleStatementLine(body=[s])
            if all(isinstance(e, _ATOMS) for e in exprs):  # a name or a literal: no raise
                out = [line, *out]
                continue
            out = self._branch(t, exprs, spec, len(handlers), [line, *out])  # type: ignore[arg-type]
        return out or None

    def _primitive_calls(self, s: cst.CSTNode) -> bool:
        """Every call by name is of a builtin or a function of ``math``, ``re`` or
        ``datetime`` (a host function's ``try`` stays unsupported: ``reject.py``)."""
        for n in _walk(s):
            if isinstance(n, cst.Call) and isinstance(n.func, cst.Name):
                obj = self.global_obj(n.func.value)
                if obj is getattr(builtins, n.func.value, None):
                    continue
                if getattr(obj, "__module__", None) not in _MODULES:
                    return False
        return True

    def _test(self, at: cst.Try, exprs: list[cst.BaseExpression], spec: str,
              want: int | None) -> cst.Call:  # fmt: skip
        """``code <= 0`` (``want`` 0), ``code == want``, or the code (``want`` None)."""
        args = [cst.Arg(e) for e in exprs]
        args.append(cst.Arg(cst.SimpleString(repr(spec)), keyword=cst.Name("spec")))
        if want is not None:
            args.append(cst.Arg(cst.Integer(str(want)), keyword=cst.Name("want")))
        test = cst.Call(cst.Name(TRY_OK), args)
        self.origin_tree([test], at)
        return test

    def _branch(self, t: cst.Try, exprs: list[cst.BaseExpression], spec: str, n: int,
                then: list[cst.BaseStatement]) -> list[cst.BaseStatement]:  # fmt: skip
        """``if code <= 0: then`` followed by the handlers' ``elif code == k`` (the last
        handler the ``else``: some handler caught it). With several handlers the code is
        a local first, tested once per handler."""
        if n == 1:
            orelse: cst.If | cst.Else = cst.Else(body=t.handlers[-1].body)
            for k in range(n - 1, 0, -1):
                orelse = cst.If(test=self._test(t, exprs, spec, k), body=t.handlers[k - 1].body,
                                orelse=orelse)  # fmt: skip
            return [cst.If(test=self._test(t, exprs, spec, 0), body=cst.IndentedBlock(body=then),
                           orelse=orelse)]  # fmt: skip
        name = cst.Name(self.fresh("looplift_try").lstrip("_").replace(".", "_"))

        def cmp(op: cst.BaseCompOp, k: int) -> cst.Comparison:
            return cst.Comparison(name, [cst.ComparisonTarget(op, cst.Integer(str(k)))])

        code = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(name)],
                                                   self._test(t, exprs, spec, None))])  # fmt: skip
        orelse: cst.If | cst.Else = cst.Else(body=t.handlers[-1].body)
        for k in range(n - 1, 0, -1):
            orelse = cst.If(test=cmp(cst.Equal(), k), body=t.handlers[k - 1].body, orelse=orelse)
        test = cmp(cst.LessThanEqual(), 0)
        self.origin_tree([code, test], t)
        return [code, cst.If(test=test, body=cst.IndentedBlock(body=then), orelse=orelse)]

    def try_ok(self, node: cst.Call, env: Env) -> Expr:
        """The test of a rewritten ``try``: the statement's code is ``want`` (0: at most
        0, it returns or raises what no handler catches); without ``want``, the code."""
        sp = self.span(node)
        kw = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        spec_node, want_node = kw["spec"], kw.get("want")
        assert isinstance(spec_node, cst.SimpleString)
        spec = str(spec_node.evaluated_value)
        calls: list[Apply] = []
        for a in node.args:
            if a.keyword is None:
                e = self.expr(a.value, env)  # type: ignore[attr-defined]
                self._calls(e, spec, calls, a.value)
        # the first code that is not 0, the calls after it tested only where it is 0 (an
        # ``if``'s branch: their arguments may raise); each test a term of its own (a
        # binding used twice per level would be rendered exponentially often)
        code: Expr = Lit(0, span=sp)
        for c in reversed(calls):
            nz = Apply(Prim("ne"), (c, Lit(0, span=sp)), span=sp)
            spec_lit = c.args[0]
            assert isinstance(spec_lit, Lit)
            # where it is not 0: the backend may give the one code all its clauses have
            known = Apply(c.fn, (Lit("!" + spec_lit.value, span=spec_lit.span), *c.args[1:]),
                          span=c.span)  # fmt: skip
            code = if_expr(nz, known, code, sp)
        if want_node is None:
            return code
        assert isinstance(want_node, cst.Integer)
        want = int(want_node.value)
        if want == 0:
            return Apply(Prim("le"), (code, Lit(0, span=sp)), span=sp)
        return Apply(Prim("eq"), (code, Lit(want, span=sp)), span=sp)

    def _calls(self, e: Expr, spec: str, out: list[Apply], at: cst.CSTNode) -> None:
        """The ``raise_code`` of every call under ``e``, in evaluation order."""
        if isinstance(e, (Var, Lit)):
            return
        if isinstance(e, Apply) and isinstance(e.fn, StateCall) and e.fn.method == "get" and (
            e.fn.state.endswith(".carry")
        ):
            return  # a loop-carried local's value: a read, which raises nothing
        if isinstance(e, Apply) and isinstance(e.fn, Prim):
            for a in e.args:
                self._calls(a, spec, out, at)
            op = e.fn.op
            info = PRIMS.get(op)
            if op not in PRIMITIVES and info is not None and info.total:
                return
            out.append(Apply(Prim("raise_code"), (Lit(f"{op}|{spec}", span=e.span), *e.args),
                             span=e.span))  # fmt: skip
            return
        if isinstance(e, Apply) and e.fn == Builtin("if"):
            self._calls(e.args[0], spec, out, at)
            for branch in e.args[1:]:  # evaluated on one path only: nothing there may raise
                found: list[Apply] = []
                body = branch.body if isinstance(branch, Lambda) else branch
                self._calls(body, spec, found, at)
                if found:
                    raise self.error(at, _MESSAGE.format(what="a conditional expression"),
                                     _HINT)  # fmt: skip
            return
        what = "a call" if not isinstance(e, Let) else "a block"
        if isinstance(e, Apply) and not isinstance(e.fn, Builtin):
            what = f"`{type(e.fn).__name__}` call (a host function or a state method)"
        raise self.error(at, _MESSAGE.format(what=what), _HINT)


def _walk(node: cst.CSTNode):  # noqa: ANN202
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(n.children)
