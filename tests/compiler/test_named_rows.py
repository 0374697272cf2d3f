"""Named rows in the compiler (issue 26 item 1): ``RowStream[Click]`` of a NamedTuple is the
positional stream of its fields with the names attached; diagnostics name the field and
list the row's fields; the plan binds columns by name; the reference accepts names and
lambdas. No Spark here (``tests/spark/test_named_rows.py`` runs the plans)."""

from __future__ import annotations

import itertools
import textwrap
from pathlib import Path
from typing import Any

import pytest
from looplift import Rows, group_by, sorted_by
from looplift.compiler.errors import CompilerError
from looplift.compiler.pipeline import compile_dataflow
from looplift.registry import Algorithm

from tests.helpers import import_path
from tests.spark import named_algos as A

_HEAD = """\
from typing import NamedTuple, Optional
from looplift import dataflow, group_by, RowStream


class Click(NamedTuple):
    user_id: int
    page: int
    ts: int


"""
_COUNT = itertools.count()


def _module(tmp_path: Path, body: str) -> Any:
    path = tmp_path / f"named_case_{next(_COUNT)}.py"
    path.write_text(_HEAD + textwrap.dedent(body), encoding="utf-8")
    return import_path(path), path


def _errors(tmp_path: Path, body: str, name: str = "f") -> tuple[str, Path]:
    mod, path = _module(tmp_path, body)
    with pytest.raises(CompilerError) as err:
        compile_dataflow(getattr(mod, name))
    return str(err.value), path


# -- diagnostics ---------------------------------------------------------------------------


def test_unknown_field_is_reported_at_the_attribute_with_the_fields(tmp_path: Path) -> None:
    text, path = _errors(tmp_path, """\
        @dataflow
        def f(clicks: RowStream[Click]):
            for c in clicks:
                yield c.user_id, c.pag
        """)  # fmt: skip
    assert f"{path}:14:28: error: the row `c` (Click) has no field `pag`" in text, text
    assert "hint: its fields are: user_id, page, ts" in text


def test_unknown_field_name_as_key_and_order(tmp_path: Path) -> None:
    text, path = _errors(tmp_path, """\
        @dataflow
        def f(clicks: RowStream[Click]):
            for uid, g in group_by("usr", clicks):
                yield uid, 1
            for uid, g in group_by("user_id", clicks, order_by="time"):
                yield uid, 2
        """)  # fmt: skip
    assert f"{path}:13:28: error: the stream of Click rows has no field `usr`" in text, text
    assert f"{path}:15:56: error: the stream of Click rows has no field `time`" in text, text
    assert "its fields are: user_id, page, ts" in text


def test_unknown_field_in_a_key_lambda(tmp_path: Path) -> None:
    text, path = _errors(tmp_path, """\
        @dataflow
        def f(clicks: RowStream[Click]):
            for uid, g in group_by(lambda c: c.uid, clicks):
                yield uid, 1
            for uid, g in group_by(lambda c: c.user_id, clicks, order_by=lambda c: c.stamp):
                yield uid, 2
        """)  # fmt: skip
    assert "has no field `uid`" in text and "has no field `stamp`" in text, text


def test_field_of_an_unsupported_type_points_at_the_class(tmp_path: Path) -> None:
    text, path = _errors(tmp_path, """\
        class Bag(NamedTuple):
            user_id: int
            items: list[int]


        @dataflow
        def f(bags: RowStream[Bag]):
            for b in bags:
                yield b.user_id, 1
        """)  # fmt: skip
    assert (f"{path}:13:12: error: field `items` of the row type `Bag` has the unsupported "
            "type `list[int]`") in text, text  # fmt: skip


def test_names_on_a_positional_stream_are_refused(tmp_path: Path) -> None:
    text, path = _errors(tmp_path, """\
        @dataflow
        def f(rows: RowStream[int, int]):
            for k, g in group_by("user_id", rows):
                yield k, 1
        """)  # fmt: skip
    assert "field `user_id` is given by name but the stream's rows are positional" in text


def test_output_row_constructor_errors(tmp_path: Path) -> None:
    text, path = _errors(tmp_path, """\
        class Out(NamedTuple):
            user_id: int
            n: int


        @dataflow
        def f(clicks: RowStream[Click]):
            for c in clicks:
                yield Out(user_id=c.user_id, count=1)
        """)  # fmt: skip
    assert "`Out` has no field `count`" in text, text


def test_callee_rows_lacking_a_field(tmp_path: Path) -> None:
    text, path = _errors(tmp_path, """\
        class Other(NamedTuple):
            ts: int
            price: float


        @dataflow
        def g(rows: RowStream[Other]) -> float:
            t = 0.0
            for r in rows:
                t += r.price
            return t


        @dataflow(columns=("u", "t"))
        def f(clicks: RowStream[Click]):
            for uid, grp in group_by("user_id", clicks):
                yield uid, g(grp)
        """)  # fmt: skip
    assert "have no field price" in text, text


# -- what the compiler makes -------------------------------------------------------------


def test_param_explain_and_plan_bind_by_name() -> None:
    compiled = compile_dataflow(A.per_user)
    (p,) = compiled.program.fn.params
    assert p.fields == ("user_id", "page", "ts") and p.types == ("int", "int", "int")
    assert "per_user(clicks: RowStream[Click(user_id: int, page: int, ts: int)])" in (
        compiled.explain()
    )
    assert compiled.program.fn.columns == ("user_id", "clicks", "last_page")
    assert "by_name=['user_id', 'page', 'ts']" in A.per_user.backend().source
    alg = A.per_user.algorithm()
    assert alg.row_fields == ("user_id", "page", "ts")
    assert Algorithm.from_json(alg.to_json()).row_fields == alg.row_fields


def test_named_and_positional_forms_compile_to_the_same_program(tmp_path: Path) -> None:
    """Names are positions: the named program's plan is the positional one's, but for the
    entry's binding by name and the column names."""
    mod, _ = _module(tmp_path, """\
        @dataflow(columns=("u", "n", "last"))
        def named(clicks: RowStream[Click]):
            for uid, g in group_by("user_id", clicks, order_by="ts"):
                n = 0
                last = -1
                for c in g:
                    n += 1
                    last = c.page
                yield uid, n, last


        @dataflow(columns=("u", "n", "last"))
        def positional(clicks: RowStream[int, int, int]):
            for uid, g in group_by(0, clicks, order_by=2):
                n = 0
                last = -1
                for c in g:
                    n += 1
                    last = c[1]
                yield uid, n, last
        """)  # fmt: skip
    a = compile_dataflow(mod.named).program.fn.body
    b = compile_dataflow(mod.positional).program.fn.body
    assert a == b


def test_positional_plan_is_unchanged() -> None:
    from tests.helpers import SAMPLES

    mod = import_path(SAMPLES / "clickstream.py")
    assert "by_name" not in mod.clickstream.backend().source


# -- reference semantics -----------------------------------------------------------------


def test_reference_takes_names_and_lambdas() -> None:
    rows = Rows([A.Click(1, 2, 10), A.Click(1, 3, 5), A.Click(2, 7, 1)])
    by_name = [(k, list(g)) for k, g in group_by("user_id", rows, order_by="ts")]
    by_lambda = [(k, list(g)) for k, g in group_by(lambda c: c.user_id, rows,
                                                   order_by=lambda c: c.ts)]  # fmt: skip
    assert by_name == by_lambda == [
        (1, [A.Click(1, 3, 5), A.Click(1, 2, 10)]), (2, [A.Click(2, 7, 1)])
    ]  # fmt: skip
    assert [k for k, _ in group_by(("user_id", "page"), rows)] == [(1, 2), (1, 3), (2, 7)]
    assert [r.ts for r in sorted_by(rows, "ts", desc=True)] == [10, 5, 1]
    proj = list(rows.project("ts", "page"))
    assert [(r.ts, r.page) for r in proj] == [(1, 7), (5, 3), (10, 2)]


def test_reference_converts_plain_tuples() -> None:
    assert A.per_user([(1, 2, 10), (1, 3, 5)]) == [(1, 2, 2)]
    assert A.per_user([(1, 2, 10)])[0].last_page == 2  # the rows are PerUser
    assert A.visits([(1, 2), (1, 3)]) == [(1, 5)]


def test_row_fields_of_string_annotations() -> None:
    """A row class whose annotations are strings (``from __future__ import annotations``)
    and do not all resolve: each field on its own, unresolvable ones not a field type."""
    from looplift.rowtypes import row_fields

    ns: dict[str, Any] = {"__name__": "named_rows_strings"}
    src = ("from __future__ import annotations\nfrom typing import NamedTuple, Optional\n"
           "class Row(NamedTuple):\n    a: int\n    b: Optional[str]\n    c: Missing\n")  # fmt: skip
    exec(compile(src, "<row>", "exec"), ns)  # noqa: S102
    assert row_fields(ns["Row"]) == (("a", "int"), ("b", "Optional[str]"), ("c", None))
