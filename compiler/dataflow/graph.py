"""The dataflow graph: a thin typed wrapper around a networkx DiGraph.

Nodes are frozen :class:`Node` values, each with its typed operator payload
(``node.op``, one class per kind in :mod:`.payloads`); arcs carry the variable they
transport (a *data* arc), or the rows of a loop (a *rows* arc), or the final
result (the *return* arc into the single ``return`` node).
"""

from __future__ import annotations

import enum
from collections.abc import Iterator
from dataclasses import dataclass

import networkx as nx

from .payloads import NodeKind, Op, StateOp
from .strategy import Choice

__all__ = ["ArcKind", "DataflowGraph", "Node", "GraphInvariantError"]


class ArcKind(enum.Enum):
    """What an arc carries: variables (data), the rows of a loop, or the result."""

    DATA = "data"
    ROWS = "rows"
    RETURN = "return"


#: the order of a topological tie: sources first, then loops, states, values and yields
_ORDER = (NodeKind.SOURCE, NodeKind.PARAM, NodeKind.GROUP_BY, NodeKind.ITERATE, NodeKind.STATE,
          NodeKind.HOST, NodeKind.SCALAR, NodeKind.YIELD)  # fmt: skip
_SHAPES = {
    NodeKind.SOURCE: "cylinder",
    NodeKind.PARAM: "note",
    NodeKind.GROUP_BY: "trapezium",
    NodeKind.ITERATE: "trapezium",
    NodeKind.STATE: "box3d",
    NodeKind.YIELD: "invhouse",
    NodeKind.RETURN: "doublecircle",
}


class GraphInvariantError(AssertionError):
    """The graph broke an invariant (a compiler bug, not a user error)."""


@dataclass(frozen=True)
class Node:
    """One operator of the dataflow graph.

    Attributes:
        id: unique, stable name (``source:clicks``, ``state:seq``, ``scalar:_t3`` ...).
        op: what the operator is (a payload of :mod:`.payloads`, with its source span).
        label: a one-line description for printing.
        scope: the scope key as text (``global``, ``[clicks[0]]`` ...).
        loops: the scope stack (enclosing loops).
        produces: the variables it defines.
        needs: the variables it reads from other operators.
        strategy: how it runs, decided once by ``passes/choose_strategy.py`` (None before).
    """

    id: str
    op: Op
    label: str
    scope: str
    loops: tuple[str, ...]
    produces: tuple[str, ...] = ()
    needs: tuple[str, ...] = ()
    strategy: Choice | None = None

    @property
    def kind(self) -> NodeKind:
        return self.op.KIND

    @property
    def native(self) -> bool:
        """True when the operator runs without Python at run time (its recorded strategy)."""
        if self.strategy is None:
            raise GraphInvariantError(f"{self.id}: no strategy recorded (choose_strategy)")
        return self.strategy.native


class DataflowGraph:
    def __init__(self, name: str) -> None:
        self.name = name
        self.g = nx.DiGraph()

    # -- building ---------------------------------------------------------------
    def add(self, node: Node) -> Node:
        if node.id in self.g:
            raise GraphInvariantError(f"duplicate node {node.id}")
        self.g.add_node(node.id, node=node)
        return node

    def record(self, node: Node) -> None:
        """Replace a node by the same node with more recorded (its strategy)."""
        if node.id not in self.g:
            raise GraphInvariantError(f"no node {node.id}")
        self.g.nodes[node.id]["node"] = node

    def connect(self, src: str, dst: str, var: str, kind: ArcKind = ArcKind.DATA) -> None:
        for n in (src, dst):
            if n not in self.g:
                raise GraphInvariantError(f"arc {src} -> {dst} ({var}): no node {n}")
        if self.g.has_edge(src, dst):
            self.g.edges[src, dst]["vars"].add(var)
        else:
            self.g.add_edge(src, dst, vars={var}, kind=kind)

    # -- reading ----------------------------------------------------------------
    def node(self, nid: str) -> Node:
        return self.g.nodes[nid]["node"]

    def nodes(self) -> Iterator[Node]:
        """Nodes in a deterministic topological order."""
        for nid in nx.lexicographical_topological_sort(self.g, key=self._order_key):
            yield self.node(nid)

    def _order_key(self, nid: str) -> tuple[int, str]:
        k = self.node(nid).kind
        return (_ORDER.index(k) if k in _ORDER else len(_ORDER), nid)

    def inputs(self, nid: str) -> list[tuple[Node, frozenset[str], ArcKind]]:
        return [
            (self.node(u), frozenset(d["vars"]), d["kind"])
            for u, _, d in sorted(self.g.in_edges(nid, data=True))
        ]

    def of_kind(self, *kinds: NodeKind) -> list[Node]:
        return [n for n in self.nodes() if n.kind in kinds]

    # -- invariants -------------------------------------------------------------
    def verify(self) -> None:
        problems: list[str] = []
        if not nx.is_directed_acyclic_graph(self.g):
            problems.append(f"cycle: {nx.find_cycle(self.g)}")
        returns = [n for n in self.g if self.node(n).kind is NodeKind.RETURN]
        if len(returns) != 1:
            problems.append(f"expected one return node, found {len(returns)}")
        states_seen: dict[str, str] = {}
        for n in self.g:
            node = self.node(n)
            if isinstance(node.op, StateOp):
                for s in node.op.operator.states:
                    if s in states_seen:
                        problems.append(f"state {s} in {states_seen[s]} and {n}")
                    states_seen[s] = n
            provided: dict[str, int] = {}
            for u, _, d in self.g.in_edges(n, data=True):
                for v in d["vars"]:
                    provided[v] = provided.get(v, 0) + 1
                    if v not in self.node(u).produces and d["kind"] is ArcKind.DATA:
                        problems.append(f"{u} -> {n} carries {v} that {u} does not produce")
            for v in node.needs:
                if provided.get(v, 0) != 1:
                    problems.append(f"{n} needs {v}, provided {provided.get(v, 0)} times")
            # joined inputs need comparable scopes; rows of several loops are a union,
            # and so are the rows a table's return collects from yields in sibling loops
            union = node.kind is NodeKind.RETURN and getattr(node.op, "returns", None) == "rows"
            ins = [
                self.node(u).loops
                for u, _, d in self.g.in_edges(n, data=True)
                if d["kind"] is not ArcKind.ROWS and not union
            ]
            for x in ins:
                for y in ins:
                    if x[: len(y)] != y and y[: len(x)] != x:
                        problems.append(f"{n} joins incomparable scopes {x} and {y}")
        if problems:
            raise GraphInvariantError(
                f"dataflow graph of {self.name} is invalid:\n  " + "\n  ".join(problems)
            )

    # -- printing ---------------------------------------------------------------
    def pformat(self) -> str:
        lines = [f"graph {self.name}"]
        for n in self.nodes():
            ins = ", ".join(
                f"{u.id}({','.join(sorted(vs))})" if k is ArcKind.DATA else f"{u.id}[{k.value}]"
                for u, vs, k in self.inputs(n.id)
            )
            where = "native" if n.native else "python"
            lines.append(f"  {n.id:<28} {n.kind.value:<9} {n.scope:<18} {where:<6} {n.label}")
            if ins:
                lines.append(f"  {'':<28} <- {ins}")
        return "\n".join(lines)

    def to_dot(self) -> str:
        out = [f'digraph "{_esc(self.name)}" {{', "  rankdir=TB;", '  node [fontname="Helvetica"];']
        for n in self.nodes():
            shape = _SHAPES.get(n.kind, "box")
            color = "#d8f0d8" if n.native else "#fde2c4"
            label = f"{n.kind.value}\\n{_esc(n.label)}\\nscope {_esc(n.scope)}"
            out.append(
                f'  "{_esc(n.id)}" [shape={shape}, style=filled, fillcolor="{color}", '
                f'label="{label}"];'
            )
        for u, v, d in sorted(self.g.edges(data=True)):
            style = {ArcKind.ROWS: "bold", ArcKind.RETURN: "dashed"}.get(d["kind"], "solid")
            lbl = ",".join(sorted(d["vars"])) if d["kind"] is ArcKind.DATA else d["kind"].value
            out.append(f'  "{_esc(u)}" -> "{_esc(v)}" [style={style}, label="{_esc(lbl)}"];')
        out.append("}")
        return "\n".join(out) + "\n"


def _esc(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
