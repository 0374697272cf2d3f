"""Plan codegen: the dataflow graph of a compiled algorithm → a generated PySpark module.

:class:`Planner` visits the graph in topological order, one ``visit_<Op>``
per payload class of :mod:`..dataflow.payloads`; an operator without a rule
is a diagnostic at its source span. Sources open the rows frame, loops are
checked against the backend's limits, state operators become one aggregate
per scope key (made by the planner of the strategy recorded on their node,
:mod:`.strategies`), and yields and the return select the output from the
frames (:mod:`.outputs`). Values are columns of
the frame of their scope (:mod:`.frames`), made where a consumer first needs
them (a temporary used once is inlined), so code no output needs is never
generated.

The result is Python source (``shells/plan.py.j2``, :mod:`.module`) that
needs only the looplift runtime.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import networkx as nx

from ..analysis import Analysis, LoopKind, is_ranked
from ..dataflow.payloads import (
    GLOBAL,
    ROWS,
    ActionState,
    AdditiveState,
    FrameKey,
    GroupBy,
    HostCall,
    Iterate,
    Op,
    OrderedState,
    Param,
    Scalar,
    Source,
)
from ..dataflow.strategy import FUSED, ORDERED, Choice, Strategy
from ..errtext import at
from ..ir.nodes import ParamKind, Var
from ..ir.traverse import walk
from ..names import user_name
from ..operators import StateClassInfo, StateOperator
from ..program import AlgorithmKind, Program
from .context import Compiled
from .errors import BackendError
from .frame import SRC, Frame
from .frames import FramesMixin
from .group_windows import statistics_key
from .loops import LoopsMixin
from .module import JoinedVariant, ModuleMixin
from .naming import ColumnNames, Namer, identifier
from .outputs import Outputs, OutputsMixin
from .sessions import SessionsMixin, is_session
from .sql import PyCall, quote_ident
from .strategies import StatePlanner, planner_class
from .strategies.ordered import OrderedFunction
from .types import Typing, infer_types

if TYPE_CHECKING:
    from ..dataflow.graph import DataflowGraph

__all__ = ["generate_plan", "planned_or", "PlanModule", "Planner"]

# names the generated module and its ``plan`` function use for themselves
_RESERVED = {"F", "ll", "math", "E", "out", "spark", "plan", "NAME", "KIND", "COLUMNS", "PARAMS",
             "PYCALLS", "REFS", "plan_joined"}  # fmt: skip


@dataclass
class PlanModule:
    name: str
    kind: str
    source: str  # the generated Python module
    columns: tuple[str, ...]
    pycalls: tuple[PyCall, ...]
    python_ops: tuple[str, ...]  # operators that run Python (for explain)
    output_types: tuple[str, ...] = ()  # Spark DDL type per output column
    refs: tuple[str, ...] = ()  # the module's REFS: what it imports of the user's code
    python_states: tuple[str, ...] = ()  # state operators (names) reduced in Python
    fold_reasons: tuple[tuple[str, str], ...] = ()  # (ordered operator, why not a fold)
    #: (state operator, the strategy its plan was generated with), for the operators planned
    strategies: tuple[tuple[str, Strategy], ...] = ()


def generate_plan(compiled: Compiled) -> PlanModule:
    """The plan module of a compiled table or aggregate algorithm."""
    prog = compiled.program
    try:
        return Planner(prog, compiled.graph).run()
    except BackendError as e:
        raise e.of_algorithm(prog.fn.name, prog.fn.span) from None


def planned_or(refusal: type[Exception], compiled: Compiled, planner: type[Planner],
               run: str = "run") -> Any:  # fmt: skip
    """``planner(...).<run>()`` of a table or aggregate algorithm, for a plan variant
    (signed, bulk): a scalar algorithm or a part without a rule raises ``refusal`` with
    the reason."""
    prog = compiled.program
    if prog.kind == AlgorithmKind.SCALAR:
        raise refusal("a scalar algorithm has no state")
    try:
        return getattr(planner(prog, compiled.graph), run)()
    except BackendError as e:
        raise refusal(e.message) from None


class Planner(FramesMixin, LoopsMixin, SessionsMixin, OutputsMixin, ModuleMixin):
    """Visits the graph; implements the :class:`~.context.PlanContext` the state planners
    (:mod:`.strategies`, found by each state node's recorded strategy) plan into."""

    #: columns of the input kept after its fields (a plan variant's sign, hash, ...)
    keep: tuple[str, ...] = ()

    def __init__(self, prog: Program, graph: DataflowGraph) -> None:
        self.prog = prog
        self.graph = graph
        self.a: Analysis = prog.analysis
        self.fn = prog.fn
        self.refs = prog.refs
        self.classes: dict[str, StateClassInfo] = dict(prog.kinds.classes)
        self.ops: tuple[StateOperator, ...] = prog.operators
        self.ty: Typing = infer_types(self.a, prog.refs)
        self.scalar_params = {p.name for p in self.fn.params if p.kind == ParamKind.SCALAR}
        self.lines: list[str] = []
        self.reducers: list[str] = []
        self.imports: dict[str, str] = {}  # ref -> "alias = ll.import_ref(ref)"
        self.class_alias: dict[str, str] = {}
        self.host_alias: dict[str, str] = {}
        self.frames: dict[FrameKey, Frame] = {}
        self.py = Namer(_RESERVED | {p.name for p in self.fn.params})
        self.columns = ColumnNames()
        self.op_of_state = {s: op for op in self.ops for s in op.states}
        self.op_done: dict[str, list[str]] = {}  # op name -> the read binders it made
        self.read_home: dict[str, FrameKey] = {}  # read binder -> frame holding it
        self.pycalls: dict[str, PyCall] = {}
        self.python_ops: list[str] = []
        self.python_states: list[str] = []  # operators whose reduce part runs Python
        self.ordered_fns: dict[str, OrderedFunction] = {}
        self.fold_reasons: dict[str, str] = {}  # ordered op -> why it is not a native fold
        self.made: dict[str, Strategy] = {}  # state op -> the strategy its plan was made with
        self._state_planners: dict[type[StatePlanner], StatePlanner] = {}
        self.fold_rows_col: dict[str, tuple[str, Any]] = {}  # op -> (its rows column, frame)
        self._const_memo: dict[str, bool] = {}
        self.uses = self._count_uses()
        self.guard_uses = self._count_guard_uses()
        self.out = Outputs()
        self.live = False  # the visited node feeds the result
        self.columns_out: tuple[str, ...] = ()
        self.output_types: tuple[str, ...] = ()
        self.source = None
        self.field_names = self._field_names()
        self.field_of_col: dict[str, int] = {}
        self.known: dict[FrameKey, frozenset[Any]] = {}  # (backend/filter_first.py)
        self.known_sql: dict[FrameKey, list[str]] = {}
        self.entry = ""  # the entry's call, without its closing parenthesis
        self.entry_var = ""  # the rows frame's variable the entry made

    # -- the visit ----------------------------------------------------------------
    def run(self) -> PlanModule:
        if self.prog.kind == AlgorithmKind.SCALAR:
            raise BackendError("scalar algorithms compile to SQL functions, not plans")
        self.visit_graph()
        source = self.render_module(self.joined_variant())
        return PlanModule(self.fn.name, self.prog.kind, source, self.columns_out,
                          tuple(self.pycalls.values()), tuple(self.python_ops),
                          self.output_types, self.module_refs(), tuple(self.python_states),
                          tuple(sorted(self.fold_reasons.items())),
                          tuple(sorted(self.made.items())))  # fmt: skip

    def visit_graph(self) -> None:
        live = nx.ancestors(self.graph.g, "return") if "return" in self.graph.g else set()
        for node in self.graph.nodes():
            self.live = node.id in live and bool(self.graph.g.out_degree(node.id))
            self.visit(node.op)

    def joined_variant(self) -> JoinedVariant | None:
        """Where group values are windows over the rows (``backend/group_windows.py``) and
        each windowed scope's key is made of input fields, the same plan with those values
        aggregated per key and joined back: the module builds it instead when Spark's
        statistics of the input show few large groups (``ll.few_large_groups``)."""
        scopes = [o for o in self.ops
                  if o.name in self.made and self.windowed(self.frame_key(o.scope))]  # fmt: skip
        named = self.source.fields if self.source is not None else ()
        keys: list[list[int | str]] = []
        for o in scopes:
            fields = statistics_key(self.prog, o)
            if not self.strategy_of(o).by_statistics or fields is None:
                return None
            key = [named[f] if named else f for f in fields]
            if key not in keys:
                keys.append(key)
        if not keys:
            return None
        alt = type(self)(self.prog, self.graph)
        alt.group_windows = False
        alt.broadcast_frames = frozenset(self.frame_key(o.scope) for o in scopes)
        alt.visit_graph()
        def parts(p: Planner) -> tuple[Any, ...]:
            return p.imports, p.reducers, p.pycalls.keys(), p.columns_out, p.output_types

        if parts(alt) != parts(self):
            return None  # (both forms are built of the same parts; never seen to differ)
        return JoinedVariant(self.source.name, keys, alt.lines)

    def visit(self, op: Op) -> None:
        method = getattr(self, f"visit_{type(op).__name__}", None)
        if method is None:
            raise BackendError(f"no translation rule for {type(op).__name__}", op.span)
        with at(op.span):  # errors the operator's SQL raises are placed at its source
            method(op)

    def visit_Source(self, op: Source) -> None:
        streams = self.fn.stream_params
        if len(streams) > 1:
            raise BackendError(
                f"`{self.fn.name}` takes {len(streams)} RowStreams; the Spark backend runs "
                "algorithms over one input relation",
                self.fn.span,
                hint="join or union the inputs into one DataFrame and take one RowStream",
            )
        self.source = streams[0]
        names = [self.field_col(i) for i in range(len(op.types))]
        var = self.py.fresh("rows")
        keep = f", keep={list(self.keep)!r}" if self.keep else ""
        if self.source.fields:  # a named row type: its fields bind to columns by name
            keep += f", by_name={list(self.source.fields)!r}"
        self.entry = f"ll.entry({op.name}, {op.name!r}, {list(op.types)!r}{keep}, names={names!r}"
        self.emit(f"{var} = {self.entry})")
        self.frames[ROWS] = Frame(var, ())
        self.entry_var = var

    def visit_Param(self, op: Param) -> None:
        """A scalar parameter: a named Python value of ``plan``, bound into SQL by name."""

    def visit_GroupBy(self, op: GroupBy) -> None:
        self._check_loop(op)
        key = op.loop.key
        sessions = [f for f in key if f in self.a.virtual and is_session(self.a.virtual[f][0])]
        for f in [f for f in key if f not in sessions] + sessions:  # a session's partition first
            if f in sessions:
                self.session_key_column(f, op.loop.name, tuple(o for o in key if o != f))
            elif f in self.a.virtual:
                self.computed_key_column(f)
            nan = self.nan_key_col(f)
            if nan is not None and nan not in self.frame(ROWS).cols:
                c = quote_ident(self.field_col(f))
                sql = f"CASE WHEN isnan({c}) THEN monotonically_increasing_id() END"
                self.step(ROWS, f"{SRC}.withColumn({nan!r}, E({sql!r}))",
                          "a NaN key is a group per row (distinct NaN objects in Python)")  # fmt: skip
                self.frames[ROWS].cols.add(nan)

    def visit_Iterate(self, op: Iterate) -> None:
        self._check_loop(op)
        if self.source is not None and is_ranked(op.loop, len(self.source.types)):
            self.rank_column(op.loop)

    def _check_loop(self, op: GroupBy | Iterate) -> None:
        lp = op.loop
        chain = self.loop_chain(lp.name)
        rows = [x for x in chain if self.a.loops[x].kind == LoopKind.ROWS]
        if len(rows) > 1:
            raise BackendError(
                "a loop over rows inside another loop over rows (a cross product) is not "
                "supported by the Spark backend",
                op.span,
            )
        if rows and rows[0] != chain[-1] and lp.kind == LoopKind.GROUP:
            raise BackendError(
                "group_by inside a loop over rows is not supported by the Spark backend", op.span
            )
        parent_groups = [x for x in chain[:-1] if self.a.loops[x].kind == LoopKind.GROUP]
        if parent_groups and self.a.rows_origin(lp.name) == lp.source:
            raise BackendError(
                f"this loop iterates the whole input `{lp.source}` inside a group_by loop; "
                "iterate the group instead (the Spark backend does not run cross products)",
                op.span,
            )

    def visit_AdditiveState(self, op: AdditiveState) -> None:
        """Native sums per scope key (with the additive operators fused with it)."""
        if self.live:
            self.materialize_op(op.operator)

    def visit_ActionState(self, op: ActionState) -> None:
        """An Arrow reducer per scope key (the map part native)."""
        o = op.operator
        if o.actions and len({self.frame_key(a.loops) for a in o.actions}) > 1:
            raise BackendError(
                f"state `{user_name(o.name)}` receives actions from loops at different levels; "
                "the Spark backend supports that for additive states only",
                o.actions[0].span,
            )
        if self.live:
            self.materialize_op(o)

    def visit_OrderedState(self, op: OrderedState) -> None:
        """An ordered loop's states (a native fold or window, or the loop body in Python per
        scope key, as recorded): made where its readers or rows are needed (its readers by
        their first consumer, its rows by the return)."""

    def visit_Scalar(self, op: Scalar) -> None:
        """A native value: a column of its scope's frame where first needed, else inlined."""

    def visit_HostCall(self, op: HostCall) -> None:
        """A host function call: a registered Python function in the SQL of its value."""

    # -- state operators ----------------------------------------------------------
    def materialize_op(self, op: StateOperator) -> None:
        """Plan a state operator (with the operators fused with it) by its recorded strategy's
        planner, and join its readers into its scope's frame."""
        if op.name in self.op_done:
            return
        how = self.strategy_of(op).strategy
        group = [op]
        if how in FUSED:
            for mate in self.ops:
                if mate.name in op.fusable_with and mate.name not in self.op_done:
                    if self.strategy_of(mate).strategy is how:
                        group.append(mate)
        fk = self.frame_key(op.scope)
        keys = self.key_cols(fk)
        if self.windowed(fk) and self.strategy_of(op).over_rows:  # (backend/group_windows.py)
            reads = self.state_planner(how).over_rows(group, keys)
            for o in group:
                self.made_with(o, how)
                self.op_done[o.name] = reads
            for r in reads:
                self.read_home[r] = fk
            self.frames[ROWS].cols.update(reads)
            return
        reduced = self.state_planner(how).reduce(group, keys)
        if how not in ORDERED:  # (an ordered loop notes what it made itself)
            for o in group:
                self.made_with(o, how)
        if reduced is None:
            return
        result, reads = reduced
        for o in group:
            self.op_done[o.name] = reads
        for r in reads:
            self.read_home[r] = fk
        if fk not in self.frames:
            self.frames[fk] = Frame(result, keys, set(reads))
            if not keys and fk != GLOBAL:
                # group_by((), rows): one group of the whole input, and none when it is empty
                self.step(fk, f"{SRC}.join({self.frame(ROWS).var}.select().limit(1), how='left_semi')",
                          "one group of the whole input (none when it is empty)")  # fmt: skip
            return
        if fk == GLOBAL:
            self.step(fk, f"{SRC}.crossJoin({result})")
        else:
            self.step(fk, f"ll.join_on_keys({SRC}, {result}, {self.join_keys(keys)})")
        self.frames[fk].cols.update(reads)

    #: aggregate mergeable states partially before the shuffle where the graph records a
    #: partial form (``backend/partial.py``); off: every row goes to its scope key's task
    partial_aggregation = True

    #: a group scope whose values only its rows read is computed on the rows frame, by
    #: window aggregates (a signed or bulk plan keeps the aggregate per key)
    group_windows = True

    def windowed(self, fk: FrameKey) -> bool:
        """Is group frame ``fk`` the rows frame (its state operators recorded as window
        aggregates over the rows, ``Choice.over_rows``)? Aliases the frames when so."""
        if fk == ROWS or not self.group_windows:
            return False
        if self.frames.get(fk) is not None:
            return self.frames[fk] is self.frames.get(ROWS)
        # (window_check says yes for every additive operator of the scope or for none)
        if not any(self.strategy_of(o).over_rows for o in self.ops if self.frame_key(o.scope) == fk):
            return False
        self.frames[fk] = self.frame(ROWS)
        return True

    def state_planner(self, strategy: Strategy) -> StatePlanner:
        """The planner of a recorded strategy (one per plan: it keeps what it made)."""
        cls = planner_class(strategy)
        if cls not in self._state_planners:
            self._state_planners[cls] = cls(self)
        return self._state_planners[cls]

    # -- the sign of the rows (signed plans, :mod:`.signed`, override these) -------------
    def signed_rows(self, var: str, fk: FrameKey) -> str:
        """The frame the additive sums read: in a batch plan every row is an insert, so
        the rows as they are (a signed plan's rows carry their ``_sign``)."""
        return var

    def signed_term(self, sql: str) -> str:
        """An additive term as one row contributes it (a signed plan weighs it by the
        row's sign; a batch plan's rows all count once)."""
        return f"({sql})"

    def live_sums(self, keys: tuple[str, ...]) -> list[str]:
        """More aggregates of the additive sums (none in a batch plan)."""
        return []

    def live_columns(self, keys: tuple[str, ...]) -> list[str]:
        """More columns kept by the additive readers' projection (none in a batch plan)."""
        return []

    def live_reader(self, sql: str, keys: tuple[str, ...]) -> str:
        """An additive reader's SQL as the readers' projection computes it."""
        return sql

    # -- helpers -------------------------------------------------------------------
    def strategy_of(self, op: StateOperator) -> Choice:
        """The strategy recorded for a state operator (passes/choose_strategy.py)."""
        choice = self.graph.node(f"state:{op.name}").strategy
        assert choice is not None, op.name
        return choice

    def made_with(self, op: StateOperator, strategy: Strategy) -> None:
        """Note the strategy ``op``'s plan was made with (Python wins over a native fold,
        a window over the fold's rows: the rows and the readers may be made apart)."""
        rank = (Strategy.NATIVE_FOLD, Strategy.NATIVE_WINDOW, Strategy.NATIVE_BOUNDARY,
                Strategy.PYTHON_ORDERED)  # fmt: skip
        old = self.made.get(op.name)
        if old in rank and strategy in rank and rank.index(old) > rank.index(strategy):
            return
        self.made[op.name] = strategy

    def emit(self, line: str) -> None:
        self.lines.append("    " + line)

    def loop_chain(self, loop: str) -> tuple[str, ...]:
        out = []
        cur: str | None = loop
        while cur is not None:
            out.append(cur)
            cur = self.a.loops[cur].parent
        return tuple(reversed(out))

    def _count_uses(self) -> dict[str, int]:
        uses: dict[str, int] = {}
        for n in walk(self.fn.body):
            if isinstance(n, Var):
                uses[n.name] = uses.get(n.name, 0) + 1
        return uses

    def _count_guard_uses(self) -> dict[str, int]:
        """How many values each condition guards (each guard repeats the condition)."""
        uses: dict[str, int] = {}
        for b in self.a.bound.values():
            for c, _taken in b.guards:
                uses[c] = uses.get(c, 0) + 1
        return uses

    def _field_names(self) -> dict[int, str]:
        """Each source field's name: the group key or loop variable that binds it."""
        out: dict[int, str] = {}
        loops = sorted(self.a.loops.values(), key=lambda lp: lp.kind != LoopKind.GROUP)
        for lp in loops:
            if lp.kind == LoopKind.GROUP:
                if len(lp.key) == 1:
                    out.setdefault(lp.key[0], user_name(lp.params[0], keep_callee=False))
            elif self.fn.stream_params and self.fn.stream_params[0].fields:
                for f, name in enumerate(self.fn.stream_params[0].fields):  # a named row type
                    out.setdefault(f, name)
            else:
                for p, f in zip(lp.params, lp.fields, strict=True):
                    out.setdefault(f, user_name(p, keep_callee=False))
        return out

    # CPython's group_by keys a dict by each row's NaN, a distinct object per row: a NaN key
    # is a group of its own per row. A float key part gets a row id where it is NaN.
    nan_keys = True

    def nan_key_col(self, f: int) -> str | None:
        """The column beside float key field ``f`` that tells its NaN rows apart (a row id
        where the field is NaN, else NULL), or None for a key of another type."""
        if not self.nan_keys or self.source is None:
            return None
        n = len(self.source.types)
        t = self.source.types[f] if f < n else self.a.virtual.get(f, (None, None))[1]
        if isinstance(t, str) and t.startswith("Optional["):
            t = t[len("Optional[") : -1]
        return f"_nan_{self.field_col(f)}" if t == "float" else None

    #: group frames whose aggregate is known small (the joined form of a plan whose group
    #: values are windows otherwise, chosen by statistics): joined back by a broadcast
    broadcast_frames: frozenset[FrameKey] = frozenset()

    def join_keys(self, keys: tuple[str, ...], home: FrameKey | None = None) -> str:
        """``keys, not_null=[...]`` of ``ll.join_on_keys``: the key columns, and those of
        them no row has null (an input field that is not ``Optional``: the entry refuses
        its nulls), which join on plain equality (Spark hashes the column itself, where a
        null-safe key hashes ``coalesce(k, 0)`` and ``isnull(k)``)."""
        n = len(self.source.types) if self.source is not None else 0
        plain = [k for k in keys if k in self.field_of_col and self.field_of_col[k] < n
                 and not self.source.types[self.field_of_col[k]].startswith("Optional[")]  # fmt: skip
        return (f"{list(keys)!r}" + (f", not_null={plain!r}" if plain else "")
                + (", broadcast=True" if home in self.broadcast_frames else ""))  # fmt: skip

    def field_col(self, i: int) -> str:
        """The column of source field ``i`` (named after the variable that binds it)."""
        src = self.fn.stream_params[0].name if self.fn.stream_params else "field"
        col = self.columns.get(f"field:{i}", self.field_names.get(i) or f"{identifier(src)}_{i}")
        self.field_of_col[col] = i
        return col
