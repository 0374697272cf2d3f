"""What a compiled algorithm shows in a notebook (issue 26): ``repr(f)`` (never
compiles), ``f._repr_html_()`` (signature, kind, what runs natively, the Python
islands) and ``f.graph()`` (SVG in Jupyter, saved as .svg, .png or .dot). No Spark."""

from __future__ import annotations

from pathlib import Path

import pytest
from looplift import RowStream, dataflow
from looplift.api import Dataflow
from looplift.compiler.drawing import dot_command
from looplift.notebook import Graph

from tests.helpers import CORPUS, SAMPLES, import_path


def _fresh(algo: Dataflow) -> Dataflow:
    """The same algorithm, not compiled yet (other tests may have compiled the sample's)."""
    return Dataflow(algo.fn, algo.columns, algo.strict)


def test_repr_says_kind_and_does_not_compile() -> None:
    mod = import_path(SAMPLES / "clickstream.py")
    table, agg = _fresh(mod.clickstream), _fresh(mod.avg_path)
    assert repr(table) == (
        "<dataflow clickstream.clickstream(clicks: RowStream[int, int, int])"
        " [table, not compiled yet]>"
    )
    assert repr(agg).endswith("(clicks: RowStream[int, int]) -> float [aggregate, not compiled yet]>")
    assert table._compiled is None and agg._compiled is None  # a repr never compiles
    table.compile()
    assert repr(table).endswith("[table, fully native]>")


def test_repr_counts_python_islands() -> None:
    mod = import_path(CORPUS / "valid" / "island_in_statement.py")
    algo = _fresh(mod.mixed)
    algo.compile()
    n = len(algo.compile().program.fn.islands)
    assert n >= 2
    assert repr(algo).endswith(f"[aggregate, {n} Python islands]>")


def test_html_shows_signature_native_and_islands() -> None:
    page = _fresh(import_path(SAMPLES / "clickstream.py").clickstream)._repr_html_()
    assert "<code>clickstream(clicks: RowStream[int, int, int])</code>" in page
    assert "fully native" in page and "user_id, avg_clicks" in page and "island" not in page
    islands = _fresh(import_path(CORPUS / "valid" / "island_in_statement.py").mixed)
    page = islands._repr_html_()  # compiles lazily
    assert "Python islands" in page and "<td>expression</td>" in page
    assert "native except" in page and "<details>" in page


def test_html_shows_a_compile_error_instead_of_raising(tmp_path: Path) -> None:
    src = tmp_path / "broken_notebook_algo.py"
    src.write_text(
        "from looplift import RowStream, dataflow\n\n\n"
        "@dataflow(strict=True)\n"
        "def masks(rows: RowStream[int, int]) -> int:\n"
        "    t = 0\n"
        "    for a, b in rows:\n"
        "        t += a + len(b'ab')\n"
        "    return t\n"
    )
    algo = import_path(src).masks
    page = algo._repr_html_()
    assert "does not compile" in page and "broken_notebook_algo.py:8" in page
    assert repr(algo).endswith("[aggregate, not compiled yet]>")


def test_scalar_kind_before_compiling() -> None:
    @dataflow
    def twice(x: int) -> int:
        return 2 * x

    @dataflow
    def ones(rows: RowStream[int]):
        for (x,) in rows:
            yield x

    assert repr(twice).endswith("twice(x: int) -> int [scalar, not compiled yet]>")
    assert repr(ones).endswith("[table, not compiled yet]>")


needs_graphviz = pytest.mark.skipif(dot_command() is None, reason="no Graphviz")


@needs_graphviz
def test_graph_renders_svg_and_saves_each_format(tmp_path: Path) -> None:
    g = _fresh(import_path(SAMPLES / "clickstream.py").clickstream).graph()
    assert isinstance(g, Graph) and g.dot.startswith("digraph")
    assert repr(g).startswith("<looplift graph of clickstream: ")
    svg = g._repr_svg_()
    assert "<svg" in svg and svg is g._repr_svg_()  # drawn once
    assert g.save(tmp_path / "g.svg") == str(tmp_path / "g.svg")
    assert "<svg" in (tmp_path / "g.svg").read_text()
    g.save(tmp_path / "g.png")
    assert (tmp_path / "g.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    g.save(tmp_path / "g.dot")
    assert (tmp_path / "g.dot").read_text() == g.dot
    with pytest.raises(ValueError, match=r"\.dot, \.svg or \.png"):
        g.save(tmp_path / "g.pdf")


def test_graph_without_graphviz_says_how_to_get_it(monkeypatch: pytest.MonkeyPatch,
                                                   tmp_path: Path) -> None:  # fmt: skip
    import looplift.compiler.drawing as drawing

    monkeypatch.setattr(drawing, "dot_command", lambda: None)
    g = Graph("digraph g { a -> b }\n", "g")
    with pytest.raises(RuntimeError, match="graphviz-pure"):
        g.save(tmp_path / "g.svg")
    g.save(tmp_path / "g.dot")  # .dot needs no Graphviz
