"""The one parameter binder: ``:name`` markers in generated SQL become SQL literals."""

from __future__ import annotations

import pytest
from looplift.sqltext import bind_columns, bind_params, param_ref, sql_literal


def test_markers_become_literals_by_name() -> None:
    sql = f"CASE WHEN (`cents` >= {param_ref('threshold')}) THEN {param_ref('label')} END"
    got = bind_params(sql, {"threshold": 10, "label": "it's"})
    label = sql_literal("it's")
    assert got == f"CASE WHEN (`cents` >= {sql_literal(10)}) THEN {label} END"


def test_colons_in_literals_and_identifiers_are_not_markers() -> None:
    sql = "concat('a :threshold b', `odd :threshold`) || :threshold"
    got = bind_params(sql, {"threshold": 3})
    assert got.startswith("concat('a :threshold b', `odd :threshold`) || ")
    assert not got.endswith(":threshold")


def test_keyword_named_parameters_and_unbound_markers() -> None:
    assert ":limit" not in bind_params("(`peak` > :limit)", {"limit": 1.5})
    with pytest.raises(ValueError, match="'limit'"):
        bind_params("(`peak` > :limit)", {})
    assert bind_params("no markers here", {}) == "no markers here"


def test_user_columns_are_bound_after_the_parameters() -> None:
    """Column SQL is the user's text: it is never scanned for markers."""
    sql = bind_columns(bind_params("sum(\x020\x02) + :k", {"k": 1}), ["payload:k"])
    assert sql.startswith("sum(payload:k) + ") and sql.count(":k") == 1
