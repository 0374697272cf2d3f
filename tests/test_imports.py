"""Every module of the runtime and the compiler imports, and the graph of module-level
imports has no cycles (imports inside functions and under ``if TYPE_CHECKING:`` are not
edges: the runtime imports the compiler lazily, inside functions only)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = {"runtime": "looplift", "compiler": "looplift.compiler"}

# module-level cycles outside the runtime and the build step, known and left to their
# layer: (module, module) pairs of an edge of the cycle
KNOWN_CYCLES: set[tuple[str, str]] = set()


def _modules() -> dict[str, Path]:
    out = {}
    for folder, package in PACKAGES.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT / folder).with_suffix("")
            parts = list(rel.parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            if folder == "runtime" and parts[:1] == ["compiler"]:
                continue
            out[".".join([package, *parts])] = path
    return out


MODULES = _modules()


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _top_level_imports(body: list[ast.stmt]) -> list[ast.stmt]:
    """Import statements run when the module is imported (not in functions or classes'
    methods, not under ``if TYPE_CHECKING:``)."""
    out: list[ast.stmt] = []
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out.append(node)
        elif isinstance(node, ast.If):
            if not _is_type_checking(node.test):
                out += _top_level_imports(node.body)
            out += _top_level_imports(node.orelse)
        elif isinstance(node, (ast.Try, ast.With)):
            out += _top_level_imports(node.body)
            for h in getattr(node, "handlers", []):
                out += _top_level_imports(h.body)
            out += _top_level_imports(getattr(node, "orelse", []))
            out += _top_level_imports(getattr(node, "finalbody", []))
        elif isinstance(node, ast.ClassDef):
            out += _top_level_imports(node.body)
    return out


def _resolve(name: str) -> str | None:
    """The module of ours ``name`` is (or is in), if any."""
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def _edges(module: str, path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    is_pkg = path.name == "__init__.py"
    here = module if is_pkg else module.rpartition(".")[0]
    out = set()
    for node in _top_level_imports(tree.body):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        else:
            base = here
            for _ in range(max(node.level - 1, 0)):
                base = base.rpartition(".")[0]
            mod = node.module or ""
            base = (f"{base}.{mod}" if mod else base) if node.level else mod
            # `from pkg import submodule` imports the submodule; `pkg` itself counts only
            # for names it defines (`from . import sub` in pkg's own submodule needs pkg no
            # more than `from .sub import x` does: pkg is being imported already)
            subs = [f"{base}.{a.name}" for a in node.names]
            own = node.level and here.startswith(base)
            targets = subs if own and all(s in MODULES for s in subs) else [base, *subs]
        for t in targets:
            r = _resolve(t)
            if r is not None and r != module:
                out.add(r)
    return out


def _graph() -> dict[str, set[str]]:
    return {m: _edges(m, p) for m, p in MODULES.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


@pytest.mark.parametrize("module", sorted(m for m in MODULES if not m.endswith(".__main__")))
def test_module_imports(module: str) -> None:
    importlib.import_module(module)


def test_no_import_cycles() -> None:
    graph = _graph()
    for a, b in KNOWN_CYCLES:
        graph[a].discard(b)
    assert _cycles(graph) == []


def test_the_runtime_imports_the_compiler_lazily() -> None:
    graph = _graph()
    # (``python -m looplift`` is the compiler's command line: an entry point, not the runtime)
    runtime = [m for m in graph if not m.startswith("looplift.compiler")
               and m != "looplift.__main__"]  # fmt: skip
    bad = {m: sorted(w for w in graph[m] if w.startswith("looplift.compiler")) for m in runtime}
    assert {m: w for m, w in bad.items() if w} == {}
