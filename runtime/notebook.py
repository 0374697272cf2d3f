"""What a compiled algorithm shows in a notebook: its dataflow graph as a picture
(:class:`Graph`, what ``f.graph()`` returns) and a summary of what it compiled to
(``repr(f)``, and ``f._repr_html_()`` that Jupyter shows for ``f``).

The summary reads what the compiler decided (the ``runs:`` line of ``--explain``, the
Python islands the frontend outlined); it never decides anything itself.

>>> # f.graph()                  # in Jupyter: the graph as SVG
>>> # f.graph().save("f.svg")    # or .png, .dot
"""

from __future__ import annotations

import html
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .api import Dataflow

__all__ = ["Graph", "Summary", "summary"]


class Graph:
    """A dataflow graph picture: Graphviz ``dot`` text, drawn on demand.

    Jupyter shows it as SVG (``_repr_svg_``); :meth:`save` writes ``.svg``, ``.png`` or
    ``.dot``. Drawing needs Graphviz: a ``dot`` on PATH or the ``graphviz-pure``
    command looplift depends on.
    """

    def __init__(self, dot: str, name: str = "") -> None:
        self.dot = dot
        self.name = name
        self._svg: str | None = None

    def svg(self) -> str:
        """The picture as SVG text (drawn once)."""
        if self._svg is None:
            from .compiler.drawing import draw

            self._svg = draw(self.dot, "svg").decode("utf-8")
        return self._svg

    def _repr_svg_(self) -> str:
        return self.svg()

    def save(self, path: str | os.PathLike[str]) -> str:
        """Write the picture to ``path``; its extension picks the format (``.svg``,
        ``.png``, ``.dot``). Returns the path written."""
        from .compiler.drawing import write_graph

        return write_graph(os.fspath(path), self.dot)

    def __repr__(self) -> str:
        nodes = sum(1 for ln in self.dot.splitlines() if ln.strip().startswith('"')
                    and "->" not in ln)  # fmt: skip
        what = f" of {self.name}" if self.name else ""
        return f"<looplift graph{what}: {nodes} nodes; .save('x.svg'|'x.png'|'x.dot')>"


@dataclass(frozen=True)
class Summary:
    """What one algorithm compiled to, as ``--explain`` says it (not re-decided here)."""

    name: str
    signature: str
    kind: str  # scalar, aggregate, table
    columns: tuple[str, ...]
    runs: str  # the explain text's ``runs:`` line: "fully native (...)", "native except ..."
    islands: tuple[Any, ...]  # the frontend's Island records
    explain: str

    @property
    def native(self) -> bool:
        return self.runs.startswith("fully native")


def summary(f: Dataflow[Any, Any]) -> Summary:
    """Compile ``f`` (once) and summarize it. Raises what compiling raises."""
    compiled = f.compile()
    text = compiled.explain()
    runs = next((ln.strip()[len("runs: "):] for ln in text.splitlines()
                 if ln.strip().startswith("runs: ")), "")  # fmt: skip
    return Summary(
        name=f.name,
        signature=signature_text(f),
        kind=compiled.kind,
        columns=tuple(compiled.program.fn.columns or ()),
        runs=runs,
        islands=tuple(compiled.program.fn.islands),
        explain=text,
    )


def signature_text(f: Dataflow[Any, Any]) -> str:
    """``name(params) -> result`` as the source says it (string annotations, as under
    ``from __future__ import annotations``, without their quotes)."""
    import inspect

    def text(annotation: Any) -> str:
        return annotation if isinstance(annotation, str) else inspect.formatannotation(annotation)

    sig = f.signature
    params = []
    for p in sig.parameters.values():
        item = p.replace(annotation=inspect.Parameter.empty)
        if p.annotation is not inspect.Parameter.empty:  # "x: T" and "x: T = 1"
            item = str(item)
            name, _, default = item.partition("=")
            item = f"{name}: {text(p.annotation)}" + (f" = {default}" if default else "")
        params.append(str(item))
    ret = sig.return_annotation
    tail = "" if ret is inspect.Signature.empty else f" -> {text(ret)}"
    return f"{f.name}({', '.join(params)}){tail}"


def text_repr(f: Dataflow[Any, Any]) -> str:
    """``repr(f)``: name, signature, kind; what runs natively once compiled (a repr
    never compiles: before that it says so)."""
    head = f"<dataflow {f.__module__}.{signature_text(f)}"
    compiled = f.__dict__.get("_compiled")
    if compiled is None:
        return f"{head} [{_kind_guess(f)}, not compiled yet]>"
    try:
        s = summary(f)
    except Exception as err:  # noqa: BLE001 - a repr never raises
        return f"{head} [{compiled.kind}, explain failed: {type(err).__name__}]>"
    if s.native:
        how = "fully native"
    elif s.islands:
        n = len(s.islands)
        how = f"{n} Python island{'s' if n != 1 else ''}"
    else:
        how = s.runs or "not native"
    return f"{head} [{s.kind}, {how}]>"


def html_repr(f: Dataflow[Any, Any]) -> str:
    """``f._repr_html_()``: compiles ``f`` if needed and shows its signature, kind,
    what runs natively and its Python islands; a compile error is shown, not raised."""
    e = html.escape
    try:
        s = summary(f)
    except Exception as err:  # noqa: BLE001 - a repr shows the diagnostics, never raises
        return (f"<div><b>@dataflow</b> <code>{e(signature_text(f))}</code>: does not compile"
                f"<pre>{e(str(err))}</pre></div>")  # fmt: skip
    rows = [("kind", e(s.kind))]
    if s.columns:
        rows.append(("columns", e(", ".join(s.columns))))
    rows.append(("runs", ("&#10003; " if s.native else "") + e(s.runs)))
    out = [
        "<div>",
        f"<b>@dataflow</b> <code>{e(s.signature)}</code>",
        "<table>",
        *(f'<tr><th style="text-align:left">{k}</th><td style="text-align:left">{v}</td></tr>'
          for k, v in rows),
        "</table>",
    ]  # fmt: skip
    if s.islands:
        out.append(f"<p>{len(s.islands)} Python island{'s' if len(s.islands) != 1 else ''} "
                   "(no exact native lowering; <code>strict=True</code> refuses them):</p>")  # fmt: skip
        out.append("<table><tr><th>line</th><th>unit</th><th>why</th><th>cost</th></tr>")
        for i in s.islands:
            out.append(f"<tr><td>{i.span.line}</td><td>{e(i.kind)}</td><td>{e(i.why)}</td>"
                       f"<td>{e(i.cost)}</td></tr>")  # fmt: skip
        out.append("</table>")
    out.append(f"<details><summary>explain</summary><pre>{e(s.explain)}</pre></details>")
    out.append("</div>")
    return "\n".join(out)


def _kind_guess(f: Dataflow[Any, Any]) -> str:
    """The kind as the signature shows it, without compiling: yields rows → table, takes
    a RowStream → aggregate, else scalar (the compiler decides; this only reads)."""
    import inspect

    from .streams import is_rowstream

    if inspect.isgeneratorfunction(f.fn):
        return "table"
    params = f.signature.parameters.values()
    if any(is_rowstream(p.annotation, f.fn) for p in params):
        return "aggregate"
    return "scalar"
