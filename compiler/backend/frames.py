"""Frames and joins: where each value of a plan lives, and how it reaches another scope.

Every value lives in the *frame* of its scope (:data:`~..dataflow.payloads.FrameKey`):
the rows frame holds one row per input row (all per-row code of every loop),
a group frame one row per key of its ``group_by`` scope (keyed by the source
fields of the enclosing keys), and the global frame a single row. A value used
in a deeper scope is joined in on the shallower scope's key (thesis §5.2.3),
or broadcast from the global frame. Frames only gain columns, never lose rows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...sqltext import param_ref
from ..analysis import LoopKind
from ..dataflow.payloads import GLOBAL, ROWS, FrameKey, GroupFrame, frame_key
from ..ir.nodes import Apply, Host, Lit, Prim, StateCall, Var
from ..names import is_temp, user_name
from .errors import BackendError
from .fold import fold_free
from .frame import SRC, Frame, spark_col
from .guarded import cheap
from .sql import SqlRenderer, quote_ident

if TYPE_CHECKING:
    from ..operators import StateOperator

__all__ = ["Frame", "FramesMixin", "SRC", "spark_col"]

# column names of temporaries made by an operator
_OP_NAMES = {"add": "total", "sub": "difference", "mul": "product", "truediv": "ratio",
             "floordiv": "quotient", "mod": "remainder", "pow": "power", "neg": "negated",
             "round": "rounded", "tuple": "pair", "nth": "item", "str": "text", "int": "whole",
             "float": "real", "len": "length", "min": "least", "max": "greatest"}  # fmt: skip


class FramesMixin:
    """Frame bookkeeping of a plan (values as columns, joins); a mixin of the planner, typed
    against the :class:`~.context.PlanContext` it is part of."""

    def frame_key(self, loops: tuple[str, ...]) -> FrameKey:
        return frame_key(self.a, loops)

    def key_cols(self, fk: FrameKey) -> tuple[str, ...]:
        if not isinstance(fk, GroupFrame):
            return ()
        out: list[str] = []
        for loop in fk.loops:
            for f in self.a.loops[loop].key:
                for c in (self.field_col(f), self.nan_key_col(f)):
                    if c is not None and c not in out:
                        out.append(c)
        return tuple(out)

    def frame_base(self, fk: FrameKey) -> str:
        """The variable name of a frame in the generated code: rows, by_<key>, single."""
        if fk == ROWS or (fk in self.frames and self.frames[fk] is self.frames.get(ROWS)):
            return "rows"
        return "single" if fk == GLOBAL else "by_" + "_".join(self.key_cols(fk))

    def col_for(self, name: str) -> str:
        b = self.a.bound.get(name)
        wanted = user_name(name, keep_callee=False)
        if is_temp(name) and not name.endswith(".carry"):
            wanted = self._temp_name(name, b)
        return self.columns.get(name, wanted)

    def _temp_name(self, name: str, b) -> str:  # noqa: ANN001
        """A compiler temporary's column: after the state read it holds or the operation
        that makes it (``ratio``, ``exp``, ``rounded`` ...), ``cond`` for a condition."""
        v = b.value if b is not None else None
        if isinstance(v, Apply) and isinstance(v.fn, StateCall):
            state = user_name(v.fn.state, keep_callee=False)
            return f"{state}_{v.fn.method}"
        if self.ty.of(Var(name)) == "bool":
            return "cond"
        while isinstance(v, Apply) and v.fn == Prim("c_unpack"):  # `a, b = x`: after x
            v = v.args[0]
        if isinstance(v, Apply) and isinstance(v.fn, Prim):
            op = v.fn.op
            return _OP_NAMES.get(op, op.removeprefix("math."))
        if isinstance(v, Apply) and isinstance(v.fn, Host):
            return v.fn.ref.rsplit(":", 1)[-1].rsplit(".", 1)[-1]
        return "tmp"

    def step(self, fk: FrameKey, code: str, comment: str = "") -> None:
        """Emit ``<new frame var> = <code>`` (:data:`SRC` in code is the frame's variable)."""
        fr = self.frames[fk]
        new = self.py.fresh(self.frame_base(fk))
        self.emit(f"{new} = {code.replace(SRC, fr.var)}" + (f"  # {comment}" if comment else ""))
        fr.var = new

    # -- frames ------------------------------------------------------------------
    def frame(self, fk: FrameKey) -> Frame:
        if fk in self.frames:
            return self.frames[fk]
        if fk == ROWS:
            raise BackendError("no input relation")
        if self.windowed(fk):  # the rows frame itself (backend/group_windows.py)
            return self.frames[fk]
        # a group frame (or global): based on its first independent operator, else distinct keys
        keys = self.key_cols(fk)
        for op in self.ops:
            if self.frame_key(op.scope) == fk and op.actions and self._independent(op):
                self.materialize_op(op)
                return self.frames[fk]
        var = self.py.fresh(self.frame_base(fk))
        if fk == GLOBAL:
            self.emit(f"{var} = spark.range(1).select()  # the single global row")
        else:
            cols = ", ".join(repr(k) for k in keys)
            self.emit(
                f"{var} = {self.frame(ROWS).var}.select({cols}).distinct()  # one row per key"
            )
        self.frames[fk] = Frame(var, keys)
        return self.frames[fk]

    def _independent(self, op: StateOperator) -> bool:
        """Its map part needs nothing computed at its own scope (so it can be a base)."""
        fk = self.frame_key(op.scope)
        if any(self.frame_key(a.loops) == fk for a in op.actions):
            return False  # actions at the scope itself need the scope's frame
        free = set(op.free)
        for st in op.states:
            free |= {x.name for x in self.a.states[st].args if isinstance(x, Var)}
        if op.ordered:  # its fold (or Python loop) takes every free value of the loop body,
            # those only its yields use too
            free |= set(fold_free(self.a, op, self.scalar_params))
        for n in free:
            if self.is_constant(n):
                continue
            b = self.a.bound.get(n)
            if b is None or b.value is None:
                continue
            if self.frame_key(b.loops) == fk or self._depends_on_frame(n, fk):
                return False
        return True

    def _depends_on_frame(self, name: str, fk: FrameKey, seen: set[str] | None = None) -> bool:
        seen = seen if seen is not None else set()
        if name in seen:
            return False
        seen.add(name)
        b = self.a.bound.get(name)
        if b is None or b.value is None:
            return False
        if self.frame_key(b.loops) == fk:
            return True
        return any(self._depends_on_frame(d, fk, seen) for d in self.a.deps.get(name, ()))

    # -- values ------------------------------------------------------------------
    def renderer(self, fk: FrameKey) -> SqlRenderer:
        return SqlRenderer(self.a, self.ty, lambda n: self.resolve(n, fk), self.refs, self.pycalls,
                           conds=list(self.known_sql.get(fk, ())),
                           reads_matches=fk in self.known)  # fmt: skip

    def resolve(self, name: str, fk: FrameKey) -> str | None:
        """SQL for ``name`` inside frame ``fk`` (a column), or None to inline its value."""
        if name in self.scalar_params:
            return param_ref(name)
        b = self.a.bound.get(name)
        if b is None:
            raise BackendError(f"unknown value {name}")
        if b.value is None:
            return self._loop_param(name, fk)
        if name in self.a.streams:
            raise BackendError(f"stream `{user_name(name)}` used as a value", b.span)
        if self.is_constant(name):
            return None  # a constant (of literals and parameters): inlined wherever used
        home = self.frame_key(b.loops)
        v = b.value
        is_read = isinstance(v, Apply) and isinstance(v.fn, StateCall)
        if not is_read and home == fk and is_temp(name) and self.uses.get(name, 0) <= 1:
            # a condition that guards other values is repeated in each guard: inlined only
            # when short (else a column, computed and written once)
            if not self.unknown_guards(fk, b.guards) and (self.guard_uses.get(name, 0) == 0
                                 or cheap(self.renderer(fk).expr(v))):  # fmt: skip
                return None
        self.materialize(name)
        home = self.read_home.get(name, home)
        if home != fk:
            self.import_into(fk, home, name)
        return quote_ident(self.col_for(name))

    def is_constant(self, name: str, depth: int = 0) -> bool:
        """Is the value a pure function of literals and scalar parameters?"""
        if name in self._const_memo:
            return self._const_memo[name]
        b = self.a.bound.get(name)
        v = b.value if b is not None else None
        ok = False
        if name in self.scalar_params:
            ok = True
        elif v is None or b.guards or depth > 30:
            ok = False
        elif isinstance(v, Lit):
            ok = True
        elif isinstance(v, Var):
            ok = self.is_constant(v.name, depth + 1)
        elif isinstance(v, Apply) and isinstance(v.fn, Prim):
            ok = all(
                isinstance(x, Lit) or (isinstance(x, Var) and self.is_constant(x.name, depth + 1))
                for x in v.args
            )
        self._const_memo[name] = ok
        return ok

    def _loop_param(self, name: str, fk: FrameKey) -> str:
        for lp in self.a.loops.values():
            if name in lp.params:
                if lp.kind == LoopKind.ROWS:
                    if fk != ROWS:
                        raise BackendError(f"row field {user_name(name)} used outside its loop")
                    return quote_ident(self.field_col(lp.fields[lp.params.index(name)]))
                if name == lp.params[0]:
                    cols = [quote_ident(self.field_col(f)) for f in lp.key]
                    if len(cols) == 1:
                        return cols[0]
                    inner = ", ".join(f"'_{i + 1}', {c}" for i, c in enumerate(cols))
                    return f"named_struct({inner})"
                raise BackendError(f"group `{user_name(name)}` used as a value", lp.span)
        raise BackendError(f"unbound parameter {name}")

    def materialize(self, name: str) -> None:
        """Make ``name`` a column of its home frame."""
        b = self.a.bound[name]
        v = b.value
        if isinstance(v, Apply) and isinstance(v.fn, StateCall):
            op = self.op_of_state[v.fn.state]
            if op.ordered and len(b.loops) > len(op.scope):
                raise BackendError(
                    "in-loop state reads are internal to the ordered operator", b.span
                )
            self.materialize_op(op)
            return
        home = self.frame_key(b.loops)
        fr = self.frame(home)
        if name in fr.cols:
            return
        r = self.renderer(home)
        with r.under(self.unknown_guards(home, b.guards)) as guard:
            sql = r.expr(v)
        if guard is not None:
            sql = f"CASE WHEN {guard} THEN {sql} END"
        col = self.col_for(name)
        self.step(home, f"{SRC}.withColumn({col!r}, E({sql!r}))")
        self.frames[home].cols.add(name)

    def import_into(self, fk: FrameKey, home: FrameKey, name: str) -> None:
        fr = self.frame(fk)
        if name in fr.cols:
            return
        src = self.frame(home)
        cols = sorted(c for c in src.cols if c not in fr.cols)
        names = [self.col_for(c) for c in cols]
        sel = ", ".join(repr(c) for c in (*src.keys, *names))
        if fk == ROWS and home in self.broadcast_frames and fr.var == self.entry_var:
            # the broadcast aggregate reads every row after the entry's null checks; the
            # rows it joins back to need not run them again
            unchecked = self.py.fresh(self.frame_base(fk))
            self.emit(f"{unchecked} = {self.entry}, checked=False)  # null checks: once, in the broadcast aggregate")
            fr.var = unchecked
        if home == GLOBAL:
            self.step(fk, f"{SRC}.crossJoin(F.broadcast({src.var}.select({sel})))",
                      f"global values into scope {self.scope_text(fk)}")  # fmt: skip
        else:
            self.step(fk, f"ll.join_on_keys({SRC}, {src.var}.select({sel}), {self.join_keys(src.keys, home)})",
                      f"scope {self.scope_text(home)} values, joined on its key")  # fmt: skip
        self.frames[fk].cols.update(cols)

    def scope_text(self, fk: FrameKey) -> str:
        if fk == ROWS:
            return "rows"
        return "global" if fk == GLOBAL else "[" + ", ".join(self.key_cols(fk)) + "]"
