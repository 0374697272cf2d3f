"""Plan codegen: an analysed program → a generated PySpark module.

Every value lives in the *frame* of its scope: ``R`` holds one row per input
row (all per-row code of every loop), a group frame one row per key of its
``group_by`` scope (keyed by the source fields of the enclosing keys), and
``G`` the single global row. A state operator's map part is native SQL over
the frame of its input loop; its reduce part is one aggregate per scope key:
Spark sums for additive states (fused with the other additive operators of
the same scope and input), a grouped Arrow reducer for action states, an
ordered Python reducer for ordered loops. A value used in a deeper scope is
joined in on the shallower scope's key (thesis §5.2.3), or broadcast from
``G``. Columns are materialized on demand, so code no output needs is never
generated, and frames only gain columns (never lose rows): yields and the
return value read the final frames.

The result is Python source (rendered from ``shells/plan.py.j2``) that needs
only the looplift runtime.
"""

from __future__ import annotations

import ast
import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from ..analysis import Analysis
from ..ir.nodes import CARRY, Apply, Builtin, Expr, Lambda, Let, Lit, Prim, StateCall, Var
from ..names import is_temp
from ..operators import StateClassInfo, StateOperator
from ..program import Program
from .pycode import PyEmitter, py_name
from .shells import render
from .sql import BackendError, PyCall, SqlRenderer, quote_ident, sql_literal
from .types import Typing, infer_types, spark_type, unify

__all__ = ["generate_plan", "PlanModule", "PARAM_MARK"]

PARAM_MARK = "\x01"  # scalar parameters: \x01name\x01, bound at run time (never in a literal)
R = "R"


@dataclass
class PlanModule:
    name: str
    kind: str
    source: str  # the generated Python module
    columns: tuple[str, ...]
    pycalls: tuple[PyCall, ...]
    python_ops: tuple[str, ...]  # operators that run Python (for explain)
    output_types: tuple[str, ...] = ()  # Spark DDL type per output column


@dataclass
class _Frame:
    var: str  # current variable name in the generated code
    keys: tuple[str, ...]  # key columns (source field columns)
    cols: set[str] = field(default_factory=set)  # binders available as columns
    imported: dict[tuple, int] = field(default_factory=dict)  # home frame -> #cols imported


def generate_plan(prog: Program) -> PlanModule:
    return _Planner(prog).run()


class _Planner:
    def __init__(self, prog: Program) -> None:
        self.prog = prog
        self.a: Analysis = prog.analysis
        self.fn = prog.fn
        self.refs = prog.refs
        self.classes: dict[str, StateClassInfo] = prog.kinds.classes
        self.ops: tuple[StateOperator, ...] = prog.operators
        self.ty: Typing = infer_types(self.a, prog.refs)
        self.lines: list[str] = []
        self.reducers: list[str] = []
        self.imports: dict[str, str] = {}  # module -> "from m import a as b" lines
        self.class_alias: dict[str, str] = {}
        self.host_alias: dict[str, str] = {}
        self.frames: dict[Any, _Frame] = {}
        self.counter = 0
        self.colname: dict[str, str] = {}
        self.op_of_state = {s: op for op in self.ops for s in op.states}
        self.op_done: dict[str, dict[str, str]] = {}  # op name -> read binder -> column
        self.pycalls: dict[str, PyCall] = {}
        self.python_ops: list[str] = []
        self.uses = self._count_uses()
        self._ordered_fns: dict[str, dict[str, Any]] = {}
        self._const_memo: dict[str, bool] = {}
        stream = self.fn.stream_params
        if len(stream) > 1:
            raise BackendError(
                f"`{self.fn.name}` takes {len(stream)} RowStreams; the Spark backend runs "
                "algorithms over one input relation"
            )
        self.source = stream[0] if stream else None
        self._check_loops()

    # -- structure ---------------------------------------------------------------
    def _check_loops(self) -> None:
        for lp in self.a.loops.values():
            chain = self._loop_chain(lp.name)
            rows = [x for x in chain if self.a.loops[x].kind == "rows"]
            if len(rows) > 1:
                raise BackendError(
                    f"loop at line {lp.span.line}: a loop over rows inside another loop over "
                    "rows (a cross product) is not supported by the Spark backend"
                )
            if rows and rows[0] != chain[-1] and lp.kind == "group":
                raise BackendError(
                    f"loop at line {lp.span.line}: group_by inside a loop over rows is not "
                    "supported by the Spark backend"
                )
            origin = self.a.rows_origin(lp.name)
            parent_groups = [x for x in chain[:-1] if self.a.loops[x].kind == "group"]
            if parent_groups and origin == lp.source:
                # iterating the whole input inside a group: every group sees every row
                raise BackendError(
                    f"loop at line {lp.span.line} iterates the whole input `{lp.source}` inside "
                    "a group_by loop; iterate the group instead (the Spark backend does not "
                    "run cross products)"
                )

    def _loop_chain(self, loop: str) -> tuple[str, ...]:
        out = []
        cur: str | None = loop
        while cur is not None:
            out.append(cur)
            cur = self.a.loops[cur].parent
        return tuple(reversed(out))

    def frame_key(self, loops: tuple[str, ...]) -> Any:
        if any(self.a.loops[x].kind == "rows" for x in loops):
            return R
        return tuple(x for x in loops if self.a.loops[x].kind == "group")

    def key_cols(self, fk: Any) -> tuple[str, ...]:
        if fk == R:
            return ()
        out: list[str] = []
        for loop in fk:
            for f in self.a.loops[loop].key:
                c = f"f{f}"
                if c not in out:
                    out.append(c)
        return tuple(out)

    def home(self, name: str) -> Any:
        b = self.a.bound[name]
        return self.frame_key(b.loops)

    def fresh(self, base: str) -> str:
        self.counter += 1
        return f"{base}{self.counter}"

    def col_for(self, name: str) -> str:
        if name not in self.colname:
            base = re.sub(r"\W", "_", name.split(".")[-1]).strip("_") or "v"
            self.colname[name] = f"c{len(self.colname) + 1}_{base}"[:60]
        return self.colname[name]

    def emit(self, line: str) -> None:
        self.lines.append("    " + line)

    def _count_uses(self) -> dict[str, int]:
        from ..ir.traverse import walk

        uses: dict[str, int] = {}
        for n in walk(self.fn.body):
            if isinstance(n, Var):
                uses[n.name] = uses.get(n.name, 0) + 1
        return uses

    # -- frames ------------------------------------------------------------------
    def frame(self, fk: Any) -> _Frame:
        if fk in self.frames:
            return self.frames[fk]
        if fk == R:
            raise BackendError("no input relation")
        # a group frame (or G): based on its first independent operator, else distinct keys
        keys = self.key_cols(fk)
        for op in self.ops:
            if self.frame_key(op.scope) == fk and op.actions and self._independent(op):
                self._materialize_op(op)
                return self.frames[fk]
        var = self.fresh("G" if fk == () else "S")
        if fk == ():
            self.emit(f"{var} = spark.range(1).select()  # the single global row")
        else:
            cols = ", ".join(repr(k) for k in keys)
            self.emit(f"{var} = {self.frame(R).var}.select({cols}).distinct()  # one row per key")
        self.frames[fk] = _Frame(var, keys)
        return self.frames[fk]

    def _independent(self, op: StateOperator) -> bool:
        """Its map part needs nothing computed at its own scope (so it can be a base)."""
        fk = self.frame_key(op.scope)
        if any(self.frame_key(a.loops) == fk for a in op.actions):
            return False  # actions at the scope itself need the scope's frame
        free = set(op.free)
        for st in op.states:
            free |= {x.name for x in self.a.states[st].args if isinstance(x, Var)}
        for n in free:
            if self._constant(n):
                continue
            b = self.a.bound.get(n)
            if b is None or b.value is None:
                continue
            if self.frame_key(b.loops) == fk or self._depends_on_frame(n, fk):
                return False
        return True

    def _depends_on_frame(self, name: str, fk: Any, seen: set[str] | None = None) -> bool:
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

    def set_frame(self, fk: Any, var: str) -> None:
        self.frames[fk].var = var

    # -- values ------------------------------------------------------------------
    def renderer(self, fk: Any) -> SqlRenderer:
        r = SqlRenderer(self.a, self.ty, lambda n: self.resolve(n, fk), self.refs, self.pycalls)
        return r

    def resolve(self, name: str, fk: Any) -> str | None:
        """SQL for ``name`` inside frame ``fk`` (a column), or None to inline its value."""
        params = {p.name: p for p in self.fn.params}
        if name in params and params[name].kind == "scalar":
            return f"{PARAM_MARK}{name}{PARAM_MARK}"
        b = self.a.bound.get(name)
        if b is None:
            raise BackendError(f"unknown value {name}")
        if b.value is None:
            return self._loop_param(name, fk)
        if name in self.a.streams:
            raise BackendError(f"stream `{name}` used as a value")
        if self._constant(name):
            return None  # a constant (of literals and parameters): inlined wherever used
        home = self.home(name)
        v = b.value
        is_read = isinstance(v, Apply) and isinstance(v.fn, StateCall)
        if not is_read and home == fk and is_temp(name) and self.uses.get(name, 0) <= 1:
            if not b.guards:
                return None
        self.materialize(name)
        if name in self.op_done.get("__reads__", {}):
            home = self.op_done["__reads__"][name]
        if home != fk:
            self.import_into(fk, home, name)
        return quote_ident(self.col_for(name))

    def _constant(self, name: str, depth: int = 0) -> bool:
        """Is the value a pure function of literals and scalar parameters?"""
        if name in self._const_memo:
            return self._const_memo[name]
        b = self.a.bound.get(name)
        v = b.value if b is not None else None
        ok = False
        if name in self._scalar_params():
            ok = True
        elif v is None or b.guards or depth > 30:
            ok = False
        elif isinstance(v, Lit):
            ok = True
        elif isinstance(v, Var):
            ok = self._constant(v.name, depth + 1)
        elif isinstance(v, Apply) and isinstance(v.fn, Prim):
            ok = all(
                isinstance(x, Lit) or (isinstance(x, Var) and self._constant(x.name, depth + 1))
                for x in v.args
            )
        self._const_memo[name] = ok
        return ok

    def _loop_param(self, name: str, fk: Any) -> str:
        for lp in self.a.loops.values():
            if name in lp.params:
                if lp.kind == "rows":
                    if fk != R:
                        raise BackendError(f"row field {name} used outside its loop")
                    return quote_ident(f"f{lp.fields[lp.params.index(name)]}")
                if name == lp.params[0]:
                    cols = [quote_ident(f"f{f}") for f in lp.key]
                    if len(cols) == 1:
                        return cols[0]
                    inner = ", ".join(f"'_{i + 1}', {c}" for i, c in enumerate(cols))
                    return f"named_struct({inner})"
                raise BackendError(f"group `{name}` used as a value")
        raise BackendError(f"unbound parameter {name}")

    def materialize(self, name: str) -> None:
        """Make ``name`` a column of its home frame."""
        b = self.a.bound[name]
        v = b.value
        if isinstance(v, Apply) and isinstance(v.fn, StateCall):
            op = self.op_of_state[v.fn.state]
            if op.ordered and len(b.loops) > len(op.scope):
                raise BackendError("in-loop state reads are internal to the ordered operator")
            self._materialize_op(op)
            return
        home = self.home(name)
        fr = self.frame(home)
        if name in fr.cols:
            return
        r = self.renderer(home)
        sql = r.expr(v)
        if b.guards:
            sql = f"CASE WHEN {r.guards(b.guards)} THEN {sql} END"
        fr = self.frames[home]  # rendering may have replaced the frame variable
        new = self.fresh("R" if home == R else "G" if home == () else "S")
        col = self.col_for(name)
        self.emit(f"{new} = {fr.var}.withColumn({col!r}, F.expr({_pystr(sql)}))  # {_user(name)}")
        fr.var = new
        fr.cols.add(name)

    def import_into(self, fk: Any, home: Any, name: str) -> None:
        fr = self.frame(fk) if fk != R else self.frame(R)
        if name in fr.cols:
            return
        src = self.frame(home)
        cols = sorted(c for c in src.cols if c not in fr.cols)
        names = [self.col_for(c) for c in cols]
        new = self.fresh("R" if fk == R else "S")
        sel = ", ".join(repr(c) for c in (*src.keys, *names))
        if home == ():
            self.emit(
                f"{new} = {fr.var}.crossJoin(F.broadcast({src.var}.select({sel})))"
                f"  # global values into scope {self._scope_text(fk)}"
            )
        else:
            keys = list(src.keys)
            self.emit(
                f"{new} = ll.join_on_keys({fr.var}, {src.var}.select({sel}), {keys!r})"
                f"  # scope {self._scope_text(home)} values, joined on its key"
            )
        fr.var = new
        fr.cols.update(cols)

    def _scope_text(self, fk: Any) -> str:
        if fk == R:
            return "rows"
        return "global" if fk == () else "[" + ", ".join(self.key_cols(fk)) + "]"

    # -- state operators -----------------------------------------------------------
    def _materialize_op(self, op: StateOperator) -> None:
        if op.name in self.op_done:
            return
        if not op.actions:
            self._unused_state(op)
            return
        group = [op]
        if op.kind in ("additive", "action") and not op.ordered:
            for mate in self.ops:
                if mate.name in op.fusable_with and mate.name not in self.op_done:
                    if mate.kind == op.kind:
                        group.append(mate)
        fk = self.frame_key(op.scope)
        keys = self.key_cols(fk)
        if op.kind == "additive":
            result, reads = self._additive(group, keys)
        elif op.kind == "ordered":
            result, reads = self._ordered(op, keys)
        else:
            result, reads = self._action(group, keys)
        for o in group:
            self.op_done[o.name] = reads
        allreads = self.op_done.setdefault("__reads__", {})
        for r in reads:
            allreads[r] = fk
        if fk not in self.frames:
            self.frames[fk] = _Frame(result, keys, set(reads))
            return
        fr = self.frames[fk]
        new = self.fresh("G" if fk == () else "S")
        if fk == ():
            self.emit(f"{new} = {fr.var}.crossJoin({result})")
        else:
            self.emit(f"{new} = ll.join_on_keys({fr.var}, {result}, {list(keys)!r})")
        fr.var = new
        fr.cols.update(reads)

    def _unused_state(self, op: StateOperator) -> None:
        """A state no action reaches: its readers are a fresh state's, constants per scope."""
        fk = self.frame_key(op.scope)
        fr = self.frame(fk)
        reads = []
        for rd in op.reads:
            if rd.result == "_" or op.classes[0] == CARRY:
                continue
            cls = self.refs[op.classes[0]]
            try:
                ctor = [x.value for x in self.a.states[rd.state].args]
                value = getattr(cls(*ctor), rd.method)(*[x.value for x in rd.args])
            except Exception as e:  # noqa: BLE001 - a constructor needing parameters, say
                raise BackendError(
                    f"state `{_user(rd.state)}` receives no action and its fresh reader "
                    f"`{rd.method}()` could not be evaluated at compile time: {e}"
                ) from None
            t = spark_type(self.ty.types.get(rd.result, "any"))
            col = self.col_for(rd.result)
            new = self.fresh("G" if fk == () else "S")
            self.emit(
                f"{new} = {fr.var}.withColumn({col!r}, F.expr({_pystr(f'CAST({sql_literal(value)} AS {t})')}))"
                f"  # {_user(rd.state)} receives no action: a fresh state's reader"
            )
            fr.var = new
            fr.cols.add(rd.result)
            reads.append(rd.result)
        self.op_done[op.name] = {r: fk for r in reads}
        allreads = self.op_done.setdefault("__reads__", {})
        for r in reads:
            allreads[r] = fk

    def _additive(self, group: list[StateOperator], keys: tuple[str, ...]) -> tuple[str, list[str]]:
        """Native sums of the sign-weighted projections, then the readers."""
        field_cols: dict[tuple[str, str], tuple[str, Any, str]] = {}
        parts: dict[Any, list[tuple[str, str]]] = {}
        for op in group:
            for s, cref in zip(op.states, op.classes, strict=True):
                info = self.classes[cref]
                for fname, init in info.fields:
                    fcol = self.fresh(f"_{re.sub(r'W', '_', fname)}_")
                    field_cols[(s, fname)] = (fcol, _literal_value(init), "")
            for act in op.actions:
                info = self.classes[op.classes[op.states.index(act.state)]]
                spec = next(x for x in info.additive_actions if x.method == act.method)
                fk = self.frame_key(act.loops)
                r = self.renderer(fk)
                env = {p: _not_null(r.expr(x), self.ty.may_be_null(x), f"{_user(act.state)}.{act.method}")
                       for p, x in zip(spec.params, act.args, strict=True)}  # fmt: skip
                envt = {p: self.ty.of(x) for p, x in zip(spec.params, act.args, strict=True)}
                guard = r.guards(act.guards) if act.guards else None
                for fname, sign, text in spec.updates:
                    value, vtype = _py_expr_sql(text, env, envt)
                    if sign == "-":
                        value = f"(- {value})"
                    fcol = field_cols[(act.state, fname)][0]
                    init = field_cols[(act.state, fname)][1]
                    t = unify(_type_of_value(init), vtype)
                    field_cols[(act.state, fname)] = (fcol, init, t)
                    contrib = f"CASE WHEN {guard} THEN {value} ELSE 0 END" if guard else value
                    parts.setdefault(fk, []).append((fcol, f"({contrib}) * `_sign`"))
        # one aggregate per input granularity; several granularities are unioned first
        frames = list(parts)
        if len(frames) == 1:
            fk = frames[0]
            src = self.frame(fk).var if fk != R else self.frame(R).var
            fields = sorted({c for c, _ in parts[fk]})
            sums = {c: " + ".join(e for c2, e in parts[fk] if c2 == c) for c in fields}
            exprs = [f"F.expr({_pystr(f'sum({e})')}).alias({c!r})" for c, e in sums.items()]
            agg_src = src
        else:
            # union the per-granularity contributions, then one aggregate
            fields = sorted({c for fk in frames for c, _ in parts[fk]})
            selects = []
            for fk in frames:
                src = self.frame(fk).var
                cols = [f"F.col({k!r})" for k in keys]
                for c in fields:
                    e = " + ".join(e for c2, e in parts[fk] if c2 == c) or "0"
                    cols.append(f"F.expr({_pystr(e)}).alias({c!r})")
                selects.append(f"{src}.withColumn('_sign', F.lit(1)).select({', '.join(cols)})")
            agg_src = self.fresh("U")
            self.emit(f"{agg_src} = ll.union_all([{', '.join(selects)}])")
            exprs = [f"F.sum({c!r}).alias({c!r})" for c in fields]
        agg = self.fresh("A")
        names = ", ".join(o.name for o in group)
        base = f"{agg_src}.withColumn('_sign', F.lit(1))" if len(frames) == 1 else agg_src
        grouping = f".groupBy({', '.join(repr(k) for k in keys)})" if keys else ""
        self.emit(
            f"{agg} = {base}{grouping}.agg({', '.join(exprs)})"
            f"  # additive {names}: native sums per scope key"
        )
        # readers over the sums (a global sum over no rows is NULL: start from the init)
        reads: list[str] = []
        cols = [f"F.col({k!r})" for k in keys]
        for op in group:
            for rd in op.reads:
                if rd.result == "_" or rd.result in reads:
                    continue
                info = self.classes[op.classes[op.states.index(rd.state)]]
                text = dict(info.reader_exprs)[rd.method]
                env, envt = {}, {}
                for (s, fname), (fcol, init, t) in field_cols.items():
                    if s != rd.state:
                        continue
                    total = (
                        f"coalesce(`{fcol}`, 0)"
                        if init == 0
                        else f"({init!r} + coalesce(`{fcol}`, 0))"
                    )
                    env[f"self.{fname}"] = total
                    envt[f"self.{fname}"] = t or _type_of_value(init)
                sql, _ = _py_expr_sql(text, env, envt)
                cols.append(f"F.expr({_pystr(sql)}).alias({self.col_for(rd.result)!r})")
                reads.append(rd.result)
        out = self.fresh("A")
        self.emit(f"{out} = {agg}.select({', '.join(cols)})")
        return out, reads

    def _action(self, group: list[StateOperator], keys: tuple[str, ...]) -> tuple[str, list[str]]:
        """Native map part (action code + arguments per row), one Arrow reducer per key."""
        fk_inputs = {self.frame_key(act.loops) for op in group for act in op.actions}
        if len(fk_inputs) > 1:
            raise BackendError(
                f"state `{group[0].name}` receives actions from loops at different levels; "
                "the Spark backend supports that for additive states only"
            )
        (fk,) = fk_inputs if fk_inputs else {self.frame_key(group[0].scope)}
        src = self.frame(fk).var if fk_inputs else self.frame(R).var
        r = self.renderer(fk)
        udf_cols: list[str] = []
        defaults: list[tuple[str, str]] = []
        outs: list[str] = []
        reads: list[str] = []
        for op in group:
            (s,) = op.states
            cref = op.classes[0]
            cls = self.refs[cref]
            alias = self._import_class(cref)
            sites = []
            cols = []
            packed = _exclusive(op.actions) and all(len(a.args) == 1 for a in op.actions)
            if packed and op.actions:
                code = " ".join(
                    f"WHEN {r.guards(a.guards)} THEN {i}" for i, a in enumerate(op.actions)
                )
                arg_sql = [r.expr(a.args[0]) for a in op.actions]
                if len(set(arg_sql)) == 1:
                    arg = arg_sql[0]  # every action takes the same argument: no CASE needed
                else:
                    whens = " ".join(
                        f"WHEN {r.guards(a.guards)} THEN {x}"
                        for a, x in zip(op.actions, arg_sql, strict=True)
                    )
                    arg = f"CASE {whens} END"
                cols.append(f"F.expr({_pystr(f'CASE {code} END')})")
                cols.append(f"F.expr({_pystr(arg)})")
                sites = [(a.method, 1) for a in op.actions]
            else:
                for a in op.actions:
                    guard = r.guards(a.guards)
                    cols.append(f"F.expr({_pystr(f'CASE WHEN {guard} THEN 1 END')})")
                    for x in a.args:
                        cols.append(f"F.expr({_pystr(f'CASE WHEN {guard} THEN {r.expr(x)} END')})")
                    sites.append((a.method, len(a.args)))
            src = self.frames[fk].var if fk_inputs else src
            readers = []
            for rd in op.reads:
                if rd.result == "_":
                    continue
                if not all(isinstance(x, Lit) for x in rd.args):
                    raise BackendError(
                        f"reader `{_user(s)}.{rd.method}(...)` takes a computed argument; the "
                        "Spark backend passes constant reader arguments only"
                    )
                margs = tuple(x.value for x in rd.args)
                readers.append(((rd.method, margs) if margs else rd.method, rd.result))
            rtypes = [spark_type(self.ty.types.get(res, "any")) for _, res in readers]
            ctor_items = []
            for x in self.a.states[s].args:
                if isinstance(x, Lit):
                    ctor_items.append(repr(x.value))
                elif isinstance(x, Var) and x.name in self._scalar_params():
                    ctor_items.append(x.name)  # a scalar parameter of the plan
                else:
                    raise BackendError(
                        f"state `{_user(s)}`: constructor arguments must be constants or "
                        "scalar parameters"
                    )
            ctor = "(" + ", ".join(ctor_items) + ("," if len(ctor_items) == 1 else "") + ")"
            udf = self.fresh("_reducer")
            line = render(
                "action_reducer.py.j2",
                var=udf,
                cls=alias,
                ctor=ctor,
                sites=repr(sites),
                packed=repr(packed),
                readers=repr([m for m, _ in readers]),
                types=repr(rtypes),
                state=_user(s),
                cls_name=cls.__name__,
            )
            if any(isinstance(x, Var) for x in self.a.states[s].args):
                self.emit(line)  # built per call: it depends on the plan's parameters
            else:
                self.reducers.append(line)
            self.python_ops.append(f"{_user(s)} ({cls.__name__} reducer)")
            if self._can_reduce_partitions(op, cls, packed, keys, readers, fk_inputs):
                return self._reduce_partitions(udf, src, cols, keys, readers)
            col = self.fresh("_r")
            udf_cols.append(f"{udf}.udf({', '.join(cols)}).alias({col!r})")
            for i, (_, res) in enumerate(readers):
                outs.append(f"F.col('{col}._{i + 1}').alias({self.col_for(res)!r})")
                reads.append(res)
                defaults.append((self.col_for(res), f"{udf}.fresh()[{i}]"))
        agg = self.fresh("A")
        grouping = f".groupBy({', '.join(repr(k) for k in keys)})" if keys else ""
        self.emit(
            f"{agg} = {src}{grouping}.agg({', '.join(udf_cols)})"
            f"  # map part native, reduce part: Arrow reducer per scope key"
        )
        out = self.fresh("A")
        kcols = [f"F.col({k!r})" for k in keys]
        self.emit(f"{out} = {agg}.select({', '.join([*kcols, *outs])})")
        if not keys:
            # a global aggregate over no rows has no row: use a fresh state's readers
            fill = self.fresh("A")
            pairs = ", ".join(f"({c!r}, {v})" for c, v in defaults)
            self.emit(f"{fill} = ll.default_row(spark, {out}, [{pairs}])")
            out = fill
        return out, reads

    def _can_reduce_partitions(self, op, cls, packed, keys, readers, fk_inputs) -> bool:  # noqa: ANN001
        """Whole hash partitions reduced at once: one key column, numeric arguments, and
        grouped readers offered by the state class (IntervalSequence does)."""
        grouped = getattr(cls, "grouped_reader", None)
        if not (packed and len(keys) == 1 and grouped is not None and len(fk_inputs) == 1):
            return False
        if self.a.states[op.states[0]].args:
            return False
        if any(not isinstance(m, str) or grouped(m) is None for m, _ in readers):
            return False
        key_t = self.ty.types.get(self._key_param(keys[0]), "any")
        arg_ts = {self.ty.of(a.args[0]) for a in op.actions}
        return key_t == "int" and arg_ts <= {"int", "float"}

    def _key_param(self, col: str) -> str:
        i = int(col[1:])
        for lp in self.a.loops.values():
            if lp.kind == "group" and lp.key == (i,):
                return lp.params[0]
        return ""

    def _reduce_partitions(
        self, udf: str, src: str, cols: list[str], keys: tuple[str, ...], readers: list
    ) -> tuple[str, list[str]]:
        (key,) = keys
        part = self.fresh("P")
        self.emit(
            f"{part} = {src}.select(F.col({key!r}).alias('k'), {cols[0]}.alias('c'), "
            f"{cols[1]}.alias('a')).repartition('k')  # map part native; one shuffle by key"
        )
        out = self.fresh("A")
        sel = [f"F.col('k').alias({key!r})"] + [
            f"F.col('_{i + 1}').alias({self.col_for(res)!r})" for i, (_, res) in enumerate(readers)
        ]
        self.emit(
            f"{out} = {part}.mapInArrow({udf}.partitions, {udf}.partition_schema('bigint'))"
            f".select({', '.join(sel)})  # reduce part: each partition's keys at once (Python)"
        )
        return out, [res for _, res in readers]

    def _ordered_function(self, op: StateOperator) -> dict[str, Any]:
        """Generate (once) the Python function running an ordered loop for one scope key.

        It takes the scope key's rows (all source fields) and the loop's free values,
        sorts the rows by the order field (ties by the remaining fields), runs the
        loop body, and returns (the readers after the loop, the rows it yielded).
        """
        if op.name in self._ordered_fns:
            return self._ordered_fns[op.name]
        from ..ir.traverse import free_vars

        loop_name = op.name.removeprefix("ordered.")
        lp = self.a.loops[loop_name]
        group_loop = self.a.loops[lp.parent] if lp.parent else None
        if group_loop is None or group_loop.order_by is None:
            raise BackendError("an ordered loop must iterate a group of group_by(..., order_by=)")
        v = self.a.bound[loop_name].value
        assert isinstance(v, Apply)
        lam = v.args[0]
        assert isinstance(lam, Lambda)
        emitter = PyEmitter(self._all_class_aliases(), self._host_aliases())
        body: list[str] = []
        emitter.block(lam.body, "        ", body)
        needed = set(free_vars(lam)) - set(op.states)
        for st in op.states:
            needed |= {x.name for x in self.a.states[st].args if isinstance(x, Var)}
        needed -= set(self.a.streams)
        free = sorted(n for n in needed if n in self.a.bound or n in self._scalar_params())
        nfields = len(self.source.types)
        field_order = [group_loop.order_by] + [
            i for i in range(nfields) if i != group_loop.order_by
        ]
        proj = [lp.fields[lp.params.index(p)] for p in lam.params]
        ctor_lines = []
        for st in op.states:
            decl = self.a.states[st]
            args = ", ".join(emitter.expr(x) for x in decl.args)
            cls = "_ll.Carry" if decl.cls == CARRY else self._import_class(decl.cls)
            ctor_lines.append(f"    {py_name(st)} = {cls}({args})")
        readers = [(rd.state, rd.method, rd.args, rd.result) for rd in op.reads
                   if rd.result != "_" and len(self.a.bound[rd.result].loops) <= len(op.scope)]  # fmt: skip
        ret = ", ".join(
            f"{py_name(st)}.{m}({', '.join(emitter.expr(x) for x in args)})"
            for st, m, args, _ in readers
        )
        fn_name = self.fresh("_ordered_loop")
        targets = ", ".join(py_name(p) for p in lam.params) + ("," if len(lam.params) == 1 else "")
        values = ", ".join(f"_row[{i}]" for i in proj) + ("," if len(proj) == 1 else "")
        self.reducers.append(
            render(
                "ordered_loop.py.j2",
                name=fn_name,
                params=[py_name(n) for n in free],
                line=lp.span.line,
                ctors=[c.strip() for c in ctor_lines],
                order=repr(field_order),
                targets=targets,
                values=values,
                body=body,
                readers=ret + ("," if len(readers) == 1 else ""),
            )
        )
        self.python_ops.append(f"ordered loop at line {lp.span.line}")
        info = {"fn": fn_name, "free": free, "readers": readers, "nfields": nfields, "loop": lp}
        self._ordered_fns[op.name] = info
        return info

    def _ordered_op_of(self, loops: tuple[str, ...]) -> StateOperator | None:
        for op in self.ops:
            if op.ordered and op.name.removeprefix("ordered.") in loops:
                return op
        return None

    def _scalar_params(self) -> set[str]:
        return {p.name for p in self.fn.params if p.kind == "scalar"}

    def _ordered_inputs(self, info: dict[str, Any]) -> list[str]:
        r = self.renderer(R)
        cols = [f"F.col('f{i}')" for i in range(info["nfields"])]
        for n in info["free"]:
            cols.append(f"F.expr({_pystr(r.expr(Var(n)))})")
        return cols

    def _ordered(self, op: StateOperator, keys: tuple[str, ...]) -> tuple[str, list[str]]:
        """The ordered loop's readers: Python per scope key, rows sorted by the order field."""
        info = self._ordered_function(op)
        readers = info["readers"]
        rtypes = [spark_type(self.ty.types.get(res, "any")) for *_, res in readers]
        udf = self.fresh("_ordered")
        self.reducers.append(
            render(
                "ordered_reducer.py.j2",
                rows=False,
                var=udf,
                fn=info["fn"],
                nfields=info["nfields"],
                nfree=len(info["free"]),
                types=repr(rtypes),
            )
        )
        cols = self._ordered_inputs(info)
        src = self.frame(R).var
        agg = self.fresh("A")
        col = self.fresh("_r")
        grouping = f".groupBy({', '.join(repr(k) for k in keys)})" if keys else ""
        self.emit(
            f"{agg} = {src}{grouping}.agg({udf}.udf({', '.join(cols)}).alias({col!r}))"
            "  # ordered loop: Python per scope key"
        )
        out = self.fresh("A")
        outs = [f"F.col({k!r})" for k in keys]
        reads = []
        for i, (*_, res) in enumerate(readers):
            outs.append(f"F.col('{col}._{i + 1}').alias({self.col_for(res)!r})")
            reads.append(res)
        self.emit(f"{out} = {agg}.select({', '.join(outs)})")
        return out, reads

    def _ordered_rows(self, op: StateOperator, names: list[str], types: list[str]) -> str:
        """The rows an ordered loop yields: Python per scope key (grouped map)."""
        info = self._ordered_function(op)
        keys = self.key_cols(self.frame_key(op.scope))
        cols = self._ordered_inputs(info)
        src = self.frame(R).var
        inp = self.fresh("R")
        aliased = [f"{c}.alias('_i{i}')" for i, c in enumerate(cols)]
        self.emit(f"{inp} = {src}.select({', '.join([*(repr(k) for k in keys), *aliased])})")
        schema = ", ".join(f"{quote_ident(n)} {t}" for n, t in zip(names, types, strict=True))
        udf = self.fresh("_ordered_rows")
        self.reducers.append(
            render(
                "ordered_reducer.py.j2",
                rows=True,
                var=udf,
                fn=info["fn"],
                nfields=info["nfields"],
                nkeys=len(keys),
                schema=repr(schema),
            )
        )
        out = self.fresh("Y")
        grouping = f".groupBy({', '.join(repr(k) for k in keys)})" if keys else ".groupBy()"
        self.emit(
            f"{out} = {inp}{grouping}.applyInArrow({udf}.apply, {udf}.schema)"
            "  # rows yielded inside an ordered loop: Python per scope key"
        )
        return out

    # -- imports --------------------------------------------------------------------
    def _import_class(self, cref: str) -> str:
        if cref not in self.class_alias:
            mod, _, qual = cref.partition(":")
            alias = f"_S{len(self.class_alias) + 1}_{qual.replace('.', '_')}"
            self.class_alias[cref] = alias
            self.imports[cref] = f"{alias} = _ll.import_ref({cref!r})"
        return self.class_alias[cref]

    def _all_class_aliases(self) -> dict[str, str]:
        for decl in self.a.states.values():
            if decl.cls != CARRY:
                self._import_class(decl.cls)
        return self.class_alias

    def _host_aliases(self) -> dict[str, str]:
        for site in self.a.sites:
            if site.kind == "host" and site.method not in self.host_alias:
                alias = f"_H{len(self.host_alias) + 1}_{site.method.rsplit(':', 1)[-1]}"
                self.host_alias[site.method] = alias
                self.imports[site.method] = f"{alias} = _ll.import_ref({site.method!r})"
        return self.host_alias

    # -- the whole plan ---------------------------------------------------------------
    def run(self) -> PlanModule:
        fn = self.fn
        kind = self.prog.kind
        if kind == "scalar":
            raise BackendError("scalar algorithms compile to SQL functions, not plans")
        src = self.source
        assert src is not None
        nfields = len(src.types)
        self.emit(
            f"R0 = ll.entry({src.name}, {src.name!r}, {list(src.types)!r})  # fields f0..f{nfields - 1}"
        )
        self.frames[R] = _Frame("R0", ())
        columns: tuple[str, ...]
        if kind == "table":
            yields = [y.site for y in self.prog.kinds.yields]
            parts = []
            width = None
            ordered_yields: dict[str, list] = {}
            for site in yields:
                op = self._ordered_op_of(site.loops)
                if op is not None:
                    ordered_yields.setdefault(op.name, []).append(site)
                    continue
                fk = self.frame_key(site.loops)
                r = self.renderer(fk)
                row = site.args[0]
                items = _tuple_items(row, self.a)
                exprs = [r.expr(x) for x in items]
                guard = r.guards(site.guards) if site.guards else None
                parts.append((fk, exprs, guard))
                width = len(exprs) if width is None else width
                if width != len(exprs):
                    raise BackendError(
                        "every `yield` of a table algorithm must give the same number of fields"
                    )
            for sites in ordered_yields.values():
                n = len(_tuple_items(sites[0].args[0], self.a))
                width = n if width is None else width
            names = list(fn.columns) if fn.columns else [f"_{i + 1}" for i in range(width or 0)]
            if width is not None and len(names) != width:
                raise BackendError(
                    f"`{fn.name}` declares {len(names)} columns but yields rows of {width} fields"
                )
            selects = []
            for fk, exprs, guard in parts:
                fr = self.frames[fk] if fk in self.frames else self.frame(fk)
                cols = ", ".join(
                    f"F.expr({_pystr(e)}).alias({n!r})" for e, n in zip(exprs, names, strict=True)
                )
                where = f".where(F.expr({_pystr(guard)}))" if guard else ""
                selects.append(f"{fr.var}{where}.select({cols})")
            for op_name, sites in ordered_yields.items():
                op = next(o for o in self.ops if o.name == op_name)
                ytypes = [spark_type(t) for t in _row_types(sites, self.a, self.ty, len(names))]
                selects.append(self._ordered_rows(op, names, ytypes))
            if selects:
                self.emit(f"out = ll.union_all([{', '.join(selects)}])")
            else:
                schema = ", ".join(f"{n} double" for n in names)
                self.emit(f"out = spark.createDataFrame([], {schema!r})")
            columns = tuple(names)
            all_sites = [*yields]
            otypes = tuple(
                spark_type(t) for t in _row_types(all_sites, self.a, self.ty, len(names))
            )
        else:
            tail = fn.body
            while isinstance(tail, Let):
                tail = tail.body
            g = self.frame(())
            r = self.renderer(())
            sql = r.expr(tail)
            g = self.frames[()]
            self.emit(f"out = {g.var}.select(F.expr({_pystr(sql)}).alias({fn.name!r}))")
            columns = (fn.name,)
            otypes = (spark_type(self.ty.of(tail)),)
        return PlanModule(fn.name, kind, self._render(columns), columns,
                          tuple(self.pycalls.values()), tuple(self.python_ops), otypes)  # fmt: skip

    def _render(self, columns: tuple[str, ...]) -> str:
        params = [p for p in self.fn.params]
        ctx = {
            "name": self.fn.name,
            "ref": self.fn.ref,
            "kind": self.prog.kind,
            "columns": list(columns),
            "params": [(p.name, p.kind, list(p.types)) for p in params],
            "signature": ", ".join(p.name for p in params),
            "scalar_params": [p.name for p in params if p.kind == "scalar"],
            "imports": [self.imports[k] for k in sorted(self.imports)],
            "reducers": self.reducers,
            "pycalls": [
                (c.name, c.kind, c.ref, list(c.arg_types), c.return_type)
                for c in sorted(self.pycalls.values(), key=lambda c: c.name)
            ],
            "steps": [line.replace("F.expr(", "E(") for line in self.lines],
            "refs": sorted({*self.refs, self.fn.ref}),
            "digest": hashlib.sha1("\n".join(self.lines).encode()).hexdigest()[:12],
        }
        return render("plan.py.j2", **ctx) + "\n"


# -- helpers --------------------------------------------------------------------------


def _pystr(sql: str) -> str:
    """A Python string literal holding SQL (parameter marks survive as \\x01)."""
    return repr(sql)


def _user(name: str) -> str:
    from ..names import user_name

    return user_name(name)


def _tuple_items(row: Expr, a: Analysis) -> list[Expr]:
    e = row
    while isinstance(e, Var):
        b = a.bound.get(e.name)
        if b is None or b.value is None:
            break
        if isinstance(b.value, Apply) and b.value.fn == Prim("tuple"):
            return list(b.value.args)
        if isinstance(b.value, Var):
            e = b.value
            continue
        break
    return [row]


def _not_null(sql: str, nullable: bool, what: str) -> str:
    """An action argument that may be None: Python's ``self.f += None`` raises."""
    if not nullable:
        return sql
    from .sql import sql_string

    msg = sql_string(f"looplift: {what}(None): a state's += with None raises TypeError in Python")
    return f"(CASE WHEN {sql} IS NULL THEN raise_error({msg}) ELSE {sql} END)"


def _row_types(sites: list, a: Analysis, ty: Typing, width: int) -> list[Any]:
    out: list[Any] = ["none"] * width
    for site in sites:
        for i, x in enumerate(_tuple_items(site.args[0], a)):
            out[i] = unify(out[i], ty.of(x))
    return out


def _exclusive(acts: tuple) -> bool:
    """Are the guards of these action sites pairwise exclusive (one action per row)?"""
    for i, x in enumerate(acts):
        for y in acts[i + 1 :]:
            gx, gy = dict(x.guards), dict(y.guards)
            if not any(c in gy and gy[c] != v for c, v in gx.items()):
                return False
    return True


def _literal_value(text: str) -> Any:
    return ast.literal_eval(text)


def _type_of_value(v: Any) -> str:
    return "float" if isinstance(v, float) else "int"


def _py_expr_sql(text: str, env: dict[str, str], envt: dict[str, Any]) -> tuple[str, Any]:
    """SQL of a state's projection or reader expression (Python source text).

    ``env`` maps parameter names and ``self.field`` to SQL; ``envt`` to types.
    """
    from .types import Typing

    tree = ast.parse(text, mode="eval").body
    names: dict[str, Any] = {}

    def conv(n: ast.AST) -> Expr:
        if isinstance(n, ast.Constant):
            return Lit(n.value)
        if isinstance(n, ast.Name):
            names[n.id] = env[n.id]
            return Var(n.id)
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name):
            key = f"self.{n.attr}"
            names[key] = env[key]
            return Var(key)
        if isinstance(n, ast.BinOp):
            op = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv",
                  ast.FloorDiv: "floordiv", ast.Mod: "mod", ast.Pow: "pow"}[type(n.op)]  # fmt: skip
            return Apply(Prim(op), (conv(n.left), conv(n.right)))
        if isinstance(n, ast.UnaryOp):
            op = {ast.USub: "neg", ast.UAdd: "pos", ast.Not: "not"}[type(n.op)]
            return Apply(Prim(op), (conv(n.operand),))
        if isinstance(n, ast.Compare):
            ops = {ast.Eq: "eq", ast.NotEq: "ne", ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt",
                   ast.GtE: "ge", ast.Is: "is_none", ast.IsNot: "is_not_none"}  # fmt: skip
            left = conv(n.left)
            out = None
            for op, right in zip(n.ops, n.comparators, strict=True):
                name = ops[type(op)]
                part = (
                    Apply(Prim(name), (left,))
                    if name in ("is_none", "is_not_none")
                    else Apply(Prim(name), (left, conv(right)))
                )
                out = part if out is None else _if(out, part, Lit(False))
                left = conv(right)
            return out
        if isinstance(n, ast.IfExp):
            return _if(conv(n.test), conv(n.body), conv(n.orelse))
        if isinstance(n, ast.BoolOp):
            vals = [conv(v) for v in n.values]
            out = vals[0]
            for v in vals[1:]:
                out = _if(out, v, out) if isinstance(n.op, ast.And) else _if(out, out, v)
            return out
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
            return Apply(Prim(n.func.id), tuple(conv(x) for x in n.args))
        raise BackendError(f"cannot translate `{ast.unparse(n)}` in a state's expression")

    ir = conv(tree)
    from ..analysis import Analysis as _A
    from ..ir.nodes import Function

    a = _A(Function("x:y", "y", (), Lit(None), "value"))
    ty = Typing(dict(envt))
    ty.nullable = set()
    r = SqlRenderer(a, ty, lambda n: names.get(n), {}, {})
    from .types import _value_type

    t, _ = _value_type(ir, ty, a, {}, {})
    return r.expr(ir), t


def _if(c: Expr, t: Expr, o: Expr) -> Expr:
    return Apply(Builtin("if"), (c, Lambda((), t), Lambda((), o)))
