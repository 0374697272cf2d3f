"""Which names an island's caller still needs: liveness after a statement.

A statement island returns the names it assigns that are *live* after it: read on some
path from the end of the statement before they are assigned again — later in the same
block, after the enclosing ``if``/``with``/``try``, in the next iteration of an
enclosing loop (its test, a ``for`` target rebinding the name first), or after the
loop. A loop variable rebound inside a ``while`` island and not read afterwards
(``n = n // 2`` in a Collatz loop inside ``for _, n in g``) is no output.

The analysis is conservative (a name it cannot prove dead is live): a name is killed
only by a plain assignment on every path (both branches of an ``if``); a mention in a
``while``, ``with`` or ``try`` counts as a read, as does one in a ``for`` unless its
target binds the name (the loop may run no time: no kill either); after a ``break``,
``continue`` or ``raise`` no later assignment kills (the jump may skip it); inside a
``try`` whose handlers or ``finally`` mention the name it is live (they may run after
any statement of its body).

Assumes: ``fn`` is the function the statements belong to (the nodes are its nodes).
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from .syntax import mentions

__all__ = ["LiveNames"]

_READ, _KILL, _FALL = "read", "kill", "fall"
_LOOPS = (cst.For, cst.While)


class LiveNames:
    """Liveness queries over one function's statements."""

    def __init__(self, fn: cst.FunctionDef):
        #: id(statement) -> (owner, its block, index); the owner is the compound statement
        #: (an ``elif`` chain's first ``if``) or the function
        self.where: dict[int, tuple[cst.CSTNode, Sequence[cst.CSTNode], int, str]] = {}
        self._blocks(fn, fn)

    def live_after(self, stmt: cst.CSTNode, name: str) -> bool:
        """Is ``name`` read after ``stmt`` (a statement line, a small or a compound
        statement of the function) before it is assigned again?"""
        place = self.where.get(id(stmt))
        if place is None:
            return True  # not a statement we placed: assume live
        owner, block, i, part = place
        if self._handled(stmt, name):
            return True
        r = _scan(block[i + 1 :], name)
        if r != _FALL:
            return r == _READ
        return self._end_of_block(owner, part, name)

    def _handled(self, stmt: cst.CSTNode, name: str) -> bool:
        """Is ``stmt`` inside a ``try`` whose handlers or ``finally`` mention ``name``
        (they may run after any later statement of its body, a kill included)?"""
        place = self.where.get(id(stmt))
        while place is not None:
            owner = place[0]
            if isinstance(owner, cst.Try) and any(
                mentions(h, name) for h in [*owner.handlers, *filter(None, [owner.finalbody])]
            ):
                return True
            place = self.where.get(id(owner))
        return False

    # -- paths ----------------------------------------------------------------------
    def _end_of_block(self, owner: cst.CSTNode, part: str, name: str) -> bool:
        """Live at the end of the block ``part`` (``body``, ``orelse``, ...) of ``owner``."""
        if isinstance(owner, cst.FunctionDef):
            return False
        if isinstance(owner, cst.Try):
            return mentions(owner, name) or self.live_after(owner, name)
        if isinstance(owner, _LOOPS) and part == "body":
            return self._next_iteration(owner, name) or self._loop_exit(owner, name)
        return self.live_after(owner, name)  # if / else / with / a loop's else

    def _next_iteration(self, loop: cst.For | cst.While, name: str) -> bool:
        if isinstance(loop, cst.While) and mentions(loop.test, name):
            return True
        if isinstance(loop, cst.For) and _kills(loop.target, name):
            return False
        return _scan(_body(loop), name) == _READ  # falling through: the same paths again

    def _loop_exit(self, loop: cst.For | cst.While, name: str) -> bool:
        if loop.orelse is not None:
            r = _scan(list(loop.orelse.body.body), name)
            if r != _FALL:
                return r == _READ
        return self.live_after(loop, name)

    # -- the statement map ----------------------------------------------------------
    def _blocks(self, node: cst.CSTNode, owner: cst.CSTNode) -> None:
        for part, block in _child_blocks(node):
            for i, s in enumerate(block):
                self.where[id(s)] = (owner, block, i, part)
                if isinstance(s, cst.SimpleStatementLine):
                    small = list(s.body)
                    for j, x in enumerate(small):  # `a = 1; b = a`: the line's rest first
                        self.where[id(x)] = (s, small, j, "line")
                    continue
                self._blocks(s, s)
        if isinstance(node, cst.If) and isinstance(node.orelse, cst.If):
            self._blocks(node.orelse, owner if isinstance(owner, cst.If) else node)


def _child_blocks(node: cst.CSTNode) -> list[tuple[str, list[cst.CSTNode]]]:
    """(which part, its statements) of each block nested directly in ``node``."""
    out: list[tuple[str, list[cst.CSTNode]]] = []
    for attr in ("body", "orelse", "finalbody"):
        part = getattr(node, attr, None)
        if isinstance(part, (cst.Else, cst.Finally)):
            part = part.body
        if isinstance(part, cst.IndentedBlock):
            out.append((attr, list(part.body)))
    for h in getattr(node, "handlers", ()) or ():
        if isinstance(h.body, cst.IndentedBlock):
            out.append(("handler", list(h.body.body)))
    for c in getattr(node, "cases", ()) or ():  # match
        if isinstance(c.body, cst.IndentedBlock):
            out.append(("case", list(c.body.body)))
    return out


def _body(loop: cst.For | cst.While) -> list[cst.CSTNode]:
    return list(loop.body.body)


def _kills(target: cst.CSTNode, name: str) -> bool:
    if isinstance(target, cst.Name):
        return target.value == name
    if isinstance(target, (cst.Tuple, cst.List)):
        return any(_kills(e.value, name) for e in target.elements)
    if isinstance(target, cst.StarredElement):
        return _kills(target.value, name)
    return False


def _jumps(node: cst.CSTNode) -> bool:
    """Does ``node`` hold a ``break``/``continue``/``raise``/``return`` (a path that
    leaves its block other than by falling through)?"""
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, (cst.Break, cst.Continue, cst.Raise, cst.Return)):
            return True
        if not isinstance(n, (cst.FunctionDef, cst.ClassDef, cst.Lambda)):
            stack.extend(n.children)
    return False


def _scan(seq: Sequence[cst.CSTNode], name: str) -> str:
    """``name`` along ``seq`` from its start: read first, killed first (no path from the
    end of ``seq`` can read it), or neither (it may fall through to what follows)."""
    jumped = False
    for s in seq:
        small = list(s.body) if isinstance(s, cst.SimpleStatementLine) else [s]
        for x in small:
            if isinstance(x, (cst.Assign, cst.AnnAssign)):
                targets = [t.target for t in x.targets] if isinstance(x, cst.Assign) else [x.target]
                reads = (x.value is not None and mentions(x.value, name)) or any(
                    mentions(t, name) and not _kills(t, name) for t in targets)  # fmt: skip
                if reads:
                    return _READ
                if x.value is not None and any(_kills(t, name) for t in targets) and not jumped:
                    return _KILL
                continue
            if not isinstance(x, cst.BaseSmallStatement):  # a compound statement
                r = _compound(x, name)
                if r == _READ or (r == _KILL and not jumped):
                    return r
                jumped = jumped or _jumps(x)
                continue
            if mentions(x, name):
                return _READ
            if isinstance(x, (cst.Break, cst.Continue)):
                return _FALL  # the rest is unreachable; the loop's paths decide
            if isinstance(x, cst.Return):
                return _FALL if jumped else _KILL  # the generator or function ends here
            if isinstance(x, cst.Raise) or _jumps(x):
                jumped = True
    return _FALL


def _compound(x: cst.CSTNode, name: str) -> str:
    """``name`` through a compound statement: an ``if`` whose every branch kills it
    kills it; a ``for`` whose target binds it reads only its own binding in the body
    (the loop may run no time: no kill); anything else mentioning it reads it."""
    if isinstance(x, cst.If):
        if mentions(x.test, name):
            return _READ
        other: Sequence[cst.CSTNode] = [x.orelse] if isinstance(x.orelse, cst.If) else (
            list(x.orelse.body.body) if x.orelse is not None else [])  # fmt: skip
        branches = [_scan(list(x.body.body), name), _scan(other, name) if other else _FALL]
        if _READ in branches:
            return _READ
        return _KILL if all(b == _KILL for b in branches) else _FALL
    if isinstance(x, cst.For) and _kills(x.target, name):
        orelse = x.orelse.body if x.orelse is not None else None
        return _READ if mentions(x.iter, name) or (orelse and mentions(orelse, name)) else _FALL
    return _READ if mentions(x, name) else _FALL
