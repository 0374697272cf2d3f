"""How each operator of the dataflow graph runs: its strategy, decided once.

:func:`~..passes.choose_strategy.choose_strategy` decides a :class:`Choice` for
every node and records it on the node (``node.strategy``); ``--check``,
``--explain``, the plan builder (which finds the state planner of a node in a
registry keyed by :class:`Strategy`) and the runtime read that record, never
decide again.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = ["Choice", "FUSED", "NATIVE_IN_ORDER", "ORDERED", "PyCallKind", "Strategy"]


class Strategy(enum.Enum):
    """How an operator runs on Spark. ``value`` is the text ``--explain`` prints."""

    # structure: sources, parameters, loops, yields and the result
    STRUCTURE = "structure"
    # values
    NATIVE_EXPR = "native expression"
    PYTHON_FUNCTION = "vectorized Python function"
    HOST_CALL = "host call"
    # state operators
    NATIVE_SUMS = "additive reducer"  # Spark sums of the sign-weighted projections
    ARG_BEST = "native arg-best"  # min/max of a struct, or a row_number() window, per scope key
    CONTAINER = "container reducer"  # collect_list / collect_set / keyed sums
    SEQUENCE = "native sequence readers"  # library sequence states read natively
    ARROW_REDUCER = "action reducer"  # a Python reducer per scope key (Arrow)
    FRESH_READERS = "fresh readers"  # no action reaches the state: constants per scope
    NATIVE_FOLD = "native fold"  # an ordered loop as aggregate() over its sorted rows
    NATIVE_WINDOW = "native window"  # a native fold whose yielded rows are windows
    NATIVE_BOUNDARY = "boundary-position fold"  # carries reset at boundaries: read positions
    PYTHON_ORDERED = "ordered reducer"  # the ordered loop body in Python per scope key

    @property
    def native(self) -> bool:
        """Runs without Python at run time."""
        return self not in _PYTHON

    @property
    def is_state(self) -> bool:
        return self in _STATE


_PYTHON = frozenset(
    {Strategy.PYTHON_FUNCTION, Strategy.HOST_CALL, Strategy.ARROW_REDUCER, Strategy.PYTHON_ORDERED}
)
_STATE = frozenset(
    {
        Strategy.NATIVE_SUMS,
        Strategy.ARG_BEST,
        Strategy.CONTAINER,
        Strategy.SEQUENCE,
        Strategy.ARROW_REDUCER,
        Strategy.FRESH_READERS,
        Strategy.NATIVE_FOLD,
        Strategy.NATIVE_WINDOW,
        Strategy.NATIVE_BOUNDARY,
        Strategy.PYTHON_ORDERED,
    }
)

#: strategies whose operators of one scope and input are planned together (one aggregate)
FUSED = frozenset(
    {Strategy.NATIVE_SUMS, Strategy.ARG_BEST, Strategy.SEQUENCE, Strategy.ARROW_REDUCER}
)
#: the containers filled in an ordered loop (``looplift.states.containers``) and the actions
#: Spark reduces natively in the loop's order (``Strategy.CONTAINER``,
#: ``backend/strategies/container.py``); ``fuse_states`` keeps any other use of them in the
#: loop's ordered operator
NATIVE_IN_ORDER: dict[str, set[str]] = {"Seq": {"append"}, "PySet": {"add"}, "InsertionDict": set()}
#: the strategies of an ordered loop's states
ORDERED = frozenset(
    {Strategy.NATIVE_FOLD, Strategy.NATIVE_WINDOW, Strategy.NATIVE_BOUNDARY, Strategy.PYTHON_ORDERED}
)


@dataclass(frozen=True)
class Choice:
    """The strategy recorded on a node, with what explains it.

    Attributes:
        strategy: how the operator runs.
        why: why it is not native (an ordered loop that is not a native fold), or None.
        python_fns: the primitives a value runs as vectorized Python functions
            (``PYTHON_FUNCTION``).
        detail: what a native reducer computes, for ``--explain`` (sequence readers).
        over_rows: native sums computed as window aggregates over the rows
            (``sum(...) OVER (PARTITION BY key)``, ``backend/group_windows.py``), not an
            aggregate per key joined back; ``form_why`` says why either way.
        by_statistics: the plan also holds the aggregate joined back, and builds it
            instead of the windows when Spark's statistics of the input show few large
            groups (``looplift.spark.few_large_groups``).
        partial: what a state operator aggregates before the shuffle, merged after it
            (``backend/partial.py``), or None when every row of a scope key goes to its
            key's task.
    """

    strategy: Strategy
    why: str | None = None
    python_fns: tuple[str, ...] = ()
    detail: str | None = None  # what a native reducer computes (sequence readers)
    over_rows: bool = False
    form_why: str | None = None
    by_statistics: bool = False
    partial: str | None = None

    @property
    def native(self) -> bool:
        return self.strategy.native


class PyCallKind(enum.StrEnum):
    """What a vectorized Python function of a plan runs."""

    PRIM = "prim"  # a primitive's CPython reference (the table of primitives)
    HOST = "host"  # a host function (module:qualname)
