"""Every code block of README.md and docs/*.md runs as written; the site builds strictly.

A page is a session, like a doctest: its fenced ```python blocks run in order in one
namespace (a module of its own, so the compiler finds each block's source in a file and
Spark's workers receive the page's functions by value). A page that creates a
SparkSession with ``local_session()`` gets the test session's (``getOrCreate``).
```sh``/```bash`` blocks run the commands that are ``uda-compile ...`` or
``python -c ...`` (optionally after ``cd DIR &&``) from the repository root with the
venv's binaries; other commands (``make``, ``pip``, ``spark-submit``, benchmarks) are
not run. Plain ``` and ```text blocks are output and are not run.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,})(?P<info>[^`\n]*)$")
RUN_COMMAND = re.compile(
    r"^(?:cd (?P<dir>\S+) && )?(?P<cmd>(?:[\w./-]*/)?(?:uda-compile\b|python3? -c\b))"
)


def blocks(path: Path) -> list[tuple[str, int, str]]:
    """The fenced blocks of a Markdown file: (language, first line number, text)."""
    found, lines, i = [], path.read_text(encoding="utf-8").splitlines(), 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence = m["indent"], m["fence"]
        lang = m["info"].strip().split(" ")[0].lower() if m["info"].strip() else ""
        body, j = [], i + 1
        while j < len(lines) and not re.match(rf"^[ \t]*{fence}\s*$", lines[j]):
            body.append(lines[j][len(indent) :] if lines[j].startswith(indent) else lines[j])
            j += 1
        if j == len(lines):
            raise AssertionError(f"{path.name}:{i + 1}: unclosed code fence")
        found.append((lang, i + 2, "\n".join(body) + "\n"))
        i = j + 1
    return found


def commands(text: str) -> list[str]:
    """The commands of a shell block: continuation lines joined, comments dropped."""
    out, cur = [], ""
    for line in text.splitlines():
        cur += line
        if cur.endswith("\\"):
            cur = cur[:-1] + " "
            continue
        try:
            words = shlex.split(cur, comments=True)
        except ValueError:  # an open quote: the command goes on (python -c '...')
            cur += "\n"
            continue
        if words:
            out.append(cur.strip())
        cur = ""
    return out


def test_blocks_found():
    """The pages exist and the extraction sees their blocks (a broken fence would hide them)."""
    assert (ROOT / "docs" / "index.md").exists()
    langs = {lang for page in PAGES for lang, _, _ in blocks(page)}
    assert {"python", "sh"} <= langs, langs
    assert langs <= {"python", "sh", "bash", "", "text"}, langs


def _needs_spark(page: Path) -> bool:
    return any(
        lang == "python" and re.search(r"local_session\(|SparkSession\.builder", text)
        for lang, _, text in blocks(page)
    )


@pytest.mark.parametrize(
    "page",
    [pytest.param(p, marks=[pytest.mark.spark] if _needs_spark(p) else []) for p in PAGES],
    ids=[p.relative_to(ROOT).as_posix() for p in PAGES],
)
def test_page_runs(
    page: Path, request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    session = None
    if _needs_spark(page):  # the test session's SparkSession: the page's local_session() gets it
        session = request.getfixturevalue("spark")
    monkeypatch.chdir(ROOT)
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    name = "looplift_docs_" + re.sub(r"\W", "_", page.stem.lower())
    module = types.ModuleType(name)
    module.__file__ = str(tmp_path / f"{name}.py")
    Path(module.__file__).write_text("")
    sys.modules[name] = module
    # the page runs as in a new process: modules other tests imported from samples/ or a
    # build (`clickstream`, ...) are set aside, so its imports find the page's own
    aside = {m: sys.modules.pop(m) for m in list(sys.modules) if _user_module(sys.modules[m])}
    saved_path, saved_argv, saved_modules = list(sys.path), list(sys.argv), set(sys.modules)
    try:
        for n, (lang, line, text) in enumerate(blocks(page)):
            where = f"{page.relative_to(ROOT)}:{line}"
            if lang == "python":
                src = tmp_path / f"{name}_{n}.py"  # the compiler reads a function's file
                src.write_text(text, encoding="utf-8")
                try:
                    exec(compile(text, str(src), "exec"), module.__dict__)  # noqa: S102
                except Exception as e:
                    raise AssertionError(f"{where}: the block raised {e!r}") from e
            elif lang in ("sh", "bash"):
                for cmd in commands(text):
                    m = RUN_COMMAND.match(cmd)
                    if not m:
                        continue
                    cwd = ROOT / m["dir"] if m["dir"] else ROOT
                    cmd = re.sub(r"^[\w./-]*/", "", cmd[m.start("cmd") :])  # the venv's binary
                    r = subprocess.run(["bash", "-c", cmd], cwd=cwd, env=env,
                                       capture_output=True, text=True, timeout=180)  # fmt: skip
                    assert r.returncode == 0, f"{where}: `{cmd}` failed:\n{r.stdout}\n{r.stderr}"
        if session is not None:  # getOrCreate: the page made no second session
            assert module.__dict__.get("spark") is session, f"{page.name} made its own session"
    finally:
        sys.modules.pop(name, None)
        sys.path[:], sys.argv[:] = saved_path, saved_argv
        for mod in set(sys.modules) - saved_modules:  # the page's own modules (samples, builds)
            f = os.path.abspath(getattr(sys.modules[mod], "__file__", None) or "/")
            if f.startswith((str(ROOT / "samples"), str(ROOT / "build"), str(tmp_path))):
                del sys.modules[mod]
        sys.modules.update(aside)


def _user_module(module: Any) -> bool:
    """A module imported from the samples or a build folder of the checkout."""
    f = os.path.abspath(getattr(module, "__file__", None) or "/")
    return f.startswith((str(ROOT / "samples") + os.sep, str(ROOT / "build") + os.sep))


def test_mkdocs_build_strict(tmp_path: Path):
    mkdocs = shutil.which("mkdocs", path=str(BIN)) or shutil.which("mkdocs")
    if mkdocs is None:
        pytest.skip("mkdocs is not installed (pip install -e '.[docs]')")
    r = subprocess.run([mkdocs, "build", "--strict", "-q", "-d", str(tmp_path / "site")],
                       cwd=ROOT, capture_output=True, text=True, timeout=300)  # fmt: skip
    assert r.returncode == 0, r.stdout + r.stderr
    assert (tmp_path / "site" / "reference" / "index.html").exists()
