"""The frontend package: every violation of a statement is reported; state classes become IR
through the same expression translator as ``@dataflow`` code."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path
from typing import Any

import pytest
from looplift.api import Dataflow
from looplift.compiler import frontend
from looplift.compiler.backend.state_expr import state_expr_sql
from looplift.compiler.cli import algorithms_of
from looplift.compiler.errors import CompilerError
from looplift.compiler.frontend.env import Binding, Carry, Rows, StateVar, Value
from looplift.compiler.frontend.reject import RULES
from looplift.compiler.ir.nodes import Apply, Builtin, Expr, Lambda, Lit, Prim, Var
from looplift.compiler.ir.traverse import walk
from looplift.compiler.pipeline import compile_dataflow
from looplift.compiler.state_classes import classify_state_class
from looplift.state import State

from tests.helpers import CORPUS, SAMPLES, import_path


def test_two_violations_in_one_statement_are_both_reported() -> None:
    """Each construct of a statement is reported, not only the first: the refusals that
    ``@dataflow(strict=True)`` keeps (they are Python islands otherwise, issue 25)."""
    path = CORPUS / "valid" / "island_in_statement.py"
    (algo,) = algorithms_of(import_path(path))
    strict = Dataflow(algo.fn, algo.columns, strict=True)
    with pytest.raises(CompilerError) as err:
        compile_dataflow(strict)
    text = str(err.value)
    # line 16: `total += apply(lambda y: y + 1, a) + len([c for c in (a, b)])`
    assert f"{path}:16:24: error: `lambda` is not supported" in text
    assert f"{path}:16:50: error: list comprehensions are not supported" in text
    # line 17: `total += (a & b) | len(b"ab")` (bitwise operators are native)
    assert f"{path}:17:32: error: bytes literals are not supported" in text
    assert "operator `" not in text
    assert text.endswith("3 errors")
    assert compile_dataflow(algo).program.fn.islands  # and without strict, two islands


def test_every_rule_has_a_message_and_most_a_hint() -> None:
    for kind, rules in RULES.items():
        assert rules, kind
        for rule in rules:
            assert rule.message, kind
            # `await` and `...` have no better spelling to offer
            assert rule.hint or kind.__name__ in ("Await", "Ellipsis"), kind


def test_frontend_modules_are_small() -> None:
    package = Path(frontend.__file__).parent
    sizes = {p.name: len(p.read_text().splitlines()) for p in package.glob("*.py")}
    assert {"parse.py", "env.py", "reject.py", "stmts.py", "exprs.py", "calls.py"} <= set(sizes)
    assert max(sizes.values()) <= 500, sizes


def test_binding_kinds_are_frozen_classes() -> None:
    rows = Rows("r", arity=2, types=("int", "str"))
    assert isinstance(rows, Binding) and rows.kind == "rows" and rows.arity == 2
    assert {Value.kind, Carry.kind, StateVar.kind} == {"value", "carry", "state"}
    with pytest.raises(AttributeError):
        rows.arity = 3  # type: ignore[misc]


# -- state classes: the IR equals what the backend builds from the text ----------------


def _state_classes() -> list[type]:
    modules: list[Any] = []
    import looplift.states as states

    for m in pkgutil.walk_packages(states.__path__, states.__name__ + "."):
        modules.append(importlib.import_module(m.name))
    modules += [import_path(p) for p in sorted(SAMPLES.glob("*.py"))]
    found: dict[str, type] = {}
    for mod in modules:
        for obj in vars(mod).values():
            if isinstance(obj, type) and issubclass(obj, State) and obj is not State:
                found.setdefault(f"{obj.__module__}:{obj.__qualname__}", obj)
    return [found[k] for k in sorted(found)]


def _renders(ir: Expr, names: set[str]) -> str:
    """The backend's SQL of a state expression whose free names are ``names``."""
    free = {n.name for n in walk(ir) if isinstance(n, Var)}
    assert free <= names, f"{free - names} are not parameters or fields"
    sql, _ = state_expr_sql(ir, {n: f"`{n}`" for n in names}, {n: "float" for n in names})
    return sql


CLASSES = _state_classes()


def test_the_state_classes_include_additive_ones() -> None:
    additive = [c.__name__ for c in CLASSES if classify_state_class(c).additive]
    assert {"Sum", "Count", "Average", "Variance", "Funnel"} <= set(additive)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: f"{c.__module__}.{c.__name__}")
def test_state_class_ir_covers_every_increment_and_reader(cls: type) -> None:
    """The backend builds additive states from this IR alone (the text is for display)."""
    info = classify_state_class(cls)
    if not info.additive:
        assert not info.reader_irs and not info.additive_actions
        return
    fields = {f"self.{f}" for f, _ in info.fields}
    for act in info.additive_actions:
        assert [(f, s) for f, s, _ in act.update_exprs] == [(f, s) for f, s, _ in act.updates]
        for _, _, ir in act.update_exprs:
            assert _renders(ir, set(act.params))
    assert [r for r, _ in info.reader_irs] == [r for r, _ in info.reader_exprs]
    for _, ir in info.reader_irs:
        assert _renders(ir, fields)


def test_self_fields_and_parameters_become_variables() -> None:
    from looplift.states import Average

    info = classify_state_class(Average)
    (add,) = info.additive_actions
    assert dict((f, ir) for f, _, ir in add.update_exprs) == {"n": Lit(1), "s": Var("x")}
    value = dict(info.reader_irs)["value"]
    s, n = Var("self.s"), Var("self.n")
    assert value == Apply(
        Builtin("if"),
        (
            Apply(Prim("ne"), (n, Lit(0))),
            Lambda((), Apply(Prim("truediv"), (s, n))),
            Lambda((), Lit(None)),
        ),
    )
