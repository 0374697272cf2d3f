"""Strings: ``str`` methods, f-strings, slicing and indexing, ``in``, ``re`` with constant patterns.

Every form becomes a primitive of ``compiler/ir/prims.py`` whose Python
implementation (``looplift.strings``) is the reference; the backend renders
each natively where Spark has an exact equivalent and as a vectorized Python
function otherwise. A method call on ``None`` raises ``AttributeError`` as in
Python, because the primitive calls the method.

``m = re.match(p, s)`` binds a match object, modelled as the tuple of its
groups or None: ``if m:`` and ``m.group(i)`` work on it.
"""

from __future__ import annotations

import ast
import builtins
import re
from typing import Any

import libcst as cst
from looplift.strings import STR_METHODS

from ..ir.nodes import Apply, Expr, Let, Lit, Prim, Var
from .env import Carry, Container, Env, Pattern, Value
from .regexes import RegexMixin
from .syntax import code_of, if_expr

__all__ = ["StringMixin", "is_fstring"]

# re functions: name -> (parameter names after the pattern, how many are required)
_RE_FUNCS: dict[str, tuple[tuple[str, ...], int]] = {
    "match": (("string", "flags"), 1),
    "search": (("string", "flags"), 1),
    "fullmatch": (("string", "flags"), 1),
    "sub": (("repl", "string", "count", "flags"), 2),
    "findall": (("string", "flags"), 1),
    "split": (("string", "maxsplit", "flags"), 1),
}
_RE_DEFAULTS = {"flags": 0, "count": 0, "maxsplit": 0}
_KEYWORDS = {"split": ("sep", "maxsplit"), "rsplit": ("sep", "maxsplit"), "replace": ("old", "new", "count")}  # fmt: skip


class StringMixin(RegexMixin):
    """String calls, f-strings, slices and ``in`` on strings (used by calls and expressions)."""

    # -- calls -------------------------------------------------------------------------
    def string_call(self, node: cst.Call, env: Env) -> Expr | None:
        """The IR of a string or ``re`` call, or None when ``node`` is no such call."""
        func = node.func
        if isinstance(func, cst.Name):
            n = func.value
            if n in ("format", "repr", "ascii") and n not in env.names and n not in env.loop_locals:
                if self.global_obj(n) is getattr(builtins, n):
                    return self._builtin_format(node, n, env)
            return None
        if not isinstance(func, cst.Attribute):
            return None
        meth = func.attr.value
        recv = func.value
        if (
            isinstance(recv, cst.Call)
            and isinstance(recv.func, cst.Attribute)
            and isinstance(recv.func.value, cst.Name)
            and recv.func.value.value not in env.names
            and recv.func.attr.value == "compile"
            and self.global_obj(recv.func.value.value) is re
        ):
            pat = self.local_pattern(recv, env)  # re.compile(CONST).match(s)
            return self.re_call(node, meth, pat, env) if pat is not None else None
        if isinstance(recv, cst.Name):
            b = env.names.get(recv.value)
            if isinstance(b, Pattern):  # pat = re.compile(CONST) in the function
                return self.re_call(node, meth, b.pattern, env)
            if b is None:
                if recv.value in env.loop_locals:
                    return None
                obj = self.global_obj(recv.value)
                if obj is re:
                    return self.re_call(node, meth, None, env)
                if isinstance(obj, re.Pattern):
                    return self.re_call(node, meth, obj, env)
                if not isinstance(obj, str):
                    return None
            elif not isinstance(b, (Value, Carry)):
                return None
        if meth == "group" and not isinstance(recv, (cst.SimpleString, cst.FormattedString)):
            return self._group(node, recv, env)
        if meth == "format" and isinstance(recv, cst.SimpleString):
            return self._str_format(node, recv, env)
        if meth not in STR_METHODS:
            return None
        return self._method(node, recv, meth, env)

    def _str_format(self, node: cst.Call, recv: cst.SimpleString, env: Env) -> Expr:
        """``"{} = {:.2f}".format(a, b)``: the f-string it means, over the arguments bound
        to fresh names first (each evaluated once, left to right, as Python does)."""
        import string

        text = recv.evaluated_value
        if not isinstance(text, str):
            raise self.error(recv, "`format` of bytes is not supported", "use a str")
        pos = [a.value for a in node.args if a.keyword is None and a.star == ""]
        kws = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        if any(a.star for a in node.args):
            raise self.error(node, "`format(*args)` is not supported", "pass the values one by one")
        hint = "use an f-string: f\"{x:.2f}\""
        try:
            fields = list(string.Formatter().parse(text))
        except ValueError as e:
            raise self.error(recv, f"bad format string: {e}", hint) from None
        names = [f"_fmt_{self.counter + 1}_{i}" for i in range(len(pos))]
        knames = {k: f"_fmt_{self.counter + 1}_{k}" for k in kws}
        self.counter += 1
        src, auto = ["f\""], 0
        for literal, field, spec, conv in fields:
            src.append("".join(c if c.isprintable() and c not in '"\\{}' else
                               {"{": "{{", "}": "}}"}.get(c, f"\\x{ord(c):02x}" if ord(c) < 256
                                                        else f"\\u{ord(c):04x}")
                               for c in literal))  # fmt: skip
            if field is None:
                continue
            if field == "":
                field, auto = str(auto), auto + 1
            if field.isdigit() and int(field) < len(pos):
                name = names[int(field)]
            elif field in knames:
                name = knames[field]
            else:
                raise self.error(recv, f"`format` field `{{{field}}}` is not one of its arguments "
                                 "(attributes and indexing in fields are not supported)", hint)  # fmt: skip
            if spec and "{" in spec:
                raise self.error(recv, "nested fields in a format spec are not supported", hint)
            src.append("{" + name + (f"!{conv}" if conv else "") + (f":{spec}" if spec else "") + "}")
        src.append("\"")
        try:
            fnode = cst.parse_expression("".join(src))
        except cst.ParserSyntaxError:
            raise self.error(recv, "cannot read this format string", hint) from None
        self.origin_tree([fnode], node)
        values = self.exprs([*pos, *kws.values()], env)
        inner = env.copy()
        bound = [*names, *knames.values()]
        for n in bound:
            inner.names[n] = Value(n, self.span(node), depth=env.depth)
        out = self.fstring(fnode, inner)
        for n, v in reversed(list(zip(bound, values, strict=True))):
            out = Let(n, v, out, span=self.span(node))
        return out

    def _args(self, node: cst.Call, names: tuple[str, ...], what: str) -> list[cst.BaseExpression]:
        """Positional arguments, keywords placed by ``names``; a gap is a diagnostic."""
        pos: list[cst.BaseExpression | None] = []
        for a in node.args:
            if a.star:
                raise self.reject(a, node)
            if a.keyword is None:
                pos.append(a.value)
                continue
            k = a.keyword.value
            if k not in names:
                raise self.error(
                    a, f"`{what}` takes no keyword argument `{k}` here", "pass it positionally"
                )
            i = names.index(k)
            while len(pos) <= i:
                pos.append(None)
            if pos[i] is not None:
                raise self.error(a, f"`{what}` got `{k}` twice", "pass it once")
            pos[i] = a.value
        if any(x is None for x in pos):
            raise self.error(
                node,
                f"`{what}`: pass the arguments before a keyword argument too",
                "pass them positionally",
            )
        return [x for x in pos if x is not None]

    def _method(self, node: cst.Call, recv: cst.BaseExpression, meth: str, env: Env) -> Expr:
        _t, lo, hi = STR_METHODS[meth]
        cargs = self._args(node, _KEYWORDS.get(meth, ()), f"str.{meth}")
        if not lo <= len(cargs) <= hi:
            want = f"{lo}" if lo == hi else f"{lo} to {hi}"
            raise self.error(
                node,
                f"wrong number of arguments for `str.{meth}`: {len(cargs)} given, {want} expected",
                f"see help(str.{meth})",
            )
        if meth == "join" and isinstance(cargs[0], (cst.List, cst.Set, cst.Dict)):
            raise self.error(cargs[0], "`join` takes a tuple here", "write `sep.join((a, b))`")
        if meth == "join":  # of a container's values: `"-".join(sorted(tags))`
            v = self.cview(cargs[0], env)  # type: ignore[attr-defined]
            if v is not None:
                self._need_order(v, cargs[0])  # type: ignore[attr-defined]
                (sep,) = self.exprs([recv], env)
                return Apply(Prim("str.join"), (sep, v.expr), span=self.span(node))
        parts = self.exprs([recv, *cargs], env)
        return Apply(Prim(f"str.{meth}"), tuple(parts), span=self.span(node))

    def _group(self, node: cst.Call, recv: cst.BaseExpression, env: Env) -> Expr:
        cargs = self._args(node, (), "group")
        if len(cargs) > 1:
            raise self.error(
                node, "`group` with several groups is not supported", "call `m.group(i)` per group"
            )
        idx: Expr = Lit(0)
        if cargs:
            if isinstance(cargs[0], (cst.SimpleString, cst.ConcatenatedString)):
                raise self.error(
                    cargs[0],
                    "named groups are not supported in `m.group(...)`",
                    "use the group's number, e.g. `m.group(1)`",
                )
            idx = self.expr(cargs[0], env)
        (m,) = self.exprs([recv], env)
        return Apply(Prim("match.group"), (m, idx), span=self.span(node))

    def _builtin_format(self, node: cst.Call, n: str, env: Env) -> Expr:
        cargs = self._args(node, (), n)
        lo, hi = (1, 2) if n == "format" else (1, 1)
        if not lo <= len(cargs) <= hi:
            raise self.error(node, f"wrong number of arguments for `{n}`", f"see help({n})")
        args = self.exprs(cargs, env)
        if n == "format" and len(args) == 1:
            args.append(Lit(""))
        return Apply(Prim(n), tuple(args), span=self.span(node))

    def re_call(self, node: cst.Call, meth: str, pattern: Any, env: Env) -> Expr:
        """``re.match(p, s)`` ... with a constant pattern, or ``P.match(s)`` of a module-level
        ``P = re.compile(p)``."""
        sp = self.span(node)
        if meth == "compile":
            raise self.error(
                node,
                "`re.compile` is used here as a value",
                "bind it to a name (`pat = re.compile(...)`) and call its methods",
            )
        if meth not in _RE_FUNCS:
            raise self.error(
                node.func,
                f"`re.{meth}` is not supported",
                "use re.match, re.search, re.fullmatch, re.sub, re.findall or re.split",
            )
        names, required = _RE_FUNCS[meth]
        if pattern is None:
            cargs = self._args(node, ("pattern", *names), f"re.{meth}")
            if len(cargs) < required + 1 or len(cargs) > len(names) + 1:
                raise self.error(node, f"wrong number of arguments for `re.{meth}`",
                                 f"see help(re.{meth})")  # fmt: skip
            pnode, rest = cargs[0], cargs[1:]
            (p,) = self.exprs([pnode], env)
            if not (isinstance(p, Lit) and isinstance(p.value, str)):
                raise self.error(
                    pnode,
                    "the pattern of `re." + meth + "` must be a constant string",
                    "write the pattern as a literal or a module-level constant",
                )
            text, flags_given = p.value, None
        else:
            names = tuple(x for x in names if x != "flags")
            cargs = self._args(node, names, f"{code_of(node.func)}")
            if len(cargs) < required or len(cargs) > len(names):
                raise self.error(node, f"wrong number of arguments for `{code_of(node.func)}`",
                                 "pos and endpos are not supported")  # fmt: skip
            if not isinstance(pattern.pattern, str):
                raise self.error(node, "bytes patterns are not supported", "use a str pattern")
            rest, text, flags_given = cargs, pattern.pattern, int(pattern.flags) & ~re.UNICODE
        vals = self.exprs(rest, env)
        by_name = dict(zip(names, vals, strict=False))
        for k in ("flags", "count", "maxsplit"):
            if k in by_name and not (
                isinstance(by_name[k], Lit) and isinstance(by_name[k].value, int)
            ):
                raise self.error(
                    node, f"`{k}` of `re.{meth}` must be a constant int", "write it as a literal"
                )
        flags = flags_given if flags_given is not None else int(by_name.get("flags", Lit(0)).value)
        try:
            compiled = re.compile(text, flags)
        except (re.error, ValueError) as e:
            raise self.error(node, f"invalid regular expression: {e}", "fix the pattern") from None
        if meth == "findall" and compiled.groups > 1:
            raise self.error(
                node,
                "`findall` with several groups (a list of tuples) is not supported",
                "use one group, or re.match per value",
            )
        pat = Lit(text)
        fl = Lit(int(flags))
        s = by_name["string"]
        if meth in ("match", "search", "fullmatch", "findall"):
            args: tuple[Expr, ...] = (pat, s, fl)
        elif meth == "sub":
            count = by_name.get("count", Lit(0))
            args = (pat, by_name["repl"], s, count, fl)
        else:
            args = (pat, s, by_name.get("maxsplit", Lit(0)), fl)
        return Apply(Prim(f"re.{meth}"), args, span=sp)

    # -- expressions ---------------------------------------------------------------------
    def fstring(self, node: cst.BaseExpression, env: Env) -> Expr:
        """An f-string as a concatenation of its text and ``str``/``format`` of each value."""
        sp = self.span(node)
        try:
            tree = ast.parse(code_of(node).strip(), mode="eval").body
        except SyntaxError:
            raise self.error(node, "cannot read this f-string", "simplify it") from None
        values = list(tree.values) if isinstance(tree, ast.JoinedStr) else []
        exprs = _fstring_exprs(node)
        formatted = [v for v in values if isinstance(v, ast.FormattedValue)]
        if len(formatted) != len(exprs):
            raise self.error(node, "cannot read this f-string", "build the string with str() and +")
        it = iter(exprs)
        pieces: list[Expr] = []
        for v in values:
            if isinstance(v, ast.Constant):
                if v.value:
                    pieces.append(Lit(str(v.value), span=sp))
                continue
            assert isinstance(v, ast.FormattedValue)
            cexpr = next(it)
            spec = ""
            if v.format_spec is not None:
                assert isinstance(v.format_spec, ast.JoinedStr)
                if not all(isinstance(x, ast.Constant) for x in v.format_spec.values):
                    raise self.error(
                        cexpr.format_spec[0] if cexpr.format_spec else cexpr,
                        "a format spec with `{...}` inside is not supported",
                        "write the spec as a constant, e.g. `{x:>8}`",
                    )
                spec = "".join(str(x.value) for x in v.format_spec.values)  # type: ignore[attr-defined]
            x = self.expr(cexpr.expression, env)
            conv = {-1: None, 115: "str", 114: "repr", 97: "ascii"}[v.conversion]
            if conv is not None:
                x = Apply(Prim(conv), (x,), span=sp)
            if spec:
                x = Apply(Prim("format"), (x, Lit(spec)), span=sp)
            elif conv is None:
                x = Apply(Prim("str"), (x,), span=sp)  # format(x, "") is str(x) for our types
            pieces.append(x)
        if not pieces:
            return Lit("", span=sp)
        out = pieces[0]
        for p in pieces[1:]:
            out = Apply(Prim("add"), (out, p), span=sp)
        return out

    def percent_format(self, node: cst.BinaryOperation, text: str, env: Env) -> Expr:
        """``"n=%d" % x``, ``"%s: %.2f" % (a, b)`` with a constant format: its text and one
        ``pct`` primitive per conversion (``%d`` / ``%i``, ``%s``, ``%f``, ``%.Nf``; ``%%``
        is a ``%``), added up as an f-string is. The backend lowers each conversion by the
        value's type to what ``str(int(x))``, ``str(x)`` and ``format(x, ".Nf")`` make of it
        (a str under ``%d`` or ``%f`` is its diagnostic: Python raises TypeError)."""
        sp = self.span(node)
        hint = 'use an f-string, e.g. f"{x:>5}", or str() and +'
        pieces: list[Expr | str] = []
        pos = 0
        for m in _PERCENT.finditer(text):
            pieces.append(text[pos : m.start()])
            pos = m.end()
            if m[0] == "%%":
                pieces.append("%")
            elif m[1] is None:
                spec = m[0] if len(m[0]) < 16 else m[0][:16] + "..."
                raise self.error(node.left, f"the `%` conversion `{spec}` is not supported "
                                 "(only %d, %i, %s, %f, %.<digits>f and %%)", hint)  # fmt: skip
            else:
                pieces.append(m[1].replace("i", "d"))  # a conversion: filled below
        pieces.append(text[pos:])
        wanted = sum(1 for i, p in enumerate(pieces) if i % 2 and p != "%")
        right = node.right
        if isinstance(right, cst.Tuple):
            if any(isinstance(el, cst.StarredElement) for el in right.elements):
                raise self.error(right, "`*` in the values of `%` formatting is not supported",
                                 "list the values")  # fmt: skip
            values = self.exprs([el.value for el in right.elements], env)
        elif wanted <= 1:
            values = self.exprs([right], env)  # one value (a tuple value is the backend's error)
        else:
            raise self.error(right, f"this format has {wanted} conversions; give its values as "
                             "a tuple", f"write `... % ({', '.join('v' for _ in range(wanted))})`")  # fmt: skip
        if len(values) != wanted:
            few = "not enough arguments for" if len(values) < wanted else "not all arguments converted in"
            counts = f"{wanted} conversion{'s' * (wanted != 1)}, {len(values)} value{'s' * (len(values) != 1)}"
            raise self.error(node, f"{few} the format string ({counts}): Python raises TypeError",
                             "give one value per conversion")  # fmt: skip
        it = iter(values)
        parts: list[Expr] = []
        literal = ""
        for i, p in enumerate(pieces):
            if i % 2 == 0 or p == "%":
                literal += p
                continue
            if literal:
                parts.append(Lit(literal, span=sp))
                literal = ""
            parts.append(Apply(Prim("pct"), (next(it), Lit(p)), span=sp))
        if literal or not parts:
            parts.append(Lit(literal, span=sp))
        out = parts[0]
        for x in parts[1:]:
            out = Apply(Prim("add"), (out, x), span=sp)
        return out

    def condition(self, node: cst.BaseExpression, env: Env) -> Expr:
        """The test of an ``if``: operands of ``and``/``or`` other than comparisons are
        tested with ``bool()``, so ``if s and s[0] != "#":`` on a str ``s`` is a bool (the
        same truth value) rather than a value that is a str or a bool."""
        if not isinstance(node, cst.BooleanOperation):
            return self.truth_test(node, env)  # type: ignore[attr-defined]
        sp = self.span(node)
        parts = []
        for x in (node.left, node.right):
            if isinstance(x, (cst.BooleanOperation, cst.Comparison)) or (
                isinstance(x, cst.UnaryOperation) and isinstance(x.operator, cst.Not)
            ):
                parts.append(self.condition(x, env))
            else:
                test = self.truth_test(x, env)  # type: ignore[attr-defined]
                parts.append(Apply(Prim("bool"), (test,), span=self.span(x)))
        left, right = parts
        tmp = self.fresh("b")
        if isinstance(node.operator, cst.And):
            ife = if_expr(Var(tmp), right, Var(tmp), sp)
        else:
            ife = if_expr(Var(tmp), Var(tmp), right, sp)
        return Let(tmp, left, ife, span=sp)

    def string_subscript(self, node: cst.Subscript, env: Env) -> Expr | None:
        """``s[a:b]``, ``s[a:b:c]`` and ``s[i]`` with a computed index (a literal index is
        ``nth``); None for other subscripts."""
        if len(node.slice) != 1:
            return None
        if isinstance(node.value, cst.Name) and isinstance(
            env.names.get(node.value.value), Container
        ):
            return None
        el = node.slice[0].slice
        sp = self.span(node)
        if isinstance(el, cst.Slice):
            parts = [node.value, *(x for x in (el.lower, el.upper, el.step) if x is not None)]
            got = iter(self.exprs(parts, env))
            base = next(got)
            lo, hi, step = (next(got) if x is not None else Lit(None)
                            for x in (el.lower, el.upper, el.step))  # fmt: skip
            return Apply(Prim("slice"), (base, lo, hi, step), span=sp)
        if isinstance(el, cst.Index) and not _int_literal_like(el.value):
            base, idx = self.exprs([node.value, el.value], env)
            return Apply(Prim("getitem"), (base, idx), span=sp)
        return None

    def string_in(self, comparator: cst.BaseExpression, env: Env) -> bool:
        """Is ``x in comparator`` a substring (or element) test rather than a tuple test?"""
        if isinstance(comparator, cst.Tuple):
            return False
        return not (
            isinstance(comparator, cst.Name)
            and isinstance(env.names.get(comparator.value), Container)
        )


# a `%` conversion the language takes: %d %i %s %f %.<digits>f, or %% (else a diagnostic)
_PERCENT = re.compile(r"%(?:([disf]|\.\d+f)|%|(?:\([^)]*\))?[^%a-zA-Z]{0,20}[a-zA-Z]?)")


def is_fstring(node: cst.CSTNode) -> bool:
    """An f-string, or a concatenation of string literals holding one."""
    if isinstance(node, cst.ConcatenatedString):
        return is_fstring(node.left) or is_fstring(node.right)
    return isinstance(node, cst.FormattedString)


def _int_literal_like(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.Integer):
        return True
    return (
        isinstance(node, cst.UnaryOperation)
        and isinstance(node.operator, cst.Minus)
        and isinstance(node.expression, cst.Integer)
    )


def _fstring_exprs(node: cst.CSTNode) -> list[cst.FormattedStringExpression]:
    """The ``{...}`` parts of an f-string (or of a concatenation holding f-strings), in order."""
    if isinstance(node, cst.ConcatenatedString):
        return _fstring_exprs(node.left) + _fstring_exprs(node.right)
    if isinstance(node, cst.FormattedString):
        return [p for p in node.parts if isinstance(p, cst.FormattedStringExpression)]
    return []
