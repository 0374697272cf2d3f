"""Mutants of looplift programs, made with libcst transformers, deterministic by seed.

``mutant(seed, index)`` picks a source file (``samples/*.py``, ``tests/corpus/**/*.py``) and
applies one to three mutations, each a function ``(module, rng) -> module | None`` from
:data:`MUTATORS`: statements dropped, duplicated, swapped; operators changed; constants changed;
unsupported constructs inserted; decorators doubled, removed or given arguments; annotations,
call arguments, loop targets and signatures changed. Every choice comes from
``random.Random(f"{seed}:{index}")``, so a mutant is replayed from its id alone.
"""

from __future__ import annotations

import difflib
import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import libcst as cst

ROOT = Path(__file__).resolve().parents[2]

__all__ = ["MUTATORS", "Mutant", "mutant", "sources"]


@cache
def sources() -> tuple[Path, ...]:
    """The programs mutated: the samples and the whole corpus, in a fixed order."""
    files = sorted((ROOT / "samples").glob("*.py")) + sorted((ROOT / "tests/corpus").rglob("*.py"))
    return tuple(f for f in files if f.name != "__init__.py")


@cache
def _parsed(path: Path) -> cst.Module:
    return cst.parse_module(path.read_text(encoding="utf-8"))


@dataclass(frozen=True)
class Mutant:
    """One mutated program: where it comes from, what was done, and its source."""

    id: str
    origin: Path
    mutations: tuple[str, ...]
    source: str

    def diff(self) -> str:
        before = _parsed(self.origin).code.splitlines(keepends=True)
        after = self.source.splitlines(keepends=True)
        rel = self.origin.relative_to(ROOT)
        return "".join(difflib.unified_diff(before, after, f"a/{rel}", f"b/{rel}"))


def mutant(seed: int, index: int) -> Mutant:
    """The ``index``-th mutant of ``seed``: same arguments, same mutant."""
    rng = random.Random(f"{seed}:{index}")
    origin = rng.choice(sources())
    module = _parsed(origin)
    done: list[str] = []
    want = rng.choice((1, 1, 1, 2, 2, 3))
    for _attempt in range(12 * want):
        if len(done) == want:
            break
        name, fn = rng.choice(MUTATORS)
        try:
            out = fn(module, rng)
            if out is None:
                continue
            code = out.code
        except Exception:  # a mutation libcst cannot express on this node: pick another
            continue
        if code != module.code:
            module = out
            done.append(name)
    return Mutant(f"s{seed}-{index}", origin, tuple(done), module.code)


# -- picking nodes -------------------------------------------------------------------------


class _Collect(cst.CSTVisitor):
    """Nodes matching ``pred(node, in_function)``, in source order."""

    def __init__(self, pred: Callable[[cst.CSTNode, bool], bool]) -> None:
        self.pred = pred
        self.depth = 0
        self.found: list[cst.CSTNode] = []

    def on_visit(self, node: cst.CSTNode) -> bool:
        if self.pred(node, self.depth > 0):
            self.found.append(node)
        if isinstance(node, cst.FunctionDef):
            self.depth += 1
        return True

    def on_leave(self, original_node: cst.CSTNode) -> None:
        if isinstance(original_node, cst.FunctionDef):
            self.depth -= 1


class _Replace(cst.CSTTransformer):
    def __init__(self, target: cst.CSTNode, fn: Callable[[cst.CSTNode], object]) -> None:
        self.target = target
        self.fn = fn

    def on_leave(self, original_node, updated_node):  # type: ignore[no-untyped-def]
        if original_node is self.target:
            return self.fn(updated_node)
        return updated_node


def _pick(
    module: cst.Module, rng: random.Random, pred: Callable[[cst.CSTNode, bool], bool]
) -> cst.CSTNode | None:
    c = _Collect(pred)
    module.visit(c)
    return rng.choice(c.found) if c.found else None


def _replace(
    module: cst.Module,
    rng: random.Random,
    pred: Callable[[cst.CSTNode, bool], bool],
    fn: Callable[[cst.CSTNode], object],
) -> cst.Module | None:
    target = _pick(module, rng, pred)
    if target is None:
        return None
    return module.visit(_Replace(target, fn))


def _names(module: cst.Module) -> list[str]:
    """Identifiers used inside functions (parameters, locals, loop targets, states, helpers)."""
    c = _Collect(lambda n, inside: inside and isinstance(n, cst.Name))
    module.visit(c)
    names = sorted({n.value for n in c.found})  # type: ignore[attr-defined]
    return names or ["x"]


def _fill(template: str, module: cst.Module, rng: random.Random) -> str:
    names = _names(module)
    return template.format(v=rng.choice(names), w=rng.choice(names))


# -- statements ------------------------------------------------------------------------------


def _blocks(module: cst.Module, rng: random.Random, in_function: bool) -> cst.CSTNode | None:
    def pred(n: cst.CSTNode, inside: bool) -> bool:
        if isinstance(n, cst.IndentedBlock):
            return inside or not in_function
        return isinstance(n, cst.Module) and not in_function

    return _pick(module, rng, pred)


def _edit_body(
    module: cst.Module, rng: random.Random, in_function: bool, edit
) -> cst.Module | None:  # type: ignore[no-untyped-def]
    block = _blocks(module, rng, in_function)
    if block is None:
        return None
    body = list(block.body)  # type: ignore[attr-defined]
    new = edit(body)
    if new is None:
        return None
    if not new:
        new = [cst.SimpleStatementLine([cst.Pass()])]
    if block is module:
        return module.with_changes(body=new)
    return module.visit(_Replace(block, lambda b: b.with_changes(body=new)))


def drop_statement(module: cst.Module, rng: random.Random) -> cst.Module | None:
    def edit(body: list) -> list | None:  # type: ignore[type-arg]
        if not body:
            return None
        i = rng.randrange(len(body))
        return body[:i] + body[i + 1 :]

    return _edit_body(module, rng, rng.random() < 0.8, edit)


def duplicate_statement(module: cst.Module, rng: random.Random) -> cst.Module | None:
    def edit(body: list) -> list | None:  # type: ignore[type-arg]
        if not body:
            return None
        i = rng.randrange(len(body))
        return body[: i + 1] + [body[i]] + body[i + 1 :]

    return _edit_body(module, rng, rng.random() < 0.8, edit)


def swap_statements(module: cst.Module, rng: random.Random) -> cst.Module | None:
    def edit(body: list) -> list | None:  # type: ignore[type-arg]
        if len(body) < 2:
            return None
        i = rng.randrange(len(body) - 1)
        return body[:i] + [body[i + 1], body[i]] + body[i + 2 :]

    return _edit_body(module, rng, rng.random() < 0.8, edit)


# Unsupported (and some supported) constructs, inserted into a function body; {v} and {w} are
# names used in the module's functions.
CONSTRUCTS = (
    "while {v}:\n    {v} = {w}\n",
    "while True:\n    break\n",
    "try:\n    {v} = {w}\nexcept Exception:\n    pass\n",
    "try:\n    pass\nfinally:\n    {v} = 1\n",
    "f = lambda r: r + {v}\n",
    "{v} = lambda: (yield)\n",
    "{v} = [x for x in {w}]\n",
    "{v} = {{k: k for k in {w}}}\n",
    "{v} = {{k for k in {w} if k}}\n",
    "{v} = sum(x for x in {w})\n",
    "global {v}\n",
    "nonlocal {v}\n",
    "with open({w}) as {v}:\n    pass\n",
    "def helper({v}):\n    return {v}\n",
    "def {v}():\n    nonlocal {w}\n",
    "class C:\n    {v} = 1\n",
    "yield from {v}\n",
    "yield\n",
    "yield {v}\n",
    "yield {v}, {w}, {v}\n",
    "return\n",
    "return {v}\n",
    "return {v}, {w}\n",
    "break\n",
    "continue\n",
    "print(*{v})\n",
    "{v} = max(*{w})\n",
    "{v}({w}, **{v})\n",
    "{v} = {w}(*{v}, **{w})\n",
    "if ({v} := {w}):\n    pass\n",
    "{v} = ({w} := 1)\n",
    "match {v}:\n    case 0:\n        pass\n    case _:\n        {v} = {w}\n",
    "async def g():\n    await {v}\n",
    "async for x in {v}:\n    pass\n",
    "async with {v}:\n    pass\n",
    "await {v}\n",
    "import os\n",
    "from math import *\n",
    "del {v}\n",
    "assert {v}, {w}\n",
    "raise ValueError({v})\n",
    "{v}[0] = {w}\n",
    "{v}[{w}] += 1\n",
    "{v}.attr = {w}\n",
    "{v}, {w} = {w}, {v}\n",
    "{v}, *{w} = {v}\n",
    "{v} = {w} = 1\n",
    "{v}: int = {w}\n",
    "{v}: int\n",
    "{v} = {w} if {v} else None\n",
    "{v} = {w}[1:2]\n",
    "{v} = {w}[::-1]\n",
    '{v} = f"{{{w}}}"\n',
    '{v} = f"{{{w}!r:>10}}"\n',
    "{v} = {w} ** 2\n",
    "{v} = {w} @ {w}\n",
    "{v} = {w} << 1 | 3 ^ {v} & 2\n",
    "{v} = ~{w}\n",
    "{v} = -{w}\n",
    "{v} = ({w},)\n",
    "{v} = ()\n",
    "{v} = [{w}, *{w}]\n",
    "{v} = {{**{w}}}\n",
    "{v} = {{}}\n",
    "{v} = set()\n",
    "{v} = {w}.{w}\n",
    "{v} = {w}({v})\n",
    "{v} = {w}()()\n",
    "{v} = {w}.add({v})\n",
    "{v}.add({w})\n",
    "{v}.append({w})\n",
    "{v} = 1 < {w} < 3\n",
    "{v} = not {w}\n",
    "{v} = {w} is None\n",
    "{v} = {w} is not {v}\n",
    "{v} = {w} in ({v}, 2)\n",
    "{v} = {w} not in [{v}]\n",
    "{v} = dataflow({w})\n",
    "{v} = group_by(0, {w})\n",
    "{v} = group_by({w}, {v}, order_by={w})\n",
    "for {v} in group_by(0, {w}):\n    yield {v}\n",
    "for a, b in group_by(0, {w}):\n    yield a, b\n",
    "for {v} in {w}:\n    pass\n",
    "for {v} in range({w}):\n    {w} += {v}\n",
    "for {v} in {w}:\n    pass\nelse:\n    {v} = 1\n",
    "if {v}:\n    pass\nelif {w}:\n    {v} = 2\nelse:\n    {w} = 3\n",
    "{v} += {w}\n",
    "{v} -= 1\n",
    "{v} //= {w}\n",
    "{v} **= 2\n",
    "{v} |= {w}\n",
    "{v} = eval({w})\n",
    "{v} = __import__('os')\n",
    "{v} = ...\n",
    "{v} = b'x'\n",
    "{v} = 1j\n",
    "{v} = 0x10 + 1_000 + 0o7 + 1e300\n",
    "{v} = 'a' 'b'\n",
    "{v} = {w}.__class__\n",
    "{v} = isinstance({w}, int)\n",
    "{v} = len({w})\n",
    "{v} = abs({w}) + round({v}, 2)\n",
    "{v} = str({w}) + {v}\n",
    "{v} = int({w}) / 0\n",
    "{v} = {w}.project(0)\n",
    "{v} = {w}.project(7, -1)\n",
    "{v} = {w}.value()\n",
    "{v} = RowStream({w})\n",
    "{v} = {w}.count\n",
    "{v} = {w}.split(',')[0]\n",
    "{v} = sorted({w})\n",
    "{v} = min({w})\n",
    "{v} = max({v}, {w}, key=len)\n",
    "{v} = print\n",
    "{v} = locals()\n",
    "{v} = super()\n",
    "{v} = (yield {w})\n",
    "pass\n",
    "...\n",
    "'''a docstring in the middle'''\n",
)


def insert_construct(module: cst.Module, rng: random.Random) -> cst.Module | None:
    stmt = cst.parse_statement(_fill(rng.choice(CONSTRUCTS), module, rng))

    def edit(body: list) -> list:  # type: ignore[type-arg]
        i = rng.randrange(len(body) + 1)
        return body[:i] + [stmt] + body[i:]

    return _edit_body(module, rng, True, edit)


# -- operators ---------------------------------------------------------------------------------

_BINOPS = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo,
           cst.Power, cst.BitAnd, cst.BitOr, cst.MatrixMultiply)  # fmt: skip
_CMPOPS = (cst.LessThan, cst.LessThanEqual, cst.Equal, cst.NotEqual, cst.GreaterThan,
           cst.GreaterThanEqual, cst.Is, cst.IsNot, cst.In, cst.NotIn)  # fmt: skip
_AUGOPS = (cst.AddAssign, cst.SubtractAssign, cst.MultiplyAssign, cst.DivideAssign,
           cst.FloorDivideAssign, cst.ModuloAssign, cst.PowerAssign, cst.BitOrAssign)  # fmt: skip


def change_operator(module: cst.Module, rng: random.Random) -> cst.Module | None:
    kinds = (cst.BinaryOperation, cst.Comparison, cst.BooleanOperation, cst.UnaryOperation,
             cst.AugAssign)  # fmt: skip

    def change(n: cst.CSTNode) -> cst.CSTNode:
        if isinstance(n, cst.BinaryOperation):
            return n.with_changes(operator=rng.choice(_BINOPS)())
        if isinstance(n, cst.Comparison):
            i = rng.randrange(len(n.comparisons))
            targets = list(n.comparisons)
            targets[i] = targets[i].with_changes(operator=rng.choice(_CMPOPS)())
            return n.with_changes(comparisons=targets)
        if isinstance(n, cst.BooleanOperation):
            op = cst.Or() if isinstance(n.operator, cst.And) else cst.And()
            return n.with_changes(operator=op)
        if isinstance(n, cst.UnaryOperation):
            return n.expression if isinstance(n.operator, cst.Not) else n.with_changes(
                operator=cst.Not())  # fmt: skip
        assert isinstance(n, cst.AugAssign)
        if rng.random() < 0.25:  # x += e  ->  x = e
            return cst.Assign([cst.AssignTarget(n.target)], n.value)
        return n.with_changes(operator=rng.choice(_AUGOPS)())

    return _replace(module, rng, lambda n, inside: inside and isinstance(n, kinds), change)


def negate_condition(module: cst.Module, rng: random.Random) -> cst.Module | None:
    def pred(n: cst.CSTNode, inside: bool) -> bool:
        return inside and isinstance(n, cst.If | cst.While | cst.IfExp)

    def change(n: cst.CSTNode) -> cst.CSTNode:
        test = n.test  # type: ignore[attr-defined]
        return n.with_changes(test=cst.UnaryOperation(cst.Not(), _paren(test)))

    return _replace(module, rng, pred, change)


def _paren(e: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(e, cst.Name | cst.Integer | cst.Call | cst.Attribute) or e.lpar:
        return e
    return e.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


# -- expressions -------------------------------------------------------------------------------

CONSTANTS = ("0", "-1", "None", '""', "True", "False", "2**63", "1.5", '"a\'b`c"', "-0.0",
             "float('nan')", "10**400", "'\\x00'", "'é'", "[]", "()", "{}", "1", "2")  # fmt: skip
EXPRESSIONS = ("{v}", "{w}", "lambda: {v}", "[x for x in {v}]", "({v} := 1)", "{v} if {w} else {v}",
               "{v}.{w}", "{v}[0]", "{v}({w})", "{v} + {w}", "not {v}", "({v}, {w})", "*{v}",
               "undefined_name", "print", "group_by", "dataflow", "RowStream", "(yield {v})",
               "f'{{{v}}}'", "{v}.project(0, 1)", "{v}.value()", "len({v})")  # fmt: skip


def _expression_slots(module: cst.Module) -> list[cst.BaseExpression]:
    """Expressions in positions where any expression may stand, inside functions."""
    slots: list[cst.BaseExpression] = []

    class V(cst.CSTVisitor):
        depth = 0

        def on_visit(self, n: cst.CSTNode) -> bool:
            if isinstance(n, cst.FunctionDef):
                self.depth += 1
            if not self.depth:
                return True
            parts: list[object] = []
            if isinstance(n, cst.Arg | cst.Assign | cst.AugAssign | cst.Return | cst.Expr
                          | cst.Element | cst.Index):  # fmt: skip
                parts.append(n.value)
            elif isinstance(n, cst.BinaryOperation | cst.BooleanOperation):
                parts += [n.left, n.right]
            elif isinstance(n, cst.Comparison):
                parts += [n.left, *(t.comparator for t in n.comparisons)]
            elif isinstance(n, cst.UnaryOperation):
                parts.append(n.expression)
            elif isinstance(n, cst.If | cst.While):
                parts.append(n.test)
            elif isinstance(n, cst.IfExp):
                parts += [n.test, n.body, n.orelse]
            elif isinstance(n, cst.For):
                parts.append(n.iter)
            elif isinstance(n, cst.Yield) and isinstance(n.value, cst.BaseExpression):
                parts.append(n.value)
            slots.extend(p for p in parts if isinstance(p, cst.BaseExpression))
            return True

        def on_leave(self, n: cst.CSTNode) -> None:
            if isinstance(n, cst.FunctionDef):
                self.depth -= 1

    module.visit(V())
    return slots


def _replace_expression(module: cst.Module, rng: random.Random, templates: tuple[str, ...]):  # type: ignore[no-untyped-def]
    slots = _expression_slots(module)
    if not slots:
        return None
    target = rng.choice(slots)
    new = cst.parse_expression(_fill(rng.choice(templates), module, rng))
    return module.visit(_Replace(target, lambda _n: new))


def change_constant(module: cst.Module, rng: random.Random) -> cst.Module | None:
    kinds = (cst.Integer, cst.Float, cst.SimpleString, cst.Name)

    def pred(n: cst.CSTNode, inside: bool) -> bool:
        if not inside or not isinstance(n, kinds):
            return False
        return not isinstance(n, cst.Name) or n.value in ("True", "False", "None")

    target = _pick(module, rng, pred)
    if target is not None and rng.random() < 0.7:
        new = cst.parse_expression(rng.choice(CONSTANTS))
        return module.visit(_Replace(target, lambda _n: new))
    return _replace_expression(module, rng, CONSTANTS)


def change_expression(module: cst.Module, rng: random.Random) -> cst.Module | None:
    return _replace_expression(module, rng, EXPRESSIONS)


# -- decorators, annotations, signatures, calls, targets -------------------------------------

DECORATORS = ("dataflow()", "dataflow(1)", "dataflow(columns=None)", "dataflow(columns=('a',))",
              "dataflow(columns=5)", "dataflow(columns=('a', 'a'))", "dataflow(columns='ab')",
              "dataflow(columns=('a', 'b', 'c', 'd', 'e', 'f', 'g'))", "dataflow(foo=1)",
              "dataflow(columns=[1, 2])", "dataflow(columns=())", "dataflow(dataflow)",
              "staticmethod", "functools.cache", "dataflow.dataflow", "print",
              "dataflow(columns=('a\"b', 'c d'))")  # fmt: skip


def change_decorator(module: cst.Module, rng: random.Random) -> cst.Module | None:
    how = rng.choice(("double", "double", "remove", "arguments", "add", "class"))
    if how == "class":
        dec = cst.Decorator(cst.parse_expression("dataflow"))
        return _replace(module, rng, lambda n, _i: isinstance(n, cst.ClassDef),
                        lambda n: n.with_changes(decorators=[*n.decorators, dec]))  # fmt: skip
    if how == "add":
        dec = cst.Decorator(cst.parse_expression(rng.choice(("dataflow", *DECORATORS))))
        return _replace(module, rng, lambda n, _i: isinstance(n, cst.FunctionDef),
                        lambda n: n.with_changes(decorators=[dec, *n.decorators]))  # fmt: skip

    def change(n: cst.CSTNode) -> cst.CSTNode:
        decs = list(n.decorators)  # type: ignore[attr-defined]
        i = rng.randrange(len(decs))
        if how == "double":
            decs.insert(i, decs[i])
        elif how == "remove":
            del decs[i]
        else:
            decs[i] = cst.Decorator(cst.parse_expression(rng.choice(DECORATORS)))
        return n.with_changes(decorators=decs)

    return _replace(module, rng, lambda n, _i: isinstance(n, cst.FunctionDef) and bool(n.decorators),
                    change)  # fmt: skip


ANNOTATIONS = ("RowStream[int]", "RowStream[int, int, int, int]", "RowStream[str, float]",
               "RowStream", "RowStream[()]", "RowStream[Optional[int], int]",
               "Optional[RowStream[int, int]]", "int", "str", "float", "bool", "None",
               "Optional[int]", "list[int]", "dict[str, int]", "'int'", "RowStream['int']",
               "RowStream[int, ...]", "RowStream[RowStream[int]]", "datetime.datetime",
               "tuple[int, int]", "Any", "1", "RowStream[int, bytes]", "RowStream[object]",
               "int | None", "RowStream[int | None, str]", "RowStream[list[int]]")  # fmt: skip


def change_annotation(module: cst.Module, rng: random.Random) -> cst.Module | None:
    def pred(n: cst.CSTNode, _inside: bool) -> bool:
        if isinstance(n, cst.Param):
            return True
        return isinstance(n, cst.FunctionDef) or (
            isinstance(n, cst.Subscript) and isinstance(n.value, cst.Name)
            and n.value.value == "RowStream")  # fmt: skip

    def change(n: cst.CSTNode) -> cst.CSTNode:
        if isinstance(n, cst.Subscript):  # drop, duplicate or retype one field
            elems = list(n.slice)
            i = rng.randrange(len(elems))
            r = rng.random()
            if r < 0.3 and len(elems) > 1:
                del elems[i]
            elif r < 0.6:
                elems.insert(i, elems[i])
            else:
                t = cst.parse_expression(rng.choice(("int", "str", "float", "bool", "None",
                                                     "Optional[int]", "datetime.date")))  # fmt: skip
                elems[i] = cst.SubscriptElement(cst.Index(t))
            elems = [e.with_changes(comma=cst.MaybeSentinel.DEFAULT) for e in elems]
            return n.with_changes(slice=elems)
        ann = None
        if rng.random() > 0.15:
            ann = cst.Annotation(cst.parse_expression(rng.choice(ANNOTATIONS)))
        if isinstance(n, cst.FunctionDef):
            return n.with_changes(returns=ann)
        return n.with_changes(annotation=ann)

    out = _replace(module, rng, pred, change)
    return None if out is None else _import_typing(out)


def _import_typing(module: cst.Module) -> cst.Module:
    """``from typing import Any, Optional`` after the module's leading imports."""
    if "Optional" not in module.code and "Any" not in module.code:
        return module
    body = list(module.body)
    i = 0
    while i < len(body) and (
        isinstance(body[i], cst.SimpleStatementLine)
        and isinstance(body[i].body[0], cst.Expr | cst.Import | cst.ImportFrom)  # type: ignore[attr-defined]
    ):
        i += 1
    stmt = cst.parse_statement("from typing import Any, Optional\n")
    return module.with_changes(body=body[:i] + [stmt] + body[i:])


def change_signature(module: cst.Module, rng: random.Random) -> cst.Module | None:
    how = rng.choice(("async", "star", "kwargs", "default", "kwonly", "posonly", "drop", "add"))

    def change(n: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(n, cst.FunctionDef)
        p = n.params
        if how == "async":
            return n.with_changes(asynchronous=cst.Asynchronous())
        if how == "star":
            return n.with_changes(params=p.with_changes(star_arg=cst.Param(cst.Name("args"))))
        if how == "kwargs":
            return n.with_changes(params=p.with_changes(star_kwarg=cst.Param(cst.Name("kw"))))
        if how == "drop" and p.params:
            i = rng.randrange(len(p.params))
            return n.with_changes(params=p.with_changes(params=[*p.params[:i], *p.params[i + 1 :]]))
        if how == "add":
            extra = cst.Param(cst.Name("extra"), cst.Annotation(cst.Name("int")))
            return n.with_changes(params=p.with_changes(params=[*p.params, extra]))
        if not p.params:
            return n
        i = rng.randrange(len(p.params))
        if how == "default":
            params = list(p.params)
            params[-1] = params[-1].with_changes(default=cst.parse_expression(rng.choice(CONSTANTS)),
                                                 equal=cst.AssignEqual())  # fmt: skip
            return n.with_changes(params=p.with_changes(params=params))
        if how == "kwonly":
            return n.with_changes(
                params=p.with_changes(
                    params=p.params[:i], star_arg=cst.ParamStar(), kwonly_params=p.params[i:]
                )
            )
        return n.with_changes(params=p.with_changes(posonly_params=p.params[: i + 1],
                                                    params=p.params[i + 1 :]))  # fmt: skip

    return _replace(module, rng, lambda n, _i: isinstance(n, cst.FunctionDef), change)


CALL_ARGS = ("0", "1", "5", "-1", "'a'", "None", "lambda r: r[0]", "order_by=1", "order_by=-1",
             "order_by='a'", "order_by=(0, 1)", "key=None", "*args", "**kw", "descending=True")  # fmt: skip


def change_call(module: cst.Module, rng: random.Random) -> cst.Module | None:
    how = rng.choice(("drop", "duplicate", "add", "swap"))

    def change(n: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(n, cst.Call)
        args = [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in n.args]
        i = rng.randrange(len(args) + 1)
        if how == "drop" and args:
            del args[min(i, len(args) - 1)]
        elif how == "duplicate" and args:
            j = min(i, len(args) - 1)
            args.insert(j, args[j])
        elif how == "swap" and len(args) > 1:
            j = rng.randrange(len(args) - 1)
            args[j], args[j + 1] = args[j + 1], args[j]
        else:
            new = cst.parse_expression(f"f({rng.choice(CALL_ARGS)})").args[0]  # type: ignore[attr-defined]
            args.insert(i, new.with_changes(comma=cst.MaybeSentinel.DEFAULT))
        return n.with_changes(args=args)

    return _replace(module, rng, lambda n, inside: inside and isinstance(n, cst.Call), change)


def change_target(module: cst.Module, rng: random.Random) -> cst.Module | None:
    """A ``for`` target unpacking another number of names, a nested or a starred one."""

    def change(n: cst.CSTNode) -> cst.CSTNode:
        assert isinstance(n, cst.For)
        t = n.target
        names = list(t.elements) if isinstance(t, cst.Tuple) else [cst.Element(t)]
        names = [e.with_changes(comma=cst.MaybeSentinel.DEFAULT) for e in names]
        r = rng.random()
        if r < 0.3 and len(names) > 1:
            del names[rng.randrange(len(names))]
        elif r < 0.55:
            names.append(cst.Element(cst.Name("extra")))
        elif r < 0.7:
            names[-1] = cst.StarredElement(names[-1].value)
        elif r < 0.85 and len(names) > 1:
            names = [cst.Element(cst.Tuple(names[:2])), *names[2:]]
        else:
            return n.with_changes(target=cst.parse_expression(rng.choice(("row", "_", "r[0]",
                                                                          "r.x"))))  # fmt: skip
        if len(names) == 1 and not isinstance(names[0], cst.StarredElement):
            return n.with_changes(target=names[0].value)
        return n.with_changes(target=cst.Tuple(names, lpar=[], rpar=[]))

    return _replace(module, rng, lambda n, inside: inside and isinstance(n, cst.For), change)


MUTATORS: tuple[tuple[str, Callable[[cst.Module, random.Random], cst.Module | None]], ...] = (
    ("drop_statement", drop_statement),
    ("duplicate_statement", duplicate_statement),
    ("swap_statements", swap_statements),
    ("insert_construct", insert_construct),
    ("insert_construct", insert_construct),
    ("insert_construct", insert_construct),
    ("change_operator", change_operator),
    ("change_operator", change_operator),
    ("negate_condition", negate_condition),
    ("change_constant", change_constant),
    ("change_constant", change_constant),
    ("change_expression", change_expression),
    ("change_expression", change_expression),
    ("change_decorator", change_decorator),
    ("change_annotation", change_annotation),
    ("change_annotation", change_annotation),
    ("change_signature", change_signature),
    ("change_call", change_call),
    ("change_call", change_call),
    ("change_target", change_target),
)
