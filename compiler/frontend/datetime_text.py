"""``datetime.datetime.strptime(s, FORMAT)`` and ``t.strftime(FORMAT)`` with constant formats:
the table's ``dt.strptime`` / ``dt.strftime`` entries (``primitives/datetimes.py``: their
partiality, ValueError where the string does not match, and their lowering).

Transforms this::

    t = datetime.strptime(s, "%Y-%m-%d")      # from datetime import datetime, or
    day = t.strftime("%d.%m.%Y")              # datetime.datetime.strptime(...)

into::

    let t = dt.strptime(s, '%Y-%m-%d') in
    let day = dt.strftime(t, '%d.%m.%Y') in ...
"""

from __future__ import annotations

import datetime
from typing import Any

import libcst as cst

from ..ir.nodes import Apply, Expr, Lit, Prim
from .base import Context
from .env import Env
from .syntax import MISSING

__all__ = ["DatetimeTextMixin"]


class DatetimeTextMixin(Context):
    """``strptime`` / ``strftime`` calls."""

    def datetime_text_call(self, node: cst.Call, env: Env) -> Expr | None:
        """The IR of a ``strptime`` / ``strftime`` call, or None when ``node`` is neither."""
        func = node.func
        if not isinstance(func, cst.Attribute) or func.attr.value not in ("strptime", "strftime"):
            return None
        meth = func.attr.value
        owner = self._global_dotted(func.value, env)
        if meth == "strptime" and owner is not datetime.datetime:
            return None
        if meth == "strftime" and owner is not MISSING:
            return None  # a module's or class's strftime: not a datetime value's
        want = 2 if meth == "strptime" else 1
        if len(node.args) != want or any(a.keyword or a.star for a in node.args):
            raise self.error(node, f"`{meth}` takes {want} positional argument"
                             f"{'s' if want > 1 else ''} here",
                             f"write `{'datetime.strptime(s, FORMAT)' if want > 1 else 't.strftime(FORMAT)'}`")  # fmt: skip
        fmt_node = node.args[-1].value
        (fmt,) = self.exprs([fmt_node], env)  # type: ignore[attr-defined]
        if not (isinstance(fmt, Lit) and isinstance(fmt.value, str)):
            raise self.error(fmt_node, f"the format of `{meth}` must be a constant string",
                             "write the format as a literal or a module-level constant")  # fmt: skip
        first = node.args[0].value if meth == "strptime" else func.value
        (value,) = self.exprs([first], env)  # type: ignore[attr-defined]
        return Apply(Prim(f"dt.{meth}"), (value, fmt), span=self.span(node))

    def _global_dotted(self, node: cst.BaseExpression, env: Env) -> Any:
        """The module-level object ``node`` names (``datetime``, ``datetime.datetime``), or
        MISSING when it is a local or no dotted name of a global."""
        if isinstance(node, cst.Name):
            if node.value in env.names or node.value in env.loop_locals:
                return MISSING
            return self.global_obj(node.value)
        if isinstance(node, cst.Attribute):
            base = self._global_dotted(node.value, env)
            return MISSING if base is MISSING else getattr(base, node.attr.value, MISSING)
        return MISSING
