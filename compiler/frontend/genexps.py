"""Generator expressions and comprehensions over a stream, rewritten into loops (libcst).

``total = sum(v for _, v in g if v > 0)`` is the loop a user would otherwise write,
run just before the statement that holds it, into a local the statement then reads::

    _sum_1 = 0
    for _, v in g:
        if v > 0:
            _sum_1 += v
    total = _sum_1

so it compiles like that loop (a native sum, count, max, flag or container). The forms:

| expression | loop body (under the comprehension's ``if``s) | value |
|---|---|---|
| ``sum(e for ...)``, ``sum(..., start)`` | ``acc += e`` from 0 / ``start`` | ``acc`` |
| ``len(list(g))``, ``len(g)``, ``len([e for ...])`` | ``acc += 1`` | ``acc`` |
| ``any(e for ...)`` / ``all(...)`` | ``if e: acc = True`` / ``if not e: acc = False`` | ``acc`` |
| ``max(e for ...)`` / ``min(...)``, ``default=`` | ``if acc is None or e > acc: acc = e`` | ``acc`` (empty: ValueError, or the default) |
| ``[e for ...]``, ``list(...)``, another call's generator argument | ``acc.append(e)`` | the list |
| ``{e for ...}``, ``set(...)`` | ``acc.add(e)`` | the set |
| ``rows[i][f]``, ``rows[-i]`` of a stream in an order | keep the row at ``i`` / the last ``i`` | its field (IndexError when too few) |

``name = [e for ...]`` (or a set) fills ``name`` itself. A comprehension is hoisted only
where Python evaluates it whenever the statement runs: not inside a conditional
expression's branches or the right operand of ``and``/``or``. Comprehensions over a
container's values are read natively where they are (``container_reads.py``).
"""

from __future__ import annotations

from typing import Any

import libcst as cst

from .base import Context, OriginTransformer
from .env import Env
from .jumps import block
from .syntax import int_literal

__all__ = ["GeneratorMixin"]

_COMPS = (cst.GeneratorExp, cst.ListComp, cst.SetComp)
_REDUCERS = {"sum", "len", "any", "all", "max", "min", "list", "set"}


def _name(n: str) -> cst.Name:
    return cst.Name(n)


def _assign(n: str, value: cst.BaseExpression) -> cst.Assign:
    return cst.Assign(targets=[cst.AssignTarget(_name(n))], value=value)


def _is_none(n: str) -> cst.Comparison:
    return cst.Comparison(_name(n), [cst.ComparisonTarget(cst.Is(), _name("None"))])


class _Candidates:
    """The comprehensions of a statement that run whenever it runs, outermost first."""

    def __init__(self) -> None:
        self.found: list[cst.CSTNode] = []

    def walk(self, node: cst.CSTNode) -> None:
        if isinstance(node, (cst.Lambda, cst.DictComp)):
            return
        if _position(node) is not None:  # `rows[0][1]`, `rows[-1]`: checked by the rewrite
            self.found.append(node)
            return
        if isinstance(node, _COMPS):
            self.found.append(node)
            return
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name):
            if node.func.value in _REDUCERS and node.args and isinstance(
                node.args[0].value, (*_COMPS, cst.Name, cst.Call)
            ):
                self.found.append(node)  # checked (and maybe declined) by the rewrite
                for a in node.args[1:]:
                    self.walk(a)
                if not isinstance(node.args[0].value, _COMPS) or _of_set(node) is not None:
                    self.walk(node.args[0])  # a set comprehension is its own loop
                return
        if isinstance(node, cst.IfExp):
            self.walk(node.test)
            return
        if isinstance(node, cst.BooleanOperation):
            self.walk(node.left)
            return
        for child in node.children:
            self.walk(child)


def _of_set(node: cst.CSTNode) -> cst.SetComp | None:
    """The set comprehension a reducer reads when the reducer is not the same over the set
    as over the values with their duplicates: ``len({...})``, ``sum({...})``, ``list({...})``
    (and ``len(list({...}))``). The set is then filled by its own loop and the reducer reads
    it (a distinct count, a sum of distinct values); ``max``, ``min``, ``any``, ``all`` and
    ``set`` of a set are those of its values, so they stay one loop over the values."""
    if not (isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.args):
        return None
    arg = node.args[0].value
    if node.func.value == "len" and isinstance(arg, cst.Call) and _called(arg, "list"):
        arg = arg.args[0].value
    if node.func.value in ("len", "sum", "list") and isinstance(arg, cst.SetComp):
        return arg
    return None


def _called(node: cst.Call, fn: str) -> bool:
    return isinstance(node.func, cst.Name) and node.func.value == fn and len(node.args) == 1


def _index(node: cst.CSTNode) -> tuple[cst.BaseExpression, int] | None:
    """(value, i) of ``value[i]`` with a constant ``i``."""
    if (isinstance(node, cst.Subscript) and len(node.slice) == 1
            and isinstance(node.slice[0].slice, cst.Index)):  # fmt: skip
        i = int_literal(node.slice[0].slice.value)
        if i is not None:
            return node.value, i
    return None


def _position(node: cst.CSTNode) -> tuple[str, int, int | None] | None:
    """(S, i, f) of ``S[i][f]`` / (S, i, None) of ``S[i]``, S a name and i, f constants."""
    outer = _index(node)
    if outer is None:
        return None
    inner = _index(outer[0])
    if inner is not None and isinstance(inner[0], cst.Name):
        return inner[0].value, inner[1], outer[1]
    if isinstance(outer[0], cst.Name):
        return outer[0].value, outer[1], None
    return None


class _Replace(OriginTransformer):
    def __init__(self, ctx: Context, table: dict[cst.CSTNode, cst.CSTNode]):
        super().__init__(ctx)
        self.table = table

    def on_leave(self, original_node: Any, updated_node: Any) -> Any:
        if original_node in self.table:
            return self.table[original_node]
        return super().on_leave(original_node, updated_node)


class GeneratorMixin(Context):
    """Comprehensions over streams, rewritten into loops before their statement."""

    def hoist_generators(
        self, s: cst.CSTNode, env: Env
    ) -> tuple[list[cst.CSTNode], cst.CSTNode | None] | None:
        """(statements to run first, the statement reading their results); None: nothing
        to rewrite. The statement is None when the statements replace it."""
        if isinstance(s, cst.If):
            roots: list[cst.CSTNode] = [s.test]
        elif isinstance(s, (cst.Assign, cst.AugAssign, cst.AnnAssign, cst.Expr, cst.Return)):
            roots = [s]
        else:
            return None
        cands = _Candidates()
        for r in roots:
            cands.walk(r)
        if not cands.found:
            return None
        before: list[cst.CSTNode] = []
        table: dict[cst.CSTNode, cst.CSTNode] = {}
        for node in cands.found:
            got = self._generator_loop(node, env, s)
            if got is None:
                continue
            stmts, value = got
            before += stmts
            if value is None:  # `name = [...]`: the loop fills `name`
                return before, None
            table[node] = self.origin(value, node)
        if not table:
            return None
        # the empty-input checks (`if n < 2: raise IndexError(...)`) after all the loops: a
        # loop over the input must not sit in a branch of a check
        checks = [x for x in before if isinstance(x, cst.If)]
        before = [x for x in before if not isinstance(x, cst.If)] + checks
        if isinstance(s, cst.If):
            new: cst.CSTNode = s.with_changes(test=s.test.visit(_Replace(self, table)))  # type: ignore[attr-defined]
        else:
            new = s.visit(_Replace(self, table))  # type: ignore[attr-defined]
        return before, self.origin(new, s)

    def _stream_comp(self, comp: cst.CSTNode, env: Env) -> bool:
        """A one-``for`` comprehension over a stream (not a container's values)."""
        if not isinstance(comp, _COMPS) or comp.for_in.inner_for_in is not None:
            return False
        if comp.for_in.asynchronous is not None:
            return False
        return self.stream_of(comp.for_in.iter, env) is not None  # type: ignore[attr-defined]

    def _list_comp(self, comp: cst.CSTNode, env: Env) -> bool:
        """A one-``for`` comprehension over a list computed per row (``s.split()``, ...)."""
        if not isinstance(comp, _COMPS) or comp.for_in.inner_for_in is not None:
            return False
        if comp.for_in.asynchronous is not None or self.stream_of(comp.for_in.iter, env) is not None:  # type: ignore[attr-defined]
            return False
        it = comp.for_in.iter
        return self.cview(it, env) is None and self.iterated(it, env) is not None  # type: ignore[attr-defined]

    def _short_circuit(
        self, fn: str, comp: Any, node: Any, env: Env
    ) -> tuple[list[cst.CSTNode], cst.BaseExpression]:
        """``any(e for x in xs)`` over a per-row list: a loop that stops evaluating ``e``
        once the answer is known, as Python's ``any``/``all`` stop iterating::

            acc = False
            for x in xs:
                if not acc:
                    if e:
                        acc = True
        """
        acc = self.hidden_name(fn, env)
        found = "True" if fn == "any" else "False"
        test = comp.elt if fn == "any" else cst.UnaryOperation(cst.Not(), comp.elt)
        step: list[cst.CSTNode] = [cst.If(test=test, body=block([_assign(acc, _name(found))]))]
        conds = [c.test for c in comp.for_in.ifs]
        if conds:
            cond = conds[0]
            for c in conds[1:]:
                cond = cst.BooleanOperation(cond, cst.And(), c)
            step = [cst.If(test=cond, body=block(step))]
        open_ = _name(acc) if fn == "all" else cst.UnaryOperation(cst.Not(), _name(acc))
        loop = cst.For(target=comp.for_in.target, iter=comp.for_in.iter,
                       body=block([cst.If(test=open_, body=block(step))]))  # fmt: skip
        init = _assign(acc, _name("False" if fn == "any" else "True"))
        stmts = [self.origin(init, node), self.origin(loop, node)]
        self.origin_tree(stmts, node)
        return stmts, _name(acc)

    def _generator_loop(
        self, node: cst.CSTNode, env: Env, stmt: cst.CSTNode
    ) -> tuple[list[cst.CSTNode], cst.BaseExpression | None] | None:
        """The loop computing ``node`` and the expression of its value; None: not a
        comprehension over a stream (left to the expression translator)."""
        if (pos := _position(node)) is not None:
            return self._positional(node, pos, env)
        fn = node.func.value if isinstance(node, cst.Call) else None  # type: ignore[union-attr]
        if fn is not None and fn in env.names:
            return None
        if _of_set(node) is not None:
            return None  # the set is its own loop; the reducer reads it (a distinct count, ...)
        if fn is None:
            comp = node
            kind = "set" if isinstance(node, cst.SetComp) else "list"
        else:
            assert isinstance(node, cst.Call)
            arg = node.args[0].value
            if fn == "len" and len(node.args) == 1:
                inner = arg
                if (isinstance(arg, cst.Call) and isinstance(arg.func, cst.Name)
                        and arg.func.value == "list" and len(arg.args) == 1
                        and arg.func.value not in env.names):  # fmt: skip
                    inner = arg.args[0].value
                if isinstance(inner, (cst.Name, cst.Call)) and self.stream_of(inner, env) is not None:  # type: ignore[attr-defined]
                    return self._loop("count", None, inner, node, env)
                if not isinstance(inner, _COMPS):
                    return None
                arg = inner
            if fn in ("any", "all") and len(node.args) == 1 and self._list_comp(arg, env):
                return self._short_circuit(fn, arg, node, env)
            if not self._stream_comp(arg, env):
                return None
            comp = arg
            kind = {"len": "count", "list": "list", "set": "set"}.get(fn, fn)
            if fn in ("sum", "any", "all", "list", "set") and len(node.args) > (2 if fn == "sum" else 1):
                return None
            if fn in ("max", "min") and any(
                a.keyword is None or a.keyword.value != "default" for a in node.args[1:]
            ):
                return None  # key= (or more values): not this form
        if not self._stream_comp(comp, env):
            return None
        if (
            fn is None
            and isinstance(stmt, cst.Assign)
            and stmt.value is node
            and len(stmt.targets) == 1
            and isinstance(stmt.targets[0].target, cst.Name)
        ):
            return self._loop(kind, comp, None, node, env, into=stmt.targets[0].target.value)
        return self._loop(kind, comp, None, node, env)

    def _loop(
        self,
        kind: str,
        comp: Any,
        stream: cst.BaseExpression | None,
        node: Any,
        env: Env,
        into: str | None = None,
    ) -> tuple[list[cst.CSTNode], cst.BaseExpression | None]:
        """``acc = init; for target in stream: [if cond:] <step>`` and the value read."""
        origin = self.origin
        acc = into or self.hidden_name(kind, env)
        elt = comp.elt if comp is not None else None
        target = comp.for_in.target if comp is not None else _name("_")
        it = comp.for_in.iter if comp is not None else stream
        args = node.args if isinstance(node, cst.Call) else ()
        default = next((a.value for a in args[1:] if a.keyword is not None), None)
        after: list[cst.CSTNode] = []
        value: cst.BaseExpression | None = _name(acc)
        if kind in ("sum", "count"):
            start = args[1].value if kind == "sum" and len(args) == 2 else cst.Integer("0")
            init: cst.BaseExpression = start
            step: list[cst.CSTNode] = [cst.AugAssign(_name(acc), cst.AddAssign(),
                                                     elt if kind == "sum" else cst.Integer("1"))]  # fmt: skip
        elif kind in ("any", "all"):
            init = _name("False" if kind == "any" else "True")
            test = elt if kind == "any" else cst.UnaryOperation(cst.Not(), elt)
            step = [cst.If(test=test, body=block([_assign(acc, _name("True" if kind == "any" else "False"))]))]
        elif kind in ("max", "min"):
            init = _name("None")
            better = cst.Comparison(elt, [cst.ComparisonTarget(
                cst.GreaterThan() if kind == "max" else cst.LessThan(), _name(acc))])  # fmt: skip
            step = [cst.If(test=cst.BooleanOperation(_is_none(acc), cst.Or(), better),
                           body=block([_assign(acc, elt)]))]  # fmt: skip
            if default is not None:
                value = cst.IfExp(test=_is_none(acc), body=default, orelse=_name(acc))
            else:
                msg = cst.SimpleString(f'"{kind}() arg is an empty sequence"')
                raise_ = cst.Raise(exc=cst.Call(_name("ValueError"), [cst.Arg(msg)]))
                after = [cst.If(test=_is_none(acc), body=block([raise_]))]
        else:  # a list or a set
            init = (cst.List([]) if kind == "list"
                    else cst.Call(_name("set"), []))  # fmt: skip
            meth = "append" if kind == "list" else "add"
            call = cst.Call(cst.Attribute(_name(acc), _name(meth)), [cst.Arg(elt)])
            step = [cst.Expr(call)]
            if into is not None:
                value = None
        conds = [c.test for c in (comp.for_in.ifs if comp is not None else [])]
        if conds:  # `if a if b` is `if a and b`
            test = conds[0]
            for c in conds[1:]:
                test = cst.BooleanOperation(test, cst.And(), c)
            step = [cst.If(test=test, body=block(step))]
        loop = cst.For(target=target, iter=it, body=block(step))
        stmts = [origin(_assign(acc, init), node), origin(loop, node),
                 *(origin(a, node) for a in after)]  # fmt: skip
        self.origin_tree(stmts, node)
        return stmts, value

    def _positional(
        self, node: Any, pos: tuple[str, int, int | None], env: Env
    ) -> tuple[list[cst.CSTNode], cst.BaseExpression | None] | None:
        """``S[i][f]`` (or ``S[i]``) of a stream ``S`` in an order: a loop keeping the row
        at position ``i`` (counted from the end when negative); IndexError when too few."""
        stream, i, f = pos
        st = self.stream_of(cst.Name(stream), env)  # type: ignore[attr-defined]
        if st is None:
            return None
        if not st.ordered or st.window is not None:
            raise self.error(node, f"`{stream}[{i}]`: the rows of `{stream}` come in no order, so "
                             "no row is at a position", f"sort them first: `sorted({stream}, "
                             "key=lambda r: r[1])`, or group with `order_by=`")  # fmt: skip
        if abs(i) > 8:
            raise self.error(node, f"`{stream}[{i}]`: only the first and last 8 rows can be read "
                             "by position", "loop over the rows in order and count them")  # fmt: skip
        arity = st.arity
        fields = [f] if f is not None else list(range(arity))
        if any(not 0 <= x < arity for x in fields):
            raise self.error(node, f"field {f} of a row of `{stream}` does not exist (its rows "
                             f"have {arity} field{'s' if arity != 1 else ''})",
                             f"index a field from 0 to {arity - 1}")  # fmt: skip
        hidden = self.hidden_name
        row, n = hidden("row", env), hidden("count", env)
        depth = i + 1 if i >= 0 else -i  # rows kept: the i-th, or the last -i

        def at(j: int, x: int) -> str:
            return names[(j, x)]

        names = {(j, x): hidden("at", env) for j in range(1 if i >= 0 else depth) for x in fields}

        def field(x: int) -> cst.Subscript:
            return cst.Subscript(_name(row), [cst.SubscriptElement(cst.Index(cst.Integer(str(x))))])

        step: list[cst.CSTNode] = [cst.AugAssign(_name(n), cst.AddAssign(), cst.Integer("1"))]
        if i >= 0:  # the row at position i: when the count reaches i + 1
            test = cst.Comparison(_name(n), [cst.ComparisonTarget(cst.Equal(), cst.Integer(str(i + 1)))])
            step.append(cst.If(test=test, body=block([_assign(at(0, x), field(x)) for x in fields])))
        else:  # the last -i rows, newest in slot 0
            for j in range(depth - 1, 0, -1):
                step += [_assign(at(j, x), _name(at(j - 1, x))) for x in fields]
            step += [_assign(at(0, x), field(x)) for x in fields]
        slot = 0 if i >= 0 else depth - 1
        init = [_assign(n, cst.Integer("0"))] + [_assign(v, _name("None")) for v in names.values()]
        loop = cst.For(target=_name(row), iter=_name(stream), body=block(step))
        short = cst.Comparison(_name(n), [cst.ComparisonTarget(cst.LessThan(), cst.Integer(str(depth)))])
        msg = cst.SimpleString('"list index out of range"')
        check = cst.If(test=short, body=block([cst.Raise(exc=cst.Call(_name("IndexError"), [cst.Arg(msg)]))]))
        # a group (and a stream derived from it) has a row: its first and last need no check
        checks = () if env.depth > 0 and depth == 1 else (check,)
        stmts = [self.origin(x, node) for x in (*init, loop, *checks)]
        self.origin_tree(stmts, node)
        value: cst.BaseExpression = (_name(at(slot, f)) if f is not None else cst.Tuple(
            [cst.Element(_name(at(slot, x))) for x in fields]))  # fmt: skip
        return stmts, value
