"""Adjacent projections merged (issue 27, item 5): a peephole over a plan's steps.

A plan's steps often end in a projection that only picks and renames the columns of the
step before it, itself a projection (``select``) or one column added (``withColumn``)::

    agg = best.select(F.col('k'), E('<a>').alias('a'), E('<b>').alias('b'))
    out = agg.select(F.col('k').alias('key'), F.col('b'))

Spark merges the two projections when it optimizes the plan, but PySpark analyzes every
DataFrame step as it is built (the JVM's CPU, on every call of the plan): one step is
cheaper to build. The pass rewrites the pair into one ``select`` over the first step's
input::

    out = best.select(F.col('k').alias('key'), E('<b>').alias('b'))

It merges only what keeps the plan's meaning by construction: the second step a
``select`` of plain columns (``F.col('c')``, optionally ``.alias('d')``) of the first;
the first a ``select`` whose every column has a name the pass can read (``F.col('c')``
or ``<expr>.alias('c')``, the names distinct), or a ``withColumn``; the first step's
variable used nowhere else; an expression that is more than a column read at most once
(it is not computed twice). The second step may drop a column the first reads as it
is, never an expression (an aggregate or a generator changes the number of rows).
Anything else is left as it is.

Then (:func:`select_texts`, :func:`aggregate_texts`) the columns of a ``select`` or an
``agg`` are written as SQL text where they can be: building a step costs PySpark a few
calls of the JVM per ``selectExpr``, about ten per ``F.col``, ``F.expr`` or ``alias``
(its call-site capture). The compiled dedup-latest plan builds with 46 calls instead of
162 (the hand-written SQL text: 6).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass

__all__ = [
    "merge_projections", "select_texts", "aggregate_texts",
    # shared with the other passes over the steps (.lateral)
    "Steps", "read_steps", "replace_pair", "until_fixed", "parse_steps", "assign_of",
    "str_const", "e_text", "sql_ident",
]  # fmt: skip


def merge_projections(lines: list[str]) -> list[str]:
    """The plan's steps (indented one level, as ``Planner.emit`` makes them) with every
    mergeable pair of adjacent projections merged into one step."""
    return until_fixed(_merge_once, lines)


def until_fixed(rewrite: Callable[[list[str]], list[str] | None], lines: list[str]) -> list[str]:
    """``lines`` rewritten by ``rewrite`` (one change at a time; None: nothing left to do)
    until nothing changes."""
    out = list(lines)
    while (changed := rewrite(out)) is not None:
        out = changed
    return out


def parse_steps(lines: list[str], tail: str = "") -> tuple[str, ast.Module] | None:
    """The steps parsed as the body of ``def _plan():`` (``tail`` after them), with the
    source text; None where they do not parse."""
    src = "def _plan():\n" + "\n".join(lines) + "\n" + tail
    try:
        return src, ast.parse(src)
    except SyntaxError:
        return None


@dataclass(frozen=True)
class Steps:
    """A plan's steps parsed (the body of ``def _plan():`` ending in ``return out``): the
    source and its lines, the statements, and how often each name is read."""

    src: str
    phys: list[str]
    stmts: list[ast.stmt]
    uses: dict[str, int]


def read_steps(lines: list[str]) -> Steps | None:
    parsed = parse_steps(lines, "    return out\n")
    if parsed is None:
        return None
    src, tree = parsed
    uses: dict[str, int] = {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            uses[n.id] = uses.get(n.id, 0) + 1
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef)
    return Steps(src, src.split("\n"), fn.body[:-1], uses)


def replace_pair(steps: Steps, first: ast.stmt, second: ast.stmt, new: str) -> list[str]:
    """The steps' lines with ``first`` and ``second`` replaced by the one statement ``new``,
    in the first's place (comment lines between stay above it; their trailing comments
    join)."""
    phys = steps.phys
    lead = phys[first.lineno - 1][: first.col_offset]
    notes = [phys[st.lineno - 1][st.end_col_offset :].strip() for st in (first, second)]
    note = "; ".join(n.lstrip("#").strip() for n in notes if n.startswith("#"))
    new += f"  # {note}" if note else ""
    between = phys[first.end_lineno : second.lineno - 1]
    assert second.end_lineno is not None
    return phys[1 : first.lineno - 1] + between + [lead + new] + phys[second.end_lineno : -2]


def _merge_once(lines: list[str]) -> list[str] | None:
    steps = read_steps(lines)
    if steps is None:
        return None
    for first, second in zip(steps.stmts, steps.stmts[1:], strict=False):
        new = _merge_pair(first, second, steps.src, steps.uses)
        if new is not None:
            return replace_pair(steps, first, second, new)
    return None


def _merge_pair(first: ast.stmt, second: ast.stmt, src: str, uses: dict[str, int]) -> str | None:
    """The merged statement's text, or None when the pair is not mergeable."""
    a = assign_of(first)
    b = assign_of(second)
    if a is None or b is None:
        return None
    a_var, a_call = a
    b_var, b_call = b
    if first.end_lineno != first.lineno or second.end_lineno != second.lineno:
        return None  # one-line statements only (a trailing comment stays with its line)
    if not (isinstance(b_call.func, ast.Attribute) and b_call.func.attr == "select"):
        return None
    if not (isinstance(b_call.func.value, ast.Name) and b_call.func.value.id == a_var):
        return None
    if uses.get(a_var, 0) != 1 or b_call.keywords or not b_call.args:
        return None
    picks = [_pick(arg) for arg in b_call.args]
    if any(p is None for p in picks):
        return None
    func = a_call.func
    if not isinstance(func, ast.Attribute) or a_call.keywords:
        return None
    base = ast.get_source_segment(src, func.value)
    if base is None:
        return None
    if func.attr == "select":
        cols = _named_columns(a_call.args, src)
        if cols is None:
            return None
        passthrough = False
    elif func.attr == "withColumn" and len(a_call.args) == 2:
        name = str_const(a_call.args[0])
        expr = ast.get_source_segment(src, a_call.args[1])
        if name is None or expr is None or "`" in name or "." in name:
            return None
        cols = {name: (expr, None)}
        passthrough = True  # other names are the input's columns
        if any(p[0] != name and p[0].lower() == name.lower() for p in picks):  # type: ignore[index]
            return None
    else:
        return None
    counts: dict[str, int] = {}
    for name, _ in picks:  # type: ignore[misc]
        counts[name] = counts.get(name, 0) + 1
    if any(read is None and name not in counts for name, (_, read) in cols.items()):
        return None  # an expression dropped: it may be an aggregate or a generator
    sel = []
    for name, alias in picks:  # type: ignore[misc]
        if name not in cols:
            if not passthrough:
                return None
            sel.append(_col(name, alias))
            continue
        expr, plain = cols[name]
        if plain is None and counts[name] > 1:
            return None  # an expression is computed once
        out_name = alias or name
        if plain is not None:
            sel.append(_col(plain, out_name))
        else:
            sel.append(f"{expr}.alias({out_name!r})")
    return f"{b_var} = {base}.select({', '.join(sel)})"


def assign_of(stmt: ast.stmt) -> tuple[str, ast.Call] | None:
    if not isinstance(stmt, ast.Assign) or len(stmt.targets) != 1:
        return None
    target = stmt.targets[0]
    if not isinstance(target, ast.Name) or not isinstance(stmt.value, ast.Call):
        return None
    return target.id, stmt.value


def str_const(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _fcol(node: ast.expr) -> str | None:
    """``c`` of ``F.col('c')``, a plain column name (no backquotes, no dots)."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "col"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "F"
        and len(node.args) == 1
        and not node.keywords
    ):
        name = str_const(node.args[0])
        if name is not None and name and "`" not in name and "." not in name:
            return name
    return None


def _aliased(node: ast.expr) -> tuple[ast.expr, str] | None:
    """``(expr, 'c')`` of ``expr.alias('c')``."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "alias"
        and len(node.args) == 1
        and not node.keywords
    ):
        name = str_const(node.args[0])
        if name is not None and name and "`" not in name and "." not in name:
            return node.func.value, name
    return None


def _pick(node: ast.expr) -> tuple[str, str | None] | None:
    """``(column, new name or None)`` of ``F.col('c')`` or ``F.col('c').alias('d')``."""
    plain = _fcol(node)
    if plain is not None:
        return plain, None
    al = _aliased(node)
    if al is not None:
        inner = _fcol(al[0])
        if inner is not None:
            return inner, al[1]
    return None


def _named_columns(args: list[ast.expr], src: str) -> dict[str, tuple[str, str | None]] | None:
    """Each output name of a ``select``'s columns: ``(expression text, the input column
    when the column is one read as it is, else None)``; None when a name is unknown or
    repeated."""
    cols: dict[str, tuple[str, str | None]] = {}
    seen: set[str] = set()
    for arg in args:
        plain = _fcol(arg)
        if plain is not None:
            name, expr, read = plain, ast.get_source_segment(src, arg), plain
        else:
            al = _aliased(arg)
            if al is None:
                return None
            inner = _fcol(al[0])
            name, expr, read = al[1], ast.get_source_segment(src, al[0]), inner
        if expr is None or name.lower() in seen:
            return None
        seen.add(name.lower())
        cols[name] = (expr, read)
    return cols


def _col(name: str, alias: str | None) -> str:
    if alias is None or alias == name:
        return f"F.col({name!r})"
    return f"F.col({name!r}).alias({alias!r})"


def select_texts(lines: list[str]) -> list[str]:
    """Each one-line ``select`` whose columns are all ``F.col('c')`` or ``E('<sql>')``, each
    optionally ``.alias('n')``, written as ``selectExpr`` of SQL texts (``E`` is
    ``F.expr``: not in a plan with scalar parameters, whose ``E`` binds them).

    The same projection, cheaper to build: PySpark's ``F.col``, ``F.expr`` and ``alias``
    each call the JVM several times (its call-site capture), about 14 calls for an aliased
    expression; ``selectExpr`` sends all the texts in one call.
    """

    def edit(stmt: ast.stmt, phys: list[str]) -> list[tuple[int, int, int, str]]:
        for node in ast.walk(stmt):
            if not (_method_call(node, "select") and node.args):
                continue
            texts = [_sql_text(arg) for arg in node.args]
            if any(t is None for t in texts):
                continue
            line = phys[node.lineno - 1]
            base = line[node.func.value.col_offset : node.func.value.end_col_offset]
            new = f"{base}.selectExpr({', '.join(repr(t) for t in texts)})"
            # one select per statement (an outer one would overlap)
            return [(node.lineno - 1, node.col_offset, node.end_col_offset, new)]
        return []

    return _edit_one_line_steps(lines, edit)


def aggregate_texts(lines: list[str]) -> list[str]:
    """Each ``E('<sql>').alias('n')`` column of a one-line ``agg(...)`` written as
    ``E('<sql> AS `n`')``: the same column, one call of ``alias`` (about ten of the JVM)
    fewer to build (``E`` is ``F.expr``, as for :func:`select_texts`)."""

    def edit(stmt: ast.stmt, phys: list[str]) -> list[tuple[int, int, int, str]]:
        out = []
        for node in ast.walk(stmt):
            if not _method_call(node, "agg"):
                continue
            for arg in node.args:
                al = _aliased(arg)
                if al is None or _sql_text(al[0]) is None or _fcol(al[0]) is not None:
                    continue
                out.append(
                    (arg.lineno - 1, arg.col_offset, arg.end_col_offset, f"E({_sql_text(arg)!r})")
                )
        return out

    return _edit_one_line_steps(lines, edit)


def _method_call(node: ast.AST, attr: str) -> bool:
    """``x.attr(...)`` without keywords."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == attr
        and not node.keywords
    )


def _edit_one_line_steps(
    lines: list[str], edit: Callable[[ast.stmt, list[str]], list[tuple[int, int, int, str]]]
) -> list[str]:
    """``lines`` with the text edits ``edit`` gives for each one-line step (``(line, start
    column, end column, new text)``, in the lines of the parsed ``def _plan():``)."""
    parsed = parse_steps(lines)
    if parsed is None:
        return lines
    src, tree = parsed
    phys = src.split("\n")
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef)
    edits = [e for stmt in fn.body if stmt.lineno == stmt.end_lineno for e in edit(stmt, phys)]
    for row, start, end, new in sorted(edits, reverse=True):
        phys[row] = phys[row][:start] + new + phys[row][end:]
    return phys[1:-1] if edits else lines


def _sql_text(node: ast.expr) -> str | None:
    """The SQL text of a ``select`` column ``F.col('c')`` or ``E('<sql>')``, optionally
    aliased; None for any other column."""
    alias = None
    al = _aliased(node)
    if al is not None:
        node, alias = al
    name = _fcol(node)
    text = sql_ident(name) if name is not None else e_text(node)
    if text is None:
        return None
    return text if alias is None else f"{text} AS {sql_ident(alias)}"


def e_text(node: ast.expr) -> str | None:
    """``<sql>`` of ``E('<sql>')``; None for any other expression."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "E"
        and len(node.args) == 1
        and not node.keywords
    ):
        return str_const(node.args[0])
    return None


def sql_ident(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"
