"""Rendering the plan module: imports of state classes and host functions, the shell.

The module imports the runtime once (``import looplift.spark as ll``), names
each state class and host function it uses after itself, and is laid out
within 120 columns (:mod:`.layout`).
"""

from __future__ import annotations

import hashlib
import json
import textwrap
from dataclasses import dataclass

from ..analysis import SiteKind
from ..ir.nodes import CARRY, ParamKind
from .lateral import merge_added_columns
from .layout import fit_lines
from .projections import aggregate_texts, merge_projections, select_texts
from .shells import render

__all__ = ["ModuleMixin", "JoinedVariant", "doc_text"]


@dataclass(frozen=True)
class JoinedVariant:
    """A plan's other form (its group values aggregated per key and joined back), rendered
    as ``plan_joined``, and the windowed scopes' keys as fields of the input ``source``
    that choose it."""

    source: str
    keys: list[list[int | str]]
    lines: list[str]


def doc_text(name: str) -> str:
    r"""A user's name (a column's) as text inside a generated docstring: backslashes,
    quotes and unprintable characters escaped, so that any string stays inside it.

    >>> print(doc_text('say "hi"\x00'))
    say \"hi\"\x00
    """
    return "".join("\\" + c if c in '\\"' else c if c.isprintable() else repr(c)[1:-1]
                   for c in name)  # fmt: skip


class ModuleMixin:
    def import_class(self, cref: str) -> str:
        if cref not in self.class_alias:
            alias = self.py.fresh(cref.partition(":")[2].replace(".", "_"))
            self.class_alias[cref] = alias
            self.imports[cref] = f"{alias} = ll.import_ref({cref!r})"
        return self.class_alias[cref]

    def all_class_aliases(self) -> dict[str, str]:
        for decl in self.a.states.values():
            if decl.cls != CARRY:
                self.import_class(decl.cls)
        return self.class_alias

    def host_aliases(self) -> dict[str, str]:
        for site in self.a.sites:
            if site.kind == SiteKind.HOST and site.method not in self.host_alias:
                alias = self.py.fresh(site.method.rsplit(":", 1)[-1].replace(".", "_"))
                self.host_alias[site.method] = alias
                self.imports[site.method] = f"{alias} = ll.import_ref({site.method!r})"
        return self.host_alias

    def module_refs(self) -> tuple[str, ...]:
        """The module's ``REFS``: the user's code (and state classes) it imports."""
        return tuple(sorted({*self.refs, self.fn.ref}))

    def render_module(self, joined: JoinedVariant | None = None) -> str:
        """The plan module's text; with ``joined``, a
        second plan function of the group values joined back, which ``plan`` builds
        instead where Spark's statistics of the input say so."""
        params = list(self.fn.params)
        scalars = any(p.kind == ParamKind.SCALAR for p in params)

        def finish(lines: list[str]) -> list[str]:
            steps = merge_projections(lines)
            if scalars:  # `E` binds the parameters: the steps keep it
                return steps
            return merge_added_columns(aggregate_texts(select_texts(steps)))  # `E`: F.expr

        steps = finish(self.lines)
        joined_steps = finish(joined.lines) if joined is not None else []
        refs = list(self.module_refs())
        ctx = {
            "name": json.dumps(self.fn.name),
            "ref": self.fn.ref,
            "kind": json.dumps(self.prog.kind),
            "columns": json.dumps(list(self.columns_out)),
            "columns_text": "\n".join(
                textwrap.wrap("Columns: " + ", ".join(map(doc_text, self.columns_out)) + ".", 100)
            ),
            "kind_text": self.prog.kind,
            "name_text": self.fn.name,
            "params": json.dumps([(p.name, p.kind, list(p.types)) for p in params]),
            "signature": ", ".join(p.name for p in params),
            "scalar_params": [(json.dumps(p.name), p.name) for p in params if p.kind == ParamKind.SCALAR],
            "imports": [self.imports[k] for k in sorted(self.imports)],
            "reducers": self.reducers,
            "ordered_loops": bool(self.ordered_fns),
            "pycalls": json.dumps(
                [(c.name, c.kind, c.ref, list(c.arg_types), c.return_type)
                 for c in sorted(self.pycalls.values(), key=lambda c: c.name)]  # fmt: skip
            ),
            "refs": json.dumps(refs),
            "steps": steps,
            "joined_steps": joined_steps,
            "joined_source": joined.source if joined is not None else None,
            "joined_keys": repr(joined.keys) if joined is not None else None,
            "digest": hashlib.sha1("\n".join(steps + joined_steps).encode()).hexdigest()[:12],
        }
        return fit_lines(render("plan.py.j2", **ctx)) + "\n"

