"""MkDocs hook: lay out the package ``looplift`` as pyproject.toml maps it, for griffe.

The sources live in ``runtime/`` (``looplift``), ``compiler/``, ``states/`` and
``shells/`` (``looplift.compiler``, ``looplift.states``, ``looplift.shells``). griffe
finds packages by directory name, so the tree is copied to ``build/griffe/looplift``
before the API reference is rendered; nothing is imported.
"""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAPPED = {"compiler": "compiler", "states": "states", "shells": "shells"}
IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc")


def on_startup(command, dirty):  # noqa: ANN001, ANN201 - MkDocs' hook signature
    """Before mkdocstrings reads its configured ``paths``."""
    out = ROOT / "build" / "griffe" / "looplift"
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(ROOT / "runtime", out, ignore=IGNORE)
    for name, src in MAPPED.items():
        shutil.copytree(ROOT / src, out / name, ignore=IGNORE)
