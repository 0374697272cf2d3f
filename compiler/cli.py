"""``uda-compile`` / ``python -m looplift``: compile a module of algorithms.

    uda-compile samples/clickstream.py --explain
    uda-compile samples/clickstream.py --graph clickstream.svg
    uda-compile samples/clickstream.py --check
    uda-compile samples/clickstream.py --dump-after=fuse_states
    uda-compile samples/clickstream.py -o build     # build/clickstream/ and build/clickstream.zip

Exit 0 on success, 1 with diagnostics (``path:line:col: error: ...``) on errors.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import os
import subprocess
import sys
import traceback
from typing import Any

__all__ = ["main", "load_module", "algorithms_of"]


def _parser() -> argparse.ArgumentParser:
    from .pipeline import STAGES

    p = argparse.ArgumentParser(
        prog="uda-compile",
        description="Compile looplift @dataflow algorithms into Spark dataflow plans.",
    )
    p.add_argument("file", help="a Python module with @dataflow functions")
    p.add_argument("-o", "--output", metavar="DIR", help="write the build package to DIR")
    p.add_argument("--explain", action="store_true", help="print what each algorithm compiles to")
    p.add_argument("--graph", metavar="OUT", help="draw the dataflow graph (.dot, .svg or .png)")
    p.add_argument("--check", action="store_true", help="only diagnose; write nothing")
    p.add_argument("--dump-after", metavar="STAGE", choices=STAGES, help="print the IR after STAGE")
    p.add_argument("--only", metavar="NAME", action="append", help="compile only these algorithms")
    p.add_argument("--strict", action="store_true",
                   help="refuse Python islands: every construct without an exact native "
                   "lowering is an error")  # fmt: skip
    p.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    return p


def _version() -> str:
    """looplift's installed version, and the pyspark it runs on."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        mine = version("looplift")
    except PackageNotFoundError:  # run from a checkout that is not installed
        mine = "(not installed)"
    try:
        spark = version("pyspark")
    except PackageNotFoundError:
        spark = "none"
    return f"{mine} (pyspark {spark}, Python {sys.version.split()[0]})"


def load_module(path: str, name: str | None = None) -> Any:
    """Import a module from a file path (its folder goes on sys.path for its imports)."""
    path = os.path.abspath(path)
    name = name or os.path.splitext(os.path.basename(path))[0]
    folder = os.path.dirname(path)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def algorithms_of(module: Any) -> list[Any]:
    """The module's own ``@dataflow`` functions, in source order."""
    from looplift.api import Dataflow

    found = [
        v
        for v in vars(module).values()
        if isinstance(v, Dataflow)
        and inspect.isfunction(v.fn)  # not a Dataflow of a Dataflow, a class, a builtin
        and v.fn.__module__ == module.__name__
    ]
    return sorted(found, key=lambda d: d.fn.__code__.co_firstlineno)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    from .errors import CompilerError, Diagnostic, FrontendError, render
    from .frontend import parse_module
    from .frontend.decorators import check_decorators
    from .ir.nodes import Span
    from .pipeline import compile_dataflow

    if not os.path.exists(args.file):
        print(f"uda-compile: no such file: {args.file}", file=sys.stderr)
        return 1
    try:
        if args.output:
            from .build import package_name

            package_name(args.file)  # before importing it under that name
        parsed = parse_module(os.path.abspath(args.file))
        misused = check_decorators(parsed)  # before the import they may break
        if misused:
            raise FrontendError(misused)
        module = load_module(args.file)
    except CompilerError as e:
        print(str(e), file=sys.stderr)
        return 1
    except Exception as e:  # the module itself fails to import
        print(render([_import_failure(os.path.abspath(args.file), e)]), file=sys.stderr)
        return 1
    algos = algorithms_of(module)
    if args.only:
        algos = [a for a in algos if a.name in args.only]
    if not algos:
        d = Diagnostic(
            Span(os.path.abspath(args.file), 1, 1),
            "no @dataflow functions in this module"
            + (f" named {', '.join(args.only)}" if args.only else ""),
            "decorate a module-level algorithm with @dataflow (from looplift import dataflow)",
        )
        print(render([d]), file=sys.stderr)
        return 1
    compiled = {}
    diags = []
    from .frontend.translator import STRICT

    strict = STRICT.set(bool(args.strict))
    for algo in algos:
        try:
            compiled[algo.name] = compile_dataflow(
                algo,
                dump_after=args.dump_after,
                dump=lambda text, name=algo.name: print(
                    f"# {name} after {args.dump_after}\n{text}\n"
                ),
            )
            algo._compiled = compiled[algo.name]  # its plan, made once, is the build's
        except CompilerError as e:
            diags.extend(e.diagnostics)
        except Exception as e:  # last resort: a compiler bug (the fuzzer counts these)
            if os.environ.get("LOOPLIFT_DEBUG") == "1":
                raise
            diags.append(_internal_error(algo, e))
    STRICT.reset(strict)
    builds = args.check or args.explain or args.output or not (args.graph or args.dump_after)
    if diags:
        for c in compiled.values() if builds else ():  # their backend's problems too, at once
            try:
                _ = c.backend
            except CompilerError as e:
                diags.extend(e.diagnostics)
        _report(diags)
        return 1
    build = None
    if builds:
        # the build up to writing its files: --check and --explain fail exactly when it does
        try:
            build = _prepare(args.file, algos, list(compiled.values()), bool(args.output))
        except CompilerError as e:
            _report(e.diagnostics)
            return 1
        except (OSError, subprocess.CalledProcessError) as e:  # reading the module, drawing
            print(f"uda-compile: {e}", file=sys.stderr)
            return 1
    if args.check:
        print(f"{args.file}: {len(compiled)} algorithm{'s' if len(compiled) != 1 else ''} OK")
        return 0
    if args.explain:
        print("\n\n".join(c.explain() for c in compiled.values()))
    if args.graph:
        _write_graph(args.graph, list(compiled.values()))
    if args.output:
        assert build is not None
        return _write(args.file, args.output, build)
    if not (args.explain or args.graph or args.dump_after):
        print(f"{args.file}: {len(compiled)} algorithm{'s' if len(compiled) != 1 else ''} OK")
    return 0


def _report(diags: list[Any]) -> None:
    """Print diagnostics sorted by place, each once."""
    from .errors import render

    seen, unique = set(), []
    for d in sorted(diags, key=lambda d: (d.span.path, d.span.line, d.span.col)):
        key = (d.span.path, d.span.line, d.span.col, d.message)
        if key not in seen:
            seen.add(key)
            unique.append(d)
    print(render(unique), file=sys.stderr)


def _internal_error(algo: Any, e: Exception) -> Any:
    """A compiler bug while compiling ``algo``, reported at its ``def``."""
    from .errors import Diagnostic
    from .ir.nodes import Span

    path = os.path.abspath(inspect.getsourcefile(algo.fn) or "<unknown>")
    span = Span(path, algo.fn.__code__.co_firstlineno, 1)
    try:
        from .frontend import parse_module

        parsed = parse_module(path)
        span = parsed.span(parsed.functions[algo.name])
    except Exception:  # noqa: BLE001 - keep the first line of the function
        pass
    return Diagnostic(
        span,
        f"internal error, please report: compiling `{algo.name}` failed with "
        f"{type(e).__name__}: {e}",
        "rerun with LOOPLIFT_DEBUG=1 for the traceback, and report it with this algorithm",
    )


def _import_failure(path: str, e: Exception) -> Any:
    """Where importing the user's module failed: the innermost frame in its file (or, for a
    ``SyntaxError`` Python finds and libcst does not, the error's own position)."""
    import linecache

    from .errors import Diagnostic
    from .ir.nodes import Span

    line, col = 1, 0
    if isinstance(e, SyntaxError) and e.filename and os.path.abspath(e.filename) == path:
        line, col = e.lineno or 1, e.offset or 0
        message = f"syntax error: {e.msg}"
        hint = "Python itself rejects this; fix it so that the module imports"
    else:
        frames = traceback.extract_tb(e.__traceback__)
        frame = next((f for f in reversed(frames) if os.path.abspath(f.filename) == path), None)
        if frame is not None and frame.lineno:
            line = frame.lineno
            col = (getattr(frame, "colno", None) or 0) + 1
        message = f"importing the module failed: {type(e).__name__}: {e}"
        hint = ("uda-compile imports the module to find its @dataflow functions; "
                "make it importable (python -c 'import MODULE')")  # fmt: skip
    if col <= 0:  # the statement's first character
        text = linecache.getline(path, line)
        col = len(text) - len(text.lstrip()) + 1 if text.strip() else 1
    return Diagnostic(Span(path, line, col), message, hint)


def _prepare(path: str, algos: list[Any], compiled: list[Any], draw: bool) -> Any:
    """The build package of the module in memory (see :mod:`looplift.compiler.build`):
    every algorithm's plan or SQL function, manifest, functions.sql; ``draw``: with
    ``graph.svg`` when Graphviz is installed. Raises :class:`CompilerError`."""
    from .build import build_package
    from .drawing import dot_command

    return build_package(path, algos, graph_dot(compiled), _draw if draw and dot_command()
                         else None)  # fmt: skip


def _write(path: str, out: str, build: Any) -> int:
    """``-o OUT``: write the build package and its zip."""
    from .build import write_build

    try:
        written = write_build(out, build)
    except (OSError, ValueError) as e:
        print(f"uda-compile: {e}", file=sys.stderr)
        return 1
    for note in build.notes:
        print(f"uda-compile: note: {note}", file=sys.stderr)
    if "graph.svg" not in build.files:
        print(
            "uda-compile: note: no graph.svg (no Graphviz: neither `dot` nor `graphviz-pure`)", file=sys.stderr
        )
    kinds = ", ".join(f"{n} ({k})" for n, k in build.algorithms)
    print(f"{path}: wrote {written[0]}{os.sep} and {written[1]}: {kinds}")
    return 0


def graph_dot(compiled: list[Any]) -> str:
    """The dataflow graphs of compiled algorithms as one Graphviz picture."""
    return _merge_dot([c.graph.to_dot() for c in compiled])


def _draw(dot: str, fmt: str) -> bytes:
    """Graphviz's rendering of ``dot`` as ``fmt`` (svg, png)."""
    from .drawing import draw

    try:
        return draw(dot, fmt)
    except RuntimeError as e:
        raise SystemExit(f"uda-compile: {e}") from None


def _write_graph(out: str, compiled: list[Any]) -> None:
    from .drawing import GRAPH_FORMATS, write_graph

    ext = os.path.splitext(out)[1].lower()
    if ext not in GRAPH_FORMATS:
        raise SystemExit(f"uda-compile: --graph wants .dot, .svg or .png, not {ext!r}")
    try:
        write_graph(out, graph_dot(compiled))
    except RuntimeError as e:
        raise SystemExit(f"uda-compile: {e}") from None


def _merge_dot(graphs: list[str]) -> str:
    """Several algorithms' graphs as clusters of one picture."""
    if len(graphs) == 1:
        return graphs[0]
    out = ["digraph module {", "  rankdir=TB;", '  node [fontname="Helvetica"];']
    for i, gtext in enumerate(graphs):
        lines = gtext.strip().splitlines()
        title = lines[0].split('"')[1]
        out.append(f"  subgraph cluster_{i} {{")
        out.append(f'    label="{title}";')
        for ln in lines[1:-1]:
            if ln.strip().startswith(("rankdir", "node [")):
                continue
            out.append("  " + ln.replace('"', f'"{title}/', 1).replace(' -> "', f' -> "{title}/', 1)
                       if ln.strip().startswith('"') else "  " + ln)  # fmt: skip
        out.append("  }")
    out.append("}")
    return "\n".join(out) + "\n"
