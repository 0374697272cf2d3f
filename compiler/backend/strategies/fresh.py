"""A state no action reaches: its readers are a fresh state's, constants per scope key.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...dataflow.strategy import Strategy
from ...ir.nodes import CARRY
from ...names import user_name
from ..errors import BackendError
from ..frame import SRC
from ..sql import sql_literal
from ..types import spark_type
from .registry import Reduced, StatePlanner, register

if TYPE_CHECKING:
    from ...operators import StateOperator

__all__ = ["FreshPlanner"]


@register(Strategy.FRESH_READERS)
class FreshPlanner(StatePlanner):
    """The readers of a fresh state (``Strategy.FRESH_READERS``)."""

    def reduce(self, group: list[StateOperator], keys: tuple[str, ...]) -> Reduced:
        for op in group:
            self._unused_state(op)
        return None  # the readers are columns of the scope's frame already

    def _unused_state(self, op: StateOperator) -> None:
        """A state no action reaches: its readers are a fresh state's, constants per scope."""
        fk = self.p.frame_key(op.scope)
        self.p.frame(fk)
        reads = []
        for rd in op.reads:
            if rd.result == "_" or op.classes[0] == CARRY:
                continue
            cls = self.p.refs[op.classes[0]]
            try:
                ctor = [x.value for x in self.p.a.states[rd.state].args]
                value = getattr(cls(*ctor), rd.method)(*[x.value for x in rd.args])
            except Exception as e:  # noqa: BLE001 - a constructor needing parameters, say
                raise BackendError(
                    f"state `{user_name(rd.state)}` receives no action and its fresh reader "
                    f"`{rd.method}()` could not be evaluated at compile time: {e}",
                    self.p.a.states[rd.state].span,
                ) from None
            t = spark_type(self.p.ty.types.get(rd.result, "any"))
            col = self.p.col_for(rd.result)
            sql = f"CAST({sql_literal(value)} AS {t})"
            self.p.step(fk, f"{SRC}.withColumn({col!r}, E({sql!r}))",
                      f"{user_name(rd.state)} receives no action: a fresh state's reader")  # fmt: skip
            self.p.frames[fk].cols.add(rd.result)
            reads.append(rd.result)
        self.p.op_done[op.name] = reads
        for r in reads:
            self.p.read_home[r] = fk
