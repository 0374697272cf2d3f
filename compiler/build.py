"""``uda-compile X.py -o OUT``: a build package that runs without the compiler.

For a module file ``X.py`` the build writes

- ``OUT/X/``, an importable package:

  - ``source.py``: a byte copy of ``X.py`` (the reference functions, host
    functions and state classes travel with the build);
  - ``plan_<name>.py`` per table or aggregate algorithm: the generated PySpark
    plan, its references to ``X`` pointed at ``X.source``;
  - ``manifest.json``: every algorithm as :meth:`looplift.registry.Algorithm.to_json`;
  - ``functions.sql``: the scalar algorithms as ``CREATE TEMPORARY FUNCTION``;
  - ``__init__.py``: ``ALGORITHMS``, ``register(spark)`` and ``run(spark, name, df)``;
  - ``graph.dot`` (and ``graph.svg`` when Graphviz's ``dot`` is installed);
  - ``_vendor/``: modules next to ``X.py`` that it imports (``from count import
    count``), copied; ``X`` imports its source with those names resolving there;

- ``OUT/X.zip``: the same package at the zip's root, for ``spark-submit --py-files``.

The output is deterministic (same input, same bytes) and is written to a
temporary directory first, so a failed build leaves nothing behind.
"""

from __future__ import annotations

import ast
import hashlib
import io
import json
import keyword
import logging
import os
import shutil
import sys
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .build_relocate import relocate_source, rewrite_refs, tidy_python
from .build_vendor import sibling_modules, vendor_files, vendor_init_source
from .errors import CompilerError, Diagnostic
from .ir.nodes import Span
from .program import AlgorithmKind

logger = logging.getLogger(__name__)

__all__ = [
    "Build",
    "build_package",
    "package_name",
    "sibling_modules",
    "write_build",
    "zip_package",
]

FORMAT = 1
ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)
_TAKEN = {"looplift", "pyspark", "py4j", "pyarrow", "pandas", "numpy"}  # what builds import


@dataclass
class Build:
    """The files of one build package, by path inside ``OUT/<name>/``."""

    name: str
    files: dict[str, bytes]
    algorithms: list[tuple[str, str]]  # (name, kind)
    vendored: tuple[str, ...] = ()
    notes: list[str] = field(default_factory=list)


# -- the package ----------------------------------------------------------------------------------


def build_package(
    path: str,
    dataflows: list[Any],
    graph_dot: str,
    draw: Callable[[str, str], bytes] | None = None,
) -> Build:
    """The build of module file ``path`` whose ``@dataflow`` objects are ``dataflows``.

    ``graph_dot`` is the module's dataflow graph; ``draw(dot, "svg")`` renders it
    (``None``: no ``graph.svg``). Raises :class:`CompilerError` with the diagnostics of
    every algorithm the Spark backend cannot run. Nothing is written (:func:`write_build`
    does that): ``uda-compile --check`` runs this too, so it fails exactly when a build
    does. Each algorithm's plan is its compiled result's, made once (``Compiled.backend``).
    """
    import looplift

    path = os.path.abspath(path)
    name = package_name(path)
    with open(path, "rb") as f:
        source = f.read()
    siblings = sibling_modules(path)
    relocate = {name: f"{name}.source", **{s: f"{name}._vendor.{s}" for s in siblings}}

    defs = {
        n.name: (n.lineno, n.col_offset + 1)
        for n in ast.parse(source).body
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    algorithms, backends, diags = [], {}, []
    files: dict[str, bytes] = {"source.py": source}
    entries = []
    islands = _islands_of(dataflows)
    for mod in {i.ref.partition(":")[0] for i in islands}:
        relocate[mod] = f"{name}.islands"
    for df in sorted(dataflows, key=lambda d: d.name):
        logger.info("build %s: %s", name, df.name)
        try:
            backends[df.name] = df.backend()
            alg = df.algorithm()
            entry = rewrite_refs(alg.to_json(), relocate)
            if alg.kind != AlgorithmKind.SCALAR:
                module = f"plan_{alg.name}"
                entry["plan_module"] = f"{name}.{module}"
                plan = relocate_source(backends[alg.name].source, relocate)
                files[f"{module}.py"] = tidy_python(plan).encode()
        except CompilerError as e:
            diags.extend(e.diagnostics)
            continue
        except Exception as e:  # a compiler bug: a diagnostic at the def, not a traceback
            if os.environ.get("LOOPLIFT_DEBUG") == "1":
                raise
            line, col = defs.get(df.name, (df.fn.__code__.co_firstlineno, 1))
            msg = (f"internal error, please report: building `{df.name}` failed with "
                   f"{type(e).__name__}: {e}")  # fmt: skip
            hint = "rerun with LOOPLIFT_DEBUG=1 for the traceback, and report it with this algorithm"
            diags.append(Diagnostic(Span(path, line, col), msg, hint))
            continue
        algorithms.append(alg)
        entries.append(entry)
    if diags:
        raise CompilerError(diags)

    manifest = {
        "format": FORMAT,
        "looplift_version": looplift.__version__,
        "module": name,
        "source_sha256": hashlib.sha256(source).hexdigest(),
        "algorithms": entries,
    }
    files["manifest.json"] = (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode()
    files["functions.sql"] = functions_sql(name, algorithms, backends).encode()
    files["__init__.py"] = init_source(name, algorithms, bool(siblings)).encode()
    files["graph.dot"] = graph_dot.encode()
    if islands:
        files["islands.py"] = islands_source(name, islands).encode()
    if draw is not None:
        logger.info("build %s: drawing graph.svg", name)
        files["graph.svg"] = draw(graph_dot, "svg")
    for sib, where in siblings.items():
        files.update(vendor_files(sib, where))
    notes = []
    if siblings:
        files["_vendor/__init__.py"] = vendor_init_source(name, sorted(siblings)).encode()
        notes.append(
            f"vendored the modules next to {os.path.basename(path)} that it imports: "
            f"{', '.join(sorted(siblings))} (as {name}._vendor.*)"
        )
    return Build(
        name,
        dict(sorted(files.items())),
        [(a.name, a.kind) for a in algorithms],
        tuple(sorted(siblings)),
        notes,
    )


def package_name(path: str) -> str:
    """The build package's name for module file ``path`` (its stem), if it can be one."""
    path = os.path.abspath(path)
    name = os.path.splitext(os.path.basename(path))[0]
    problem = None
    if not name.isidentifier() or keyword.iskeyword(name):
        problem = f"`{name}` is not a Python package name, so the build cannot be imported"
    elif name in _TAKEN or name in sys.stdlib_module_names:
        problem = f"a build package named `{name}` would hide the module `{name}` it needs"
    if problem:
        hint = "rename the file (letters, digits and underscores, not a module name in use)"
        raise CompilerError(Diagnostic(Span(path, 0, 0), problem, hint=hint))
    return name


def functions_sql(name: str, algorithms: list[Any], backends: dict[str, Any]) -> str:
    """``functions.sql``: each scalar algorithm that is plain SQL as a SQL function."""
    def needs(a: Any) -> str:  # what a scalar algorithm needs beyond Spark SQL
        b = backends[a.name]
        return " calling Python" if b.pycalls else " calling looplift's kernels" if b.needs_jvm else ""

    plain = [a for a in algorithms if a.kind == AlgorithmKind.SCALAR and not needs(a)]
    other = [a for a in algorithms if a not in plain]
    lines = [
        f"-- Spark SQL functions of the looplift build `{name}` (generated by uda-compile).",
        "-- Run each statement with spark.sql(...) to call the scalar algorithms from SQL.",
    ]
    if other:
        why = ", ".join(
            f"{a.name} ({a.kind}{needs(a) if a.kind == 'scalar' else ''})" for a in other
        )
        lines.append(f"-- Not here, use `from {name} import register; register(spark)`: {why}.")
    if not plain:
        lines.append("-- (no scalar algorithm of this module is plain SQL)")
    text = "\n".join(lines) + "\n"
    stmts = [backends[a.name].create_sql(name=a.name, portable_sql=True).strip() for a in plain]
    return text + "".join(f"{s};\n" for s in stmts)


def _signature(alg: Any) -> str:
    params = []
    for pname, kind, types in alg.params:
        ty = f"RowStream[{', '.join(types)}]" if kind == "rows" else (types[0] if types else "?")
        params.append(f"{pname}: {ty}")
    out = ", ".join(f"{c} {t}" for c, t in alg.output)
    return f"{alg.name}({', '.join(params)}) -> {out}"


def _islands_of(dataflows: list[Any]) -> list[Any]:
    """The Python islands the module's algorithms call (``frontend/islands.py``), each once."""
    seen: dict[str, Any] = {}
    for df in dataflows:
        try:
            fn = df.compile().program.fn
        except CompilerError:
            continue  # reported by the build of that algorithm
        for i in fn.islands:
            seen.setdefault(i.ref, i)
    return [seen[r] for r in sorted(seen)]


def islands_source(name: str, islands: list[Any]) -> str:
    """``islands.py``: the generated functions of the Python islands, defined in the module
    ``source``'s globals (they are the user's own code, lifted out of its algorithms)."""
    lines = [
        f'"""Python islands of `{name}.py` (generated by uda-compile; do not edit): the code',
        "with no exact native lowering, run by the plans as vectorized Python functions.",
        '"""',
        "",
        "import ast",
        "",
        "from . import source as _source",
        "",
        "",
        "def _define(name, text, passthrough, line=0):",
        f'    code = compile(text, f"<looplift island {name}:{{name}}>", "exec")',
        "    if line > 1:  # at the user's lines of source.py: tracebacks show the user's code",
        "        tree = ast.parse(text)",
        "        ast.increment_lineno(tree, line - 2)",
        '        code = compile(tree, _source.__file__, "exec")',
        "    exec(code, _source.__dict__)  # noqa: S102 - the user's code, lifted out",
        "    fn = _source.__dict__.pop(name)",
        "    fn.__module__ = __name__",
        "    fn.__looplift_island_passthrough__ = passthrough",
        "    return fn",
        "",
        "",
    ]
    for i in islands:
        mod, _, qual = i.ref.partition(":")
        fn = getattr(sys.modules[mod], qual)
        text = fn.__looplift_island_source__
        keep = getattr(fn, "__looplift_island_passthrough__", None)
        origin = getattr(fn, "__looplift_island_origin__", None)
        line = origin[1] if origin else 0
        lines.append(f"{i.name} = _define({i.name!r}, {text!r}, {keep!r}, {line})")
    return "\n".join(lines) + "\n"


def init_source(name: str, algorithms: list[Any], vendored: bool) -> str:
    """The package's ``__init__.py``."""
    from .backend.module import doc_text

    listing = "\n".join(f"- {a.kind} {doc_text(_signature(a))}" for a in algorithms)
    table = next((a.name for a in algorithms if a.kind == AlgorithmKind.TABLE), None)
    example = ""
    if table is not None:
        example = (
            f'    looplift.sql(spark, "SELECT * FROM {table}(TABLE(...))")\n'
            f'    run(spark, "{table}", df)  # the compiled plan over a DataFrame\n'
        )
    vendor = ""
    if vendored:
        vendor = (
            "\nfrom ._vendor import load as _load_source\n"
            "\nALGORITHMS = load_manifest(__name__)\n"
            "# the modules next to the source that it imports resolve to the copies in _vendor\n"
            '_load_source(f"{__name__}.source")\n'
        )
    else:
        vendor = "\nALGORITHMS = load_manifest(__name__)\n"
    return (
        f'"""looplift build of `{name}.py` (generated by uda-compile; do not edit).\n'
        "\n"
        "Algorithms (kind, signature, output columns):\n"
        "\n"
        f"{listing}\n"
        "\n"
        "Use::\n"
        "\n"
        f"    from {name} import register, run\n"
        "\n"
        "    register(spark)  # then looplift.sql(spark, ...) and spark.sql(...) call them\n"
        f"{example}"
        '"""\n'
        "\n"
        "from looplift.registry import load_manifest\n"
        f"{vendor}"
        "\n"
        '__all__ = ["ALGORITHMS", "register", "run"]\n'
        "\n"
        "\n"
        "def register(spark, **renames):\n"
        '    """Register every algorithm with ``spark`` (``looplift.register``).\n'
        "\n"
        "    ``renames`` registers an algorithm under another SQL name instead of its own,\n"
        '    e.g. ``register(spark, my_sum="sum")`` for a name Spark already has.\n'
        '    """\n'
        "    import looplift\n"
        "\n"
        "    renamed = {new: ALGORITHMS[a] if isinstance(a, str) else a for new, a in renames.items()}\n"
        "    moved = {a.name for a in renamed.values()}\n"
        "    rest = [a for n, a in ALGORITHMS.items() if n not in moved]\n"
        "    return looplift.register(spark, *rest, **renamed)\n"
        "\n"
        "\n"
        "def run(spark, name, df, *scalars):\n"
        '    """The compiled plan of table or aggregate algorithm ``name`` over ``df``."""\n'
        "    return ALGORITHMS[name].plan().plan(spark, df, *scalars)\n"
    )


# -- writing ------------------------------------------------------------------------------------


def zip_package(name: str, files: dict[str, bytes]) -> bytes:
    """The package as a zip with ``name/`` at its root, byte-for-byte reproducible."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for rel in sorted(files):
            info = zipfile.ZipInfo(f"{name}/{rel}", date_time=ZIP_EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3  # unix, so the permissions below are read
            info.external_attr = 0o644 << 16
            zf.writestr(info, files[rel], compresslevel=9)
    return buf.getvalue()


def write_build(out: str, build: Build) -> list[str]:
    """Write ``out/<name>/`` and ``out/<name>.zip``; returns the two paths.

    Everything is written into a temporary directory inside ``out`` and moved into
    place at the end; a previous build of the same module is replaced.
    """
    os.makedirs(out, exist_ok=True)
    pkg_dir = os.path.join(out, build.name)
    zip_path = os.path.join(out, f"{build.name}.zip")
    if os.path.exists(pkg_dir) and not os.path.isfile(os.path.join(pkg_dir, "manifest.json")):
        if not os.path.isdir(pkg_dir) or os.listdir(pkg_dir):
            raise FileExistsError(f"{pkg_dir} exists and is not a looplift build; not replacing it")
    tmp = tempfile.mkdtemp(prefix=f".{build.name}-", dir=out)
    try:
        staged = os.path.join(tmp, build.name)
        for rel, data in build.files.items():
            target = os.path.join(staged, *rel.split("/"))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with open(target, "wb") as f:
                f.write(data)
        with open(os.path.join(tmp, "package.zip"), "wb") as f:
            f.write(zip_package(build.name, build.files))
        if os.path.exists(pkg_dir):
            os.rename(pkg_dir, os.path.join(tmp, "previous"))
        os.rename(staged, pkg_dir)
        os.replace(os.path.join(tmp, "package.zip"), zip_path)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    logger.info("build %s: wrote %s and %s (%d files)", build.name, pkg_dir, zip_path,
             len(build.files))  # fmt: skip
    return [pkg_dir, zip_path]
