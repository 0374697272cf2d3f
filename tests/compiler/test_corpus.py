"""Every sample and valid corpus program compiles; every invalid one is diagnosed
exactly where its ``# expect: LINE:COL keyword`` annotations say."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.helpers import CORPUS, SAMPLES, compile_module, expectations

VALID = sorted(p for p in SAMPLES.glob("*.py") if re.search(r"^@dataflow", p.read_text(), re.M))
VALID += sorted((CORPUS / "valid").glob("*.py"))
INVALID = sorted((CORPUS / "invalid").glob("*.py"))


@pytest.mark.parametrize("path", VALID, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_valid_program_compiles(path: Path) -> None:
    compiled, diags = compile_module(path)
    assert not diags, "\n".join(d.render() for d in diags)
    assert compiled
    for name, c in compiled.items():
        c.graph.verify()
        text = c.explain()
        assert text.startswith(f"algorithm {name}(")
        assert c.kind in ("scalar", "aggregate", "table")


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.name)
def test_invalid_program_is_diagnosed_where_annotated(path: Path) -> None:
    expected = expectations(path)
    assert expected, f"{path.name} has no `# expect:` annotation"
    _, diags = compile_module(path)
    got = [(d.span.line, d.span.col, d.message.lower()) for d in diags]
    for line, col, word in expected:
        hits = [g for g in got if g[0] == line and g[1] == col and word in g[2]]
        assert hits, (
            f"expected a diagnostic at {line}:{col} mentioning {word!r}; got:\n"
            + "\n".join(d.render() for d in diags)
        )
    assert len(got) == len(expected), "unexpected extra diagnostics:\n" + "\n".join(
        d.render()
        for d in diags
        if (d.span.line, d.span.col) not in {(e[0], e[1]) for e in expected}
    )
    for d in diags:
        assert d.span.path == str(path), d.render()
        assert d.hint, f"no way out offered: {d.render()}"
