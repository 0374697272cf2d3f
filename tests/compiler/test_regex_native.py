"""The native decisions for ``re`` (issue 27, item 3): what the translator refuses and why,
how groups are read, ``re.sub`` templates, and ``--explain`` naming the construct that
keeps a pattern in Python. (Equality with CPython on Spark: tests/spark/test_regex_native.py.)"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
from looplift.compiler.primitives import NOT_LIT
from looplift.compiler.primitives.regex import group_reads, java_pattern, java_replacement, refusal
from looplift.compiler.primitives.strnative import re_refusal


@pytest.mark.parametrize(("pattern", "flags", "why"), [
    (r"\bword", 0, "`\\b` (word characters differ between engines)"),
    (r"a\B", 0, "`\\B` (word characters differ between engines)"),
    (r"(?i)abc", 0, "inline flag re.IGNORECASE"),
    (r"abc", re.IGNORECASE, "re.IGNORECASE"),
    (r"^a", re.MULTILINE, "re.MULTILINE"),
    (r"a*", 0, "can match the empty string"),
    (r"(?:a?)+b", 0, "a repeat of a part that can match the empty string"),
    (r"(a)?(?(1)b|c)", 0, "a conditional group"),
    (r"\w+", 0, "longer than 4000 characters"),
    (r"(?i:a)b", 0, "a scoped inline flag"),
])  # fmt: skip
def test_refusals_name_the_construct(pattern: str, flags: int, why: str) -> None:
    assert java_pattern(pattern, flags) is None
    assert why in (refusal(pattern, flags) or ""), refusal(pattern, flags)


def test_classes_with_categories_are_code_point_ranges() -> None:
    # negated classes holding a category are translated now (the set CPython's class holds)
    assert java_pattern(r"[^\W\d_]+", re.ASCII) == "[A-Za-z]+"
    assert java_pattern(r"[^\s\d]", re.ASCII) == "[\\x{0}-\\x{8}\\x{e}-\\x{1f}\\x{21}-\\x{2f}\\x{3a}-\\x{10ffff}]"
    # many ranges: runs under their spans (charclass.py), the ASCII digits as Java's own class
    assert java_pattern(r"\d").startswith("[\\d[\\x{660}-\\x{b6f}&&\\x{660}-\\x{669}")
    # Java's own ASCII classes where a class holds them (one lookup, not a range each)
    assert java_pattern(r"[\w.]+", re.ASCII) == "[\\w\\x{2e}]+"
    assert java_pattern(r"\d\d", re.ASCII) == "\\d\\d"
    assert java_pattern(r"[0-9a-f]", re.ASCII) == "[0-9a-f]"  # (no category: as written)
    assert java_pattern(r"[^\s\S]x") == "(?!)x"


def test_group_reads() -> None:
    assert group_reads(r"(a)(b)?(c*)") == ("raw", "raw", "nullif", "raw")
    assert group_reads(r"(?:(a)|b)+(x)") == ("raw", "nullif", "raw")
    assert "group 1 can match the empty string" in group_reads(r"(a*)?b|c")  # type: ignore[operator]


def test_replacements() -> None:
    assert java_replacement(r"(\d+)-(?P<y>\d+)", r"\2/\g<1>$\g<y>0\\") == "$2/$1\\$$2\\0\\\\"
    assert java_replacement(r"a", r"\1") is None  # no such group: CPython raises
    assert java_replacement(r"(a)", "\u00e9\\n") == "\u00e9\n"


def test_the_table_decides_per_call() -> None:
    assert re_refusal("re.search", [r"(\d+)", NOT_LIT, 0]) is None
    assert re_refusal("re.sub", [r"\s+", " ", NOT_LIT, 0, 0]) is None
    assert re_refusal("re.sub", [r"\s+", " ", NOT_LIT, 1, 0]) == "a `count`"
    assert re_refusal("re.sub", [r"\s+", NOT_LIT, NOT_LIT, 0, 0]) == "a replacement that is not a constant str"
    assert re_refusal("re.split", [r",", NOT_LIT, 0, 0]) is None  # not lowered: no reason to give


def test_explain_names_the_construct(tmp_path: Path) -> None:
    from looplift.compiler.cli import main

    src = tmp_path / "prog.py"
    src.write_text(textwrap.dedent('''
        import re
        from looplift import RowStream, dataflow

        @dataflow(columns=("k", "a", "b"))
        def f(lines: RowStream[int, str]):
            for k, line in lines:
                m = re.search(r"(\\d+)-(\\d+)", line)
                yield k, m.group(1) if m else None, re.search(r"\\bx", line) is None
    '''))
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        main([str(src), "--explain"])
    text = out.getvalue()
    assert "runs: native except the Python function re.search (`\\b` (word characters differ between engines))" in text, text


def test_class_doctests() -> None:
    import doctest

    from looplift.compiler.primitives import charclass, regex

    for module in (charclass, regex):
        result = doctest.testmod(module)
        assert result.attempted and not result.failed, module.__name__
