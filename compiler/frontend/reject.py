"""Constructs looplift does not compile, found by syntax alone.

One table maps a libcst node class to its rules (message + hint, and when the
rule applies); one visitor walks a function body and reports *every* match,
so a statement with two problems gets two diagnostics (SPEC §2). The
translators use the same table when they meet such a node, so a construct has
one message wherever it is found.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import libcst as cst

from ..errors import Diagnostic
from ..ir.nodes import Span
from .syntax import code_of

__all__ = ["Rule", "RULES", "rule_for", "diagnostic", "RejectVisitor", "rejections"]

Parent = cst.CSTNode | None


@dataclass(frozen=True)
class Rule:
    message: str  # ``{code}`` stands for the construct's source text
    hint: str
    when: Callable[[cst.CSTNode, Parent], bool] | None = None
    at_parent: bool = False  # the caret points at the enclosing node


def _is_container_binding(node: cst.CSTNode, parent: Parent) -> bool:
    """``name = [...]`` binds a container (reported where it is used)."""
    return (
        isinstance(parent, cst.Assign)
        and parent.value is node
        and len(parent.targets) == 1
        and isinstance(parent.targets[0].target, cst.Name)
    )


def _not_container(node: cst.CSTNode, parent: Parent) -> bool:
    return not _is_container_binding(node, parent)


def _over_values(node: cst.CSTNode) -> bool:
    """A comprehension with one ``for`` over what may be a container's values (a name or a
    call): checked where it is translated (a local container, else reported there)."""
    comp = getattr(node, "for_in", None)
    return (
        isinstance(comp, cst.CompFor)
        and comp.inner_for_in is None
        and not comp.asynchronous
        and isinstance(comp.iter, (cst.Name, cst.Call, cst.Subscript))
    )


def _is_statement_yield(node: cst.CSTNode, parent: Parent) -> bool:
    return isinstance(parent, cst.Expr) and parent.value is node


def _bad_statement_yield(node: cst.CSTNode, parent: Parent) -> bool:
    assert isinstance(node, cst.Yield)
    return _is_statement_yield(node, parent) and (
        node.value is None or isinstance(node.value, cst.From)
    )


def _unsupported_raise(node: cst.CSTNode, parent: Parent) -> bool:
    """Anything but ``raise Name`` or ``raise Name(...)`` with at most one positional
    argument, without ``from``."""
    assert isinstance(node, cst.Raise)
    exc = node.exc
    if node.cause is None and isinstance(exc, cst.Name):
        return False  # `raise ValueError`
    return not (
        node.cause is None
        and isinstance(exc, cst.Call)
        and isinstance(exc.func, cst.Name)
        and len(exc.args) <= 1
        and all(a.keyword is None and not a.star for a in exc.args)
    )


def _not_key_fn(node: cst.CSTNode, parent: Parent) -> bool:
    """A ``lambda`` is allowed as a key function: a ``key=`` argument, or a positional
    argument (the translator accepts it only as the key of group_by / sorted_by), or
    group_by's ``order_by=``."""
    return not (isinstance(parent, cst.Arg) and (parent.keyword is None
                                                 or parent.keyword.value in ("key", "order_by")))


def _bytes(node: cst.CSTNode, parent: Parent) -> bool:
    return isinstance(node, cst.SimpleString) and "b" in node.prefix.lower()


_OPERATOR = "operator `{code}` is not supported"
_BINARY_HINT = "use arithmetic (+ - * / // % **), bitwise operators and comparisons"
_AUG_HINT = "use +=, -=, *=, /=, //=, %=, **=, &=, |=, ^=, <<= or >>="
_IMPORT = ("`import` inside a @dataflow function is not supported", "import at module level")

RULES: dict[type[cst.CSTNode], tuple[Rule, ...]] = {
    # statements
    cst.While: (Rule("`while` loops are not supported",
                     "loop over a RowStream or group_by(...) with `for`"),),
    cst.Try: (Rule("`try` is supported around simple statements that call only primitives "
                   "whose errors looplift tests natively (conversions, arithmetic, math, "
                   "slicing, indexing, lookups, datetime constructors), with handlers that "
                   "name exception classes and no `finally`",
                   "move a host function's call or a state's out of the try, drop the "
                   "`finally`, or remove the try: errors surface as Spark errors"),),
    cst.TryStar: (Rule("`try` is not supported", "remove the try block"),),
    cst.With: (Rule("`with` is not supported", "remove the with block"),),
    cst.FunctionDef: (Rule("nested `def` is not supported", "define the helper at module "
                           "level (as a @dataflow function or a host function)"),),
    cst.ClassDef: (Rule("nested `class` is not supported",
                        "define classes (states) at module level"),),
    cst.Global: (Rule("`global` is not supported", "pass values as parameters"),),
    cst.Nonlocal: (Rule("`nonlocal` is not supported", "pass values as parameters"),),
    cst.Raise: (Rule("only `raise SomeError(message)` is supported",
                     "raise a builtin exception class with one message: "
                     "`raise ValueError(\"bad plan \" + plan)`", when=_unsupported_raise),),
    cst.Assert: (Rule("`assert` is not supported", "guard with `if` instead"),),
    cst.Del: (Rule("`del` is not supported", "just stop using the name"),),
    cst.Import: (Rule(*_IMPORT),),
    cst.ImportFrom: (Rule(*_IMPORT),),
    cst.Match: (Rule("`match` is not supported", "use if/elif/else"),),
    cst.Assign: (Rule("chained assignment `a = b = ...` is not supported",
                      "assign each name on its own line",
                      when=lambda n, p: len(n.targets) != 1),),  # type: ignore[attr-defined]
    cst.For: (Rule("`async for` is not supported", "use a plain `for` loop",
                   when=lambda n, p: n.asynchronous is not None),),  # type: ignore[attr-defined]
    cst.Else: (Rule("`for ... else` is not supported", "drop the `else` block",
                    when=lambda n, p: isinstance(p, cst.For)),),
    # expressions
    cst.Lambda: (Rule("`lambda` is not supported",
                      "define a module-level function (a host function)", when=_not_key_fn),),
    cst.ListComp: (Rule("list comprehensions are not supported",
                        "loop over the stream with `for`", when=lambda n, p: not _over_values(n)),),
    cst.SetComp: (Rule("set comprehensions are not supported", "use the Distinct state",
                       when=lambda n, p: not _over_values(n)),),
    cst.DictComp: (Rule("dict comprehensions are not supported",
                        "fill a dict in a loop (`d[k] = d.get(k, 0) + v`); for the number of "
                        "distinct keys, `len({k for k, _ in g})`"),),  # fmt: skip
    cst.GeneratorExp: (Rule("generator expressions are not supported", "loop with `for`",
                            when=lambda n, p: not _over_values(n)),),
    cst.List: (Rule("list literals are not supported", "use a tuple, or a State to accumulate",
                    when=_not_container),),
    cst.Dict: (Rule("dict literals are not supported", "use group_by(...) or a State",
                    when=_not_container),),
    cst.Set: (Rule("set literals are not supported", "use the Distinct state",
                   when=_not_container),),
    cst.Await: (Rule("`await` is not supported", ""),),
    cst.Yield: (
        Rule("`yield` needs a row value; `yield from` is not supported",
             "yield a tuple of values: `yield key, value`", when=_bad_statement_yield),
        Rule("`yield` can only be a statement", "write `yield a, b` on its own line",
             when=lambda n, p: not _is_statement_yield(n, p)),
    ),
    cst.NamedExpr: (Rule("`:=` is not supported", "assign on its own line"),),
    cst.Ellipsis: (Rule("`...` is not supported", ""),),
    cst.Imaginary: (Rule("complex numbers are not supported", "use int or float"),),
    cst.SimpleString: (Rule("bytes literals are not supported", "use a str", when=_bytes),),
    cst.Arg: (Rule("*args / **kwargs in calls are not supported", "pass each argument explicitly",
                   when=lambda n, p: bool(n.star)),),  # type: ignore[attr-defined]
    # operators (bitwise ones are in the table of primitives)
    cst.MatrixMultiply: (Rule(_OPERATOR, _BINARY_HINT),),
    cst.MatrixMultiplyAssign: (Rule(_OPERATOR, _AUG_HINT),),
}  # fmt: skip


def rule_for(node: cst.CSTNode, parent: Parent, always: bool = False) -> Rule | None:
    """The rule that rejects ``node`` here; ``always``: its first rule whatever its
    condition (the translator refuses a node the rejection pass let through, such as
    ``re.I | re.A`` where no flags are expected)."""
    for rule in RULES.get(type(node), ()):
        if always or rule.when is None or rule.when(node, parent):
            return rule
    return None


def diagnostic(
    rule: Rule, node: cst.CSTNode, parent: Parent, span: Callable[[cst.CSTNode], Span]
) -> Diagnostic:
    where = parent if rule.at_parent and parent is not None else node
    return Diagnostic(span(where), rule.message.format(code=code_of(node).strip()), rule.hint)


class RejectVisitor(cst.CSTVisitor):
    """Collects a diagnostic for every rejected construct under the visited node."""

    def __init__(self, span: Callable[[cst.CSTNode], Span]):
        self.span = span
        self.diags: list[Diagnostic] = []
        self.parents: list[cst.CSTNode] = []

    def report(self, node: cst.CSTNode) -> None:
        parent = self.parents[-1] if self.parents else None
        rule = rule_for(node, parent)
        if rule is not None:
            self.diags.append(diagnostic(rule, node, parent, self.span))

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.report(node)
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            # a nested definition is one problem; inside it only global / nonlocal count
            self._scopes(node.body, node)
            return False
        self.parents.append(node)
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if self.parents and self.parents[-1] is original_node:
            self.parents.pop()

    def _scopes(self, node: cst.CSTNode, parent: cst.CSTNode) -> None:
        for child in node.children:
            if isinstance(child, (cst.Global, cst.Nonlocal)):
                self.diags.append(diagnostic(rule_for(child, node), child, node, self.span))
            self._scopes(child, node)


def rejections(node: cst.CSTNode, span: Callable[[cst.CSTNode], Span]) -> list[Diagnostic]:
    """Every rejected construct under ``node`` (a function body)."""
    v = RejectVisitor(span)
    node.visit(v)
    return v.diags
