"""``continue`` and ``break`` in a loop body, rewritten into ``if``/``else`` (libcst → libcst).

``continue`` ends the iteration: the statements after an ``if`` that may continue move
into each of its branches that may fall through, so the rest of the body runs exactly
when Python would run it::

    for ...:                         for ...:
        if bad:                          if bad:
            continue           →             pass
        total += x                       else:
                                             total += x

``break`` (in a loop whose rows come in an order) becomes a carried flag: the body runs
while the flag is unset, and ``break`` sets it and ends the iteration::

    for ...:                         _break = False
        total += x                   for ...:
        if total > limit:      →         if _break:
            break                            continue
                                         total += x
                                         if total > limit:
                                             _break = True
                                             continue

(then ``continue`` is rewritten as above). A jump belongs to the innermost loop around
it, so nested loops are left to their own rewrite. New nodes are mapped to the node
they stand for (``origin``), so diagnostics still point at the user's code.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import libcst as cst

from .base import Context
from .env import Env, Stop
from .syntax import flatten, group_by_fn

__all__ = ["jumps", "block", "without_continue", "breaks_to_flag", "Rewrite", "LoopRewriteMixin"]

#: new node -> the user's node it stands for (for source positions)
Origin = Callable[[cst.CSTNode, cst.CSTNode], cst.CSTNode]


def jumps(
    stmts: list[cst.CSTNode], kinds: tuple[type, ...] = (cst.Continue, cst.Break)
) -> Iterator[cst.CSTNode]:
    """The ``continue`` and ``break`` statements (or other ``kinds``) of this loop body that
    the rewrite moves: at its top level or in ``if``/``elif``/``else`` blocks, not in loops
    nested in it nor in statements that are reported anyway (``try``, ``with``)."""
    stack = list(stmts)
    while stack:
        n = stack.pop()
        if isinstance(n, kinds):
            yield n
        elif isinstance(n, (cst.If, cst.Else, cst.IndentedBlock, cst.SimpleStatementLine)):
            stack.extend(n.children)


def _has_jump(node: cst.CSTNode, kinds: tuple[type, ...] = (cst.Continue, cst.Break)) -> bool:
    return next(jumps([node], kinds), None) is not None


def _branches(s: cst.If) -> tuple[list[cst.CSTNode], list[cst.CSTNode]]:
    then = flatten(list(s.body.body))
    if s.orelse is None:
        return then, []
    if isinstance(s.orelse, cst.If):
        return then, [s.orelse]
    return then, flatten(list(s.orelse.body.body))


def block(stmts: list[cst.CSTNode]) -> cst.IndentedBlock:
    lines: list[cst.BaseStatement] = []
    for s in stmts or [cst.Pass()]:
        if isinstance(s, cst.BaseSmallStatement):
            lines.append(cst.SimpleStatementLine(body=[s]))
        else:
            lines.append(s)  # type: ignore[arg-type]
    return cst.IndentedBlock(body=lines)


class Rewrite:
    """The rewrites of one translation; ``origin(new, old)`` records where ``new`` stands."""

    def __init__(self, origin: Origin):
        self.origin = origin

    def without_continue(self, stmts: list[cst.CSTNode]) -> list[cst.CSTNode]:
        """``stmts`` (a loop body, flattened) without ``continue``, meaning the same."""
        out: list[cst.CSTNode] = []
        for i, s in enumerate(stmts):
            if isinstance(s, cst.Continue):
                return out
            if isinstance(s, cst.If) and _has_jump(s):
                rest = stmts[i + 1 :]
                then, other = _branches(s)
                new = cst.If(
                    test=s.test,
                    body=block(self.without_continue(then + rest)),
                    orelse=cst.Else(body=block(self.without_continue(other + rest))),
                )
                out.append(self.origin(new, s))
                return out
            out.append(s)
        return out

    def breaks_to_flag(
        self, stmts: list[cst.CSTNode], flag: str | None, result: str | None = None
    ) -> list[cst.CSTNode]:
        """``stmts`` with every ``break`` of this loop setting ``flag`` and continuing, behind
        a first ``if flag: continue`` (the flag starts False before the loop). Without a
        flag, each ``break`` is only a ``continue`` (after a break was reported, the rest
        of the body is still translated to find its problems). With ``result``, every
        ``return x`` is rewritten instead: ``result = x`` and the same flag."""
        kinds: tuple[type, ...] = (cst.Return,) if result is not None else (cst.Break,)

        def visit(body: list[cst.CSTNode]) -> list[cst.CSTNode]:
            out: list[cst.CSTNode] = []
            for s in body:
                if isinstance(s, kinds) and flag is None:
                    out.append(self.origin(cst.Continue(), s))
                elif isinstance(s, kinds):
                    if isinstance(s, cst.Return) and s.value is not None and result is not None:
                        keep = cst.Assign(targets=[cst.AssignTarget(cst.Name(result))],
                                          value=s.value)  # fmt: skip
                        out.append(self.origin(keep, s))
                    done = cst.Assign(targets=[cst.AssignTarget(cst.Name(flag))],
                                      value=cst.Name("True"))  # fmt: skip
                    out += [self.origin(done, s), self.origin(cst.Continue(), s)]
                elif isinstance(s, cst.If) and _has_jump(s, kinds):
                    then, other = _branches(s)
                    new = cst.If(test=s.test, body=block(visit(then)),
                                 orelse=cst.Else(body=block(visit(other))) if other else None)  # fmt: skip
                    out.append(self.origin(new, s))
                else:
                    out.append(s)
            return out

        if flag is None:
            return visit(stmts)
        guard = cst.If(test=cst.Name(flag), body=block([cst.Continue()]))
        return [guard, *visit(stmts)]


def without_continue(stmts: list[cst.CSTNode]) -> list[cst.CSTNode]:
    """:meth:`Rewrite.without_continue` without source positions for new nodes."""
    return Rewrite(lambda new, old: new).without_continue(stmts)


def breaks_to_flag(stmts: list[cst.CSTNode], flag: str | None) -> list[cst.CSTNode]:
    """:meth:`Rewrite.breaks_to_flag` without source positions for new nodes."""
    return Rewrite(lambda new, old: new).breaks_to_flag(stmts, flag)


class LoopRewriteMixin(Context):
    """Loops with ``continue``, ``break`` or ``enumerate`` of an ordered stream, rewritten
    before ``for_stmt`` translates them."""

    def rewritten_for(
        self, s: cst.For, after: list[cst.CSTNode], env: Env, rest: Callable[[Env], Any]
    ) -> Any:
        """The translation of loop ``s`` after :meth:`loop_rewrite` (None: not rewritten)."""
        rewritten = self.loop_rewrite(s, env)
        if rewritten is None:
            return None
        before, loop = rewritten

        def chain(k: int, env_k: Env) -> Any:
            if k == len(before):
                return self.for_stmt(loop, after, env_k, rest)  # type: ignore[attr-defined]
            return self.simple(before[k], env_k, lambda e: chain(k + 1, e))  # type: ignore[attr-defined]

        return chain(0, env)

    def loop_rewrite(self, s: cst.For, env: Env) -> tuple[list[cst.CSTNode], cst.For] | None:
        """A loop with ``continue`` or ``break`` in its body, or over ``enumerate`` of an
        ordered stream, as statements to run before it and a loop without them
        (``jumps.py``); None when the loop has none of these."""
        paired = self.pairwise_loop(s, env)  # type: ignore[attr-defined]
        if paired is not None:  # `for a, b in zip(rows, rows[1:])`: an index loop
            s = paired
        indexed = self.index_loop(s, env)  # type: ignore[attr-defined]
        if indexed is not None:  # `for i in range(1, len(rows)):` reading rows[i], rows[i - 1]
            return indexed
        body = flatten(list(s.body.body))
        found = list(jumps(body))
        counted = self.enumerated_order(s, env)
        if not found and counted is None:
            return None
        rw = Rewrite(self.origin)
        before: list[cst.CSTNode] = []
        target = s.target
        if counted is not None:  # `for i, row in enumerate(g)`: i counts the rows before
            index_target, target, it, start = counted
            idx = self.hidden_name("index", env)
            first = (cst.BinaryOperation(start, cst.Subtract(), cst.Integer("1"))
                     if start is not None else cst.UnaryOperation(cst.Minus(), cst.Integer("1")))  # fmt: skip
            before.append(self.origin(
                cst.Assign(targets=[cst.AssignTarget(cst.Name(idx))], value=first), s.iter))
            count = cst.AugAssign(cst.Name(idx), cst.AddAssign(), cst.Integer("1"))
            bind = cst.Assign(targets=[cst.AssignTarget(index_target)], value=cst.Name(idx))
            body = [self.origin(count, s.iter), self.origin(bind, index_target), *body]
            s = self.origin(s.with_changes(target=target, iter=it), s)
        breaks = [j for j in found if isinstance(j, cst.Break)]
        if breaks:
            why = self.unordered_reason(s, env)
            if why is not None:
                for b in breaks:
                    self.error(b, f"`break` in a loop over {why[0]}", why[1])
                body = rw.breaks_to_flag(body, None)
            else:
                flag = self.hidden_name("break", env)
                before.append(self.origin(cst.Assign(targets=[cst.AssignTarget(cst.Name(flag))],
                                                     value=cst.Name("False")), breaks[0]))  # fmt: skip
                body = rw.breaks_to_flag(body, flag)
        body = rw.without_continue(body)
        new = self.origin(s.with_changes(body=block(body)), s)
        return before, new

    def return_rewrite(self, s: cst.For, env: Env) -> list[cst.CSTNode] | None:
        """A loop at the function's top level whose rows come in an order, with ``return``
        in its body: statements for it, where each ``return x`` keeps ``x``, sets a flag and
        ends the loop, and the flag is tested after it (``if done: return x``). None: the
        loop has no ``return``, or is not of that kind (its ``return`` is reported)."""
        body = flatten(list(s.body.body))
        rets = list(jumps(body, (cst.Return,)))
        if not rets or env.depth > 0 or self.unordered_reason(s, env) is not None:
            return None
        done = self.hidden_name("returned", env)
        result = self.hidden_name("result", env)
        first = rets[0]
        before = [self.origin(cst.Assign(targets=[cst.AssignTarget(cst.Name(n))],
                                         value=cst.Name(v)), first)
                  for n, v in ((done, "False"), (result, "None"))]  # fmt: skip
        body = Rewrite(self.origin).breaks_to_flag(body, done, result)
        loop = self.origin(s.with_changes(body=block(body)), s)
        value = cst.Name(result) if any(r.value is not None for r in rets) else None
        ret = self.origin(cst.Return(value=value), first)
        after = self.origin(cst.If(test=cst.Name(done), body=block([ret])), first)
        return [*before, loop, after]

    def enumerated_order(
        self, s: cst.For, env: Env
    ) -> tuple[cst.BaseAssignTargetExpression, cst.BaseAssignTargetExpression,
               cst.BaseExpression, cst.BaseExpression | None] | None:  # fmt: skip
        """``for i, row in enumerate(g[, start])`` with ``g`` a stream iterated in an order
        (a group of ``group_by(..., order_by=...)``, ``sorted_by(...)``): (i, row, g, start)."""
        it = s.iter
        if not (
            isinstance(it, cst.Call)
            and isinstance(it.func, cst.Name)
            and self.global_obj(it.func.value) is enumerate
            and 1 <= len(it.args) <= 2
            and all(a.keyword is None and a.star == "" for a in it.args)
            and isinstance(s.target, cst.Tuple)
            and len(s.target.elements) == 2
            and isinstance(it.args[0].value, (cst.Name, cst.Call))
        ):
            return None
        if it.func.value in env.names:
            return None
        st = self.stream_of(it.args[0].value, env)  # type: ignore[attr-defined]
        if st is None or not st.ordered or st.window is not None:
            return None
        start = it.args[1].value if len(it.args) == 2 else None
        index, row = (e.value for e in s.target.elements)
        return index, row, it.args[0].value, start

    def unordered_reason(self, s: cst.For, env: Env) -> tuple[str, str] | None:
        """Why loop ``s`` cannot stop early, and what to do (None: its rows come in an
        order, so it can)."""
        it = s.iter
        guard = "guard the loop body with `if`"
        if isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and (
            self.global_obj(it.func.value) is group_by_fn()
        ):
            return ("groups: groups come in no order, so which ones it skips is undefined",
                    f"{guard}, or skip a group with `continue`")  # fmt: skip
        st = self.stream_of(it, env)  # type: ignore[attr-defined]
        if st is None:
            try:
                got = self.enumerated_stream(it, env)  # type: ignore[attr-defined]
            except Stop:
                got = None
            st = got[1] if got is not None else None
        if st is not None and st.ordered and st.window is None:
            return None
        if st is not None and st.window is not None:
            return ("a ranked stream (`sorted(...)[:n]`, `enumerate(sorted(...))`) is not "
                    "supported", f"take the rows with a slice `sorted(g, key=...)[:n]`, or {guard}")  # fmt: skip
        if st is not None:
            return ("rows in no order: which rows it skips depends on their order",
                    f"iterate in an order (`group_by(k, rows, order_by=...)`, "
                    f"`sorted_by(rows, ...)`), or {guard}")  # fmt: skip
        try:  # a list in Python's order (`s.split()`, `sorted(d)`): it can stop early
            view = self.loop_view(it, env)  # type: ignore[attr-defined]
        except Stop:
            view = None
        if view is not None and view.order:
            return None
        return "the values of a container is not supported", guard

