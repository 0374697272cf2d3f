"""The thesis ``count`` (Fig. 6.1 of the Ohua/Noria thesis): a counting state.

Every row counts once in a ``Count`` state, whatever its fields. ``Count``
is additive: this is a native ``count`` in the compiled plan. The thesis'
Rust original::

    fn count(rows: RowStream) {
      let acc = Count::new();
      for r in rows {
        acc.increment();
      };
      acc.get_value()
    }

>>> count([(1, 10), (2, 5), (1, -3)])
3
"""

from looplift import RowStream, dataflow
from looplift.states import Count


@dataflow
def count(rows: RowStream[int, int]) -> int:
    """The number of rows (0 for no rows)."""
    acc = Count()
    for _key, _value in rows:
        acc.add()
    return acc.value()
