"""A build's vendored siblings: the modules next to ``X.py`` that it imports, copied into
``<package>/_vendor/``, and the ``_vendor/__init__.py`` that imports ``X``'s source with
those names resolving to the copies (without putting them on ``sys.path``).
"""

from __future__ import annotations

import ast
import os

__all__ = ["sibling_modules", "vendor_files", "vendor_init_source"]


def vendor_init_source(name: str, siblings: list[str]) -> str:
    """``_vendor/__init__.py``: import the source with its siblings' names resolving here."""
    names = ", ".join(f'"{s}"' for s in siblings) + ("," if len(siblings) == 1 else "")
    return f'''"""Modules next to `{name}.py` that it imports, vendored: {", ".join(siblings)}.

`{name}.source` imports them by their own top-level names (``import {siblings[0]}``).
:func:`load` imports it with those names resolving to the copies here, without
putting them on ``sys.path``: afterwards they are ``{name}._vendor.{siblings[0]}``, ...,
and their top-level names are left as they were.
"""

import importlib
import importlib.abc
import importlib.util
import sys

NAMES = ({names})


class _Vendored(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports a vendored top-level name as this package's submodule of that name."""

    def __init__(self):
        self.specs = {{}}

    def find_spec(self, fullname, path=None, target=None):
        if fullname.partition(".")[0] not in NAMES:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        module = importlib.import_module(f"{{__name__}}.{{spec.name}}")
        self.specs[spec.name] = module.__spec__
        return module

    def exec_module(self, module):
        # the import system gave the module the alias's spec; it keeps its own
        module.__spec__ = self.specs.pop(module.__spec__.name)


def _ours(name):
    return name.partition(".")[0] in NAMES


def load(source):
    """Import module ``source`` with the vendored names resolving to this package."""
    saved = {{n: m for n, m in sys.modules.items() if _ours(n)}}
    for n in saved:
        del sys.modules[n]
    finder = _Vendored()
    sys.meta_path.insert(0, finder)
    try:
        return importlib.import_module(source)
    finally:
        sys.meta_path.remove(finder)
        for n in [n for n in sys.modules if _ours(n)]:
            del sys.modules[n]
        sys.modules.update(saved)
'''


# -- vendored siblings ------------------------------------------------------------------------


def _imported_tops(tree: ast.AST) -> list[str]:
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.extend(a.name.partition(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.append(node.module.partition(".")[0])
    return out


def sibling_modules(path: str) -> dict[str, str]:
    """Modules next to ``path`` that it imports, directly or through each other.

    Top-level name → the module file or package folder. ``uda-compile`` puts the
    module's folder first on ``sys.path``, so these are what the module imported.
    """
    path = os.path.abspath(path)
    folder = os.path.dirname(path)
    stem = os.path.splitext(os.path.basename(path))[0]
    found: dict[str, str] = {}
    todo = [path]
    while todo:
        with open(todo.pop(), "rb") as f:
            tree = ast.parse(f.read())
        for top in _imported_tops(tree):
            if top == stem or top in found:
                continue
            mod_file = os.path.join(folder, f"{top}.py")
            pkg = os.path.join(folder, top)
            if os.path.isfile(mod_file):
                found[top] = mod_file
                todo.append(mod_file)
            elif os.path.isdir(pkg) and os.path.isfile(os.path.join(pkg, "__init__.py")):
                found[top] = pkg
                todo.extend(os.path.join(pkg, p) for p in _package_files(pkg) if p.endswith(".py"))
    return found


def _package_files(folder: str) -> list[str]:
    """Files of a package folder (relative, ``/``-separated, sorted), without caches."""
    out = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
        rel = os.path.relpath(root, folder)
        for f in files:
            if f.endswith((".pyc", ".pyo")) or f.startswith("."):
                continue
            out.append(f if rel == "." else f"{rel.replace(os.sep, '/')}/{f}")
    return sorted(out)


def vendor_files(name: str, where: str) -> dict[str, bytes]:
    if os.path.isfile(where):
        with open(where, "rb") as f:
            return {f"_vendor/{name}.py": f.read()}
    out = {}
    for rel in _package_files(where):
        with open(os.path.join(where, *rel.split("/")), "rb") as f:
            out[f"_vendor/{name}/{rel}"] = f.read()
    return out
