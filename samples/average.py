"""The thesis ``average`` (Fig. 6.1 of the Ohua/Noria thesis): two states, one scope.

Per group, ``average`` calls the ``count`` and ``sum`` algorithms of the
sibling samples on the same group and divides with ``div_not_zero``, a
scalar algorithm that yields 0.0 for an empty divisor. After inlining,
the ``Count`` and the ``Sum`` state live in the same scope (the group key),
so both become native aggregates of one ``GROUP BY`` and the division a
``CASE`` in the projection above it — no Python, no join (SPEC §7). The
argument order of ``div_not_zero`` is the thesis' (count first). The
thesis' Rust original::

    fn average(rows: RowStream<i32,i32>) {
      for g in group_by(0, rows) {
        div_not_zero(count(g), sum(g))
      }
    }

``mean`` is the same computation over the whole input (an aggregate).

>>> average([(1, 10), (2, 5), (1, -3)])
[(1, 3.5), (2, 5.0)]
>>> mean([]), mean([(1, 1), (1, 2)])
(0.0, 1.5)
"""

from count import count
from looplift import RowStream, dataflow, group_by
from sum import sum


@dataflow
def div_not_zero(n: int, total: int) -> float:
    """``total / n``, or 0.0 when ``n`` is 0."""
    if n == 0:
        return 0.0
    return total / n


@dataflow(columns=("k", "avg"))
def average(rows: RowStream[int, int]):
    """Per key (first field): the mean of the second field."""
    for k, g in group_by(0, rows):
        yield k, div_not_zero(count(g), sum(g))


@dataflow
def mean(rows: RowStream[int, int]) -> float:
    """The mean of the second field over all rows (0.0 for no rows)."""
    return div_not_zero(count(rows), sum(rows))
