"""Graphviz for the dataflow pictures: a ``dot`` on PATH, else the ``graphviz-pure``
command the package depends on (a Graphviz port installed from PyPI next to the
interpreter), so ``--graph x.svg`` works after ``pip install looplift`` alone."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig

__all__ = ["dot_command", "draw", "write_graph"]


def dot_command() -> str | None:
    """The Graphviz executable to run, or None when there is none."""
    found = shutil.which("dot") or shutil.which("graphviz-pure")
    if found:
        return found
    for scripts in (sysconfig.get_path("scripts"), os.path.dirname(sys.executable)):
        exe = os.path.join(scripts, "graphviz-pure")
        if os.access(exe, os.X_OK):
            return exe
    return None


def draw(dot: str, fmt: str) -> bytes:
    """Graphviz's rendering of the ``dot`` text as ``fmt`` (svg, png)."""
    exe = dot_command()
    if exe is None:
        raise RuntimeError(
            "drawing .svg/.png needs Graphviz: `pip install graphviz-pure` (a dependency of "
            "looplift) or a system Graphviz; or write .dot"
        )
    return subprocess.run([exe, f"-T{fmt}"], input=dot.encode(), check=True,
                          capture_output=True).stdout  # fmt: skip


GRAPH_FORMATS = (".dot", ".svg", ".png")


def write_graph(path: str, dot: str) -> str:
    """Write the ``dot`` text to ``path`` as its extension says: ``.dot`` as it is,
    ``.svg`` or ``.png`` drawn by Graphviz. Returns ``path``; raises ValueError for
    another extension, RuntimeError when there is no Graphviz."""
    ext = os.path.splitext(path)[1].lower()
    if ext not in GRAPH_FORMATS:
        raise ValueError(f"a graph is written as .dot, .svg or .png, not {ext or path!r}")
    if ext == ".dot":
        with open(path, "w", encoding="utf-8") as f:
            f.write(dot)
        return path
    data = draw(dot, ext[1:])
    with open(path, "wb") as f:
        f.write(data)
    return path
