"""State base class and the ``@action`` decorator.

A state is a class deriving :class:`State`. Methods decorated with ``@action``
modify it and return nothing; every other public method reads it. Each action
has an inverse (``@<name>.undo``) so that a deleted input row can take back the
actions it caused. An action whose body only does ``self.f += expr`` /
``self.f -= expr`` is *additive*: its inverse is derived by negation. A method
decorated with ``@merge`` combines another state of the same scope into this one
(SPEC §3): plans then aggregate partially before the shuffle and merge after it.

>>> class Sum(State):
...     def __init__(self):
...         self.total = 0
...     @action
...     def add(self, x):
...         self.total += x
...     def value(self):
...         return self.total
>>> s = Sum(); s.add(3); s.add(4); s.add.undo(3); s.value()
4
>>> class Biggest(State):
...     def __init__(self):
...         self.best = None
...     @action
...     def add(self, x):
...         self.best = x if self.best is None else max(self.best, x)
...     @add.undo
...     def add(self, x):
...         raise NotImplementedError
...     @merge
...     def merge(self, other):
...         if other.best is not None:
...             self.add(other.best)
...     def value(self):
...         return self.best
>>> a, b = Biggest(), Biggest(); a.add(3); b.add(9); a.merge(b); a.value()
9
>>> Biggest.merger().name, Sum.merger() is None
('merge', True)
"""

from __future__ import annotations

import ast
import functools
import inspect
import textwrap
from collections.abc import Callable
from typing import Any

__all__ = ["Action", "Carry", "Merge", "State", "action", "additive_fields", "merge", "merged"]


class Action:
    """Descriptor for a state-modifying method with an inverse."""

    def __init__(self, fn: Callable[..., None]):
        self.fn = fn
        self.name = fn.__name__
        self.undo_fn: Callable[..., None] | None = None
        self._derived_undo: Callable[..., None] | None = None
        functools.update_wrapper(self, fn)

    def undo(self, fn: Callable[..., None]) -> Action:
        """Register ``fn`` as the inverse of this action (used as ``@add.undo``)."""
        if isinstance(fn, Action) or self.undo_fn is not None:
            raise TypeError(f"@{self.name}.undo is applied twice; keep one")
        if fn.__name__ != self.name:
            raise TypeError(
                f"@{self.name}.undo must decorate a method named {self.name!r}, not {fn.__name__!r}"
            )
        self.undo_fn = fn
        return self

    @property
    def has_undo(self) -> bool:
        return self.undo_fn is not None or self.inverse() is not None

    def inverse(self) -> Callable[..., None] | None:
        """The explicit undo, or the derived one for an additive action, or None."""
        if self.undo_fn is not None:
            return self.undo_fn
        if self._derived_undo is None:
            self._derived_undo = _derive_additive_undo(self.fn)
        return self._derived_undo

    def __set_name__(self, owner: type, name: str) -> None:
        self.owner = owner

    def __get__(self, obj: Any, objtype: type | None = None) -> Any:
        if obj is None:
            return self
        return BoundAction(self, obj)

    def __repr__(self) -> str:
        return f"<action {self.name}>"


class BoundAction:
    """An action bound to a state instance: call it to apply, ``.undo`` to revert."""

    __slots__ = ("action", "state")

    def __init__(self, action: Action, state: State):
        self.action = action
        self.state = state

    def __call__(self, *args: Any) -> None:
        self.action.fn(self.state, *args)

    def undo(self, *args: Any) -> None:
        inv = self.action.inverse()
        if inv is None:
            raise TypeError(
                f"action {type(self.state).__name__}.{self.action.name} has no undo: "
                f"add `@{self.action.name}.undo` or make it additive (only `self.f += e`)"
            )
        inv(self.state, *args)

    def apply(self, sign: int, *args: Any) -> None:
        """Apply with a delta sign: +1 runs the action, -1 its undo."""
        if sign > 0:
            self.action.fn(self.state, *args)
        elif sign < 0:
            self.undo(*args)


def action(fn: Callable[..., None]) -> Action:
    """Mark a state method as an action (modifies the state, returns nothing)."""
    return Action(fn)


class Merge:
    """Descriptor of a state's merge method: ``a.merge(b)`` combines ``b`` into ``a``.

    ``b`` is a state of the same class and scope (built with the same constructor
    arguments); ``a`` is changed in place, ``b`` is left as it was. With it, the laws
    add (4): merge is associative and commutative, a fresh state is its neutral element,
    and a merge reads as one state that received both states' actions
    (:func:`looplift.states.check_laws`).
    """

    def __init__(self, fn: Callable[[Any, Any], None]):
        if len(inspect.signature(fn).parameters) != 2:
            raise TypeError(f"@merge must decorate a method `(self, other)`, not {fn.__name__!r}")
        self.fn = fn
        self.name = fn.__name__
        functools.update_wrapper(self, fn)

    def __set_name__(self, owner: type, name: str) -> None:
        self.owner = owner

    def __get__(self, obj: Any, objtype: type | None = None) -> Any:
        if obj is None:
            return self
        return functools.partial(_merge_into, self, obj)

    def __repr__(self) -> str:
        return f"<merge {self.name}>"


def _merge_into(m: Merge, state: State, other: State) -> None:
    if type(other) is not type(state):
        raise TypeError(
            f"{type(state).__name__}.{m.name}: cannot merge a {type(other).__name__} into it"
        )
    if other is state:
        raise ValueError(f"{type(state).__name__}.{m.name}: cannot merge a state into itself")
    m.fn(state, other)


def merge(fn: Callable[[Any, Any], None]) -> Merge:
    """Mark a state method ``(self, other)`` as its merge: it combines ``other`` (a state
    of the same class and scope) into ``self`` and returns nothing."""
    return Merge(fn)


def merged(states: Any, fresh: Callable[[], State]) -> State:
    """One state combining ``states`` (an iterable of states of one mergeable class) by
    their merge, starting from ``fresh()``; the inputs are left unchanged."""
    out = fresh()
    m = type(out).merger()
    if m is None:
        raise TypeError(f"{type(out).__name__} has no @merge method")
    for s in states:
        m.fn(out, s)
    return out


class State:
    """Base class of all looplift states (accumulators with reversible actions)."""

    @classmethod
    def actions(cls) -> dict[str, Action]:
        out: dict[str, Action] = {}
        for klass in reversed(cls.__mro__):
            for name, value in vars(klass).items():
                if isinstance(value, Action):
                    out[name] = value
        return out

    @classmethod
    def merger(cls) -> Merge | None:
        """The class's ``@merge`` method, or None when its states do not merge."""
        for klass in cls.__mro__:
            for value in vars(klass).values():
                if isinstance(value, Merge):
                    return value
        return None

    @classmethod
    def readers(cls) -> dict[str, Callable[..., Any]]:
        acts = cls.actions()
        out: dict[str, Callable[..., Any]] = {}
        for klass in reversed(cls.__mro__):
            if klass in (State, object):
                continue
            for name, value in vars(klass).items():
                if name.startswith("_") or name in acts or not callable(value):
                    continue
                if isinstance(value, Merge):
                    continue
                if isinstance(value, (staticmethod, classmethod, type)):
                    continue
                out[name] = value
        return out

    def apply(self, name: str, sign: int, *args: Any) -> None:
        """Apply action ``name`` with ``sign`` (+1 do, -1 undo)."""
        getattr(self, name).apply(sign, *args)

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({fields})"


def additive_fields(fn: Callable[..., None]) -> list[tuple[str, str, ast.expr]] | None:
    """``[(field, '+'|'-', expr), ...]`` if ``fn``'s body only does ``self.f ±= e``.

    Returns None when the method is not additive (or its source is unavailable).
    """
    try:
        src = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError):
        return None
    tree = ast.parse(src)
    func = tree.body[0]
    if not isinstance(func, ast.FunctionDef) or not func.args.args:
        return None
    self_name = func.args.args[0].arg
    body = [s for s in func.body if not _is_docstring(s)]
    if not body:
        return None
    out = []
    for stmt in body:
        if isinstance(stmt, ast.Pass):
            continue
        if not (
            isinstance(stmt, ast.AugAssign)
            and isinstance(stmt.op, (ast.Add, ast.Sub))
            and isinstance(stmt.target, ast.Attribute)
            and isinstance(stmt.target.value, ast.Name)
            and stmt.target.value.id == self_name
        ):
            return None
        if any(isinstance(n, ast.Name) and n.id == self_name for n in ast.walk(stmt.value)):
            return None  # the increment depends on the state: not additive
        out.append((stmt.target.attr, "+" if isinstance(stmt.op, ast.Add) else "-", stmt.value))
    return out


def _is_docstring(stmt: ast.stmt) -> bool:
    return (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Constant)
        and isinstance(stmt.value.value, str)
    )


def _derive_additive_undo(fn: Callable[..., None]) -> Callable[..., None] | None:
    """Build the inverse of an additive action by flipping every ``+=``/``-=``."""
    updates = additive_fields(fn)
    if updates is None:
        return None
    src = textwrap.dedent(inspect.getsource(fn))
    tree = ast.parse(src)
    func = tree.body[0]
    assert isinstance(func, ast.FunctionDef)
    func.decorator_list = []
    for stmt in func.body:
        if isinstance(stmt, ast.AugAssign):
            stmt.op = ast.Sub() if isinstance(stmt.op, ast.Add) else ast.Add()
    func.name = f"{fn.__name__}__undo"
    ast.fix_missing_locations(tree)
    code = compile(tree, inspect.getsourcefile(fn) or "<state>", "exec")
    namespace: dict[str, Any] = {}
    exec(code, fn.__globals__, namespace)
    return namespace[func.name]


class Carry:
    """A loop-carried local as a pseudo-state: its updates are recorded as actions.

    The compiler turns ``x += e`` / ``x = max(x, e)`` ... in unordered loops into
    library states; what remains (in ordered loops) runs as a Carry, in row order.
    """

    __slots__ = ("v",)

    def __init__(self, value: Any) -> None:
        self.v = value

    def add(self, x: Any) -> None:
        self.v = self.v + x

    def radd(self, x: Any) -> None:  # `v = x + v`: `+` on str is not commutative
        self.v = x + self.v

    def sub(self, x: Any) -> None:
        self.v = self.v - x

    def mul(self, x: Any) -> None:  # `p *= x` (a Product once recognized)
        self.v = self.v * x

    def and_(self, x: Any) -> None:  # `v = v and x` (all of bools once recognized)
        self.v = self.v and x

    def or_(self, x: Any) -> None:  # `v = v or x` (any of bools once recognized)
        self.v = self.v or x

    def max(self, x: Any) -> None:
        self.v = max(self.v, x)

    def min(self, x: Any) -> None:
        self.v = min(self.v, x)

    def set(self, x: Any) -> None:
        self.v = x

    def get(self) -> Any:
        return self.v
