"""Parsing: a module file → libcst tree with positions, cached by (path, mtime, size)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from ..errors import Diagnostic, FrontendError
from ..ir.nodes import Span

__all__ = ["ParsedModule", "parse_module", "ref_of"]


def ref_of(obj: Any) -> str:
    """``module:qualname`` of a function, class or ``Dataflow``."""
    fn = getattr(obj, "fn", obj)
    return f"{fn.__module__}:{fn.__qualname__}"


@dataclass
class ParsedModule:
    path: str
    wrapper: MetadataWrapper
    positions: Any
    functions: dict[str, cst.FunctionDef]
    classes: dict[str, cst.ClassDef]
    # nodes the frontend builds (jumps.py rewrites) -> the user's node each stands for
    origins: dict[cst.CSTNode, cst.CSTNode] = field(default_factory=dict)

    def span(self, node: cst.CSTNode) -> Span:
        while node in self.origins:
            node = self.origins[node]
        r = self.positions[node]  # a def / class starts at its keyword, decorators excluded
        return Span(self.path, r.start.line, r.start.column + 1, r.end.line, r.end.column + 1)


_PARSED: dict[tuple[str, int, int], ParsedModule] = {}


def parse_module(path: str) -> ParsedModule:
    """Parse (and cache) a module file with libcst, keeping positions."""

    st = os.stat(path)
    key = (path, st.st_mtime_ns, st.st_size)
    if key in _PARSED:
        return _PARSED[key]
    with open(path, encoding="utf-8") as f:
        src = f.read()
    try:
        module = cst.parse_module(src)
    except cst.ParserSyntaxError as e:
        raise FrontendError(
            Diagnostic(Span(path, e.raw_line, e.raw_column + 1), f"syntax error: {e.message}")
        ) from None
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    functions, classes = {}, {}
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef):
            functions[stmt.name.value] = stmt
        elif isinstance(stmt, cst.ClassDef):
            classes[stmt.name.value] = stmt
    parsed = ParsedModule(path, wrapper, positions, functions, classes)
    _PARSED[key] = parsed
    return parsed
