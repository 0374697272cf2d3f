"""The wheel's package list (pyproject.toml names each package, mapped from runtime/,
compiler/, states/, shells/) holds every source folder, and what it maps is there
(issue 26: the wheel once lacked ``looplift.compiler.backend.strategies``, so an
installed ``uda-compile`` failed on import). No build: the lists are compared."""

from __future__ import annotations

import tomllib

from tests.helpers import ROOT

MAPPED = {"looplift": "runtime", "looplift.compiler": "compiler", "looplift.states": "states",
          "looplift.shells": "shells"}  # fmt: skip


def _folder(package: str, dirs: dict[str, str]) -> str:
    """Where setuptools takes ``package`` from: its own package-dir entry, else its
    nearest mapped parent's folder plus the rest of the name."""
    parts = package.split(".")
    for i in range(len(parts), 0, -1):
        head = ".".join(parts[:i])
        if head in dirs:
            return "/".join([dirs[head], *parts[i:]])
    raise AssertionError(f"{package} is not under a mapped package")


def test_every_source_package_is_in_the_wheel() -> None:
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed, dirs = set(conf["packages"]), conf["package-dir"]
    found = set()
    for package, folder in MAPPED.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder).parts
            found.add(".".join([package, *rel]))
    assert found - listed == set(), "source packages pyproject.toml leaves out of the wheel"
    for package in listed:
        assert (ROOT / _folder(package, dirs) / "__init__.py").is_file(), package
