"""`--explain` prints expressions that Python reads back as the same tree (issue 10).

Random IR expressions, with compiler temporaries inlined into their uses, are
rendered by the explain printer; the text is parsed by Python and compared,
as a tree, with the IR it came from. Parentheses must be minimal too: without
any one pair, Python reads the text differently.
"""

from __future__ import annotations

import ast
import itertools
from dataclasses import dataclass
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from looplift.compiler.dataflow.exprs import render, render_guards
from looplift.compiler.ir.nodes import Apply, Builtin, Expr, Lambda, Let, Lit, Prim, Var

BINARY = ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "eq", "ne", "lt", "le",
          "gt", "ge")  # fmt: skip
UNARY = ("neg", "pos", "not")
AST_OPS = {
    ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv",
    ast.FloorDiv: "floordiv", ast.Mod: "mod", ast.Pow: "pow", ast.Eq: "eq", ast.NotEq: "ne",
    ast.Lt: "lt", ast.LtE: "le", ast.Gt: "gt", ast.GtE: "ge", ast.USub: "neg", ast.UAdd: "pos",
    ast.Not: "not",
}  # fmt: skip


@dataclass
class _Bound:
    value: Expr


@dataclass
class _Analysis:
    """The part of an Analysis the printer reads: each temporary's value."""

    bound: dict[str, _Bound]


def _if(c: Expr, t: Expr, o: Expr) -> Expr:
    return Apply(Builtin("if"), (c, Lambda((), t), Lambda((), o)))


@st.composite
def exprs(draw: Any, bound: dict[str, _Bound], counter: Any, depth: int = 0) -> Expr:
    kinds = ["name", "lit"] + (["bin", "un", "and", "or", "if", "nth", "none", "in"]
                               if depth < 4 else [])  # fmt: skip
    kind = draw(st.sampled_from(kinds))
    sub = exprs(bound, counter, depth + 1)
    if kind == "name":
        return Var(draw(st.sampled_from(["a", "b", "c"])))
    if kind == "lit":
        return Lit(draw(st.one_of(st.integers(-3, 3), st.sampled_from([1.5, -2.5, "x", None]))))
    if kind == "bin":
        e: Expr = Apply(Prim(draw(st.sampled_from(BINARY))), (draw(sub), draw(sub)))
    elif kind == "un":
        e = Apply(Prim(draw(st.sampled_from(UNARY))), (draw(sub),))
    elif kind in ("and", "or"):
        tmp = f"_b{next(counter)}"
        bound[tmp] = _Bound(draw(sub))
        t, o = (draw(sub), Var(tmp)) if kind == "and" else (Var(tmp), draw(sub))
        e = Let(tmp, bound[tmp].value, _if(Var(tmp), t, o))
    elif kind == "if":
        e = _if(draw(sub), draw(sub), draw(sub))
    elif kind == "nth":
        e = Apply(Prim("nth"), (draw(sub), Lit(draw(st.integers(0, 2)))))
    elif kind == "none":
        e = Apply(Prim(draw(st.sampled_from(["is_none", "is_not_none"]))), (draw(sub),))
    else:
        elems = draw(st.lists(sub, min_size=1, max_size=2))
        e = Apply(Prim(draw(st.sampled_from(["in", "not_in"]))), (draw(sub), *elems))
    if draw(st.booleans()):  # a compiler temporary, inlined by the printer
        tmp = f"_t{next(counter)}"
        bound[tmp] = _Bound(e)
        return Var(tmp)
    return e


def ir_tree(e: Expr, bound: dict[str, _Bound]) -> Any:
    """The IR as a plain tree, temporaries and `and`/`or` lets resolved."""
    if isinstance(e, Var):
        return ir_tree(bound[e.name].value, bound) if e.name in bound else ("name", e.name)
    if isinstance(e, Lit):
        return ("lit", e.value)
    if isinstance(e, Let):
        return ir_tree(e.body, bound)
    assert isinstance(e, Apply)
    if isinstance(e.fn, Builtin):
        c, t, o = e.args[0], e.args[1].body, e.args[2].body
        # `y if x else x` is `x and y`, `x if x else y` is `x or y` (the printer's reading)
        if o == c and isinstance(c, (Var, Lit)):
            return ("and", ir_tree(c, bound), ir_tree(t, bound))
        if t == c and isinstance(c, (Var, Lit)):
            return ("or", ir_tree(c, bound), ir_tree(o, bound))
        return ("if", ir_tree(c, bound), ir_tree(t, bound), ir_tree(o, bound))
    return _fold((e.fn.op, *(ir_tree(x, bound) for x in e.args)))


def py_tree(n: ast.AST) -> Any:
    """Python's parse as the same kind of tree (chained comparisons stay chains)."""
    if isinstance(n, ast.Name):
        return ("name", n.id)
    if isinstance(n, ast.Constant):
        return ("lit", n.value)
    if isinstance(n, ast.UnaryOp):
        return _fold((AST_OPS[type(n.op)], py_tree(n.operand)))
    if isinstance(n, ast.BinOp):
        return (AST_OPS[type(n.op)], py_tree(n.left), py_tree(n.right))
    if isinstance(n, ast.BoolOp):
        word = "and" if isinstance(n.op, ast.And) else "or"
        out = py_tree(n.values[0])
        for v in n.values[1:]:
            out = (word, out, py_tree(v))
        return out
    if isinstance(n, ast.IfExp):
        return ("if", py_tree(n.test), py_tree(n.body), py_tree(n.orelse))
    if isinstance(n, ast.Subscript):
        return ("nth", py_tree(n.value), py_tree(n.slice))
    if isinstance(n, ast.Compare):
        if len(n.ops) > 1:
            return ("chain", ast.dump(n))
        op, right = n.ops[0], n.comparators[0]
        if isinstance(op, (ast.Is, ast.IsNot)):
            return ("is_none" if isinstance(op, ast.Is) else "is_not_none", py_tree(n.left))
        if isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, ast.Tuple):
            word = "in" if isinstance(op, ast.In) else "not_in"
            return (word, py_tree(n.left), *(py_tree(x) for x in right.elts))
        return (AST_OPS.get(type(op), "other"), py_tree(n.left), py_tree(right))
    if isinstance(n, ast.Tuple):
        return ("tuple", *(py_tree(x) for x in n.elts))
    return ("other", ast.dump(n))


def _fold(tree: Any) -> Any:
    """A minus on a number is a negative literal (the frontend folds it the same way)."""
    if tree[0] == "neg" and tree[1][0] == "lit":
        v = tree[1][1]
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return ("lit", -v)
    return tree


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_printed_text_parses_back_to_the_same_tree(data: st.DataObject) -> None:
    bound: dict[str, _Bound] = {}
    e = data.draw(exprs(bound, itertools.count()))
    text = render(e, _Analysis(bound))  # type: ignore[arg-type]
    parsed = ast.parse(text, mode="eval").body
    assert py_tree(parsed) == ir_tree(e, bound), text
    # minimal: without any one pair of parentheses, Python reads something else
    for i, j in _paren_pairs(text):
        shorter = text[:i] + text[i + 1 : j] + text[j + 1 :]
        try:
            other = py_tree(ast.parse(shorter, mode="eval").body)
        except SyntaxError:
            continue
        assert other != py_tree(parsed), f"{text}: parentheses at {i} are not needed"


def _paren_pairs(text: str) -> list[tuple[int, int]]:
    pairs, stack = [], []
    for i, ch in enumerate(text):
        if ch == "(":
            stack.append(i)
        elif ch == ")":
            pairs.append((stack.pop(), i))
    return pairs


def test_issue_10_examples() -> None:
    t, p, a, b, c, d = (Var(x) for x in "tpabcd")
    bound = {
        "_t1": _Bound(Apply(Prim("sub"), (t, p))),
        "_b1": _Bound(Apply(Prim("ne"), (b, c))),
        "_t2": _Bound(Let("_b1", Apply(Prim("ne"), (b, c)),
                          _if(Var("_b1"), Var("_b1"), Apply(Prim("ne"), (d, Lit(0)))))),
        "_b2": _Bound(Apply(Prim("is_not_none"), (a,))),
    }  # fmt: skip
    an: Any = _Analysis(bound)
    assert render(Apply(Prim("truediv"), (Var("_t1"), Lit(3600))), an) == "(t - p) / 3600"
    both = _if(Var("_b2"), Var("_t2"), Var("_b2"))
    assert render(both, an) == "a is not None and (b != c or d != 0)"
    assert render_guards((("_t2", True),), an) == "b != c or d != 0"
    assert (
        render_guards((("_b2", True), ("_t2", True)), an) == "a is not None and (b != c or d != 0)"
    )
    assert render_guards((("_t2", False),), an) == "not (b != c or d != 0)"
