"""looplift.states: the library of reversible states (see SPEC §3).

Additive (compiled to Spark's native aggregates): :class:`Sum`,
:class:`Count`, :class:`Average`, :class:`Variance`. Multiset-backed,
reversible: :class:`Min`, :class:`Max`, :class:`Distinct`, :class:`Median`,
:class:`TopK`, :class:`Product` (and :class:`MultisetState` to build your own). The
clickstream state: :class:`IntervalSequence`. :func:`check_laws` property-tests
the laws of SPEC §3 on any state.

>>> from looplift.states import Median
>>> m = Median(); m.add(3); m.add(1); m.add(2); m.add.undo(3); m.value()
1.5
"""

from ._base import LibraryState
from .additive import Average, Count, Sum, Variance
from .argbest import ArgBest
from .interval import IntervalSequence
from .laws import LawViolation, check_laws
from .multiset import (
    BitAnd,
    BitOr,
    BitXor,
    Distinct,
    Max,
    Median,
    Min,
    MultisetState,
    Product,
    TopK,
)

__all__ = [
    "ArgBest",
    "Average",
    "Count",
    "Distinct",
    "IntervalSequence",
    "LawViolation",
    "LibraryState",
    "Max",
    "Median",
    "Min",
    "MultisetState",
    "Product",
    "BitAnd",
    "BitOr",
    "BitXor",
    "Sum",
    "TopK",
    "Variance",
    "check_laws",
]
