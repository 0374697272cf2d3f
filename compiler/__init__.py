"""looplift.compiler: restricted Python → lambda IR → passes → dataflow graph.

>>> # from looplift.compiler import compile_dataflow
>>> # compiled = compile_dataflow(clickstream); print(compiled.explain())
"""

from .errors import CompilerError, FrontendError, PassError
from .pipeline import PIPELINE, Compiled, compile_dataflow

__all__ = [
    "PIPELINE",
    "Compiled",
    "CompilerError",
    "FrontendError",
    "PassError",
    "compile_dataflow",
]
