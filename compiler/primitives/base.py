"""What a primitive is: its type rule, CPython reference, partiality and native lowering.

The partiality of a primitive is data: a tuple of :class:`Raises` clauses, each a
condition over the arguments (and, where CPython decides on the result, the native
result) in a small language of terms and conditions. The same condition is

- evaluated in Python (:meth:`Cond.holds`), so the table can be checked against
  CPython on edge values, and read by the edge-test generator (:meth:`Cond.constants`
  gives the thresholds to probe, with their neighbours);
- rendered as a sqlglot tree (:meth:`Cond.tree`), which the lowering turns into the
  native check in front of the native expression (:meth:`Primitive.lower`).

Conditions use Python's float semantics (every comparison with NaN is false); the
rendering adds the ``isnan`` tests that Spark needs, where NaN sorts above every number
and equals itself.

Lowerings are sqlglot expression trees rendered with ``.sql(dialect="spark")`` (chosen
over text templates: the checks compose — NaN tests, AND/OR of clauses, nested CASEs —
and the tree keeps the parentheses right). Functions are built as ``exp.Anonymous``
calls so that the Spark function named is the one written (sqlglot would turn ``log2``
into ``LOG(2, x)``). The operands arrive as SQL text from the expression renderer and
enter the tree as opaque ``exp.Var`` leaves (parenthesized when they are not atomic), so
the tree is never re-parsed from text and never edited as text. An operand that is not a
column or literal is repeated as few times as the checks allow, and not in the message.

>>> from looplift.compiler.primitives import PRIMITIVES
>>> PRIMITIVES["math.sqrt"].lower(["x"], ["float"])
"CASE WHEN x < 0 THEN raise_error(concat('ValueError: math domain error (math.sqrt(', CAST(x AS STRING), '))')) ELSE sqrt(x) END"
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from sqlglot import exp

from ..errtext import raise_tree

__all__ = [
    "Abs", "All", "Any_", "Arg", "Cmp", "Cond", "IsInf", "IsNan", "NonInteger", "Not", "Num",
    "NOT_LIT", "Operands", "Pred", "Site", "Primitive", "Raises", "Result", "TypeRefused", "call",
    "num", "INF", "exception_class", "handler_code", "on_none",
]  # fmt: skip

INF = exp.cast(exp.Literal.string("Infinity"), "double")

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


class TypeRefused(Exception):
    """A type rule refuses its argument types (the backend reports the message)."""


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


# -- the native side -------------------------------------------------------------------


def call(name: str, *args: exp.Expression) -> exp.Expression:
    """``name(args)``, spelled as Spark spells it (sqlglot would turn ``log2`` into
    ``LOG(2, x)``, which is not the same function)."""
    return exp.Anonymous(this=name, expressions=list(args))


def num(v: float) -> exp.Expression:
    """A number literal: small integers as they are, other floats as Spark doubles."""
    if math.isinf(v):
        return INF.copy() if v > 0 else exp.Neg(this=INF.copy())
    if v == int(v) and abs(v) < 2**31 and not (v == 0 and math.copysign(1.0, v) < 0):
        return exp.Literal.number(int(v))
    return exp.Literal.number(repr(float(v)) + "D")


_CHEAP = re.compile(r"[\w.`]+|-?[0-9][0-9.eE+-]*[DL]?")


def _atomic(sql: str) -> bool:
    """An identifier, literal or call, or text in one pair of parentheses."""
    if sql.replace("`", "").replace(".", "").replace("_", "").isalnum():
        return True
    depth = 0
    for i, ch in enumerate(sql):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and ch == ")" and i != len(sql) - 1:
            return False
        if depth == 0 and ch != ")" and not (ch.isalnum() or ch in "_`."):
            return False
    return sql.endswith(")")


@dataclass
class Operands:
    """The arguments of one call: their SQL, types, and the native expression."""

    sql: Sequence[str]
    ts: Sequence[Any]
    lowering: Callable[[Operands], exp.Expression] | None = None
    raw_lowering: Callable[[Operands], exp.Expression] | None = None
    _native: exp.Expression | None = field(default=None, repr=False)
    nan_free: set[Any] = field(default_factory=set)  # terms known not to be NaN here

    @contextmanager
    def without_nan(self, terms: set[Any]) -> Iterator[None]:
        added = terms - self.nan_free
        self.nan_free |= added
        try:
            yield
        finally:
            self.nan_free -= added

    @property
    def atomic(self) -> bool:
        """Every operand a column or a literal (cheap to repeat in a message)."""
        return all(_CHEAP.fullmatch(x) for x in self.sql)

    def raw(self, i: int) -> exp.Expression:
        text = self.sql[i]
        return exp.var(text) if _atomic(text) else exp.paren(exp.var(text))

    def d(self, i: int) -> exp.Expression:
        """The argument as a double (ints and bools cast)."""
        if self.ts[i] == "float":
            return self.raw(i)
        if self.ts[i] == "bool":
            return exp.cast(exp.cast(self.raw(i), "bigint"), "double")
        return exp.cast(self.raw(i), "double")

    def native(self) -> exp.Expression:
        assert self.lowering is not None
        if self._native is None:
            self._native = self.lowering(self)
        return self._native.copy()

    def raw_result(self) -> exp.Expression:
        """The native function without the lowering's fixes (what a :class:`Result`
        condition reads)."""
        return self.raw_lowering(self) if self.raw_lowering is not None else self.native()


# -- a call site (the native decision of the string primitives) -------------------------

NOT_LIT: Any = type("NotLit", (), {"__repr__": lambda self: "NOT_LIT"})()
"""The literal value of an argument that is not a literal."""


@dataclass(frozen=True)
class Site:
    """A call site, as the native decision sees it: the literal value of each argument
    (:data:`NOT_LIT` where it is not a literal), their types and whether each may be None
    (None: unknown to the caller, which then assumes the usual types)."""

    lits: Sequence[Any]
    ts: Sequence[Any] | None = None
    nulls: Sequence[bool] | None = None

    @property
    def n(self) -> int:
        return len(self.lits)

    def lit(self, i: int) -> Any:
        return self.lits[i] if i < len(self.lits) else None

    def t(self, i: int, usual: Any) -> Any:
        return usual if self.ts is None else self.ts[i]

    def null(self, i: int) -> bool:
        return bool(self.nulls and self.nulls[i])


# -- an entry ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Primitive:
    """One primitive of the language.

    Attributes:
        name: the IR's name (``math.sqrt``).
        arity: (fewest, most) arguments.
        params: the argument kind (``"real"``: int, float or bool).
        result: the result type in the backend's vocabulary (``float``, ``int``, ``bool``).
        reference: the CPython callable (what the plan must agree with).
        partiality: where CPython raises, in the order it checks (see :class:`Raises`).
        native: the lowering without checks (a sqlglot tree from the operands), or None.
        exact: the checked lowering agrees with ``reference`` everywhere (values to the
            harness' float tolerance, every raise with its class); else the backend
            calls ``reference`` as a vectorized Python function.
        model: the C library function CPython calls, in IEEE semantics (no raising), for
            conditions on the :class:`Result`.
        raw: that function in Spark, when ``native`` adds fixes to it (default: ``native``).
        edges: argument tuples worth testing beyond the generic edge values.
        notes: why the lowering looks as it does.
        type_rule: the result type as a function of the argument types (default: the
            constant ``result``); it raises :class:`TypeRefused` for types it refuses.
        null_rule: may the result be None, from the argument types and whether each
            argument may be None (default: when an argument may be).
        lowering: ``"tree"``: ``native`` builds the lowering; ``"rule"``: a renderer of
            the backend registers it (``backend/rules.py``), checked by the tests.
        domain: the family of the entry (``math``, ``datetime``, ``container``), which
            the edge-test generators enumerate.
        type_at: (type, nullable) from the argument types and literal values, where the
            result type depends on the literals too (the string primitives: ``re.match``'s
            groups); it wins over ``type_rule``.
        native_when: where the lowering is rendered by a backend rule (the string
            primitives), whether it is exact at a call site (a :class:`Site`);
            ``exact`` then says the entry has a native lowering at all.
        none_raises: the class CPython raises on a None argument where no clause of
            the partiality says otherwise (``""``: None is an ordinary argument).
    """

    name: str
    arity: tuple[int, int]
    params: str
    result: str
    reference: Callable[..., Any]
    partiality: tuple[Raises, ...]
    native: Callable[[Operands], exp.Expression] | None
    exact: bool
    model: Callable[..., float] | None = None
    raw: Callable[[Operands], exp.Expression] | None = None
    edges: tuple[tuple[Any, ...], ...] = ()
    notes: str = ""
    type_rule: Callable[[Sequence[Any]], Any] | None = None
    null_rule: Callable[[Sequence[Any], Sequence[bool]], bool] | None = None
    lowering: str = "tree"
    domain: str = "math"
    type_at: Callable[[Sequence[Any], Sequence[Any]], tuple[Any, bool] | None] | None = None
    native_when: Callable[[Any], bool] | None = None
    none_raises: str = "TypeError"

    @property
    def total(self) -> bool:
        """Never raises on non-None arguments (the IR may move it across control flow)."""
        return not self.partiality

    def result_type(self, ts: Sequence[Any], lits: Sequence[Any] | None = None) -> Any:
        if self.type_at is not None:
            got = self.type_at(ts, lits if lits is not None else [None] * len(ts))
            return got[0] if got is not None else "any"
        return self.type_rule(ts) if self.type_rule is not None else self.result

    def result_nullable(self, ts: Sequence[Any], nulls: Sequence[bool]) -> bool:
        """May the result be None (the arguments' types, and whether each may be None)?"""
        return self.null_rule(ts, nulls) if self.null_rule is not None else any(nulls)

    def lowers_natively(
        self,
        ts: Sequence[Any] | None,
        lits: Sequence[Any] | None = None,
        nulls: Sequence[bool] | None = None,
    ) -> bool:
        """Is the native lowering exact here? (``lits``: each argument's literal value, or
        :data:`NOT_LIT`; ``ts`` None: the types are not known to the caller.)"""
        if self.native_when is not None:
            n = len(lits) if lits is not None else len(ts or ())
            return self.exact and self.native_when(Site(lits or [None] * n, ts, nulls))
        return self.exact and (self.native is not None or self.lowering == "rule")

    def raises(self, args: Sequence[Any]) -> Raises | None:
        """The clause under which CPython raises on ``args`` (None: it returns)."""
        ts = ["float" if isinstance(a, float) else "int" for a in args]
        env = Env(tuple(args), self.model)
        for r in self.partiality:
            if r.applies(ts) and r.when.holds(env):
                return r
        return None

    def tree(self, sql: Sequence[str], ts: Sequence[Any]) -> exp.Expression:
        """The checked lowering: ``CASE WHEN <clause> THEN raise_error(...) ... ELSE
        <native> END`` (the native expression alone for a total primitive)."""
        ops = Operands(sql, ts, self.native, self.raw)
        whens = []
        for r in self.partiality:
            if r.applies(ts):
                whens.append((r.when.tree(ops), self._raise(r, ops)))
                if isinstance(r.when, IsNan):  # later WHENs see no NaN there
                    ops.nan_free.add(r.when.term)
        if not whens:
            return ops.native()
        case = exp.Case()
        for cond, then in whens:
            case = case.when(cond, then)
        return case.else_(ops.native())

    def operands(self, sql: Sequence[str], ts: Sequence[Any], lits: Sequence[Any] = (),
                 nullable: Sequence[bool] = ()) -> Operands:  # fmt: skip
        ops = Operands(sql, ts, self.native, self.raw)
        ops.lits = list(lits) or [NOT_LIT] * len(ts)  # type: ignore[attr-defined]
        ops.nullable = list(nullable) or [True] * len(ts)  # type: ignore[attr-defined]
        return ops

    def raise_test(self, sql: Sequence[str], ts: Sequence[Any], code: Callable[[str], int],
                   lits: Sequence[Any] = (), nullable: Sequence[bool] = ()) -> exp.Expression:  # fmt: skip
        """A ``try``'s test of one call: ``code(cls)`` of the first clause that holds, in
        CPython's order (0 where none does), as a native ``CASE``. A None argument of an
        entry that has no clause on None raises TypeError (the renderers check it so).
        A clause on ints beyond 64 bits is -1 (CPython returns there: the plan's
        OverflowError is no handler's), or left out where Spark checks it. Raises
        NotImplementedError where a clause has no native test of its own."""
        ops = self.operands(sql, ts, lits, nullable)
        clauses = [r for r in self.partiality if r.applies(ts)]
        case = exp.Case()
        nulls = [i for i, n in enumerate(nullable) if n]
        if nulls and self.none_raises and not any(on_none(r.when) for r in clauses):
            test = exp.or_(*(exp.Is(this=ops.raw(i), expression=exp.Null()) for i in nulls))
            case = case.when(test, exp.Literal.number(code(self.none_raises)))
        for r in clauses:
            if type(r.when).__name__ == "IsNone" and not ops.nullable[r.when.i]:  # type: ignore[attr-defined]
                continue
            try:
                test = r.when.check(ops)
            except NotImplementedError:
                if r.beyond64:  # the native expression raises there by itself
                    continue
                raise
            if test == exp.false():
                continue
            if r.beyond64 and r.cpython is not None:
                case = case.when(r.cpython.check(ops), exp.Literal.number(code(r.cls)))
            # beyond 64 bits: no handler catches the plan's OverflowError (the body raises)
            theirs = r.beyond64 or not r.python
            case = case.when(test, exp.Literal.number(-1 if theirs else code(r.cls)))
            if isinstance(r.when, IsNan):
                ops.nan_free.add(r.when.term)
        if not case.args.get("ifs"):
            return exp.Literal.number(0)
        return case.else_(exp.Literal.number(0))

    def lower(self, sql: Sequence[str], ts: Sequence[Any]) -> str:
        """:meth:`tree` as Spark SQL, parenthesized unless it is one term (a CASE, a
        call), so that it can stand anywhere in the renderer's text."""
        tree = self.tree(sql, ts)
        if not isinstance(tree, (exp.Case, exp.Anonymous, exp.Cast, exp.Var, exp.Paren)):
            tree = exp.paren(tree)
        return tree.sql(dialect="spark", normalize_functions="lower")

    def _raise(self, r: Raises, ops: Operands) -> exp.Expression:
        """``raise_error('ValueError: math domain error (math.sqrt(<x>) at f.py:3 in g)')``:
        the class, CPython's message and the call with the offending value (when the
        operands are columns or literals: other operand text is not repeated), placed by
        :mod:`~looplift.compiler.errtext`."""
        # the call as Python spells it (an operator's spelling: ``{0} // {1}``)
        holes = ", ".join("{" + str(i) + "}" for i in range(len(ops.sql)))
        spelling = getattr(self, "spelling", "") or f"{self.name}({holes})"
        if not ops.atomic:
            return raise_tree(r.cls, r.message, detail=[re.sub(r"\{\d\}", "...", spelling)])
        detail: list[str | exp.Expression] = []
        for k, piece in enumerate(re.split(r"\{(\d)\}", spelling)):
            if k % 2 == 0:
                detail.append(piece)
            elif int(piece) < len(ops.sql):
                detail.append(exp.cast(ops.raw(int(piece)), "string"))
        return raise_tree(r.cls, r.message, detail=[p for p in detail if p != ""])
