"""The state planners, found by the strategy recorded on the graph.

Each module of this package plans one family of strategies (a class registered with
:func:`register`); the plan builder asks :func:`planner_class` for the class of a
node's recorded :class:`~...dataflow.strategy.Strategy` and gives it the
:class:`~..context.PlanContext` it plans into. No planner imports the builder.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from ...dataflow.strategy import Strategy
    from ...operators import StateOperator
    from ..context import PlanContext

__all__ = ["Reduced", "StatePlanner", "planner_class", "register"]

#: the aggregate made per scope key (a variable of the generated code) and the read binders
#: it holds as columns; None: the planner joined its readers into the frame itself
Reduced = tuple[str, list[str]] | None


class StatePlanner:
    """Plans the state operators of its strategies into a plan (one instance per plan)."""

    def __init__(self, p: PlanContext) -> None:
        self.p = p

    def reduce(self, group: list[StateOperator], keys: tuple[str, ...]) -> Reduced:
        """The aggregate of ``group`` (operators fused into one) per scope key ``keys``."""
        raise NotImplementedError

    def over_rows(self, group: list[StateOperator], keys: tuple[str, ...]) -> list[str]:
        """The readers of ``group`` as columns of the rows frame, by window aggregates
        partitioned by the scope key ``keys``; the read binders made."""
        raise NotImplementedError(f"{type(self).__name__} plans no window aggregates")

    def rows(self, op: StateOperator, names: list[str], types: list[str]) -> str:
        """The rows ``op`` yields (an ordered loop's), named ``names`` of Spark ``types``."""
        raise NotImplementedError(f"{type(self).__name__} plans no yielded rows")


_PLANNERS: dict[Strategy, type[StatePlanner]] = {}
P = TypeVar("P", bound=type[StatePlanner])


def register(*strategies: Strategy) -> Callable[[P], P]:
    """Class decorator: the planner of ``strategies``."""

    def add(cls: P) -> P:
        for s in strategies:
            if s in _PLANNERS:
                raise ValueError(f"two planners for {s}: {_PLANNERS[s].__name__}, {cls.__name__}")
            _PLANNERS[s] = cls
        return cls

    return add


def planner_class(strategy: Strategy) -> type[StatePlanner]:
    try:
        return _PLANNERS[strategy]
    except KeyError:
        raise LookupError(f"no state planner registered for {strategy}") from None
