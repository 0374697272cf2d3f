"""The partiality of a primitive, as data: where CPython raises, and which class.

A :class:`Raises` clause is a condition over the arguments (and, where CPython decides on
the result, the native result) in a small language of terms (:class:`Arg`,
:class:`Result`, :class:`Num`, :class:`Abs`) and conditions (:class:`Cmp`,
:class:`IsNan`, :class:`All`, :class:`Pred` ...). The same condition is

- evaluated in Python (:meth:`Cond.holds`), so the table can be checked against
  CPython on edge values, and read by the edge-test generator (:meth:`Cond.constants`
  gives the thresholds to probe, with their neighbours);
- rendered as a sqlglot tree (:meth:`Cond.tree`), which the lowering turns into the
  native check in front of the native expression (:meth:`.base.Primitive.lower`).

Conditions use Python's float semantics (every comparison with NaN is false); the
rendering adds the ``isnan`` tests that Spark needs, where NaN sorts above every number
and equals itself.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from .sqltree import INF, call, num

if TYPE_CHECKING:
    from .sqltree import Operands

__all__ = [
    "Abs", "All", "Any_", "Arg", "Cmp", "Cond", "Env", "IsInf", "IsNan", "NonInteger", "Not",
    "Num", "Pred", "Raises", "Result", "Term", "exception_class", "handler_code", "on_none",
]  # fmt: skip

# -- terms -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Arg:
    """The ``i``-th argument, as a float (CPython's math functions convert ints first)."""

    i: int

    def value(self, env: Env) -> float:
        return float(env.args[self.i])

    def tree(self, ops: Operands) -> exp.Expression:
        return ops.d(self.i)


@dataclass(frozen=True, slots=True)
class Result:
    """The native function's result (IEEE semantics, no checks): CPython decides some
    errors on the C library's result (``pow``'s overflow, ``hypot``'s)."""

    def value(self, env: Env) -> float:
        return env.result()

    def tree(self, ops: Operands) -> exp.Expression:
        return ops.raw_result()


@dataclass(frozen=True, slots=True)
class Num:
    v: float

    def value(self, env: Env) -> float:
        return self.v

    def tree(self, ops: Operands) -> exp.Expression:
        return num(self.v)


@dataclass(frozen=True, slots=True)
class Abs:
    term: Term

    def value(self, env: Env) -> float:
        return abs(self.term.value(env))

    def tree(self, ops: Operands) -> exp.Expression:
        return call("abs", self.term.tree(ops))


Term = Arg | Result | Num | Abs

# -- conditions ------------------------------------------------------------------------


class Cond:
    def holds(self, env: Env) -> bool:
        raise NotImplementedError

    def tree(self, ops: Operands) -> exp.Expression:
        raise NotImplementedError

    def terms(self) -> tuple[Term, ...]:
        return ()

    def constants(self) -> set[float]:
        """The numbers the condition compares with (the edge values to probe)."""
        return {t.v for t in self.terms() if isinstance(t, Num)}

    def check(self, ops: Operands) -> exp.Expression:
        """The native test of the condition on its own (a ``try``'s test: does the call
        raise here?); NotImplementedError where the native expression checks it by itself."""
        return self.tree(ops)

    def args(self) -> set[int]:
        out: set[int] = set()
        stack = list(self.terms())
        while stack:
            t = stack.pop()
            if isinstance(t, Arg):
                out.add(t.i)
            elif isinstance(t, Abs):
                stack.append(t.term)
        return out


_CMP = {"<": exp.LT, "<=": exp.LTE, ">": exp.GT, ">=": exp.GTE, "==": exp.EQ}
_PY_CMP: dict[str, Callable[[float, float], bool]] = {
    "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b, "==": lambda a, b: a == b,
}  # fmt: skip


@dataclass(frozen=True, slots=True)
class Cmp(Cond):
    """``left op right`` on floats, false when either side is NaN (as in Python)."""

    op: str
    left: Term
    right: Term

    def holds(self, env: Env) -> bool:
        return _PY_CMP[self.op](self.left.value(env), self.right.value(env))

    def tree(self, ops: Operands) -> exp.Expression:
        left, right = self.left.tree(ops), self.right.tree(ops)
        out: exp.Expression = _CMP[self.op](this=left, expression=right)
        # Spark: NaN is above every number and equal to itself; the side that makes the
        # comparison true when it is NaN gets a test (``a < NaN``, ``NaN > b``, ``NaN = NaN``)
        sides = {"<": [self.right], "<=": [self.right], ">": [self.left], ">=": [self.left],
                 "==": [self.left, self.right]}[self.op]  # fmt: skip
        if self.op == "==" and any(isinstance(t, Num) for t in sides):
            sides = []
        for t in sides:
            inner = t.term if isinstance(t, Abs) else t  # abs(x) is NaN when x is
            if not isinstance(t, Num) and inner not in ops.nan_free:
                out = exp.and_(out, exp.not_(call("isnan", inner.tree(ops))))
        return out

    def terms(self) -> tuple[Term, ...]:
        return (self.left, self.right)


@dataclass(frozen=True, slots=True)
class IsNan(Cond):
    term: Term

    def holds(self, env: Env) -> bool:
        return math.isnan(self.term.value(env))

    def tree(self, ops: Operands) -> exp.Expression:
        return call("isnan", self.term.tree(ops))

    def terms(self) -> tuple[Term, ...]:
        return (self.term,)


@dataclass(frozen=True, slots=True)
class IsInf(Cond):
    term: Term

    def holds(self, env: Env) -> bool:
        return math.isinf(self.term.value(env))

    def tree(self, ops: Operands) -> exp.Expression:
        return exp.EQ(this=call("abs", self.term.tree(ops)), expression=INF.copy())

    def terms(self) -> tuple[Term, ...]:
        return (self.term,)


@dataclass(frozen=True, slots=True)
class NonInteger(Cond):
    """A finite number with a fractional part (``rint`` keeps NaN and the infinities,
    and ``NaN != NaN`` is false in Spark)."""

    term: Term

    def holds(self, env: Env) -> bool:
        v = self.term.value(env)
        return math.isfinite(v) and v != math.floor(v)

    def tree(self, ops: Operands) -> exp.Expression:
        t = self.term.tree(ops)
        return exp.NEQ(this=t, expression=call("rint", t.copy()))

    def terms(self) -> tuple[Term, ...]:
        return (self.term,)


@dataclass(frozen=True, slots=True)
class Not(Cond):
    cond: Cond

    def holds(self, env: Env) -> bool:
        return not self.cond.holds(env)

    def tree(self, ops: Operands) -> exp.Expression:
        if isinstance(self.cond, IsInf):
            return exp.NEQ(this=call("abs", self.cond.term.tree(ops)), expression=INF.copy())
        return exp.not_(self.cond.tree(ops))

    def terms(self) -> tuple[Term, ...]:
        return self.cond.terms()


@dataclass(frozen=True, slots=True)
class All(Cond):
    conds: tuple[Cond, ...]

    def __init__(self, *conds: Cond) -> None:
        object.__setattr__(self, "conds", conds)

    def holds(self, env: Env) -> bool:
        return all(c.holds(env) for c in self.conds)

    def tree(self, ops: Operands) -> exp.Expression:
        # ``t < c`` is false for a NaN ``t`` in Spark too: its siblings need no NaN test
        bounded = {
            c.left
            for c in self.conds
            if isinstance(c, Cmp) and c.op in ("<", "<=") and isinstance(c.right, Num)
        }
        with ops.without_nan(bounded):
            return exp.and_(*(c.tree(ops) for c in self.conds))

    def terms(self) -> tuple[Term, ...]:
        return tuple(t for c in self.conds for t in c.terms())


@dataclass(frozen=True, slots=True)
class Any_(Cond):
    conds: tuple[Cond, ...]

    def __init__(self, *conds: Cond) -> None:
        object.__setattr__(self, "conds", conds)

    def holds(self, env: Env) -> bool:
        return any(c.holds(env) for c in self.conds)

    def tree(self, ops: Operands) -> exp.Expression:
        return exp.or_(*(exp.paren(c.tree(ops)) for c in self.conds))

    def terms(self) -> tuple[Term, ...]:
        return tuple(t for c in self.conds for t in c.terms())


@dataclass(frozen=True, slots=True)
class Pred(Cond):
    """A condition that is not a comparison of floats (a day beyond the month's last, an
    empty container, an index out of range, a substring not found): a Python predicate
    over the arguments, and its text for readers. The native check is the entry's SQL
    rule's; the edge tests hold the two to the same inputs."""

    test: Callable[..., bool]
    text: str
    #: the native test on its own, where a ``try`` needs it (the SQL rule's check is
    #: inside its lowering): a sqlglot tree from the operands
    native: Callable[[Operands], exp.Expression] | None = field(default=None, kw_only=True)

    def holds(self, env: Env) -> bool:
        return bool(self.test(*env.args))

    def tree(self, ops: Operands) -> exp.Expression:
        raise NotImplementedError(f"{self.text}: checked by the entry's SQL rule")

    def check(self, ops: Operands) -> exp.Expression:
        if self.native is None:
            raise NotImplementedError(f"{self.text}: no native test of its own")
        return self.native(ops)


def on_none(c: Cond) -> bool:
    """A clause on a None argument (``IsNone``, or a Pred that says so)."""
    return type(c).__name__ == "IsNone" or (isinstance(c, Pred) and "None" in c.text)


def exception_class(name: str) -> type[BaseException]:
    """The class a clause names (a builtin, or ``statistics.StatisticsError``)."""
    import builtins
    import statistics

    got = getattr(builtins, name, None) or getattr(statistics, name, None)
    assert isinstance(got, type) and issubclass(got, BaseException), name
    return got


def handler_code(handlers: Sequence[Sequence[str]]) -> Callable[[str], int]:
    """``cls`` -> 1 + the index of the first handler whose classes catch it (subclasses
    included, as ``except`` matches), -1 where none does."""

    def code(cls: str) -> int:
        raised = exception_class(cls)
        for k, names in enumerate(handlers):
            if any(issubclass(raised, exception_class(n)) for n in names):
                return k + 1
        return -1

    return code


# -- partiality --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Raises:
    """Where CPython raises ``cls`` (``message``), in the order CPython checks.

    ``on``: the argument type the clause applies to (``"float"``: unless every argument
    is known to be an int; ``math.floor`` of an int never raises). ``beyond64``: the clause also
    covers ints beyond 64 bits, which CPython returns and the plan must not (SPEC §4:
    it raises OverflowError)."""

    cls: str
    message: str
    when: Cond
    on: str = "any"
    beyond64: bool = False
    #: of a ``beyond64`` clause, the part where CPython raises too (``int(inf)``): a
    #: ``try``'s handler catches the class there
    cpython: Cond | None = None
    #: False where CPython returns a value the plan has no type for (``(-2.0) ** 0.5``
    #: is complex): the plan's error, which no handler catches
    python: bool = True

    def applies(self, ts: Sequence[Any]) -> bool:
        if any(i >= len(ts) for i in self.when.args()):
            return False
        if self.on == "float":  # unless every argument is known to be an int
            return any(t not in ("int", "bool") for t in ts)
        return True


@dataclass(frozen=True)
class Env:
    """Arguments of a Python evaluation of a condition (``model``: the native function)."""

    args: tuple[Any, ...]
    model: Callable[..., float] | None = None

    def result(self) -> float:
        assert self.model is not None, "a condition on the result needs the entry's model"
        return float(self.model(*(float(a) for a in self.args)))
