"""Lay out generated Python within a line width, as a person would write it.

A statement that fits stays on one line. A longer one is broken at the
arguments of its outermost calls (one per line, trailing comma), and a long
string literal becomes implicitly concatenated pieces; a trailing comment
moves to its own line above the statement.

>>> print(fit("x = f('a', 'b')", 12))
x = f(
    'a',
    'b',
)
"""

from __future__ import annotations

import ast
import io
import tokenize

__all__ = ["WIDTH", "fit", "fit_lines"]

WIDTH = 120


def fit_lines(text: str, width: int = WIDTH) -> str:
    """Every one-line statement of ``text`` that is too long, laid out again."""
    whole = {
        n.lineno
        for n in ast.walk(ast.parse(text))
        if isinstance(n, ast.stmt) and n.lineno == n.end_lineno
    }
    out = []
    for i, line in enumerate(text.split("\n"), start=1):
        out.append(fit(line, width) if len(line) > width and i in whole else line)
    return "\n".join(out)


def fit(line: str, width: int = WIDTH) -> str:
    indent = line[: len(line) - len(line.lstrip())]
    code, comment = _split_comment(line.strip())
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return line  # not a whole statement (a block header): leave it
    if len(tree.body) != 1:
        return line
    stmt = tree.body[0]
    head = f"{indent}# {comment}\n" if comment else ""
    if len(indent) + len(code) <= width:
        return head + indent + code
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        target = ast.unparse(stmt.targets[0])
        return head + indent + target + " = " + _expr(stmt.value, indent, width, len(target) + 3)
    if isinstance(stmt, (ast.Expr, ast.Return)):
        lead = "return " if isinstance(stmt, ast.Return) else ""
        assert stmt.value is not None
        return head + indent + lead + _expr(stmt.value, indent, width, len(lead))
    return head + indent + code


def _split_comment(code: str) -> tuple[str, str]:
    """``code  # comment`` → (code, comment), using the tokenizer (``#`` inside strings stays)."""
    try:
        for tok in tokenize.generate_tokens(io.StringIO(code).readline):
            if tok.type == tokenize.COMMENT:
                return code[: tok.start[1]].rstrip(), tok.string[1:].strip()
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass
    return code, ""


def _expr(e: ast.expr, indent: str, width: int, used: int) -> str:
    """``e`` printed starting at column len(indent) + used, continuation lines at ``indent``."""
    flat = ast.unparse(e)
    if len(indent) + used + len(flat) <= width:
        return flat
    inner = indent + "    "
    if isinstance(e, ast.Call):
        func = _expr(e.func, indent, width - 2, used)  # room for "(" and an argument
        flat_args = ", ".join(ast.unparse(a) for a in (*e.args, *e.keywords))
        last = func.rsplit("\n", 1)[-1]
        start = used if "\n" not in func else 0
        if len(indent) + start + len(last) + len(flat_args) + 2 <= width:
            return f"{func}({flat_args})"
        if len(e.args) == 1 and not e.keywords and _is_str(e.args[0]):
            pieces = _pieces(e.args[0].value, width - len(inner))  # type: ignore[attr-defined]
            return func + "(\n" + "".join(f"{inner}{p!r}\n" for p in pieces) + indent + ")"
        args = [_expr(a, inner, width - 1, 0) for a in e.args]  # each ends with a comma
        args += [
            (f"{k.arg}=" if k.arg else "**") + _expr(k.value, inner, width - 1, len(k.arg or "") + 2)
            for k in e.keywords
        ]
        return func + "(\n" + "".join(f"{inner}{a},\n" for a in args) + indent + ")"
    if isinstance(e, ast.Attribute):
        # keep room for ``.attr(`` after the value on its last line
        value = _expr(e.value, indent, width - len(e.attr) - 2, used)
        return value + "." + e.attr
    if isinstance(e, (ast.List, ast.Tuple)) and e.elts:
        items = [_expr(x, inner, width - 1, 0) for x in e.elts]
        left, right = ("[", "]") if isinstance(e, ast.List) else ("(", ")")
        return left + "\n" + "".join(f"{inner}{x},\n" for x in items) + indent + right
    if isinstance(e, ast.Constant) and isinstance(e.value, str):
        pieces = _pieces(e.value, width - len(inner) - 3)
        if len(pieces) > 1:
            return "(\n" + "".join(f"{inner}{p!r}\n" for p in pieces) + indent + ")"
    return flat


def _is_str(e: ast.expr) -> bool:
    return isinstance(e, ast.Constant) and isinstance(e.value, str)


def _pieces(s: str, size: int) -> list[str]:
    """``s`` cut into pieces whose repr fits ``size``, preferably after a space."""
    size = max(size, 20)
    out = []
    while len(repr(s)) > size:
        cut = size - 2
        while len(repr(s[:cut])) > size:
            cut -= 1
        space = s.rfind(" ", 0, cut)
        if space > cut // 2:
            cut = space + 1
        out.append(s[:cut])
        s = s[cut:]
    out.append(s)
    return out
