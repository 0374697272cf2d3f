"""Python written over a sorted list's positions, as one ordered loop (libcst → libcst).

``for i in range(a, len(S)):`` over an ordered stream ``S`` that reads ``S[i]``,
``S[i - k]`` and ``S[i - k][f]`` becomes a loop over ``S``'s rows carrying the ``k`` rows
before (each field a scalar carry, a whole row a tuple of them), so it compiles as any
ordered loop (a native fold or window); ``zip(S, S[1:])`` and ``itertools.pairwise(S)``
are that loop with ``a, b = S[i - 1], S[i]``.
"""

from __future__ import annotations

from typing import Any

import libcst as cst

from .base import Context, OriginTransformer
from .env import Env
from .jumps import Rewrite, block
from .syntax import flatten

__all__ = ["IndexLoopMixin"]


class _RowIndex:
    """``S[i]``, ``S[i - k]`` and ``S[i - k][f]`` in the body of ``for i in range(a, len(S))``."""

    def __init__(self, stream: str, index: str):
        self.stream, self.index = stream, index
        self.fields: set[tuple[int, int]] = set()  # (k, f) of S[i - k][f], k >= 1
        self.rows: set[int] = set()  # k of a whole S[i - k], k >= 1
        self.ok = True

    def back(self, node: cst.BaseExpression) -> int | None:
        """k of ``S[i - k]`` (0 for ``S[i]``), else None."""
        if not (isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name)
                and node.value.value == self.stream and len(node.slice) == 1
                and isinstance(node.slice[0].slice, cst.Index)):  # fmt: skip
            return None
        at = node.slice[0].slice.value
        if isinstance(at, cst.Name) and at.value == self.index:
            return 0
        if (isinstance(at, cst.BinaryOperation) and isinstance(at.operator, cst.Subtract)
                and isinstance(at.left, cst.Name) and at.left.value == self.index
                and isinstance(at.right, cst.Integer) and int(at.right.value) >= 1):  # fmt: skip
            return int(at.right.value)
        return None

    def field(self, node: cst.BaseExpression) -> tuple[int, int] | None:
        """(k, f) of ``S[i - k][f]``, else None."""
        if not (isinstance(node, cst.Subscript) and len(node.slice) == 1
                and isinstance(node.slice[0].slice, cst.Index)
                and isinstance(node.slice[0].slice.value, cst.Integer)):  # fmt: skip
            return None
        k = self.back(node.value)
        return None if k is None else (k, int(node.slice[0].slice.value.value))

    def scan(self, node: cst.CSTNode) -> None:
        if (kf := self.field(node)) is not None:  # type: ignore[arg-type]
            if kf[0]:
                self.fields.add(kf)
            return
        if (k := self.back(node)) is not None:  # type: ignore[arg-type]
            if k:
                self.rows.add(k)
            return
        if isinstance(node, cst.Name) and node.value == self.stream:
            self.ok = False  # `len(S)`, `S[0]`, S passed along: not this shape
            return
        for child in node.children:
            self.scan(child)


class _IndexReplace(OriginTransformer):
    def __init__(self, ctx: Context, ix: _RowIndex, names: dict[Any, str], arity: int):
        super().__init__(ctx)
        self.ix, self.names, self.arity = ix, names, arity

    def leave_Subscript(self, original_node: cst.Subscript, updated_node: cst.Subscript) -> Any:
        kf = self.ix.field(original_node)
        if kf is not None and kf[0]:
            return cst.Name(self.names[kf])
        k = self.ix.back(original_node)
        if k == 0:
            return cst.Name(self.names[0])
        if k is not None and k in self.ix.rows:  # a whole earlier row: a tuple of its fields
            elems = [cst.Element(cst.Name(self.names[(k, f)])) for f in range(self.arity)]
            return cst.Tuple(elems)
        return updated_node

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> Any:
        if original_node.value == self.ix.index:
            return cst.Name(self.names["index"])
        return updated_node


class IndexLoopMixin(Context):
    """``for i in range(a, len(S)):`` over an ordered stream ``S`` read as ``S[i]`` and
    ``S[i - k]``: a loop over ``S``'s rows that carries the ``k`` rows before (the fields
    read of them), so it compiles as any ordered loop (a native fold or window)."""

    def pairwise_loop(self, s: cst.For, env: Env) -> cst.For | None:
        """``for a, b in zip(S, S[1:])`` / ``pairwise(S)`` over an ordered stream ``S``: the
        same loop as ``for i in range(1, len(S)): a, b = S[i - 1], S[i]``; else None."""
        import itertools

        it, t = s.iter, s.target
        if not (isinstance(it, cst.Call) and isinstance(t, cst.Tuple) and len(t.elements) == 2):
            return None
        if isinstance(it.func, cst.Name) and it.func.value not in env.names:
            fn = self.global_obj(it.func.value)
        elif (isinstance(it.func, cst.Attribute) and isinstance(it.func.value, cst.Name)
              and it.func.value.value not in env.names):  # fmt: skip
            # `itertools.pairwise(S)` under `import itertools`
            fn = getattr(self.global_obj(it.func.value.value), it.func.attr.value, None)
        else:
            return None
        args = [a.value for a in it.args]
        if fn is zip and len(args) == 2 and isinstance(args[0], cst.Name):
            tail = args[1]
            if not (isinstance(tail, cst.Subscript) and isinstance(tail.value, cst.Name)
                    and tail.value.value == args[0].value and len(tail.slice) == 1
                    and isinstance(tail.slice[0].slice, cst.Slice)
                    and isinstance(tail.slice[0].slice.lower, cst.Integer)
                    and tail.slice[0].slice.lower.value == "1"
                    and tail.slice[0].slice.upper is None and tail.slice[0].slice.step is None):  # fmt: skip
                return None
        elif not (fn is getattr(itertools, "pairwise", None) and len(args) == 1
                  and isinstance(args[0], cst.Name)):  # fmt: skip
            return None
        stream = args[0]
        st = self.stream_of(stream, env)  # type: ignore[attr-defined]
        if st is None or not st.ordered or st.window is not None:
            return None
        o = self.origin
        i = self.hidden_name("i", env)

        def at(back: int) -> cst.Subscript:
            idx: cst.BaseExpression = cst.Name(i)
            if back:
                idx = cst.BinaryOperation(cst.Name(i), cst.Subtract(), cst.Integer(str(back)))
            return cst.Subscript(cst.Name(stream.value), [cst.SubscriptElement(cst.Index(idx))])

        binds = [o(cst.Assign(targets=[cst.AssignTarget(e.value)], value=at(1 - n)), e.value)
                 for n, e in enumerate(t.elements)]  # fmt: skip
        length = cst.Call(cst.Name("len"), [cst.Arg(cst.Name(stream.value))])
        rng = o(cst.Call(cst.Name("range"), [cst.Arg(cst.Integer("1")), cst.Arg(length)]), it)
        body = [*binds, *flatten(list(s.body.body))]
        return o(s.with_changes(target=o(cst.Name(i), t), iter=rng, body=block(body)), s)

    def index_loop(self, s: cst.For, env: Env) -> tuple[list[cst.CSTNode], cst.For] | None:
        it = s.iter
        if not (isinstance(it, cst.Call) and isinstance(it.func, cst.Name)
                and it.func.value == "range" and "range" not in env.names
                and 1 <= len(it.args) <= 2 and isinstance(s.target, cst.Name)):  # fmt: skip
            return None
        length = it.args[-1].value
        start = int(it.args[0].value.value) if len(it.args) == 2 and isinstance(
            it.args[0].value, cst.Integer) else (0 if len(it.args) == 1 else None)  # fmt: skip
        if not (start is not None and isinstance(length, cst.Call)
                and isinstance(length.func, cst.Name) and length.func.value == "len"
                and len(length.args) == 1 and isinstance(length.args[0].value, cst.Name)):  # fmt: skip
            return None
        stream = length.args[0].value.value
        st = self.stream_of(length.args[0].value, env)  # type: ignore[attr-defined]
        if st is None or not st.ordered or st.window is not None:
            return None
        ix = _RowIndex(stream, s.target.value)
        for stmt in s.body.body:
            ix.scan(stmt)
        backs = {k for k, _ in ix.fields} | ix.rows
        if not ix.ok or any(k > start for k in backs):
            return None  # S[i - k] before the first row would be Python's S[-k]
        # a whole earlier row is a tuple of its fields, each carried as a scalar
        ix.fields |= {(k, f) for k in ix.rows for f in range(st.arity)}
        names: dict[Any, str] = {"index": self.hidden_name("index", env),
                                 0: self.hidden_name("row", env)}  # type: ignore[attr-defined]  # fmt: skip
        for key in sorted(ix.fields):
            names[key] = self.hidden_name("back", env)
        o = self.origin

        def assign(n: str, v: cst.BaseExpression) -> cst.Assign:
            return o(cst.Assign(targets=[cst.AssignTarget(cst.Name(n))], value=v), s.target)

        before = [assign(names["index"], cst.UnaryOperation(cst.Minus(), cst.Integer("1")))]
        before += [assign(names[key], cst.Name("None")) for key in sorted(ix.fields)]
        body = flatten([b.visit(_IndexReplace(self, ix, names, st.arity)) for b in s.body.body])
        body = Rewrite(o).without_continue(body)
        if start:
            test = cst.Comparison(cst.Name(names["index"]),
                                  [cst.ComparisonTarget(cst.GreaterThanEqual(), cst.Integer(str(start)))])  # fmt: skip
            body = [o(cst.If(test=test, body=block(body)), s)]
        count = o(
            cst.AugAssign(cst.Name(names["index"]), cst.AddAssign(), cst.Integer("1")), s.target
        )
        shifts: list[cst.CSTNode] = []  # oldest first: S[i - 2] takes S[i - 1] before that moves
        for k, f in sorted(ix.fields, key=lambda kf: -kf[0]):
            newer = names.get((k - 1, f)) if k > 1 else None
            src: cst.BaseExpression = (cst.Name(newer) if newer is not None else cst.Subscript(
                cst.Name(names[0]), [cst.SubscriptElement(cst.Index(cst.Integer(str(f))))]))  # fmt: skip
            shifts.append(assign(names[(k, f)], src))
        loop = o(s.with_changes(target=o(cst.Name(names[0]), s.target), iter=length.args[0].value,
                                body=block([count, *body, *shifts])), s)  # fmt: skip
        return before, loop
