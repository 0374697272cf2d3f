"""Scope analysis: the scope stack and scope key of every binder (SPEC §4, thesis §4.3).

A binder's *scope stack* is the list of loops enclosing it. Its *scope key*
is the concatenation of the keys of the enclosing ``group_by`` loops (as
source fields); a per-row loop contributes the row itself (``row``), so a
state created inside a ``group_by`` loop exists once per group key.

Records :attr:`Program.scopes`: binder → :class:`Scope`, and each operator's
scope. The IR is unchanged.

Assumes: states fused (:attr:`Program.operators`).
Guarantees: every state call happens inside the scope that created its state
(a state is never used outside it); the inputs of every operator have
comparable scopes (one is a prefix of the other), which is what makes a
join on the shorter scope key possible (thesis §5.2.3).
"""

from __future__ import annotations

from ..analysis import Analysis
from ..errors import Diagnostic, PassError
from ..program import Program, Scope, Scopes, scope_of

__all__ = ["analyze_scopes", "Scope", "scope_of"]


def analyze_scopes(prog: Program) -> Program:
    a: Analysis = prog.analysis
    scopes = {n: scope_of(a, b.loops) for n, b in a.bound.items()}
    diags: list[Diagnostic] = []
    for site in a.sites:
        if not site.state:
            continue
        decl = a.states.get(site.state)
        if decl is None or site.loops[: len(decl.loops)] != decl.loops:
            diags.append(
                Diagnostic(
                    site.span,
                    f"state `{site.state}` is used outside the scope that created it",
                    "create the state in the scope (loop) where it is used",
                )
            )
    for op in prog.operators:
        # rows of several loops are a union of actions; other inputs are joined on scope
        row_fields = {p for loop in op.inputs for p in a.loops[loop].params}
        ins = [
            scope_of(a, a.bound[n].loops) for n in op.free if n in a.bound and n not in row_fields
        ]
        for x in ins:
            for y in ins:
                if not (x.is_prefix_of(y) or y.is_prefix_of(x)):
                    diags.append(
                        Diagnostic(
                            op.actions[0].span if op.actions else a.fn.span,
                            f"operator `{op.name}` combines values of incomparable scopes "
                            f"{x.text()} and {y.text()}",
                        )
                    )
    if diags:
        raise PassError(diags)
    op_scopes = {op.name: scope_of(a, op.scope) for op in prog.operators}
    return prog.with_(scopes_=Scopes(scopes, op_scopes))
