"""Which exact lowering an ordered loop runs, by the size of its largest group (issue 27).

An ordered loop that yields rows has up to three exact lowerings (``--explain`` names
the chosen one and why):

- the **boundary-position fold** (:mod:`.boundary`) and the **aggregate() fold**
  (:mod:`.fold`): per scope key, ``sort_array(collect_list(...))`` then higher-order
  functions over that array. Fast (one shuffle, no window sorts), but the whole group is
  one array in one task's memory: Spark cannot spill it;
- **window functions** (``WindowCarry``: ``lag``, running ``sum``, ``last``, the reset
  form): Spark sorts the rows and its window operator spills to disk, so a very large
  group slows the query down instead of running the executor out of memory.

The rule, per operator: the boundary fold where it applies, else windows where they
apply, else the aggregate() fold — unless the algorithm says its largest group holds
more than :data:`FOLD_ROWS` rows (``@dataflow(largest_group=N)``): then windows where
they apply and the plan reads no carried value after the loop (those values are a fold
over the group whatever gives the rows, so windows would spare no memory). Without the hint the compiler does not know the group sizes (a plan is built
before any data is seen; sampling the data would cost a Spark job per call), and assumes
groups below :data:`FOLD_ROWS`.

:data:`FOLD_ROWS` is measured, not modelled: ``tests/perf/single_key.py --rows
20000000`` (one key holding 20M events, ``local_session``'s defaults: a 4 GB driver
that is the one executor of ``local[2]``) completes for the session ids' and session
summaries' boundary folds and the clickstream's aggregate fold, at JVM heap peaks of
2.4-3.4 GB; no larger group was measured, so above it the plan that spills is chosen.
With more executor memory the limit rises; the hint is the user's knowledge of the data.
"""

from __future__ import annotations

from ..dataflow.strategy import Strategy

__all__ = ["FOLD_ROWS", "ordered_strategy"]

#: the largest group a collect_list fold was measured to complete with at the default
#: session's memory (see the module's text)
FOLD_ROWS = 20_000_000


def ordered_strategy(
    boundary: bool, window: bool, largest_group: int | None, reads_after: bool = False
) -> tuple[Strategy, str]:
    """(the strategy, why by size, for ``--explain``) of an ordered loop that is a native
    fold; ``boundary``/``window``: whether the boundary-position fold / window functions
    give its rows; ``largest_group``: the algorithm's hint, or None; ``reads_after``: the
    plan reads its carries after the loop, a fold over each group whatever gives its rows
    (then windows spare no memory: ``window`` is False)."""
    fold = "boundary-position fold" if boundary else "aggregate() fold"
    if largest_group is None:
        size = f"group sizes not given (@dataflow(largest_group=...)): assumed below {FOLD_ROWS:,} rows"
    else:
        size = f"largest group {largest_group:,} rows (@dataflow(largest_group=...))"
    if largest_group is not None and largest_group > FOLD_ROWS:
        above = (f"{size}, above the {FOLD_ROWS:,} a collect_list fold was measured to hold in "
                 "one task's memory")  # fmt: skip
        if window:
            return (
                Strategy.NATIVE_WINDOW,
                f"{above}: window functions, which sort and spill, over the {fold}",
            )
        none = ("its values read after the loop are a fold over the group either way" if reads_after
                else "no window functions give these rows")  # fmt: skip
        return (
            Strategy.NATIVE_BOUNDARY if boundary else Strategy.NATIVE_FOLD
        ), f"{above}, but {none}: the {fold}"
    if boundary:
        return Strategy.NATIVE_BOUNDARY, f"{size}: the {fold}, faster than windows"
    if window:
        return Strategy.NATIVE_WINDOW, f"{size}: window functions (they spill)"
    return (
        Strategy.NATIVE_FOLD,
        f"{size}: the aggregate() fold (no window functions give these rows)",
    )
