"""The compiler pipeline: the frontend, then every pass in order, in one place.

``compile_dataflow`` is a loop over :data:`PIPELINE`; a failing step is named
in the error, the IR can be dumped after any stage, and the IR invariants are
checked between stages when ``verify=True`` (the tests) or ``LOOPLIFT_VERIFY=1``.
"""

from __future__ import annotations

import functools
import importlib
import inspect
import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .backend import backend_for
from .dataflow.build import build_graph
from .dataflow.graph import DataflowGraph
from .dump import dump_stage
from .errors import CompilerError, FrontendError
from .explain import explain
from .frontend import parse_module, translate
from .frontend.translator import STRICT, strict_diagnostic
from .incremental_shape import IncrementalShape, incremental_shape
from .ir.nodes import Function
from .ir.pprint import pformat_function
from .ir.verify import verify as verify_ir
from .passes.analyze_scopes import analyze_scopes
from .passes.choose_strategy import choose_strategy
from .passes.classify_operators import classify_operators
from .passes.float_invariants import float_invariants
from .passes.fuse_states import fuse_states
from .passes.inline_dataflow import inline_dataflow
from .passes.let_normalize import let_normalize
from .passes.recognize_reductions import recognize_reductions
from .passes.share_values import share_values
from .program import Program

__all__ = ["PIPELINE", "STAGES", "Compiled", "compile_dataflow", "frontend"]

logger = logging.getLogger(__name__)

PIPELINE: tuple[Callable[[Program], Program], ...] = (
    inline_dataflow,
    let_normalize,
    share_values,
    float_invariants,
    recognize_reductions,
    fuse_states,
    analyze_scopes,
    classify_operators,
)

STAGES = ("frontend", *(p.__name__ for p in PIPELINE), "graph")


@dataclass(frozen=True)
class Compiled:
    """The result of compiling one algorithm."""

    program: Program
    graph: DataflowGraph

    @property
    def kind(self) -> str:
        return self.program.kind

    @functools.cached_property
    def shape(self) -> IncrementalShape:
        """What incremental maintenance needs (scope key, replay mode), from the program."""
        return incremental_shape(self.program)

    @functools.cached_property
    def _made(self) -> tuple[Any, CompilerError | None]:
        start = time.perf_counter()
        try:
            made = backend_for(self), None
        except CompilerError as e:
            made = None, e
        logger.info("built the Spark %s of %s in %.2f s%s",
                 "SQL function" if self.kind == "scalar" else "plan", self.program.fn.name,
                 time.perf_counter() - start, "" if made[1] is None else " (it failed)")  # fmt: skip
        return made

    @property
    def backend(self) -> Any:
        """The Spark backend's artifact, made once: the plan module (tables, aggregates) or
        the SQL function (scalars). Raises :class:`CompilerError` (placed in the source)
        when it cannot be built; the build, ``--check`` and ``--explain`` all read this."""
        made, error = self._made
        if error is not None:
            raise error
        return made

    def explain(self) -> str:
        """What the algorithm compiles to, read from the graph's recorded strategies and
        from what the backend made of them (the Python it calls at run time)."""
        made, error = self._made
        return explain(self.program, self.graph, made, failure=error)


def frontend(obj: Any, *, partial: bool = False) -> tuple[Function, dict[str, Any], list]:
    """Parse and translate one ``Dataflow`` object."""
    path = inspect.getsourcefile(obj.fn)
    if path is None:
        raise TypeError(f"cannot find the source of {obj!r}")
    return translate(obj, parse_module(path), partial=partial)


def _loader(refs: dict[str, Any]) -> Callable[[str], Function]:
    def load(ref: str) -> Function:
        obj = refs.get(ref)
        if obj is None:
            mod, _, qual = ref.partition(":")
            obj = getattr(importlib.import_module(mod), qual)
        fn, more, _ = frontend(obj)
        refs.update(more)
        return fn

    return load


def _more_problems(prog: Program) -> list:
    """Run the passes over IR that had frontend errors, to report their problems too.

    The statements in error were left out, so a pass may also fail for reasons
    that are not the user's: only its diagnostics are kept.
    """
    found = []
    for step in PIPELINE:
        try:
            prog = step(prog)
        except CompilerError as e:
            found.extend(e.diagnostics)
            break
        except Exception:  # noqa: BLE001 - partial IR; the frontend errors stand
            break
    return found


def compile_dataflow(
    obj: Any,
    *,
    dump_after: str | None = None,
    dump: Callable[[str], None] = print,
    verify: bool | None = None,
) -> Compiled:
    """Compile a ``Dataflow`` through the whole pipeline (logged at INFO on the
    ``looplift.compiler.pipeline`` logger, each step's time at DEBUG)."""
    if verify is None:
        verify = os.environ.get("LOOPLIFT_VERIFY") == "1"
    name = f"{getattr(obj.fn, '__module__', '?')}.{obj.name}"
    logger.info("compiling %s", name)
    start = time.perf_counter()
    try:
        compiled = _compile(obj, dump_after, dump, verify)
    except CompilerError as e:
        logger.info("compiling %s failed after %.2f s: %d diagnostics", name,
                 time.perf_counter() - start, len(e.diagnostics))  # fmt: skip
        raise
    logger.info("compiled %s in %.2f s: %s, %d Python islands", name, time.perf_counter() - start,
             compiled.kind, len(compiled.program.fn.islands))  # fmt: skip
    return compiled


def _compile(obj: Any, dump_after: str | None, dump: Callable[[str], None],
             verify: bool) -> Compiled:  # fmt: skip
    """:func:`compile_dataflow`'s work: the frontend, each step of the pipeline, the graph."""
    fn, refs, problems = frontend(obj, partial=True)
    if problems:
        raise FrontendError(problems + _more_problems(Program(fn, refs, _loader(refs))))
    if verify:
        verify_ir(fn, "frontend")
    if dump_after == "frontend":
        dump(pformat_function(fn))
    prog = Program(fn, refs, _loader(refs))
    for step in PIPELINE:
        started = time.perf_counter()
        try:
            prog = step(prog)
        except CompilerError:
            raise
        except Exception as e:  # a compiler bug: name the failing step
            raise RuntimeError(f"looplift: internal error in {step.__name__}: {e!r}") from e
        logger.debug("%s: %s in %.3f s", obj.name, step.__name__, time.perf_counter() - started)
        if verify:
            verify_ir(prog.fn, step.__name__)
        if dump_after == step.__name__:
            dump(dump_stage(prog, step.__name__))
    if prog.fn.islands and (getattr(obj, "strict", False) or STRICT.get()):
        raise FrontendError([strict_diagnostic(i) for i in prog.fn.islands])
    graph = choose_strategy(prog, build_graph(prog), getattr(obj, "largest_group", None))
    if verify:
        graph.verify()
    if dump_after == "graph":
        dump(graph.pformat())
    return Compiled(prog, graph)
