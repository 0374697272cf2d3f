"""Strings in the compiler (issue 10, item 5): what string code becomes, what runs as a
Python function, and the diagnostics for what stays out.

The Spark side is tests/spark/test_strings.py; here no Spark runs.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from looplift.compiler import pipeline
from looplift.compiler.cli import algorithms_of
from looplift.compiler.errors import CompilerError
from looplift.compiler.ir.interp import evaluate
from looplift.compiler.pipeline import compile_dataflow
from looplift.compiler.program import Program
from looplift.strings import IMPLS, WHITESPACE

from tests.compiler.test_semantics import run_stages
from tests.helpers import import_path
from tests.spark import str_algos

HEADER = "import re\nfrom typing import Optional\nfrom looplift import RowStream, dataflow\n\n"


def _module(tmp_path: Path, body: str, name: str = "strmod") -> Any:
    path = tmp_path / f"{name}.py"
    path.write_text(HEADER + textwrap.dedent(body), encoding="utf-8")
    return import_path(path), path


def _diagnostics(tmp_path: Path, body: str) -> str:
    module, _ = _module(tmp_path, body)
    (algo,) = algorithms_of(module)
    with pytest.raises(CompilerError) as err:
        compile_dataflow(algo)
    return str(err.value)


# -- meaning: the IR after every pass means what CPython means ---------------------------


text = st.text(st.sampled_from(" \t\x1c\xa0\u3000abAB,=_-+.0123\u0663eßİΣ🙂"), max_size=8)


@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(text, st.sampled_from(["a", "", ","]), st.integers(-4, 4))
def test_string_ir_means_what_python_means(s: str, t: str, i: int) -> None:
    """Every pass keeps the meaning of str methods, slices, indexing, f-strings, re and
    int()/float() of strings (errors included)."""
    for algo, args in [
        (str_algos.methods, (s, t)),
        (str_algos.slices, (s, i)),
        (str_algos.pick, (s, i)),
        (str_algos.to_int, (s,)),
        (str_algos.to_float, (s,)),
        (str_algos.formats, (i, i / 3, s, i > 0)),
        (str_algos.regex, (s,)),
        (str_algos.optional, (s or None,)),
    ]:
        _same_meaning(algo, args)


def _same_meaning(algo: Any, args: tuple) -> None:
    """run_stages, and where Python raises: the final IR raises the same class."""
    try:
        algo(*args)
    except Exception as e:  # noqa: BLE001
        fn, refs, _ = pipeline.frontend(algo)
        prog = Program(fn, refs, pipeline._loader(refs))
        for step in pipeline.PIPELINE:
            prog = step(prog)
        with pytest.raises(type(e)):
            evaluate(prog.fn, prog.refs, list(args))
        return
    run_stages(algo, args)


def test_python_whitespace_is_str_isspace() -> None:
    """strip() and split() use Python's whitespace (29 characters), not only the space."""
    assert {c for c in map(chr, range(0x110000)) if c.isspace()} == set(WHITESPACE)
    assert len(WHITESPACE) == 29 and "\x1c" in WHITESPACE and "\u200b" not in WHITESPACE


def test_match_objects_are_group_tuples() -> None:
    m = IMPLS["re.match"](r"(a)(b)?", "ac", 0)
    assert m == ("a", "a", None)
    assert IMPLS["match.group"](m, 2) is None
    with pytest.raises(IndexError):
        IMPLS["match.group"](m, 3)
    with pytest.raises(IndexError):
        IMPLS["match.group"](m, -1)  # Python's Match.group(-1) raises too
    with pytest.raises(AttributeError):
        IMPLS["match.group"](None, 1)


# -- what runs where -----------------------------------------------------------------------


def test_explain_shows_python_functions(tmp_path: Path) -> None:
    """Native string work says native; re outside the Java subset (``\\b``) and float
    formatting say Python, by name (re, with the construct that keeps it there)."""
    module, _ = _module(
        tmp_path,
        """
        @dataflow
        def native(s: str, n: int) -> str:
            return s.strip().split(",")[0] + f"{n:05d}" + s[1:3]

        @dataflow
        def python(s: str, x: float) -> str:
            m = re.match(r"(\\d+)\\b", s)
            return (m.group(1) if m else "") + f"{x:.2f}"
        """,
    )
    native = compile_dataflow(module.native).explain()
    assert "runs: fully native" in native and "s.strip().split(',')[0]" in native
    python = compile_dataflow(module.python).explain()
    assert "Python (vectorized function)" in python
    assert "re.match" in python and "format" in python and "fully native" not in python
    assert "re.match (`\\b` (word characters differ between engines))" in python, python


def test_int_of_str_is_native_sql(tmp_path: Path) -> None:
    """int(s) validates Python's grammar in SQL (no Python function, no plain CAST)."""
    from looplift.compiler.backend.scalar import scalar_function

    module, _ = _module(
        tmp_path,
        """
        @dataflow
        def parse(s: str) -> int:
            return int(s.strip()) + len(s.split())
        """,
    )
    f = scalar_function(compile_dataflow(module.parse).program)
    assert not f.pycalls
    assert "RLIKE" in f.body and "ValueError: invalid literal for int()" in f.body


# -- diagnostics ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "message", "hint"),
    [
        ("p = s\nreturn re.match(p + 'x', s) is not None",
         "the pattern of `re.match` must be a constant string", "module-level constant"),
        ("return re.match('(a', s) is not None", "invalid regular expression", "fix the pattern"),
        ("p = s\nreturn re.compile(p).match(s) is not None",
         "the pattern of `re.compile` must be a constant string", "module-level constant"),
        ("p = re.compile('a')\nreturn str(p)", "the compiled pattern `p` is used as a value",
         "call its methods"),
        ("m = re.match('(?P<x>a)', s)\nreturn m.group('x') if m else ''",
         "named groups are not supported", "group's number"),
        ("return len(re.findall('(a)(b)', s))", "`findall` with several groups", "one group"),
        ("return re.escape(s)", "`re.escape` is not supported", "re.match"),
        ("return s.strip(1, 2, 3)", "wrong number of arguments for `str.strip`", "help(str.strip)"),
        ("return s.split(sep=',', bad=1)[0]", "takes no keyword argument `bad`", "positionally"),
        ("return ','.join([s, s])", "`join` takes a tuple here", "sep.join((a, b))"),
        ("w = 3\nreturn f'{s:>{w}}'", "a format spec with `{...}` inside", "constant"),
        ("m = re.match('a', s)\nreturn m.group(1, 2)", "`group` with several groups", "per group"),
    ],
)  # fmt: skip
def test_string_diagnostics(tmp_path: Path, body: str, message: str, hint: str) -> None:
    # strict: these are Python islands otherwise (issue 25); the diagnostics stay
    src = "@dataflow(strict=True)\ndef f(s: str) -> str:\n" + textwrap.indent(body, "    ") + "\n"
    text = _diagnostics(tmp_path, src)
    assert message in text and hint in text, text
    assert "strmod.py:" in text  # file:line:col


def test_method_on_a_non_string_is_a_backend_error(tmp_path: Path) -> None:
    module, _ = _module(
        tmp_path,
        """
        @dataflow
        def f(n: int) -> str:
            return n.strip()
        """,
    )
    with pytest.raises(CompilerError, match="str method"):
        from looplift.compiler.backend.scalar import scalar_function

        scalar_function(compile_dataflow(module.f).program)


def test_fstrings_are_accepted_by_the_rejection_table() -> None:
    import libcst as cst
    from looplift.compiler.frontend.reject import RULES

    assert cst.FormattedString not in RULES
