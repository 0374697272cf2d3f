"""IR invariants: tiny named checkers combined by :func:`verify`.

Run between pipeline stages by the tests and under ``LOOPLIFT_VERIFY=1``.
Each checker returns a list of problems (empty when the invariant holds).
"""

from __future__ import annotations

from collections.abc import Callable

from .nodes import (
    Apply,
    Builtin,
    CallDataflow,
    Expr,
    Function,
    Lambda,
    Let,
    Lit,
    StateCall,
    StateNew,
    Var,
)
from .traverse import walk

__all__ = ["verify", "CHECKS", "IRInvariantError"]


class IRInvariantError(AssertionError):
    """An internal invariant of the IR is broken (a compiler bug, not a user error)."""


def vars_bound(fn: Function) -> list[str]:
    """Every variable (and state named by a state call) is bound lexically."""
    problems: list[str] = []

    def go(e: Expr, env: frozenset[str]) -> None:
        if isinstance(e, Var):
            if e.name not in env:
                problems.append(f"unbound variable {e.name}")
        elif isinstance(e, Let):
            go(e.value, env)
            go(e.body, env | {e.name})
        elif isinstance(e, Lambda):
            go(e.body, env | set(e.params))
        elif isinstance(e, Apply):
            if isinstance(e.fn, StateCall) and e.fn.state not in env:
                problems.append(f"state call on unbound state {e.fn.state}")
            go(e.fn, env)
            for a in e.args:
                go(a, env)

    go(fn.body, frozenset(p.name for p in fn.params))
    return problems


def states_bound_to_constructors(fn: Function) -> list[str]:
    """A state call's receiver is a binder whose value is a state constructor."""
    ctor = {
        n.name
        for n in walk(fn.body)
        if isinstance(n, Let) and isinstance(n.value, Apply) and isinstance(n.value.fn, StateNew)
    }
    return [
        f"{n.state}#{n.method} on a non-state"
        for n in walk(fn.body)
        if isinstance(n, StateCall) and n.state not in ctor
    ]


def no_dataflow_calls(fn: Function) -> list[str]:
    return [f"call {n.ref} not inlined" for n in walk(fn.body) if isinstance(n, CallDataflow)]


def anf(fn: Function) -> list[str]:
    """Arguments are atoms (or lambdas of control builtins); let values are not lets."""
    problems = []
    for n in walk(fn.body):
        if isinstance(n, Let) and isinstance(n.value, Let):
            problems.append(f"let {n.name} binds a let")
        if isinstance(n, Apply):
            for a in n.args:
                if isinstance(a, Lambda):
                    if not (isinstance(n.fn, Builtin) and n.fn.name in ("if", "smap", "each", "sort_by", "fold")):
                        problems.append("lambda passed to a non-control function")
                elif not isinstance(a, (Var, Lit)):
                    problems.append(f"non-atomic argument {type(a).__name__}")
    return problems


def unique_binders(fn: Function) -> list[str]:
    seen: set[str] = {p.name for p in fn.params}
    problems = []
    for n in walk(fn.body):
        names = [n.name] if isinstance(n, Let) else list(n.params) if isinstance(n, Lambda) else []
        for x in names:
            if x == "_":
                continue
            if x in seen:
                problems.append(f"binder {x} is not unique")
            seen.add(x)
    return problems


def loops_over_streams(fn: Function) -> list[str]:
    """``smap`` takes a lambda and a stream variable."""
    return [
        "smap without a (lambda, stream var) pair"
        for n in walk(fn.body)
        if isinstance(n, Apply)
        and isinstance(n.fn, Builtin)
        and n.fn.name == "smap"
        and not (len(n.args) == 2 and isinstance(n.args[0], Lambda) and isinstance(n.args[1], Var))
    ]


CHECKS: dict[str, Callable[[Function], list[str]]] = {
    "vars_bound": vars_bound,
    "states_bound_to_constructors": states_bound_to_constructors,
    "no_dataflow_calls": no_dataflow_calls,
    "anf": anf,
    "unique_binders": unique_binders,
    "loops_over_streams": loops_over_streams,
}

# which invariants hold after each stage (the frontend's output is not yet ANF)
AFTER = {
    "frontend": ("vars_bound", "states_bound_to_constructors"),
    "inline_dataflow": ("vars_bound", "states_bound_to_constructors", "no_dataflow_calls"),
}
_ALL = tuple(CHECKS)


def verify(fn: Function, stage: str) -> None:
    """Raise :class:`IRInvariantError` naming the stage and every broken invariant."""
    names = AFTER.get(stage, _ALL)
    problems = [f"{name}: {p}" for name in names for p in CHECKS[name](fn)]
    if problems:
        raise IRInvariantError(f"IR invariants broken after {stage}:\n  " + "\n  ".join(problems))
