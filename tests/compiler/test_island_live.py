"""Liveness after a statement (``island_live.py``): a statement island's outputs are the
names it assigns that some path from its end reads before assigning them again."""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest
from looplift.compiler.frontend.island_live import LiveNames


def _live(src: str, name: str) -> bool:
    """Is ``name`` live after the statement marked ``# here``?"""
    src = textwrap.dedent(src).lstrip("\n")
    fn = cst.parse_module(src).body[0]
    assert isinstance(fn, cst.FunctionDef)
    line = next(i for i, s in enumerate(src.splitlines(), 1) if s.rstrip().endswith("# here"))
    wrapper = cst.metadata.MetadataWrapper(cst.Module(body=[fn]), unsafe_skip_copy=True)
    pos = wrapper.resolve(cst.metadata.PositionProvider)
    here = next(n for n, p in pos.items() if p.start.line == line
                and isinstance(n, (cst.SimpleStatementLine, cst.BaseCompoundStatement)))  # fmt: skip
    return LiveNames(fn).live_after(here, name)


@pytest.mark.parametrize(("src", "name", "live"), [
    # a loop variable rebound in the island and bound again by the next row: dead
    ("""
     def f(g):
         for _, n in g:
             while n != 1:  # here
                 n = n // 2
                 yield n
     """, "n", False),
    # read after the statement
    ("""
     def f(g):
         for _, n in g:
             n = n + 1  # here
             yield n
     """, "n", True),
    # read in the next iteration only (a carried value)
    ("""
     def f(g):
         level = 0
         for _, v in g:
             level += v
             level = level // 2  # here
     """, "level", True),
    # read after the loop
    ("""
     def f(g):
         s = 0
         for _, v in g:
             s = v  # here
         return s
     """, "s", True),
    # assigned again before any read, also on both branches of an if
    ("""
     def f(g):
         x = 1  # here
         if g:
             x = 2
         else:
             x = 3
         return x
     """, "x", False),
    # one branch keeps the value
    ("""
     def f(g):
         x = 1  # here
         if g:
             x = 2
         return x
     """, "x", True),
    # `continue` may skip the kill: the next iteration's while test reads it
    ("""
     def f(g, k):
         while k > 0:
             k = k - 1  # here
             if k == 3:
                 continue
             k = 10
     """, "k", True),
    # an inner loop's target binds it, but it may run no time: the old value is read after
    ("""
     def f(g, rows):
         x = 1  # here
         for x in rows:
             pass
         return x
     """, "x", True),
    # a handler may run after any statement of the try
    ("""
     def f(s):
         try:
             n = 1  # here
             n = int(s)
         except ValueError:
             return n
         return 0
     """, "n", True),
])  # fmt: skip
def test_live_after(src: str, name: str, live: bool) -> None:
    assert _live(src, name) is live
