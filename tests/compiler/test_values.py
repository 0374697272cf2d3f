"""Constructing values (issue 10 item 6): what compiles, what the reference
evaluator says, and a diagnostic with a rewrite for each form left out."""

from __future__ import annotations

import datetime
import textwrap
from pathlib import Path
from typing import Any

import pytest
from looplift.compiler.ir.interp import evaluate

from tests.helpers import compile_module, import_path

HEADER = """\
import datetime
from looplift import RowStream, dataflow

RATES = {"EUR": 1.1, "USD": 1.0}
STEPS = ("view", "cart", "buy")
MIXED = {"a": 1, "b": True}
NESTED = {"a": [1, 2]}
"""


def _module(tmp_path: Path, body: str) -> Path:
    path = tmp_path / f"m{abs(hash(body))}.py"
    path.write_text(HEADER + textwrap.dedent(body))
    return path


def _diagnostics(tmp_path: Path, body: str) -> list[tuple[int, int, str, str]]:
    path = _module(tmp_path, body)
    _, diags = compile_module(path)
    return [(d.span.line - HEADER.count("\n"), d.span.col, d.message, d.hint) for d in diags]


def _one(tmp_path: Path, body: str) -> tuple[int, int, str, str]:
    diags = _diagnostics(tmp_path, body)
    assert len(diags) == 1, diags
    return diags[0]


def test_values_compile_and_keep_python_semantics(tmp_path: Path) -> None:
    path = _module(
        tmp_path,
        """
        @dataflow
        def f(cur: str, i: int) -> tuple:
            if cur == "":
                raise ValueError("empty currency")
            if cur == "?":
                raise LookupError
            a, b = map(float, (i, i + 1))
            start = datetime.datetime(2024, i, 1) + datetime.timedelta(hours=a)
            n = len(RATES) + len(STEPS)
            return RATES.get(cur, 0.0), STEPS[i], cur in RATES, start.weekday(), b + n
        """,
    )
    compiled, diags = compile_module(path)
    assert not diags and "f" in compiled
    f = import_path(path).f
    prog = compiled["f"].program
    # the IR after every pass means what CPython says, errors included
    for args in [("EUR", 1), ("USD", 2), ("x", 3), ("", 1), ("?", 1), ("EUR", 13)]:
        try:
            want: Any = f(*args)
        except Exception as e:  # noqa: BLE001
            want = type(e)
        try:
            got: Any = evaluate(prog.fn, prog.refs, list(args))
        except Exception as e:  # noqa: BLE001
            got = type(e)
        assert got == want, args
    assert f("EUR", 1) == (1.1, "cart", True, 0, 7.0)  # 2024-01-01 01:00 is a Monday
    for args, err in [
        (("", 1), ValueError),
        (("?", 1), LookupError),
        (("EUR", 13), ValueError),
        (("EUR", 3), IndexError),
    ]:
        with pytest.raises(err):
            f(*args)


@pytest.mark.parametrize(
    ("body", "col", "message", "hint"),
    [
        ("raise", 5, "only `raise SomeError(message)`", "raise ValueError("),
        ("raise ValueError('a') from None", 5, "only `raise SomeError(message)`", "builtin"),
        ("raise ValueError('a', 'b')", 5, "only `raise SomeError(message)`", "one message"),
        ("raise MyError('a')", 11, "`MyError` is not a builtin exception", "ValueError"),
        ("return MIXED['a']", 12, "cannot be used as a lookup table: its values mix", "one type"),
        ("return NESTED['a']", 12, "lookup table: its values must be", "literals"),
        ("return RATES", 12, "dict `RATES` can only be used as a lookup table", "RATES[key]"),
        ("return RATES.keys()", 12, "`RATES.keys(...)` is not supported", "RATES[key]"),
        ("return map(abs, (x, 1))", 12, "`map` object can only be unpacked", "tuple(map("),
        ("a, b = map(abs, STEPS[0])", 21, "`map` is only supported over a tuple", "map(f"),
        ("return datetime.datetime(2024)", 12, "needs month, day", "year, month, day"),
        ("return datetime.timedelta(hour=1)", 31, "unsupported argument", "hours"),
    ],
)
def test_diagnostics_name_a_rewrite(
    tmp_path: Path, body: str, col: int, message: str, hint: str
) -> None:
    src = f"""
    class MyError(Exception):
        pass

    @dataflow(strict=True)
    def f(x: int) -> int:
        {body}
        return x
    """  # strict: these are Python islands otherwise (issue 25); the diagnostics stay
    got = _one(tmp_path, src)
    assert got[:2] == (7, col), got
    assert message in got[2], got
    assert hint in got[3], got


def test_raise_inside_a_loop_names_the_rewrite(tmp_path: Path) -> None:
    # the check must be followed by an unconditional yield or state update
    _, _, message, hint = _one(
        tmp_path,
        """
        @dataflow(columns=("k",))
        def f(rows: RowStream[int]):
            for (k,) in rows:
                if k < 0:
                    raise ValueError("negative")
                if k > 3:
                    yield (k,)
        """,
    )
    assert "must be followed" in message and "just before the loop body's `yield`" in hint
    # ... and be a check: `if bad: raise ...` with no else
    _, _, message, hint = _one(
        tmp_path,
        """
        @dataflow(columns=("k",))
        def f(rows: RowStream[int]):
            for (k,) in rows:
                if k < 0:
                    raise ValueError("negative")
                else:
                    yield (k,)
        """,
    )
    assert "only supported as a check `if bad: raise E(msg)`" in message, message


def test_explain_shows_tables_and_datetimes_as_python(tmp_path: Any) -> None:
    path = _module(
        tmp_path,
        """
        @dataflow(columns=("rate", "step", "day", "secs"))
        def f(rows: RowStream[str, datetime.datetime]):
            for cur, t in rows:
                d = datetime.datetime(t.year, t.month, 1) - datetime.timedelta(days=1, hours=2)
                yield RATES[cur], STEPS.index(cur), d.date(), (t - d).total_seconds()
        """,
    )
    compiled, _ = compile_module(path)
    text = compiled["f"].explain()
    assert "RATES[cur]" in text and "STEPS.index(cur)" in text
    assert "d.date(), (t - d).total_seconds()" in text


def test_datetime_prims_follow_python() -> None:
    from looplift.compiler.ir.prims import PRIMS

    t = datetime.datetime(2024, 2, 29, 13, 5, 7, 11)
    assert PRIMS["dt.weekday"].impl(t) == 3 and PRIMS["dt.date"].impl(t) == t.date()
    d = PRIMS["make_timedelta"].impl(0, 0, 0, 0, 0, -1, 0)
    assert (PRIMS["td.days"].impl(d), PRIMS["td.seconds"].impl(d)) == (-1, 82800)
    with pytest.raises(ValueError):
        PRIMS["make_date"].impl(2023, 2, 29)
