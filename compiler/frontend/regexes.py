"""``re.compile`` of a constant pattern, in the function or inline: ``pat = re.compile(CONST,
re.I | re.M)`` binds ``pat`` to the pattern the compiler compiles (an ``env.Pattern``), and
``pat.match(s)`` / ``pat.sub(r, s)`` / ... are the ``re`` functions with that constant
pattern (``strings.py``'s ``re_call``, the table's ``re.*`` entries), as for a module-level
``PAT = re.compile(...)``.
"""

from __future__ import annotations

import re

import libcst as cst

from ..ir.nodes import Lit
from .base import Context
from .env import Env

__all__ = ["RegexMixin"]


class RegexMixin(Context):
    """Constant patterns compiled by ``re.compile`` inside an algorithm."""

    def local_pattern(self, value: cst.BaseExpression, env: Env) -> re.Pattern | None:
        """``re.compile(CONST)`` / ``re.compile(CONST, flags)`` in the function: the pattern
        compiled now (as Python would, every time, to the same pattern), else None."""
        if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
                and isinstance(value.func.value, cst.Name)
                and value.func.value.value not in env.names
                and value.func.attr.value == "compile"
                and self.global_obj(value.func.value.value) is re):  # fmt: skip
            return None
        cargs = self._args(value, ("pattern", "flags"), "re.compile")  # type: ignore[attr-defined]
        if not cargs or len(cargs) > 2:
            raise self.error(value, "wrong number of arguments for `re.compile`",
                             "write `re.compile(pattern, flags)`")  # fmt: skip
        consts = [self._re_flags(c) if i else None for i, c in enumerate(cargs)]
        vals = [Lit(k) if k is not None else v
                for k, v in zip(consts, self.exprs([c for c, k in zip(cargs, consts, strict=True)
                                                    if k is None], env) + [None] * 2,
                                strict=False)]  # fmt: skip
        if not (isinstance(vals[0], Lit) and isinstance(vals[0].value, str)):
            raise self.error(cargs[0], "the pattern of `re.compile` must be a constant string",
                             "write the pattern as a literal or a module-level constant")  # fmt: skip
        flags = vals[1] if len(vals) > 1 else Lit(0)
        if not (isinstance(flags, Lit) and isinstance(flags.value, int)):
            raise self.error(cargs[1], "the flags of `re.compile` must be a constant",
                             "write them as `re.I | re.M`")  # fmt: skip
        try:
            return re.compile(vals[0].value, flags.value)
        except (re.error, ValueError) as e:
            raise self.error(value, f"invalid regular expression: {e}", "fix the pattern") from None

    def _re_flags(self, node: cst.BaseExpression) -> int | None:
        """``re.I | re.M`` (``re``'s flags and ``|``) as the int it is, else None."""
        if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.BitOr):
            a, b = self._re_flags(node.left), self._re_flags(node.right)
            return None if a is None or b is None else a | b
        if (isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name)
                and self.global_obj(node.value.value) is re):  # fmt: skip
            flag = getattr(re, node.attr.value, None)
            return int(flag) if isinstance(flag, re.RegexFlag) else None
        return None
