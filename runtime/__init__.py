"""looplift: compile restricted imperative Python into native Spark dataflow plans.

>>> from looplift import dataflow, RowStream
>>> @dataflow
... def total(xs: RowStream[int]) -> int:
...     t = 0
...     for (x,) in xs:
...         t += x
...     return t
>>> total([(1,), (2,), (3,)])
6
"""

import logging

from .api import Dataflow, dataflow
from .errors import python_errors, raised
from .sqlapi import LoopliftSQLError, register, sql
from .state import State, action, merge
from .streams import Rows, RowStream, group_by, sorted_by
from .windows import hop, session, session_windows, tumble

__version__ = "0.1.0"

# looplift logs on "looplift" and a child per module ("looplift.compiler.pipeline": compile
# times, "looplift.bulkload": view loads, ...); shown once the application configures
# logging, e.g. logging.basicConfig(level=logging.INFO)
logging.getLogger(__name__).addHandler(logging.NullHandler())

__all__ = [
    "Dataflow",
    "LoopliftSQLError",
    "RowStream",
    "Rows",
    "State",
    "action",
    "dataflow",
    "group_by",
    "merge",
    "hop",
    "python_errors",
    "raised",
    "register",
    "session",
    "session_windows",
    "sorted_by",
    "sql",
    "tumble",
]
