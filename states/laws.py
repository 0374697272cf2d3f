"""``check_laws``: property-test the state laws of SPEC §3 with hypothesis.

Observable values are the results of a state's readers. The laws:

1. *Order independence* — applying any multiset of actions in any order
   gives the same observable values.
2. *Undo* — applying an action and later undoing it gives the same
   observable values as never applying it (checked with any number of
   applied-and-undone actions interleaved in any order with the others, and
   with readers called midway, which must not change the outcome).
3. *Identity* — a fresh state is the identity: a fresh state reads the same
   as one to which a list of actions was applied and then all undone, in any
   order (and two fresh states read the same).

Example, on a user-defined state::

    from hypothesis import strategies as st
    from looplift import State, action
    from looplift.states import check_laws

    class Span(State):
        def __init__(self):
            self.lo = {}
        @action
        def add(self, x):
            self.lo[x] = self.lo.get(x, 0) + 1
        @add.undo
        def add(self, x):
            self.lo[x] -= 1
            if not self.lo[x]:
                del self.lo[x]
        def width(self):
            return max(self.lo) - min(self.lo) if self.lo else 0

    adds = st.lists(st.tuples(st.just("add"), st.tuples(st.integers(-5, 5))))
    check_laws(Span, adds)          # raises AssertionError on a violation
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from looplift import State

__all__ = ["LawViolation", "check_laws"]

Act = tuple[str, tuple[Any, ...]]


class LawViolation(AssertionError):
    """A state broke one of the laws; the message names the law, the state and the example."""


class _Raised:
    """The observation of a reader that raised: equal to the same exception type."""

    def __init__(self, exc: BaseException):
        self.name = type(exc).__name__
        self.text = str(exc)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Raised) and other.name == self.name

    def __hash__(self) -> int:
        return hash(self.name)

    def __repr__(self) -> str:
        return f"<raised {self.name}: {self.text}>"


def check_laws(
    state_cls: type[State],
    actions_strategy: Any,
    *,
    readers: Sequence[str] | Mapping[str, Callable[[Any], Any]] | None = None,
    ctor_args: tuple[Any, ...] = (),
    max_examples: int = 500,
    rel_tol: float = 1e-9,
    abs_tol: float = 1e-12,
    merge: bool | None = None,
) -> None:
    """Check the laws of SPEC §3 for ``state_cls`` with hypothesis.

    Args:
        state_cls: the State subclass to check.
        actions_strategy: a hypothesis strategy of lists of
            ``(action_name, args_tuple)``, e.g.
            ``st.lists(st.tuples(st.just("add"), st.tuples(st.integers(-3, 3))))``.
            Use small value ranges so that duplicates are common.
        readers: the observable values — reader names, or a mapping from a
            label to a function of the state; by default every public reader
            of the class (``state_cls.readers()``), called without arguments.
            A reader that raises is observed as its exception type.
        ctor_args: arguments of ``state_cls(...)``.
        max_examples: hypothesis examples per law.
        rel_tol: relative tolerance for comparing floats (``abs_tol`` for
            values near zero).
        merge: check law 4 (merge); by default when the class has a ``@merge``
            method. True for a class without one raises TypeError.

    Raises:
        LawViolation: (an AssertionError) naming the law, the state and a
            shrunk counterexample.
        TypeError: if the strategy names an action the class does not have.

    >>> from hypothesis import strategies as st
    >>> from looplift.states import Max
    >>> check_laws(Max, st.lists(st.tuples(st.just("add"), st.tuples(st.integers(-3, 3)))),
    ...            max_examples=20)
    """
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    name = state_cls.__name__
    actions = state_cls.actions()
    observe = _observer(state_cls, readers)

    def fresh() -> State:
        return state_cls(*ctor_args)

    def same(a: dict[str, Any], b: dict[str, Any]) -> bool:
        return _close(a, b, rel_tol, abs_tol)

    def run(law: str, events: Sequence[tuple[int, Act]], read_at: int = -1) -> dict[str, Any]:
        """Apply ``(sign, action)`` events to a fresh state; observe it."""
        return observe(build(law, events, read_at))

    def build(law: str, events: Sequence[tuple[int, Act]], read_at: int = -1) -> State:
        """A fresh state with the ``(sign, action)`` events applied."""
        state = fresh()
        for i, (sign, (act, args)) in enumerate(events):
            if i == read_at:
                observe(state)
            if act not in actions:
                raise TypeError(
                    f"check_laws({name}): the strategy drew {act!r}, "
                    f"which is not an action of {name} ({sorted(actions)})"
                )
            try:
                getattr(state, act).apply(sign, *args)
            except Exception as exc:
                raise LawViolation(
                    f"{name} violates {law}: {_fmt_call(act, args, sign)} raised {exc!r} "
                    f"while applying {_fmt_events(events)}"
                ) from exc
        return state

    cfg = settings(
        max_examples=max_examples,
        deadline=None,
        database=None,
        report_multiple_bugs=False,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )

    law1 = "law 1 (order independence)"

    @cfg
    @given(st.data())
    def order_independence(data: Any) -> None:
        acts = _checked(data.draw(actions_strategy, label="actions"))
        other = data.draw(st.permutations(acts), label="reordered")
        a = run(law1, [(1, x) for x in acts])
        b = run(law1, [(1, x) for x in other])
        if not same(a, b):
            raise LawViolation(
                f"{name} violates {law1}: applying [{_fmt_acts(acts)}] reads {a}, "
                f"but the same actions in the order [{_fmt_acts(other)}] read {b}"
            )

    law2 = "law 2 (undo)"

    @cfg
    @given(st.data())
    def undo(data: Any) -> None:
        base = _checked(data.draw(actions_strategy, label="kept"))
        extra = _checked(data.draw(actions_strategy, label="undone"))
        # Each undone action appears twice among the tokens: its first
        # occurrence applies it, its second undoes it — so every permutation
        # of the tokens is an interleaving with each undo after its action.
        tokens = [("k", i) for i in range(len(base))] + [("u", i) for i in range(len(extra))] * 2
        order = data.draw(st.permutations(tokens), label="order")
        read_at = data.draw(st.integers(-1, len(order)), label="read midway at")
        seen: set[int] = set()
        events: list[tuple[int, Act]] = []
        for kind, i in order:
            if kind == "k":
                events.append((1, base[i]))
            elif i in seen:
                events.append((-1, extra[i]))
            else:
                seen.add(i)
                events.append((1, extra[i]))
        a = run(law2, [(1, x) for x in base])
        b = run(law2, events, read_at)
        if not same(a, b):
            raise LawViolation(
                f"{name} violates {law2}: [{_fmt_acts(base)}] reads {a}, but "
                f"[{_fmt_events(events)}] (which applies and undoes "
                f"[{_fmt_acts(extra)}] as well) reads {b}"
                + (
                    f" (readers also called after the first {read_at} events)"
                    if 0 <= read_at < len(events)
                    else ""
                )
            )

    law3 = "law 3 (fresh state is the identity)"

    @cfg
    @given(st.data())
    def identity(data: Any) -> None:
        acts = _checked(data.draw(actions_strategy, label="actions"))
        undo_order = data.draw(st.permutations(acts), label="undo order")
        empty = run(law3, [])
        again = run(law3, [])
        if not same(empty, again):
            raise LawViolation(f"{name} violates {law3}: two fresh states read {empty} and {again}")
        events = [(1, x) for x in acts] + [(-1, x) for x in undo_order]
        b = run(law3, events)
        if not same(empty, b):
            raise LawViolation(
                f"{name} violates {law3}: a fresh state reads {empty}, but after "
                f"[{_fmt_events(events)}] it reads {b}"
            )

    merger = state_cls.merger()
    if merge and merger is None:
        raise TypeError(f"check_laws({name}, merge=True): {name} has no @merge method")
    order_independence()
    undo()
    identity()
    if merger is not None and merge is not False:
        _merge_law(name, merger.name, actions_strategy, build, observe, same, cfg)


def _merge_law(name: str, method: str, actions_strategy: Any, build: Callable[..., State],
               observe: Callable[[State], dict[str, Any]], same: Callable[[Any, Any], bool],
               cfg: Any) -> None:  # fmt: skip
    """Law 4 on states built (``build``) from drawn action lists and merged."""
    from hypothesis import given
    from hypothesis import strategies as st

    law4 = "law 4 (merge)"

    def combine(tree: Any) -> tuple[Any, str]:
        """A state for a tree of action lists (a leaf) and merges (pairs), its text."""
        if isinstance(tree, tuple):
            left, ltxt = combine(tree[0])
            right, rtxt = combine(tree[1])
            before = observe(right)
            try:
                getattr(left, method)(right)
            except Exception as exc:
                raise LawViolation(
                    f"{name} violates {law4}: merging {rtxt} into {ltxt} raised {exc!r}"
                ) from exc
            after = observe(right)
            if not same(before, after):
                raise LawViolation(
                    f"{name} violates {law4}: merging {rtxt} into {ltxt} changed the merged-in "
                    f"state from {before} to {after}"
                )
            return left, f"({ltxt} ⊕ {rtxt})"
        return build(law4, [(1, x) for x in tree]), f"[{_fmt_acts(tree)}]"

    def check(left: Any, right: Any, what: str) -> None:
        a, atxt = combine(left)
        b, btxt = combine(right)
        ra, rb = observe(a), observe(b)
        if not same(ra, rb):
            raise LawViolation(
                f"{name} violates {law4} ({what}): {atxt} reads {ra}, but {btxt} reads {rb}"
            )

    @cfg
    @given(st.data())
    def merge_law(data: Any) -> None:
        x = _checked(data.draw(actions_strategy, label="a"))
        y = _checked(data.draw(actions_strategy, label="b"))
        z = _checked(data.draw(actions_strategy, label="c"))
        check((x, y), (y, x), "commutative")
        check(((x, y), z), (x, (y, z)), "associative")
        check(([], x), x, "a fresh state is neutral")
        check((x, []), x, "a fresh state is neutral")
        check((x, y), x + y, "one state with both states' actions")
        # the merged state shares nothing with the merged-in one: acting on it later
        # leaves the merged-in state as it was
        a, b = build(law4, [(1, act) for act in x]), build(law4, [(1, act) for act in y])
        getattr(a, method)(b)
        before = observe(b)
        for act, args in z:
            getattr(a, act)(*args)
        after = observe(b)
        if not same(before, after):
            raise LawViolation(
                f"{name} violates {law4}: after merging [{_fmt_acts(y)}] into [{_fmt_acts(x)}], "
                f"applying [{_fmt_acts(z)}] to the merged state changed the merged-in one from "
                f"{before} to {after} (the merge shares a mutable field)"
            )

    merge_law()


def _checked(acts: Any) -> list[Act]:
    out = []
    for item in acts:
        if not (isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str)):
            raise TypeError(
                f"check_laws: actions_strategy must draw lists of (action_name, args_tuple), "
                f"got the item {item!r}"
            )
        act, args = item
        out.append((act, tuple(args)))
    return out


def _observer(
    state_cls: type[State], readers: Sequence[str] | Mapping[str, Callable[[Any], Any]] | None
) -> Callable[[State], dict[str, Any]]:
    if readers is None:
        names = list(state_cls.readers())
        funcs: dict[str, Callable[[Any], Any]] = {
            n: (lambda s, n=n: getattr(s, n)()) for n in names
        }
    elif isinstance(readers, Mapping):
        funcs = dict(readers)
    else:
        known = state_cls.readers()
        for n in readers:
            if n not in known:
                raise TypeError(f"check_laws: {state_cls.__name__} has no reader {n!r}")
        funcs = {n: (lambda s, n=n: getattr(s, n)()) for n in readers}

    def observe(state: State) -> dict[str, Any]:
        out = {}
        for label, fn in funcs.items():
            try:
                out[label] = fn(state)
            except Exception as exc:
                out[label] = _Raised(exc)
        return out

    return observe


def _close(a: Any, b: Any, rel_tol: float, abs_tol: float) -> bool:
    """Structural equality with float tolerance (ints and floats compare by value)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b and type(a) is type(b)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if isinstance(a, int) and isinstance(b, int):
            return a == b
        fa, fb = float(a), float(b)
        if math.isnan(fa) or math.isnan(fb):
            return math.isnan(fa) and math.isnan(fb)
        return math.isclose(fa, fb, rel_tol=rel_tol, abs_tol=abs_tol)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k], rel_tol, abs_tol) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return (
            type(a) is type(b)
            and len(a) == len(b)
            and all(_close(x, y, rel_tol, abs_tol) for x, y in zip(a, b, strict=True))
        )
    return bool(a == b)


def _fmt_call(act: str, args: tuple[Any, ...], sign: int = 1) -> str:
    call = f"{act}({', '.join(map(repr, args))})"
    return call if sign > 0 else f"{act}.undo({', '.join(map(repr, args))})"


def _fmt_acts(acts: Sequence[Act]) -> str:
    return ", ".join(_fmt_call(a, args) for a, args in acts)


def _fmt_events(events: Sequence[tuple[int, Act]]) -> str:
    return ", ".join(_fmt_call(a, args, sign) for sign, (a, args) in events)
