"""Additive states: values, derived undo, and the restricted form the compiler needs."""

from __future__ import annotations

import ast
import inspect
import math
import statistics
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from looplift.state import additive_fields
from looplift.states import Average, Count, Sum, Variance

ADDITIVE = [Sum, Count, Average, Variance]
SMALL_LISTS = st.lists(st.integers(-50, 50), max_size=30)


def test_sum():
    s = Sum()
    assert s.value() == 0
    for x in (3, -7, 10):
        s.add(x)
    assert s.value() == 6
    s.add.undo(-7)
    assert s.value() == 13


def test_count_counts_rows():
    c = Count()
    assert c.value() == 0
    c.add()
    c.add()
    c.add()
    c.add.undo()
    assert c.value() == 2


def test_average():
    a = Average()
    assert a.value() is None
    a.add(1)
    a.add(2)
    assert a.value() == 1.5 and isinstance(a.value(), float)
    a.add(3)
    assert a.value() == 2.0 and isinstance(a.value(), float)
    for x in (1, 2, 3):
        a.add.undo(x)
    assert a.value() is None


def test_variance_small_cases():
    v = Variance()
    assert v.value() is None and v.sample() is None
    v.add(5)
    assert v.value() == 0.0 and v.sample() is None
    v.add(7)
    # mean 6, squared deviations 1 + 1
    assert v.value() == 1.0 and v.sample() == 2.0


def test_variance_never_negative_for_equal_floats():
    v = Variance()
    for _ in range(7):
        v.add(0.1)
    assert v.value() >= 0.0 and v.sample() >= 0.0
    assert v.value() == pytest.approx(0.0, abs=1e-15)


@settings(deadline=None)
@given(SMALL_LISTS)
def test_variance_matches_statistics(xs):
    v = Variance()
    for x in xs:
        v.add(x)
    if xs:
        assert math.isclose(v.value(), statistics.pvariance(xs), rel_tol=1e-9, abs_tol=1e-9)
    else:
        assert v.value() is None
    if len(xs) >= 2:
        assert math.isclose(v.sample(), statistics.variance(xs), rel_tol=1e-9, abs_tol=1e-9)
    else:
        assert v.sample() is None


@settings(deadline=None)
@given(st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=1, max_size=30))
def test_average_and_variance_of_floats(xs):
    a, v = Average(), Variance()
    for x in xs:
        a.add(x)
        v.add(x)
    assert math.isclose(a.value(), statistics.fmean(xs), rel_tol=1e-9, abs_tol=1e-9)
    assert math.isclose(v.value(), statistics.pvariance(xs), rel_tol=1e-6, abs_tol=1e-6)


@settings(deadline=None)
@given(SMALL_LISTS, SMALL_LISTS)
def test_derived_undo_takes_back_exactly(kept, undone):
    states = [cls() for cls in (Sum, Average, Variance)]
    reference = [cls() for cls in (Sum, Average, Variance)]
    for s, r in zip(states, reference, strict=True):
        for x in kept:
            s.add(x)
            r.add(x)
        for x in undone:
            s.add(x)
        for x in reversed(undone):
            s.add.undo(x)
        assert vars(s) == vars(r)


def test_undo_is_derived_not_written():
    for cls in ADDITIVE:
        for name, act in cls.actions().items():
            assert act.undo_fn is None, f"{cls.__name__}.{name} has an explicit undo"
            assert act.has_undo, f"{cls.__name__}.{name}: no derived undo"
            assert additive_fields(act.fn) is not None


def test_signed_apply():
    s = Sum()
    s.apply("add", 1, 5)
    s.apply("add", 1, 2)
    s.apply("add", -1, 5)
    assert s.value() == 2


# -- the restricted form (SPEC §3: additive states run as native aggregates) ----------

READER_BUILTINS = {"float", "abs", "min", "max"}
READER_NODES = (
    ast.Return,
    ast.Attribute,
    ast.Name,
    ast.Load,
    ast.Constant,
    ast.BinOp,
    ast.UnaryOp,
    ast.Compare,
    ast.IfExp,
    ast.BoolOp,
    ast.Call,
    ast.operator,
    ast.unaryop,
    ast.cmpop,
    ast.boolop,
)


def _method_ast(fn) -> ast.FunctionDef:
    func = ast.parse(textwrap.dedent(inspect.getsource(fn))).body[0]
    assert isinstance(func, ast.FunctionDef)
    return func


def _body(func: ast.FunctionDef) -> list[ast.stmt]:
    body = func.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # docstring
    return body


@pytest.mark.parametrize("cls", ADDITIVE, ids=lambda c: c.__name__)
def test_init_assigns_numeric_literals_only(cls):
    for stmt in _body(_method_ast(cls.__init__)):
        assert isinstance(stmt, ast.Assign), ast.dump(stmt)
        (target,) = stmt.targets
        assert isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
        assert target.value.id == "self"
        assert isinstance(stmt.value, ast.Constant)
        assert type(stmt.value.value) in (int, float)


@pytest.mark.parametrize("cls", ADDITIVE, ids=lambda c: c.__name__)
def test_actions_only_increment_fields_from_parameters(cls):
    for act in cls.actions().values():
        func = _method_ast(act.fn)
        params = {a.arg for a in func.args.args[1:]}
        body = func.body  # no docstring either: the body is the increments, nothing else
        assert body
        for stmt in body:
            assert isinstance(stmt, ast.AugAssign) and isinstance(stmt.op, (ast.Add, ast.Sub))
            assert isinstance(stmt.target, ast.Attribute) and stmt.target.value.id == "self"
            for node in ast.walk(stmt.value):
                assert isinstance(
                    node,
                    (
                        ast.Name,
                        ast.Constant,
                        ast.BinOp,
                        ast.UnaryOp,
                        ast.Load,
                        ast.operator,
                        ast.unaryop,
                    ),
                )
                if isinstance(node, ast.Name):
                    assert node.id in params


@pytest.mark.parametrize("cls", ADDITIVE, ids=lambda c: c.__name__)
def test_readers_are_single_return_expressions(cls):
    fields = set(vars(cls()))
    for name, reader in cls.readers().items():
        body = _body(_method_ast(reader))
        assert len(body) == 1 and isinstance(body[0], ast.Return), f"{cls.__name__}.{name}"
        for node in ast.walk(body[0]):
            assert isinstance(node, READER_NODES), f"{cls.__name__}.{name}: {ast.dump(node)}"
            if isinstance(node, ast.Call):
                assert isinstance(node.func, ast.Name) and node.func.id in READER_BUILTINS
            if isinstance(node, ast.Attribute):
                assert isinstance(node.value, ast.Name) and node.value.id == "self"
                assert node.attr in fields
            if isinstance(node, ast.Name) and node.id != "self":
                assert node.id in READER_BUILTINS
