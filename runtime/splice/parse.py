"""Parsing a query for :func:`looplift.sql`: sqlglot in Spark's dialect, the calls of
registered algorithms, and :class:`Spliced`, the typed node a call is replaced by.

A spliced call is a node of the sqlglot tree carrying the SQL looplift generated for it;
it renders as that text (:data:`RENDER`) or, inside a column label, as ``…`` (:data:`LABEL`).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any

from sqlglot import exp
from sqlglot.dialects.spark import Spark

from ..registry import Algorithm

__all__ = ["Call", "LABEL", "RENDER", "Spliced", "args_of", "call_end", "calls", "dialect",
           "enclosing_ctes", "offset", "render", "split_call"]  # fmt: skip


class Spliced(exp.Expression):
    """Generated SQL in place of a call of a registered algorithm (or of a probed argument):
    ``this`` is the SQL text, rendered verbatim."""

    arg_types = {"this": True}


class _RenderGenerator(Spark.Generator):  # type: ignore[misc,name-defined]
    TRANSFORMS = {**Spark.Generator.TRANSFORMS, Spliced: lambda self, e: e.this}


class _LabelGenerator(Spark.Generator):  # type: ignore[misc,name-defined]
    TRANSFORMS = {**Spark.Generator.TRANSFORMS, Spliced: lambda self, e: "…"}


class LoopliftSparkRender(Spark):
    """Spark's dialect, spliced calls rendered as their SQL."""

    Generator = _RenderGenerator


class LoopliftSparkLabel(Spark):
    """Spark's dialect, spliced calls rendered as ``…`` (column labels, messages)."""

    Generator = _LabelGenerator


RENDER = LoopliftSparkRender
LABEL = LoopliftSparkLabel


def render(node: Any) -> str:
    """The Spark SQL of ``node``, spliced calls included."""
    return node.sql(dialect=RENDER)


def label(node: Any) -> str:
    return node.sql(dialect=LABEL)


@dataclass
class Call:
    """A call of a registered algorithm in the query, with its span (offsets)."""

    node: Any
    alg: Algorithm
    start: int | None
    end: int | None


def dialect(reg: dict[str, Algorithm]) -> Any:
    """Spark's dialect, with registered names parsed as plain calls (not sqlglot's
    built-in functions of the same name)."""
    names = {n.upper() for n in reg}
    clash = names & (set(Spark.Parser.FUNCTIONS) | set(Spark.Parser.FUNCTION_PARSERS))
    if not clash:
        return Spark
    return _clash_dialect(frozenset(clash))


@functools.cache
def _clash_dialect(clash: frozenset[str]) -> Any:
    parser = type("Parser", (Spark.Parser,), {
        "FUNCTIONS": {k: v for k, v in Spark.Parser.FUNCTIONS.items() if k not in clash},
        "FUNCTION_PARSERS": {k: v for k, v in Spark.Parser.FUNCTION_PARSERS.items()
                             if k not in clash},
    })  # fmt: skip
    return type("LoopliftSpark", (Spark,), {"Parser": parser})


def calls(tree: Any, reg: dict[str, Algorithm], query: str) -> list[Call]:
    """Calls of registered algorithms, innermost first."""
    out = []
    for node in tree.walk(bfs=False):
        if not isinstance(node, exp.Func):
            continue
        name = node.name if isinstance(node, exp.Anonymous) else node.sql_name()
        alg = reg.get(str(name).lower())
        if alg is None:
            continue
        start = (node.meta or {}).get("start")
        out.append(Call(node, alg, start, call_end(query, start)))
    out.reverse()  # pre-order reversed: children before parents
    return out


def args_of(node: Any) -> list[Any]:
    """The argument nodes of a call."""
    if isinstance(node, exp.Anonymous):
        return list(node.expressions)
    out = []
    for v in node.args.values():
        if isinstance(v, list):
            out.extend(v)
        elif isinstance(v, exp.Expression):
            out.append(v)
    return out


def attached(node: Any, tree: Any) -> bool:
    return node.root() is tree


def enclosing_ctes(node: Any) -> list[Any]:
    """CTEs visible at ``node``: those of every enclosing query, outermost first."""
    out: list[Any] = []
    cur = node
    while cur is not None:
        w = cur.args.get("with_") or cur.args.get("with") if hasattr(cur, "args") else None
        if w is not None and cur is not node:
            out = list(w.expressions) + out
        cur = cur.parent
    return out


def with_ctes(tree: Any, ctes: list[Any]) -> Any:
    """``tree`` (a copy) with ``ctes`` in front of its own."""
    tree = tree.copy()
    own = tree.args.get("with_") or tree.args.get("with")
    key = "with_" if "with_" in tree.arg_types else "with"
    tree.set(key, exp.With(expressions=[c.copy() for c in ctes]
                           + (list(own.expressions) if own else [])))  # fmt: skip
    return tree


def offset(query: str, line: int | None, col: int | None) -> int | None:
    if line is None or col is None:
        return None
    lines = query.split("\n")
    return sum(len(x) + 1 for x in lines[: line - 1]) + max(col - 1, 0)


def call_end(query: str, start: int | None) -> int | None:
    """Offset of the closing parenthesis of the call starting at ``start``."""
    if start is None:
        return None
    i = query.find("(", start)
    if i < 0:
        return None
    try:
        return split_call(query, i)[1] - 1
    except ValueError:
        return None


def split_call(text: str, at: int) -> tuple[list[str], int]:
    """The top-level argument texts of the call whose ``(`` is at ``at``, and the offset
    just past its ``)``."""
    depth, quote, args, cur = 0, None, [], at + 1
    i = at
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\" and quote != "`":
                i += 1
            elif ch == quote:
                quote = None
        elif ch in "'\"`":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                args.append(text[cur:i].strip())
                return args, i + 1
        elif ch == "," and depth == 1:
            args.append(text[cur:i].strip())
            cur = i + 1
        i += 1
    raise ValueError("unbalanced call in generated SQL")


_MISSING = re.compile(r"Required keyword: '(\w+)' missing for <class '(?:[\w.]*\.)?(\w+)'>")
_CLASS = re.compile(r"<class '(?:[\w.]*\.)?(\w+)'>")


def describe_parse_error(err: dict[str, Any], e: Exception) -> str:
    """sqlglot's description of a syntax error in the words of SQL (its tokens), without
    sqlglot's class names: ``expected an expression after `WHERE```."""
    text = str(err.get("description") or e)
    token = str(err.get("highlight") or "").strip()
    near = f"`{token}`" if token else "the end of the query"
    m = _MISSING.match(text)
    if m:
        return f"expected an expression after {near}"
    if text.startswith("Expecting "):
        return f"expected `{text[len('Expecting '):].strip()}` at {near}"
    if "Unexpected token" in text or text.startswith("Invalid expression"):
        return f"unexpected {near}"
    return f"{_CLASS.sub(lambda c: c.group(1), text)} (at {near})"


def parse(query: str, reg: dict[str, Algorithm]) -> Any:
    """The one statement of ``query``; a syntax error is reported at its position."""
    import sqlglot
    from sqlglot import errors

    from .errors import LoopliftSQLError

    try:
        trees = [t for t in sqlglot.parse(query, dialect=dialect(reg)) if t]
    except errors.ParseError as e:
        err = e.errors[0] if e.errors else {}
        end = offset(query, err.get("line"), err.get("col"))
        token = str(err.get("highlight") or "")
        start = end - len(token) + 1 if end is not None and token else end
        raise LoopliftSQLError(
            f"cannot parse the query: {describe_parse_error(err, e)}", query, start, end
        ) from None
    if len(trees) != 1:
        raise LoopliftSQLError(f"expected one query, got {len(trees)} statements")
    return trees[0]
