"""Generic traversals of the lambda IR: children, rebuild, walk, free variables."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from functools import lru_cache

from .nodes import Apply, Expr, Lambda, Let, StateCall, Var

__all__ = ["children", "free_vars", "map_children", "walk", "let_chain", "bound_names"]


def children(e: Expr) -> tuple[Expr, ...]:
    if isinstance(e, Let):
        return (e.value, e.body)
    if isinstance(e, Apply):
        return (e.fn, *e.args)
    if isinstance(e, Lambda):
        return (e.body,)
    return ()


def map_children(e: Expr, f: Callable[[Expr], Expr]) -> Expr:
    """Rebuild ``e`` with ``f`` applied to each direct child (identity-preserving)."""
    if isinstance(e, Let):
        v, b = f(e.value), f(e.body)
        return e if (v is e.value and b is e.body) else dataclasses.replace(e, value=v, body=b)
    if isinstance(e, Apply):
        fn = f(e.fn)
        args = tuple(f(a) for a in e.args)
        if fn is e.fn and all(a is b for a, b in zip(args, e.args, strict=True)):
            return e
        return dataclasses.replace(e, fn=fn, args=args)
    if isinstance(e, Lambda):
        b = f(e.body)
        return e if b is e.body else dataclasses.replace(e, body=b)
    return e


def walk(e: Expr) -> Iterator[Expr]:
    """Pre-order traversal of every node."""
    stack = [e]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(children(n)))


@lru_cache(maxsize=65536)
def free_vars(e: Expr) -> frozenset[str]:
    """Free variables of ``e``, including states named by ``StateCall``."""
    if isinstance(e, Var):
        return frozenset((e.name,))
    if isinstance(e, StateCall):
        return frozenset((e.state,))
    if isinstance(e, Let):
        return free_vars(e.value) | (free_vars(e.body) - {e.name})
    if isinstance(e, Lambda):
        return free_vars(e.body) - set(e.params)
    if isinstance(e, Apply):
        out = free_vars(e.fn)
        for a in e.args:
            out = out | free_vars(a)
        return out
    return frozenset()


def let_chain(e: Expr) -> tuple[list[Let], Expr]:
    """Split ``let a = .. in let b = .. in tail`` into its lets and its tail."""
    lets = []
    while isinstance(e, Let):
        lets.append(e)
        e = e.body
    return lets, e


def bound_names(e: Expr) -> Iterator[str]:
    """Every name bound anywhere in ``e`` (lets and lambda parameters)."""
    for n in walk(e):
        if isinstance(n, Let):
            yield n.name
        elif isinstance(n, Lambda):
            yield from n.params
