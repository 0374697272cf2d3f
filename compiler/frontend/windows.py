"""``tumble(...)``, ``hop(...)`` and ``session(...)`` of ``looplift.windows`` with constant
durations: the table's ``win.tumble`` / ``win.hop`` entries (``primitives/windows.py``:
their partiality and lowering) and ``win.session`` (``win.session(ts, gap, kind)``: a
group key part only, planned by ``backend/sessions.py``).

Transforms this::

    for (user, w), g in group_by(lambda c: (c.user_id, tumble(c.ts, minutes=5)), clicks):
    for w in hop(ts, size=timedelta(hours=1), slide=STEP):

into::

    win.tumble(c.ts, 300000000, 0, 'td')              # microseconds, kind "td"
    for w in win.hop(ts, 3600000000, 300000000, 0, 'td'):
    win.session(c.ts, 1800000000, 'td')               # session(c.ts, gap=timedelta(minutes=30))

The durations are read at compile time: int literals, module-level constants (ints or
timedeltas), ``timedelta(...)`` of those and ``+ - * // **`` between them. A call of another
shape (a computed duration, keyword durations beside ``size=``, durations of both kinds)
gets a diagnostic: its statement runs as a Python island (the function itself, exact),
which ``strict=True`` refuses.
"""

from __future__ import annotations

import datetime
import operator
from typing import Any

import libcst as cst
from looplift import windows

from ..ir.nodes import Apply, Expr, Lit, Prim
from .base import Context
from .env import Env
from .syntax import MISSING

__all__ = ["WindowMixin", "WINDOW_FUNCS"]

WINDOW_FUNCS = {windows.tumble: "win.tumble", windows.hop: "win.hop", windows.session: "win.session"}
_KEYWORDS = ("weeks", "days", "hours", "minutes", "seconds", "milliseconds", "microseconds")
_BINOPS = {cst.Add: operator.add, cst.Subtract: operator.sub, cst.Multiply: operator.mul,
           cst.FloorDivide: operator.floordiv, cst.Power: operator.pow}  # fmt: skip
_US = datetime.timedelta(microseconds=1)


class WindowMixin(Context):
    """Calls of the window functions."""

    def window_call(self, node: cst.Call, op: str, env: Env) -> Expr:
        name = op[4:]
        params = {"win.tumble": ("ts", "size"), "win.hop": ("ts", "size", "slide"),
                  "win.session": ("ts", "gap")}[op]  # fmt: skip
        given: dict[str, cst.BaseExpression] = {}
        for i, a in enumerate(node.args):
            key = a.keyword.value if a.keyword is not None else params[i] if i < len(params) else None
            allowed = (*params, *(("offset",) if op != "win.session" else ()),
                       *(_KEYWORDS if op == "win.tumble" else ()))  # fmt: skip
            if a.star or key is None or key not in allowed or key in given:
                raise self.error(a, f"unsupported argument for `{name}(...)`",
                                 f"pass {', '.join(allowed)}")  # fmt: skip
            given[key] = a.value
        if "ts" not in given:
            raise self.error(node, f"`{name}(...)` needs the timestamp", f"write `{name}(ts, ...)`")
        values = {k: self._window_const(v, env, name) for k, v in given.items() if k != "ts"}
        keywords = {k: v for k, v in values.items() if k in _KEYWORDS}
        if keywords and "size" in values:
            raise self.error(node, "`tumble(...)` takes size= or keyword durations, not both",
                             "write `tumble(ts, minutes=5)` or `tumble(ts, size=...)`")  # fmt: skip
        if keywords:
            try:
                values["size"] = datetime.timedelta(**keywords)
            except (OverflowError, TypeError, ValueError) as e:
                raise self.error(node, f"the window size of `tumble(...)` is invalid: {e}",
                                 "give whole numbers of a sensible size") from None  # fmt: skip
        missing = [p for p in params[1:] if p not in values]
        if missing:
            raise self.error(node, f"`{name}(...)` needs {', '.join(missing)}",
                             "give the window's durations, e.g. `minutes=5` or `size=timedelta(hours=1)`")  # fmt: skip
        durations = [values[p] for p in params[1:]]
        if op != "win.session":
            durations.append(values.get("offset"))
        kinds = {type(d) for d in durations if d is not None}
        if len(kinds) != 1 or not kinds <= {int, datetime.timedelta}:
            raise self.error(node, f"the durations of `{name}(...)` must all be timedeltas "
                             "(for datetime timestamps) or all ints (for int timestamps)",
                             "write them as `timedelta(...)` values or as ints")  # fmt: skip
        kind = "td" if kinds == {datetime.timedelta} else "int"
        ints = [0 if d is None else d // _US if kind == "td" else d for d in durations]
        if op == "win.session" and ints[0] <= 0:
            raise self.error(node, "the gap of `session(...)` must be positive",
                             "write e.g. `session(ts, gap=timedelta(minutes=30))`")  # fmt: skip
        (ts,) = self.exprs([given["ts"]], env)  # type: ignore[attr-defined]
        args = (ts, *(Lit(v) for v in ints), Lit(kind))
        return Apply(Prim(op), args, span=self.span(node))

    def _window_const(self, node: cst.BaseExpression, env: Env, name: str) -> Any:
        got = self._const_duration(node, env)
        if got is MISSING or isinstance(got, bool) or not isinstance(got, (int, float, datetime.timedelta)):
            raise self.error(node, f"the durations of `{name}(...)` must be constants",
                             "write a literal, a module-level constant or timedelta(...) of them")  # fmt: skip
        return got

    def _const_duration(self, node: cst.BaseExpression, env: Env) -> Any:
        """The value of a constant duration expression, or MISSING."""
        if isinstance(node, (cst.Integer, cst.Float)):
            return node.evaluated_value
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
            v = self._const_duration(node.expression, env)
            return MISSING if v is MISSING else -v
        if isinstance(node, cst.BinaryOperation) and type(node.operator) in _BINOPS:
            a, b = self._const_duration(node.left, env), self._const_duration(node.right, env)
            if a is MISSING or b is MISSING:
                return MISSING
            try:
                return _BINOPS[type(node.operator)](a, b)
            except (ArithmeticError, TypeError):
                return MISSING
        if isinstance(node, (cst.Name, cst.Attribute)):
            v = self._global_dotted(node, env)  # type: ignore[attr-defined]
            return v if isinstance(v, (int, float, datetime.timedelta)) else MISSING
        if isinstance(node, cst.Call) and self._global_dotted(node.func, env) is datetime.timedelta:  # type: ignore[attr-defined]
            pos, kw = [], {}
            for a in node.args:
                v = self._const_duration(a.value, env)
                if v is MISSING or a.star:
                    return MISSING
                if a.keyword is None:
                    pos.append(v)
                else:
                    kw[a.keyword.value] = v
            try:
                return datetime.timedelta(*pos, **kw)
            except (OverflowError, TypeError, ValueError):
                return MISSING
        return MISSING
