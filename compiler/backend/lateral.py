"""Chains of added columns built as one projection (issue 27, item 5): a peephole over a
plan's steps, after :mod:`.projections`.

A plan adds the columns it computes one step at a time, each reading those before it::

    agg = sums.selectExpr('`k`', 'coalesce(`n_n`, 0) AS `n`', 'coalesce(`t_t`, 0) AS `t`')
    by_k = agg.withColumn('mean', E('`t` / CAST(`n` AS DOUBLE)'))
    by_k_2 = by_k.withColumn('big', E('`mean` > 10'))

PySpark analyzes every DataFrame step as it is built (a fifth to half of a small plan's
run, on every call), and Spark merges the projections when it optimizes the plan anyway.
So the pass writes the chain as one ``selectExpr`` whose later columns read the earlier
ones by name (Spark's lateral column aliases, resolved by the analyzer into the same
projections)::

    by_k_2 = sums.selectExpr('`k`', 'coalesce(`n_n`, 0) AS `n`', ..., '`t` / CAST(`n` AS
        DOUBLE) AS `mean`', '`mean` > 10 AS `big`')

A name in a ``selectExpr`` reads the step's input column of that name before an alias of
the same list, so the pass merges only where that cannot happen, which it checks from the
names it knows of both frames (:func:`known_columns`):

- every added name is new: neither a column of the step's input nor of its output (an
  added column that replaces one is left as its own step);
- every name the ``selectExpr`` computes (an expression, or a column renamed) is not a
  column of its input;
- the merged step's variable is read once, by the next step; steps are one line each;
- window expressions (``OVER``) are added only over columns read as they are (never next
  to an aggregate), and no step holds a generator (``explode``), whose output Spark does
  not let a lateral alias read.

A chain over a frame whose columns are known but that is no ``selectExpr`` (the entry
projection, an aggregate) starts with a ``selectExpr`` of those columns as they are.
Anything else is left as it is.
"""

from __future__ import annotations

import ast
import re

from .projections import (
    assign_of,
    e_text,
    read_steps,
    replace_pair,
    sql_ident,
    str_const,
    until_fixed,
)

__all__ = ["merge_added_columns", "known_columns"]

_ALIAS = re.compile(r"^(?P<expr>.*) AS (?P<name>`(?:[^`]|``)+`)$", re.S)
_IDENT = re.compile(r"^`(?:[^`]|``)+`$")
_GENERATOR = re.compile(r"\b(explode|posexplode|inline|stack|json_tuple)(_outer)?\s*\(", re.I)
_WINDOW = re.compile(r"\bOVER\s*\(", re.I)


def merge_added_columns(lines: list[str]) -> list[str]:
    """The plan's steps (one level indented, ``E`` being ``F.expr``) with every chain of
    added columns over a frame of known columns merged into one ``selectExpr``."""
    return until_fixed(_merge_once, lines)


def _unquote(ident: str) -> str:
    return ident[1:-1].replace("``", "`")


def _text_name(text: str) -> tuple[str, bool] | None:
    """``(output name, read as it is)`` of one ``selectExpr`` text: a lone identifier, or an
    expression (or identifier) ``AS`` an identifier; None for any other text."""
    if _IDENT.match(text):
        return _unquote(text), True
    m = _ALIAS.match(text)
    if m is None:
        return None
    return _unquote(m["name"]), False


def _list_of_str(node: ast.expr) -> list[str] | None:
    if not isinstance(node, ast.List):
        return None
    out = [str_const(e) for e in node.elts]
    return None if any(s is None for s in out) else out  # type: ignore[return-value]


def _added(call: ast.Call, frame: str) -> list[tuple[str, str]] | None:
    """``[(name, sql)]`` of ``frame.withColumn('n', E('<sql>'))`` or ``frame.withColumns({'n':
    E('<sql>'), ...})``; None for any other step."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)):
        return None
    if func.value.id != frame or call.keywords:
        return None
    pairs: list[tuple[ast.expr | None, ast.expr]]
    if func.attr == "withColumn" and len(call.args) == 2:
        pairs = [(call.args[0], call.args[1])]
    elif func.attr == "withColumns" and len(call.args) == 1 and isinstance(call.args[0], ast.Dict):
        pairs = list(zip(call.args[0].keys, call.args[0].values, strict=True))
    else:
        return None
    out = []
    for k, v in pairs:
        name = str_const(k) if k is not None else None
        sql = e_text(v)
        if name is None or sql is None:
            return None
        out.append((name, sql))
    return out


def known_columns(call: ast.Call, cols: dict[str, list[str]]) -> list[str] | None:
    """The output columns of one step, in order, where the step's text says them (``cols``:
    those of the frames before it); None when unknown."""
    func = call.func
    if not isinstance(func, ast.Attribute):
        return None
    kw = {k.arg: k.value for k in call.keywords}
    if isinstance(func.value, ast.Name) and func.value.id == "ll" and func.attr == "entry":
        names = _list_of_str(kw["names"]) if "names" in kw else None
        keep = _list_of_str(kw["keep"]) if "keep" in kw else []
        return None if names is None or keep is None else [*names, *keep]
    if func.attr == "selectExpr" and not call.keywords:
        texts = [str_const(a) for a in call.args]
        if any(t is None for t in texts):
            return None
        named = [_text_name(t) for t in texts]  # type: ignore[arg-type]
        return None if any(n is None for n in named) else [n[0] for n in named]  # type: ignore[index]
    if func.attr == "agg" and not call.keywords:
        group = func.value
        if not (
            isinstance(group, ast.Call)
            and isinstance(group.func, ast.Attribute)
            and group.func.attr == "groupBy"
            and not group.keywords
        ):
            return None
        keys = [str_const(a) for a in group.args]
        aggs = [e_text(a) for a in call.args]
        if any(k is None for k in keys) or any(a is None for a in aggs):
            return None
        names = [_text_name(a) for a in aggs]  # type: ignore[arg-type]
        if any(n is None or n[1] for n in names):
            return None
        return [*keys, *(n[0] for n in names)]  # type: ignore[index, misc]
    if func.attr in ("withColumn", "withColumns") and isinstance(func.value, ast.Name):
        base = cols.get(func.value.id)
        added = _added(call, func.value.id)
        if base is None or added is None:
            return None
        out = list(base)
        for name, _ in added:  # a column replaced takes the name as written (its case)
            at = [i for i, c in enumerate(out) if c.lower() == name.lower()]
            if at:
                out[at[0]] = name
            else:
                out.append(name)
        return out
    return None


def _distinct(names: list[str]) -> bool:
    return len({n.lower() for n in names}) == len(names)


def _merge_once(lines: list[str]) -> list[str] | None:
    steps = read_steps(lines)
    if steps is None:
        return None
    cols: dict[str, list[str]] = {}
    for stmt, nxt in zip(steps.stmts, [*steps.stmts[1:], None], strict=True):
        a = assign_of(stmt)
        if a is None:
            continue
        var, call = a
        new = _merged(stmt, nxt, call, var, cols, steps.uses) if nxt is not None else None
        if new is not None:
            assert nxt is not None
            return replace_pair(steps, stmt, nxt, new)
        known = known_columns(call, cols)
        if known is not None and _distinct(known):
            cols[var] = known
    return None


def _head(call: ast.Call, cols: dict[str, list[str]]) -> tuple[str, list[str]] | None:
    """``(input frame, SQL texts)`` of a step that the next one's added columns can extend:
    a ``selectExpr`` over a frame of known columns, or columns added (none replaced) to such
    a frame, as the ``selectExpr`` of its columns as they are and the added ones."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)):
        return None
    base = func.value.id
    if base not in cols or call.keywords:
        return None
    if func.attr == "selectExpr":
        texts = [str_const(a) for a in call.args]
        return None if any(t is None for t in texts) else (base, texts)  # type: ignore[return-value]
    added = _added(call, base)
    if added is None:
        return None
    inputs = {c.lower() for c in cols[base]}
    if not _distinct([n for n, _ in added]) or any(n.lower() in inputs for n, _ in added):
        return None  # a column replaced stays a withColumn
    return base, [*(sql_ident(c) for c in cols[base]), *(f"{sql} AS {sql_ident(n)}" for n, sql in added)]


def _merged(
    first: ast.stmt, second: ast.stmt, call: ast.Call, var: str,
    cols: dict[str, list[str]], uses: dict[str, int],
) -> str | None:  # fmt: skip
    """The one step of ``first`` (``var = <call>``) and ``second`` (columns added to
    ``var``), or None where they do not merge."""
    b = assign_of(second)
    if b is None or uses.get(var, 0) != 1:
        return None
    if first.lineno != first.end_lineno or second.lineno != second.end_lineno:
        return None
    b_var, b_call = b
    added = _added(b_call, var)
    head = _head(call, cols)
    if added is None or head is None or not _distinct([n for n, _ in added]):
        return None
    base, texts = head
    named = [_text_name(t) for t in texts]
    if any(n is None for n in named):
        return None
    inputs = {c.lower() for c in cols[base]}
    outputs = {n[0].lower() for n in named}  # type: ignore[index]
    if len(outputs) != len(named):
        return None
    computed = [n[0] for n in named if not (n[1] and n[0].lower() in inputs)]  # type: ignore[index]
    if any(c.lower() in inputs for c in computed):
        return None  # a later text would read the input's column of that name, not this one
    if any(n.lower() in inputs or n.lower() in outputs for n, _ in added):
        return None
    if computed and any(_WINDOW.search(sql) for _, sql in added):
        return None  # a window expression only over columns read as they are
    if any(_GENERATOR.search(t) for t in [*texts, *(sql for _, sql in added)]):
        return None
    new = [*texts, *(f"{sql} AS {sql_ident(n)}" for n, sql in added)]
    return f"{b_var} = {base}.selectExpr({', '.join(repr(t) for t in new)})"
