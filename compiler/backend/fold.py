"""An ordered loop as one native fold: Spark's ``aggregate`` over the scope's sorted rows.

An ordered loop whose carried values are scalars (carried locals, and additive
library states such as the ``Count`` of ``n += 1``) and whose body is native
expressions and ``if``/``else`` over them is a fold: the carries are the fields
of a struct accumulator, and one iteration of the body is one step function
from the accumulator and a row to the next accumulator. The body is executed
*symbolically* here, in program order: every ``x.get()`` reads the carry's
value at that point (an update earlier in the same iteration included), every
update replaces the carry's SQL, and the updates of the two branches of an
``if`` merge into ``CASE WHEN cond THEN then_value ELSE else_value END``.

The plan then is, per scope key (SPEC §7)::

    aggregate(sort_array(collect_list(struct(order fields, other fields, free values))),
              named_struct(<carries' initial values>),
              (_fa, _fr) -> named_struct(<carries after one iteration>),
              _fa -> named_struct(<the readers after the loop>))

Rows yielded inside the loop are appended to an array field of the
accumulator (``_out``) and exploded back to rows (``inline``). Python's
semantics hold as everywhere (overflow raises, comparisons with None raise,
``//`` floors): each expression is rendered by :class:`SqlRenderer`.

Each carry's form (how one iteration updates it: ``set``, ``add``, ``cset``, ``reset``,
...) is recorded as the body is executed: :mod:`.fold_window` reads from the forms the
window functions the yielded rows can be, :mod:`.boundary` the boundary positions.

What cannot be a fold (a host function or a Python string function in the
body: Spark cannot call Python inside a lambda; a container, user or library
action state; a nested loop; a carry that is not a scalar) raises
:class:`NotFoldable` with the reason; the loop then runs in Python per scope
key (:mod:`.strategies.ordered`), and ``--explain`` says why.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from looplift.kernels import portable

from ..analysis import Analysis
from ..errtext import raise_sql
from ..ir.nodes import (
    CARRY,
    Apply,
    Builtin,
    Expr,
    Host,
    Lambda,
    Let,
    Lit,
    ParamKind,
    Prim,
    StateCall,
    Var,
)
from ..ir.traverse import free_vars, walk
from ..names import user_name
from ..operators import StateClassInfo, StateOperator
from .errors import BackendError
from .fold_model import ACC, ROW, Carry, Fold, NotFoldable, Window, WindowCarry, WindowForm
from .fold_window import window_of
from .loopbody import loop_lambda
from .rows import tuple_items
from .sql import SqlRenderer, sql_literal
from .state_expr import state_expr_sql
from .states import additive_reader, field_init
from .types import Typing, _reader_type, infer_types, spark_type, unify

__all__ = [
    "NotFoldable",
    "Carry",
    "Fold",
    "Window",
    "WindowCarry",
    "WindowForm",
    "fold_of",
    "loop_lambda",
    "fold_free",
    "init_sql",
]

SHARE_MIN = 60  # a value used more than once is bound once when its SQL is longer than this
#: a pure value used n times is inlined while (n - 1) * its length stays under this: a let
#: (``transform(array(v), ...)[0]``) allocates two arrays per row, dearer than recomputing
INLINE_BUDGET = 400
MAX_SQL = 200_000  # a step function larger than this stays Python (duplicated subexpressions)
SCALARS = frozenset(("int", "float", "bool", "str", "datetime", "date", "timedelta", "none"))


# operators whose SQL raises on None operands (as Python does) or never gives None
_STRICT = frozenset(("add", "sub", "mul", "truediv", "floordiv", "mod", "neg", "pow", "abs", "lt",
                     "le", "gt", "ge", "eq", "ne", "not", "is_none", "is_not_none", "in", "not_in",
                     "int", "float", "str", "round", "len", "bool"))  # fmt: skip
_TRIVIAL = re.compile(r"[\w.`]+|'[^']*'|-?\d+(\.\d+)?L?")  # a column, literal or field: inline it


# library states a fold keeps as one running value
_EXTREMES = {"looplift.states.multiset:Max": "max", "looplift.states.multiset:Min": "min"}


def fold_free(a: Analysis, op: StateOperator, scalar_params: Mapping[str, Any]) -> tuple[str, ...]:
    """The values from outside the loop its body (or its states' constructors) uses."""
    lam = loop_lambda(a, op.name.removeprefix("ordered."))
    needed = set(free_vars(lam)) - set(op.states)
    for st in op.states:
        needed |= {x.name for x in a.states[st].args if isinstance(x, Var)}
    needed -= set(a.streams)
    return tuple(sorted(n for n in needed if n in a.bound or n in scalar_params))


def fold_of(
    a: Analysis,
    ty: Typing,
    refs: Mapping[str, Any],
    classes: Mapping[str, StateClassInfo],
    op: StateOperator,
    free: tuple[str, ...],
    *,
    out_types: list[Any] | None = None,
    consts: Mapping[str, str] | None = None,
) -> Fold:
    """The fold of ordered loop ``op``; ``out_types``: the yielded rows' field types (for
    the rows it yields), None for its readers; ``consts``: the SQL of free values that are
    constants (literals, scalar parameters), used in place. Raises :class:`NotFoldable`."""
    consts = consts or {}
    free = tuple(n for n in free if n not in consts)
    return _FoldBuilder(a, ty, refs, classes, op, free, out_types, consts).build()


class _FoldBuilder:
    def __init__(self, a, ty, refs, classes, op, free, out_types, consts) -> None:  # noqa: ANN001
        self.a, self.refs, self.classes, self.op = a, refs, classes, op
        self.ty = Typing(dict(ty.types), set(ty.nullable))
        self.free = free
        self.out_types = out_types
        self.lam = loop_lambda(a, op.name.removeprefix("ordered."))
        lp = a.loops[op.name.removeprefix("ordered.")]
        self.env: dict[str, str] = {}
        for p, f in zip(self.lam.params, lp.fields, strict=True):
            self.env[p] = f"{ROW}._f{f}"
        for i, n in enumerate(free):
            self.env[n] = f"{ROW}._v{i}"
        self.env.update(consts)
        self.pycalls: dict[str, Any] = {}
        self.r = SqlRenderer(a, self.ty, self.env.get, dict(refs), self.pycalls)
        self.row_names = set(self.env)
        self.nonnull: set[str] = set()  # SQL of values known not None on the current path
        self.forms: dict[str, tuple] = {}  # carry field -> its update so far (see WindowCarry)
        self.path: list[str] = []  # the conditions of the enclosing if-branches
        self.yield_sites: list[tuple[str, tuple[str, ...]]] = []
        self.depth = 0  # if-branches around the current binding
        self.lets: list[tuple[str, str]] = []  # (placeholder, SQL) of the main path's values
        self.carries: list[Carry] = []
        self.of_state: dict[str, list[Carry]] = {}

    # -- the accumulator ------------------------------------------------------------
    def _carries(self) -> None:
        for st, cref in zip(self.op.states, self.op.classes, strict=True):
            decl = self.a.states[st]
            if cref == CARRY:
                t, _ = _reader_type(StateCall(st, "get"), self.a, self.refs, self.ty)
                if t not in SCALARS:
                    raise NotFoldable(f"the carried local `{user_name(st)}` is not a scalar ({t})")
                init = decl.args[0] if decl.args else Lit(None)
                null = self.ty.may_be_null(init) or any(
                    self.ty.may_be_null(x) for s in self.a.actions_of(st) for x in s.args
                )
                c = Carry(f"c{len(self.carries)}", st, None, t, init, null)
                self.carries.append(c)
                self.of_state[st] = [c]
                continue
            extreme = _EXTREMES.get(cref)
            if extreme is not None:  # a library Max / Min: its running extreme, None when empty
                t, _ = _reader_type(StateCall(st, "value"), self.a, self.refs, self.ty)
                if t not in SCALARS:
                    raise NotFoldable(f"state `{user_name(st)}` holds {t} values")
                c = Carry(f"c{len(self.carries)}", st, extreme, t, None)
                self.carries.append(c)
                self.of_state[st] = [c]
                continue
            info = self.classes.get(cref)
            if info is None or not info.additive or decl.args:
                name = cref.rsplit(":", 1)[-1]
                raise NotFoldable(f"state `{user_name(st)}` ({name}) is not a carried scalar")
            mine = []
            for fname, init_text in info.fields:
                init = field_init(init_text)
                t = "float" if isinstance(init, float) else "int"
                for spec in info.additive_actions:
                    for f2, _, expr in spec.update_exprs:
                        if f2 == fname:
                            t = unify(t, self._term_type(spec, expr, st))
                c = Carry(f"c{len(self.carries)}", st, fname, t, init)
                self.carries.append(c)
                mine.append(c)
            self.of_state[st] = mine

    def _term_type(self, spec: Any, expr: Expr, st: str) -> Any:
        t: Any = "int"
        for act in self.op.actions:
            if act.state == st and act.method == spec.method:
                envt = {p: self.ty.of(x) for p, x in zip(spec.params, act.args, strict=True)}
                env = {p: "NULL" for p in spec.params}
                _, vt = state_expr_sql(expr, env, envt)
                t = unify(t, vt)
        return t

    # -- the body, executed symbolically ------------------------------------------------
    def build(self) -> Fold:
        self._carries()
        cur = {c.field: f"{ACC}.{c.field}" for c in self.carries}
        self.forms = {c.field: ("keep",) for c in self.carries}
        out = f"{ACC}._out" if self.out_types is not None else None
        try:
            _, cur, out = self._walk(self.lam.body, cur, out)
        except BackendError as e:
            raise NotFoldable(e.message) from None
        if self.pycalls:
            fns = ", ".join(sorted(c.ref.rsplit(":", 1)[-1] for c in self.pycalls.values()))
            raise NotFoldable(f"the loop body calls Python ({fns}); Spark cannot call Python "
                              "inside a fold")  # fmt: skip
        fields = [f"{c.field}: {spark_type(c.type)}" for c in self.carries]
        parts = [f"'{c.field}', CAST({cur[c.field]} AS {spark_type(c.type)})" for c in self.carries]
        out_type = None
        if self.out_types is not None:
            inner = ", ".join(f"o{i}: {t}" for i, t in enumerate(self.out_types))
            out_type = f"struct<{inner}>"
            fields.append(f"_out: array<{out_type}>")
            parts.append(f"'_out', {out}")
        # the step and the readers are lambdas: kernels there that are Spark's functions are
        # those functions (a session may have the kernels as SQL functions, refused there)
        step = portable(self._bind_shared(f"named_struct({', '.join(parts)})"))
        if len(step) > MAX_SQL:
            raise NotFoldable(f"the step function would be {len(step)} characters of SQL")
        readers = tuple((name, portable(sql)) for name, sql in self._readers())
        forms = tuple(self._expand_all(self.forms[c.field]) for c in self.carries)
        sites = tuple(self._expand_all(site) for site in self.yield_sites)
        window = None
        if self.out_types is not None:
            window = window_of(self.carries, forms, sites, lambda f: self._expand(cur[f]))
        return Fold(tuple(self.carries), f"struct<{', '.join(fields)}>", step, readers, out_type,
                    self.free, window, forms, sites)  # fmt: skip

    def _expand_all(self, x: Any) -> Any:
        """``x`` (SQL, or tuples of it) with the shared values' placeholders resolved."""
        return self._expand(x) if isinstance(x, str) else tuple(self._expand_all(y) for y in x)

    def _expand(self, sql: str) -> str:
        for token, value in reversed(self.lets):
            sql = sql.replace(token, value)
        return sql

    def _merge_forms(
        self, c: str, then: dict[str, tuple], other: dict[str, tuple]
    ) -> dict[str, tuple]:
        out = {}
        for f in then:
            t, o = then[f], other[f]
            kinds = {t[0], o[0]}
            if t == o:
                out[f] = t
            elif kinds <= {"keep", "add"}:
                dt = t[1] if t[0] == "add" else "0"
                do = o[1] if o[0] == "add" else "0"
                terms = tuple((_and(c, ct), d) for ct, d in (t[2] if t[0] == "add" else ()))
                terms += tuple((_and(f"(NOT {c})", co), d) for co, d in (o[2] if o[0] == "add" else ()))
                out[f] = ("add", f"(CASE WHEN {c} THEN {dt} ELSE {do} END)", terms)
            elif kinds <= {"keep", "set", "cset"}:
                (ct, vt), (co, vo) = _guarded(t), _guarded(o)
                cond = _case(c, ct, co)
                value = vt if co == "FALSE" else vo if ct == "FALSE" else _case(c, vt, vo)
                out[f] = ("set", value) if cond == "TRUE" else ("cset", cond, value)
            elif kinds in ({"keep", "max"}, {"keep", "min"}, {"max"}, {"min"}):
                kind = (kinds - {"keep"}).pop()
                xt = t[1] if t[0] != "keep" else "NULL"
                xo = o[1] if o[0] != "keep" else "NULL"
                out[f] = (kind, _case(c, xt, xo))
            else:
                out[f] = ("any",)
        return out

    # -- values used more than once: bound once -------------------------------------------
    def _share(self, sql: str) -> str:
        """A value of the loop body's main path (not inside a branch), as a placeholder: used
        once it is inlined, used more often it is bound once (:meth:`_bind_shared`)."""
        if (
            self.depth
            or _TRIVIAL.fullmatch(sql)
            or len(sql) <= SHARE_MIN
            and "raise_error" not in sql
        ):
            return sql  # cheaper to compute again than to bind
        token = f"\x00{len(self.lets)}\x00"
        self.lets.append((token, sql))
        return token

    def _bind_shared(self, text: str) -> str:
        """Resolve the placeholders of ``text``: inline those used once or short enough (and
        never raising), bind the others with
        ``transform(array(value), _l<i> -> ...)[0]`` (SQL's only let: evaluated once, where
        the loop body computes it, as Python does)."""
        for i in range(len(self.lets) - 1, -1, -1):
            token, sql = self.lets[i]
            n = text.count(token)
            if n == 1 or (n - 1) * len(sql) <= INLINE_BUDGET and "raise_error" not in sql:
                text = text.replace(token, sql)
            elif n > 1:
                text = f"transform(array({sql}), _l{i} -> {text.replace(token, f'_l{i}')})[0]"
        return text

    def _walk(
        self, e: Expr, cur: dict[str, str], out: str | None
    ) -> tuple[str, dict[str, str], str | None]:
        while isinstance(e, Let):
            cur, out = self._binding(e.name, e.value, cur, out)
            e = e.body
        if isinstance(e, Lit) and e.value is None:
            return "NULL", cur, out
        return self._value(e, cur), cur, out

    def _value(self, e: Expr, cur: dict[str, str]) -> str:
        if isinstance(e, Apply) and isinstance(e.fn, StateCall):
            return self._read(e.fn, e.args, cur)
        if isinstance(e, Apply) and isinstance(e.fn, Host):
            raise NotFoldable(f"the loop body calls the host function "
                              f"{e.fn.ref.rsplit(':', 1)[-1]}; Spark cannot call Python inside a fold")  # fmt: skip
        if isinstance(e, Apply) and isinstance(e.fn, Builtin) and e.fn.name not in ("if",):
            if e.fn.name in ("smap", "yield", "group_by"):
                raise NotFoldable(f"`{e.fn.name}` inside the loop body")
        return self.r.expr(e)

    def _binding(
        self, name: str, v: Expr, cur: dict[str, str], out: str | None
    ) -> tuple[dict[str, str], str | None]:
        if isinstance(v, Apply) and isinstance(v.fn, Builtin) and v.fn.name == "if":
            c = self.r.cond(v.args[0])
            then, other = v.args[1], v.args[2]
            assert isinstance(then, Lambda) and isinstance(other, Lambda)
            known = set(self.nonnull)
            forms = dict(self.forms)
            self.depth += 1
            self.nonnull |= self._nonnull_if(v.args[0], True)
            self.path.append(c)
            tv, tcur, tout = self._walk(then.body, dict(cur), out)
            tforms, self.forms = self.forms, dict(forms)
            self.nonnull = known | self._nonnull_if(v.args[0], False)
            self.path[-1] = f"(NOT {c})"
            ov, ocur, oout = self._walk(other.body, dict(cur), out)
            self.path.pop()
            self.forms = self._merge_forms(c, tforms, self.forms)
            self.nonnull = known
            self.depth -= 1
            merged = {
                f: tcur[f]
                if tcur[f] == ocur[f]
                else self._share(f"(CASE WHEN {c} THEN {tcur[f]} ELSE {ocur[f]} END)")
                for f in cur
            }
            if tout != oout:
                out = f"(CASE WHEN {c} THEN {tout} ELSE {oout} END)"
            if name != "_":
                if tv == ov:
                    value = tv
                elif tv == c and self._bools(v.args[0], name):  # `c or y`: short-circuits
                    value = f"({c} OR {ov})"
                elif ov == c and self._bools(v.args[0], name):  # `c and y`
                    value = f"({c} AND {tv})"
                else:
                    value = f"(CASE WHEN {c} THEN {tv} ELSE {ov} END)"
                self.env[name] = self._share(value)
            return merged, out
        if isinstance(v, Apply) and isinstance(v.fn, Builtin) and v.fn.name == "yield":
            if out is None:
                return cur, out  # the fold of the readers: the rows it yields are another fold
            return cur, self._append(out, v.args[0])
        if isinstance(v, Apply) and isinstance(v.fn, StateCall):
            call = v.fn
            if call.state not in self.of_state:
                raise NotFoldable(
                    f"the loop uses state `{user_name(call.state)}` of another operator"
                )
            if self._is_action(call):
                return self._act(call, v.args, cur), out
            if name != "_":
                self.env[name] = self._read(call, v.args, cur)
                if self.env[name] in self.nonnull:
                    self.ty.nullable.discard(name)  # `x is None` was tested false on this path
            return cur, out
        if name != "_":
            self.env[name] = self._share(self._value(v, cur))
            if (
                isinstance(v, Apply)
                and isinstance(v.fn, Prim)
                and (v.fn.op in _STRICT or v.fn.op.startswith(("dt.", "td.")))
            ):
                self.ty.nullable.discard(name)  # None operands raise: a value is never None
        return cur, out

    def _bools(self, cond: Expr, name: str) -> bool:
        """Are the condition and the value of ``name = c or y`` booleans (then SQL OR)?"""
        return self.ty.of(cond) == "bool" and self.ty.of(Var(name)) == "bool"

    def _nonnull_if(self, cond: Expr, taken: bool) -> set[str]:
        """The SQL of values known not None where ``cond`` is ``taken`` (``x is None`` false,
        ``x is not None`` true, either side of an ``or`` false / ``and`` true)."""
        e = cond
        while isinstance(e, Var) and e.name in self.a.bound and e.name not in self.row_names:
            b = self.a.bound[e.name].value
            if b is None:
                return set()
            e = b
        if (
            isinstance(e, Apply)
            and isinstance(e.fn, Prim)
            and e.fn.op in ("is_none", "is_not_none")
        ):
            x = e.args[0]
            if (e.fn.op == "is_none") != taken and isinstance(x, Var) and x.name in self.env:
                return {self.env[x.name]}
            return set()
        if isinstance(e, Apply) and isinstance(e.fn, Builtin) and e.fn.name == "if":
            c, then, other = e.args
            if not (isinstance(then, Lambda) and isinstance(other, Lambda)):
                return set()
            if other.body == c and not taken:  # c and y: false ... nothing known
                return set()
            if then.body == c and not taken:  # c or y false: both false
                return self._nonnull_if(c, False) | self._nonnull_if(_tail(other.body), False)
            if other.body == c and taken:  # c and y true: both true
                return self._nonnull_if(c, True) | self._nonnull_if(_tail(then.body), True)
        return set()

    def _is_action(self, call: StateCall) -> bool:
        cref = self.op.classes[self.op.states.index(call.state)]
        if cref == CARRY:
            return call.method != "get"
        if cref in _EXTREMES:
            return call.method == "add"
        return call.method in self.classes[cref].actions

    def _read(self, call: StateCall, args: tuple[Expr, ...], cur: Mapping[str, str]) -> str:
        carries = self.of_state.get(call.state)
        if carries is None:
            raise NotFoldable(f"the loop reads state `{user_name(call.state)}` of another operator")
        cref = self.op.classes[self.op.states.index(call.state)]
        if cref == CARRY or cref in _EXTREMES and call.method == "value":
            return cur[carries[0].field]
        if cref in _EXTREMES:
            raise NotFoldable(f"the reader `{call.method}` of state `{user_name(call.state)}`")
        info = self.classes[cref]
        return additive_reader(
            info, call.method, {c.member: (cur[c.field], c.type) for c in carries}
        )

    def _act(self, call: StateCall, args: tuple[Expr, ...], cur: dict[str, str]) -> dict[str, str]:
        carries = self.of_state[call.state]
        cur = dict(cur)
        cref = self.op.classes[self.op.states.index(call.state)]
        if cref == CARRY:
            c = carries[0]
            if call.method == "set":
                cur[c.field] = self._value(args[0], cur)
                self.forms[c.field] = ("set", cur[c.field])
                return cur
            if call.method not in ("add", "radd", "sub", "max", "min"):
                raise NotFoldable(f"`{call.method}` on a carried local")
            tmp = f"_fold.{c.field}"
            self.ty.types[tmp] = c.type
            if c.nullable:
                self.ty.nullable.add(tmp)
            self.env[tmp] = cur[c.field]
            arg = args[0]
            if call.method == "radd":  # `v = e + v`: e on the left (str concatenation)
                step = Apply(Prim("add"), (arg, Var(tmp)))
            else:
                step = Apply(Prim(call.method), (Var(tmp), arg))
            cur[c.field] = self._share(self.r.expr(step))
            form = self.forms[c.field]
            if (
                call.method in ("add", "radd", "sub")
                and form[0] in ("keep", "add")
                and c.type in ("int", "float")
            ):
                d = self._value(arg, cur)
                d = f"(- {d})" if call.method == "sub" else d
                self.forms[c.field] = _added(form, d)
            elif call.method in ("add", "sub") and form[0] in ("cset", "reset") and c.type in ("int", "float"):
                d = self._value(arg, cur)
                self.forms[c.field] = _added(form, f"(- {d})" if call.method == "sub" else d)
            else:
                self.forms[c.field] = ("set", cur[c.field])
            return cur
        if cref in _EXTREMES:
            c = carries[0]
            x = self._value(args[0], cur)
            if self.ty.may_be_null(args[0]):
                msg = raise_sql("TypeError", f"{user_name(call.state)}: None compared with a "
                                "number")  # fmt: skip
                x = f"(CASE WHEN {x} IS NULL THEN {msg} ELSE {x} END)"
            fn = "greatest" if c.member == "max" else "least"
            cur[c.field] = self._share(
                f"(CASE WHEN {cur[c.field]} IS NULL THEN {x} ELSE {fn}({cur[c.field]}, {x}) END)"
            )
            keep = self.forms[c.field][0] == "keep"
            self.forms[c.field] = (c.member, x) if keep else ("any",)
            return cur
        info = self.classes[cref]
        spec = next(x for x in info.additive_actions if x.method == call.method)
        env = {}
        envt = {}
        for p, x in zip(spec.params, args, strict=True):
            sql = self._value(x, cur)
            if self.ty.may_be_null(x):
                msg = raise_sql("TypeError", f"{user_name(call.state)}.{call.method}(None): "
                                "a state's += with None")  # fmt: skip
                sql = f"(CASE WHEN {sql} IS NULL THEN {msg} ELSE {sql} END)"
            env[p], envt[p] = sql, self.ty.of(x)
        for fname, sign, expr in spec.update_exprs:
            value, _ = state_expr_sql(expr, env, envt)
            c = next(c for c in carries if c.member == fname)
            cur[c.field] = self._share(f"({cur[c.field]} {'-' if sign == '-' else '+'} {value})")
            form = self.forms[c.field]
            d = value if sign != "-" else f"(- {value})"
            if form[0] in ("keep", "add", "cset", "reset"):
                self.forms[c.field] = _added(form, d)
            else:
                self.forms[c.field] = ("set", cur[c.field])
        return cur

    def _append(self, out: str, value: Expr) -> str:

        assert self.out_types is not None
        items = tuple_items(value, self.a)
        if len(items) != len(self.out_types):
            raise NotFoldable("a yield of another width")
        values = [
            f"CAST({self.r.expr(x)} AS {t})" for x, t in zip(items, self.out_types, strict=True)
        ]
        cond = " AND ".join(self.path) if self.path else "TRUE"
        self.yield_sites.append((cond, tuple(values)))
        cols = ", ".join(f"'o{i}', {v}" for i, v in enumerate(values))
        return f"concat({out}, array(named_struct({cols})))"

    def _readers(self) -> list[tuple[str, str]]:
        scope = len(self.op.scope)
        final = {c.field: f"{ACC}.{c.field}" for c in self.carries}
        out = []
        for rd in self.op.reads:
            if rd.result == "_" or len(self.a.bound[rd.result].loops) > scope:
                continue
            out.append((rd.result, self._read(StateCall(rd.state, rd.method), rd.args, final)))
        return out


def _guarded(form: tuple) -> tuple[str, str]:
    """(condition, value) of a keep / set / cset form."""
    if form[0] == "keep":
        return "FALSE", "NULL"
    if form[0] == "set":
        return "TRUE", form[1]
    return form[1], form[2]


def _case(c: str, then: str, other: str) -> str:
    if then == other:
        return then
    if (then, other) == ("TRUE", "FALSE"):
        return c
    if (then, other) == ("FALSE", "TRUE"):
        return f"(NOT {c})"
    return f"(CASE WHEN {c} THEN {then} ELSE {other} END)"


def _added(form: tuple, d: str) -> tuple:
    """A carry's form after ``+= d``: an addition (``("add", sum, terms)``, ``terms`` the
    (condition, addend) pairs), or after a conditional set a reset addition
    (``("reset", cond, value, addend)``: ``CASE WHEN cond THEN value ELSE x END + addend``)."""
    if form[0] == "keep":
        return ("add", d, (("TRUE", d),))
    if form[0] == "add":
        return ("add", f"({form[1]} + {d})", (*form[2], ("TRUE", d)))
    if form[0] == "cset":
        return ("reset", form[1], form[2], d)
    return ("reset", form[1], form[2], f"({form[3]} + {d})")


def _and(c: str, other: str) -> str:
    return c if other == "TRUE" else f"({c} AND {other})"


def _tail(e: Expr) -> Expr:
    while isinstance(e, Let):
        e = e.body
    return e


def init_sql(fold: Fold, value_of: Any, out: bool) -> str:
    """The initial accumulator; ``value_of(expr)`` renders an IR value outside the fold."""

    parts = []
    for c in fold.carries:
        t = spark_type(c.type)
        v = value_of(c.init) if c.member is None else sql_literal(c.init)
        if c.member in ("max", "min"):
            v = "NULL"
        parts.append(f"'{c.field}', CAST({v} AS {t})")
    if out:
        parts.append(f"'_out', CAST(array() AS array<{fold.out_type}>)")
    return f"named_struct({', '.join(parts)})"


def fold_reason(prog: Any, op: StateOperator) -> str | None:
    """Why ordered loop ``op`` of ``prog`` is not a native fold, or None when it is (what the
    dataflow graph and ``--explain`` show; the plan decides the same way)."""
    return fold_check(prog, op)[0]


def fold_check(prog: Any, op: StateOperator) -> tuple[str | None, bool]:
    """(why ``op`` is not a native fold or None, whether the rows it yields are window
    functions)."""
    a = prog.analysis
    try:
        ty = infer_types(a, prog.refs, strict=False)
    except Exception as e:  # noqa: BLE001 - the plan reports typing errors itself
        return f"its types are not known ({e})", False
    scalars = {p.name for p in prog.fn.params if p.kind == ParamKind.SCALAR}
    free = fold_free(a, op, scalars)
    classes = prog.kinds.classes
    window = False
    try:
        fold_of(a, ty, prog.refs, classes, op, free)
        width = _yield_width(a, op)
        if width:
            rows = fold_of(a, ty, prog.refs, classes, op, free, out_types=["double"] * width)
            window = rows.window is not None
    except NotFoldable as e:
        return e.reason, False
    return None, window


def _yield_width(a: Analysis, op: StateOperator) -> int:
    lam = loop_lambda(a, op.name.removeprefix("ordered."))
    for n in walk(lam.body):
        if isinstance(n, Apply) and isinstance(n.fn, Builtin) and n.fn.name == "yield":
            return len(tuple_items(n.args[0], a))
    return 0
