"""A ``try``'s test as Spark SQL: which handler catches what one call raises.

``raise_code(spec, *args)`` (built by ``frontend/tries.py``; ``spec`` is ``"op|H1|H2"``,
each handler its class names joined by commas) is 0 where ``op(*args)`` returns, ``k``
where CPython raises a class the ``k``-th handler catches first, -1 where it raises a
class no handler catches (then the ``try`` body runs and raises it natively). The test is
the table of primitives' partiality (``Primitive.raise_test``: the clauses in CPython's
order, each its native test): nothing here knows what a primitive raises.
"""

from __future__ import annotations

from typing import Any

from sqlglot import exp

from ..ir.nodes import Expr, Lit
from ..ir.prims import PRIMS
from ..primitives import PRIMITIVES, Primitive
from ..primitives.containers import TABLE_ITEM
from ..primitives.partiality import handler_code
from ..primitives.strmethods import element_type
from .arithsql import literals
from .errors import BackendError
from .rules import Emitter

__all__ = ["parse_spec", "raise_code_sql", "try_entry"]

HINT = ("call only primitives whose errors looplift can test (conversions, arithmetic, "
        "math, slicing, indexing, datetime constructors), or test the input with an `if`")  # fmt: skip


def parse_spec(spec: str) -> tuple[str, list[list[str]]]:
    """``"op|H1|H2"`` (``"!op|..."``: some clause holds here, see :func:`raise_code_sql`)."""
    op, *handlers = spec.split("|")
    return op.removeprefix("!"), [h.split(",") for h in handlers]


def try_entry(op: str, ts: list[Any], args: tuple[Expr, ...]) -> Primitive | None:
    """The table's entry for IR operator ``op`` on these argument types (None: the
    operator never raises on them)."""
    if op in ("int", "float") and ts[0] == "str":
        return PRIMITIVES[f"{op}(str)"]
    if op == "table_item":
        return TABLE_ITEM
    if op == "nth":
        t = ts[0]
        if t == "str":
            return PRIMITIVES["getitem"]
        if isinstance(t, tuple) and t[0] == "list":
            return PRIMITIVES["c_index"]
        if isinstance(t, tuple) and t[0] == "match":
            return PRIMITIVES["match.group"]
        if isinstance(t, tuple) and t[0] == "tuple" and element_type(t) is None:
            return None  # a tuple's field at a constant index: the typer checked it
        raise NotImplementedError(f"indexing a {t}")
    entry = PRIMITIVES.get(op)
    if entry is not None:
        return entry
    info = PRIMS.get(op)
    if info is not None and info.total:
        return None
    raise NotImplementedError(f"`{op}`")


def raise_code_sql(r: Emitter, args: tuple[Expr, ...]) -> str:
    """The code of one call (``_prim`` of ``sql.py`` calls this before it renders the
    operands: they are rendered only where a clause may hold, a table's entries read
    from its literal)."""
    spec = args[0]
    assert isinstance(spec, Lit) and isinstance(spec.value, str)
    name, handlers = parse_spec(spec.value)
    cargs = args[1:]
    cts = [r.ty.of(a) for a in cargs]
    try:
        entry = try_entry(name, cts, cargs)
        if entry is None:
            return "0"
        nullable = [r.ty.may_be_null(a) for a in cargs]
        code, lits = handler_code(handlers), literals(cargs)
        marks = [f"a{i}" for i in range(len(cargs))]
        probe = entry.raise_test(marks, cts, code, lits, nullable)
        if probe == exp.Literal.number(0):
            return "0"  # no clause may hold here
        codes = {w.args["true"] for w in probe.args.get("ifs", [])} if isinstance(
            probe, exp.Case) else set()  # fmt: skip
        if spec.value.startswith("!") and len(codes) == 1:
            return codes.pop().sql(dialect="spark")  # a clause holds (the chain tested it)
        x = ["NULL" if isinstance(a, Lit) and isinstance(a.value, tuple) else r.expr(a)
             for a in cargs]  # fmt: skip

        def build(xs: list[str]) -> str:
            tree = entry.raise_test(xs, cts, code, lits, nullable)
            return f"({tree.sql(dialect='spark', normalize_functions='lower')})"

        return r.bind(x, build)
    except NotImplementedError as e:
        raise BackendError(f"`try` around {name}: looplift has no native test of where it "
                           f"raises ({e}); a `try` is supported around calls whose errors "
                           "it can test", cargs[0].span if cargs else spec.span,
                           hint=HINT) from None  # fmt: skip
