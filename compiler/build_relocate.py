"""A build's generated Python, pointed at the build: references to the user's module
``X`` (``X:f`` in a manifest, ``import X`` and ``X.f`` in a plan) become references to
``<package>.source`` (and a vendored sibling's to ``<package>._vendor.<name>``), and the
plans are tidied (unused locals dropped) so that they read like hand-written code.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from typing import Any

__all__ = ["relocate_source", "rewrite_refs", "tidy_python"]

_REF = re.compile(r"([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*):([A-Za-z_][\w.]*)\Z")


# -- references to the user's modules -------------------------------------------------------------


def _relocated(ref: str, relocate: dict[str, str]) -> str | None:
    m = _REF.match(ref)
    if m is None:
        return None
    mod = _relocated_module(m.group(1), relocate)
    return None if mod is None else f"{mod}:{m.group(2)}"


def _relocated_module(mod: str, relocate: dict[str, str]) -> str | None:
    top, dot, rest = mod.partition(".")
    if top not in relocate:
        return None
    return relocate[top] + dot + rest


def rewrite_refs(value: Any, relocate: dict[str, str]) -> Any:
    """A JSON value with every ``module:qualname`` string of a relocated module rewritten."""
    if isinstance(value, str):
        return _relocated(value, relocate) or value
    if isinstance(value, list):
        return [rewrite_refs(v, relocate) for v in value]
    if isinstance(value, dict):
        return {k: rewrite_refs(v, relocate) for k, v in value.items()}
    return value


def relocate_source(source: str, relocate: dict[str, str]) -> str:
    """Generated Python with references to relocated modules rewritten.

    ``"m:q"`` string literals (``REFS``, ``PYCALLS``, ``import_ref(...)``), ```m:q```
    in the module docstring, and ``import m`` / ``from m import ...`` statements.
    """
    lines = source.splitlines(keepends=True)
    edits: list[tuple[int, int, int, int, str]] = []  # (row, col, end row, end col, text)
    first_string = True
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type != tokenize.STRING:
            if tok.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.ENCODING):
                first_string = False
            continue
        text = tok.string
        value = ast.literal_eval(text)
        new = _relocated(value, relocate) if isinstance(value, str) else None
        if new is not None:
            q = text[0]
            plain = q in "'\"" and text[-1] == q and "\\" not in text and q not in new
            edits.append((*tok.start, *tok.end, f"{q}{new}{q}" if plain else repr(new)))
        elif first_string:  # the module docstring names the algorithm's reference
            doc = re.sub(
                r"`([\w.]+):",
                lambda m: f"`{_relocated_module(m.group(1), relocate) or m.group(1)}:",
                text,
            )
            if doc != text:
                edits.append((*tok.start, *tok.end, doc))
        first_string = False
    for node in ast.walk(ast.parse(source)):
        new_stmt = _relocated_import(node, relocate)
        if new_stmt is not None:
            if node.lineno != node.end_lineno:
                raise ValueError(f"cannot relocate a multi-line import: {ast.unparse(node)}")
            edits.append((node.lineno, node.col_offset, node.end_lineno, node.end_col_offset,
                          new_stmt))  # fmt: skip
    for row, col, erow, ecol, text in sorted(edits, reverse=True):
        before = lines[row - 1][:col]
        after = lines[erow - 1][ecol:]
        lines[row - 1 : erow] = [before + text + after]
    return "".join(lines)


def _relocated_import(node: ast.AST, relocate: dict[str, str]) -> str | None:
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        mod = _relocated_module(node.module, relocate)
        if mod is None:
            return None
        names = ", ".join(a.name + (f" as {a.asname}" if a.asname else "") for a in node.names)
        return f"from {mod} import {names}"
    if isinstance(node, ast.Import):
        if not any(_relocated_module(a.name, relocate) for a in node.names):
            return None
        parts = []
        for a in node.names:
            mod = _relocated_module(a.name, relocate)
            if mod is None:
                parts.append(f"import {a.name}" + (f" as {a.asname}" if a.asname else ""))
            elif a.asname or "." not in a.name:
                parts.append(f"import {mod} as {a.asname or a.name}")
            else:
                raise ValueError(f"cannot relocate `import {a.name}`; use `from ... import`")
        return "; ".join(parts)
    return None


# -- tidy generated Python --------------------------------------------------------------------


def tidy_python(source: str) -> str:
    """Generated Python made lint-clean without changing what it does: locals that are
    assigned but never read get a leading underscore (the generated plans' imports are
    in order by construction)."""
    return _unused_locals(source)


def _unused_locals(source: str) -> str:
    tree = ast.parse(source)
    loaded = {
        n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Store)
    }
    every = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    renames: dict[str, set[tuple[int, int]]] = {}
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for n in ast.walk(fn):
            if (isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id not in loaded
                    and not n.id.startswith("_") and f"_{n.id}" not in every):  # fmt: skip
                renames.setdefault(n.id, set()).add((n.lineno, n.col_offset))
    if not renames:
        return source
    globals_ = {n.id for s in tree.body for n in ast.walk(s)
                if isinstance(s, (ast.Assign, ast.AugAssign, ast.AnnAssign))
                and isinstance(n, ast.Name)}  # fmt: skip
    lines = source.splitlines(keepends=True)
    # right to left over every place at once: two renames on one line keep their columns
    places = sorted(p for name, ps in renames.items() if name not in globals_ for p in ps)
    for row, col in reversed(places):
        line = lines[row - 1]
        lines[row - 1] = line[:col] + "_" + line[col:]
    return "".join(lines)
