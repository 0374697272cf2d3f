"""What a primitive is: its type rule, CPython reference, partiality and native lowering.

A :class:`Primitive` is one entry of the table. Its partiality is data, in the condition
language of :mod:`.partiality`; its lowering is a sqlglot tree over the call's operands
(:mod:`.sqltree`), the partiality's checks in front of the native expression. An operand
that is not a column or literal is repeated as few times as the checks allow, and not in
the message.

>>> from looplift.compiler.primitives import PRIMITIVES
>>> PRIMITIVES["math.sqrt"].lower(["x"], ["float"])
"CASE WHEN x < 0 THEN raise_error(concat('ValueError: math domain error (math.sqrt(', CAST(x AS STRING), '))')) ELSE sqrt(x) END"
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlglot import exp

from ..errtext import raise_tree
from .partiality import Env, IsNan, Raises, on_none
from .sqltree import Operands

__all__ = ["NOT_LIT", "Primitive", "Site", "TypeRefused"]


class TypeRefused(Exception):
    """A type rule refuses its argument types (the backend reports the message)."""


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
