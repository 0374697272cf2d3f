"""Bitwise operators: ``& | ^ << >>`` and ``~``, on bools and ints.

Types: ``&``, ``|`` and ``^`` of two bools are a bool (``True | False`` is ``True``), of
an int and a bool or two ints an int; shifts and ``~`` of ints and bools are ints
(``~True`` is ``-2``). A float operand is CPython's TypeError (``unsupported operand
type(s) for |: 'float' and 'int'``): the type rule refuses it, at compile time.

Where CPython raises (``Objects/longobject.c``), in its order:

- a None operand: TypeError (checked by the renderer);
- ``x << n`` and ``x >> n`` with ``n < 0``: ValueError ``negative shift count``;
- ``x << n`` beyond 64 bits: OverflowError (SPEC §4; CPython's int grows, or runs out of
  memory for a huge ``n``). ``0 << n`` is 0 for any ``n >= 0``.

``& | ^ ~`` of 64-bit ints stay within 64 bits: Python's two's complement is infinite,
Java's is 64 bits wide, and they agree on every value both hold.

Native lowering notes (Spark 4.3): Spark has no bitwise operators on booleans (``AND``,
``OR`` and ``<>`` of two bools; a bool meeting an int is cast to a bigint); Java masks a
shift count to its low six bits (``shiftleft(x, 64)`` is ``x``), so a count is clamped
to 63 first (``x >> 63`` is already 0 or -1), and a left shift's overflow is tested by
shifting back.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

from sqlglot import exp

from .arith import number
from .base import TypeRefused
from .operator import INT64_MAX, INT64_MIN, NumPred, Operator, none
from .partiality import Raises
from .sqltree import Operands, call

__all__ = ["BITWISE"]

_SYMBOL = {"bitand": "&", "bitor": "|", "bitxor": "^", "lshift": "<<", "rshift": ">>", "invert": "~"}


def _refuse_others(name: str, ts: Sequence[Any]) -> None:
    """CPython's TypeError for an operand of a known type other than int and bool (one of
    unknown type, ``any``, is the caller's to check)."""
    bad = next((t for t in ts if t not in ("int", "bool", "any", "none")), None)
    if bad is None:
        return
    names = " and ".join(f"'{t}'" for t in ts)
    if len(ts) == 1:
        raise TypeRefused(f"bad operand type for unary ~: '{bad}' (CPython raises TypeError)")
    raise TypeRefused(f"unsupported operand type(s) for {_SYMBOL[name]}: {names} (CPython raises "
                      "TypeError); bitwise operators take ints and bools")  # fmt: skip


def _logic_type(name: str) -> Any:
    def rule(ts: Sequence[Any], lits: Sequence[Any]) -> Any:
        _refuse_others(name, ts)
        if "any" in ts:
            return "any"
        return "bool" if all(t == "bool" for t in ts) else "int"

    return rule


def _int_type(name: str) -> Any:
    def rule(ts: Sequence[Any], lits: Sequence[Any]) -> Any:
        _refuse_others(name, ts)
        return "any" if "any" in ts else "int"

    return rule


def _logic(name: str, node: type[exp.Expression]) -> Any:
    def lower(o: Operands) -> exp.Expression:
        if all(t == "bool" for t in o.ts):
            a, b = o.raw(0), o.raw(1)
            if name == "bitand":
                return exp.And(this=a, expression=b)
            if name == "bitor":
                return exp.Or(this=a, expression=b)
            return exp.NEQ(this=a, expression=b)
        return node(this=number(o, 0), expression=number(o, 1))

    return lower


def _count(o: Operands) -> exp.Expression:
    """The shift count as Java takes it: clamped to 63 (never masked), as an int."""
    return exp.cast(call("least", number(o, 1), exp.Literal.number("63L")), "int")


def _lshift(o: Operands) -> exp.Expression:
    return call("shiftleft", number(o, 0), _count(o))


def _rshift(o: Operands) -> exp.Expression:
    return call("shiftright", number(o, 0), _count(o))


def _invert(o: Operands) -> exp.Expression:
    return exp.BitwiseNot(this=number(o, 0))


def _safe_lshift(x: Any, n: Any) -> Any:
    """CPython's ``x << n``, without building an int that 64 bits cannot hold (the
    partiality tests call it on ``n`` up to 2**63)."""
    if n >= 0 and x != 0 and n > 64:
        return (1 if x > 0 else -1) << 65
    return operator.lshift(x, n)


def _negative_count(o: Operands) -> exp.Expression:
    return exp.LT(this=number(o, 1), expression=exp.Literal.number("0L"))


def _left_overflow(o: Operands) -> exp.Expression:
    """``x << n`` leaves 64 bits: ``n >= 64`` and ``x`` not 0, or shifting back differs."""
    x, n = number(o, 0), number(o, 1)
    wide = exp.and_(exp.GTE(this=n, expression=exp.Literal.number("64L")),
                    exp.NEQ(this=x, expression=exp.Literal.number("0L")))  # fmt: skip
    back = call("shiftright", _lshift(o), _count(o))
    return exp.or_(wide, exp.NEQ(this=back, expression=x))


_NEGATIVE = Raises("ValueError", "negative shift count",
                   NumPred(lambda x, n: n < 0, "a negative shift count", sql=_negative_count))  # fmt: skip


def _beyond(x: Any, n: Any) -> bool:
    v = _safe_lshift(x, n)
    return not INT64_MIN <= v <= INT64_MAX


_OVERFLOW = Raises("OverflowError", "integer result beyond 64 bits",
                   NumPred(_beyond, "the shifted value leaves 64 bits", sql=_left_overflow),
                   beyond64=True)  # fmt: skip


def _op(name: str, ref: Any, native: Any, rule: Any, spelling: str, partiality: tuple = (),
        arity: tuple[int, int] = (2, 2), edges: tuple = ()) -> Operator:  # fmt: skip
    what = f"`{_SYMBOL[name]}`" if arity == (2, 2) else "unary `~`"
    return Operator(
        name=name, arity=arity, params="real", result="any", reference=ref,
        partiality=(*none(arity[1], what), *partiality), native=native, exact=True,
        edges=edges, rule=rule, spelling=spelling, covers="bool, int",
    )  # fmt: skip


BITWISE: tuple[Operator, ...] = (
    _op("bitand", operator.and_, _logic("bitand", exp.BitwiseAnd), _logic_type("bitand"),
        "{0} & {1}", edges=((True, False), (True, True), (-1, INT64_MIN), (INT64_MAX, -2), (True, 3))),
    _op("bitor", operator.or_, _logic("bitor", exp.BitwiseOr), _logic_type("bitor"),
        "{0} | {1}", edges=((False, False), (True, False), (INT64_MIN, INT64_MAX), (-8, 5), (False, 4))),
    _op("bitxor", operator.xor, _logic("bitxor", exp.BitwiseXor), _logic_type("bitxor"),
        "{0} ^ {1}", edges=((True, True), (True, False), (-1, INT64_MAX), (INT64_MIN, -1), (True, 1))),
    _op("lshift", _safe_lshift, _lshift, _int_type("lshift"), "{0} << {1}", (_NEGATIVE, _OVERFLOW),
        edges=((1, 62), (1, 63), (-1, 63), (-1, 64), (0, 64), (0, INT64_MAX), (3, 61), (-3, 61),
               (INT64_MIN, 0), (INT64_MIN, 1), (1, -1), (0, -1), (True, 3), (5, 70), (2**31, 32))),
    _op("rshift", operator.rshift, _rshift, _int_type("rshift"), "{0} >> {1}", (_NEGATIVE,),
        edges=((-1, 64), (-5, 200), (5, 200), (INT64_MIN, 63), (INT64_MIN, 64), (INT64_MAX, 62),
               (7, -1), (True, 0), (-7, 1), (INT64_MIN, INT64_MAX))),
    _op("invert", operator.invert, _invert, _int_type("invert"), "~{0}", arity=(1, 1),
        edges=((True,), (False,), (INT64_MIN,), (INT64_MAX,), (-1,), (0,))),
)  # fmt: skip
