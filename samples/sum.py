"""The thesis ``sum`` (Fig. 6.1 of the Ohua/Noria thesis): a state in a loop.

The row's second field is added to a ``Sum`` state; the result is read
after the loop. ``Sum`` is additive, so this compiles to one native
``sum`` aggregate — the generated operator does what Spark's own ``sum``
does. The thesis' Rust original::

    fn sum(rows: RowStream) {
      let acc = Sum::new();
      for (_,r) in rows {
        acc.add(deref(r));
      };
      acc.get_sum()
    }

>>> sum([(1, 10), (2, 5), (1, -3)])
12
"""

from looplift import RowStream, dataflow
from looplift.states import Sum


@dataflow
def sum(rows: RowStream[int, int]) -> int:
    """The sum of the second field of ``rows`` (0 for no rows)."""
    acc = Sum()
    for _, r in rows:
        acc.add(r)
    return acc.value()
