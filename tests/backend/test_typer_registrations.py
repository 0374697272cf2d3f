"""The typer reads the rules of the modules that know a domain through registries
(``rules.py``: the special forms' and the container readers' type rules; ``types.py``:
the hooks into host code), never importing those modules: whatever imports the backend
has them registered, and a slot nothing filled fails loudly."""

from __future__ import annotations

import pytest
from looplift.compiler.backend import rules, types


def test_every_slot_of_the_typer_is_filled() -> None:
    for name in rules.SPECIAL_FORMS:
        assert rules.form_type_for(name) is not None
        assert rules.form_for(name) is not None
    for module, method in rules.STATE_READERS:
        assert rules.reader_type_for(module, method) is not None
    assert set(types._HOOKS) == set(types.HOST_HOOKS)


def test_a_builtin_that_is_no_form_has_no_rule() -> None:
    assert rules.form_type_for("yield") is None
    assert rules.form_for("if") is None
    assert rules.reader_type_for("looplift.states.containers", "add") is None


def test_an_unfilled_slot_fails_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(rules.FORM_TYPES, "fold")
    with pytest.raises(LookupError, match="type rule of a form registered for 'fold'"):
        rules.form_type_for("fold")
    (key,) = rules.STATE_READERS
    monkeypatch.delitem(rules.READER_TYPES, key)
    with pytest.raises(LookupError, match="reader type rule"):
        rules.reader_type_for(*key)
    monkeypatch.delitem(types._HOOKS, "host_result")
    with pytest.raises(LookupError, match="host_types.py"):
        types.host_return_type(len, [])


def test_a_rule_outside_a_slot_or_registered_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="no slot"):
        rules.form_type("smap")(lambda v, ty, value_type: ("any", True))
    with pytest.raises(ValueError, match="two"):
        rules.form_type("fold")(lambda v, ty, value_type: ("any", True))
    with pytest.raises(ValueError, match="no hook"):
        types.host_hook("nope")(len)
    with pytest.raises(ValueError, match="two"):
        types.host_hook("host_result")(len)
