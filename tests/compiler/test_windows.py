"""(No Spark.) The table's window entries (``win.tumble``, ``win.hop``) against their
references on the edges (the clause that holds names the class CPython raises, or none
where it returns), the frontend's reading of window calls, and the IR after every pass
against CPython on the window algorithms."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from looplift import RowStream, dataflow, group_by, session
from looplift.compiler.primitives import PRIMITIVES, WINDOWS

from tests.compiler.test_semantics import run_stages
from tests.spark import window_algos as A
from tests.spark.harness import kind_of
from tests.test_samples_reference import sample

T = datetime.datetime
US = datetime.timedelta(microseconds=1)


@pytest.mark.parametrize("entry", WINDOWS, ids=lambda e: e.name)
def test_partiality_matches_the_reference(entry: Any) -> None:
    extra = [(T(1, 1, 1), 7 * 86_400_000_000, 0, "td"), (T(1, 1, 4), 7 * 86_400_000_000, 0, "td")]
    cases = list(entry.edges) + (extra if entry.name == "win.tumble" else [])
    assert cases
    for args in cases:
        clause = entry.raises(args)
        try:
            entry.reference(*args)
        except Exception as e:  # noqa: BLE001 - the class is the answer
            assert clause is not None and clause.cls == type(e).__name__, (args, e, clause)
            assert str(e).split(" must")[0] == clause.message.split(" must")[0], (args, e, clause.message)
        else:
            assert clause is None, (args, clause)


def test_window_entries_are_in_the_table() -> None:
    from looplift.compiler.backend.rules import rule_for

    for e in WINDOWS:
        assert PRIMITIVES[e.name] is e and not e.total and rule_for(e.name) is not None


ALGOS = [A.start5, A.starts, A.week_text, A.int_starts, A.hop_summary, A.int_hop_summary,
         A.row_per_window, A.int_sliding, A.keyed_sliding, A.int_tumbling]  # fmt: skip
TIMES = [T(1969, 12, 31, 23, 59, 59, 999_999), T(1970, 1, 1), T(2024, 5, 1, 9, 5), T(1, 1, 10)]


@pytest.mark.parametrize("algo", ALGOS, ids=lambda a: a.name)
def test_ir_means_what_python_means(algo: Any) -> None:
    if kind_of(algo) == "scalar":
        ints = algo.name.startswith("int_")
        for v in ([-(2**63), -11, -1, 0, 9, 2**63 - 1] if ints else TIMES):
            run_stages(algo, (v,))
    elif algo.name.startswith("int_"):
        run_stages(algo, ([(1, -8), (2, -1), (1, 0), (1, 0), (3, 13)],))
    else:
        run_stages(algo, ([(1, t) for t in TIMES[:3]] + [(2, TIMES[2])],))


def test_samples_ir() -> None:
    m = sample("windows")
    rows = [(1, t) for t in TIMES[:3]] + [(2, TIMES[2]), (1, TIMES[2] + datetime.timedelta(minutes=31))]
    for algo in (m.clicks_per_window, m.sliding_counts, m.session_summary):
        run_stages(algo, (rows,))


def test_calls_without_a_native_lowering_say_why() -> None:
    from looplift.compiler.pipeline import compile_dataflow

    text = compile_dataflow(A.computed_size).explain()
    assert "why: the durations of `tumble(...)` must be constants" in text
    assert "runs: native except the Python function win.tumble" in compile_dataflow(A.wrong_kind).explain()
    assert ("a group_by keyed by hop(...) must be the only loop over its rows"
            in compile_dataflow(A.two_loops).explain())  # fmt: skip


def test_session_keys_ir() -> None:
    """(No Spark.) The IR of session keys after every pass means what Python means."""
    t = T(2024, 5, 1, 9, 0)
    gap = datetime.timedelta(minutes=30)
    rows = [(1, t, 0), (1, t + gap, 1), (1, t, 2), (2, t + gap - US, 3), (2, t, 4), (1, t + 3 * gap, 5)]
    run_stages(A.session_rows, (rows,))
    run_stages(A.int_sessions, ([(0, 5), (0, 0), (0, 10), (0, 14), (1, 30)],))
    run_stages(sample("eventtime").sessions_per_user, ([r[:2] for r in rows],))


def test_session_keys_refused_where_not_a_key_part() -> None:
    """(No Spark.) ``session(...)`` inside an expression, twice in a key, or with a gap of
    the other kind: a diagnostic that says what to write; not a signed (incremental) plan."""
    from looplift.compiler.backend.signed import NotSigned, signed_plan
    from looplift.compiler.errors import CompilerError
    from looplift.compiler.pipeline import compile_dataflow

    for algo, msg in ((nested, "is a whole part of a group key"),
                      (twice, "at most one `session(...)`")):  # fmt: skip
        with pytest.raises(CompilerError, match=msg.replace("(", r"\(").replace(")", r"\)")):
            compile_dataflow(algo).explain()
    text = compile_dataflow(wrong_gap).explain()
    assert "cannot be built for Spark" in text and "must be an int for an int timestamp" in text
    with pytest.raises(NotSigned, match="a delete can split a session"):
        signed_plan(sample("eventtime").sessions_per_user.compile())


# refused session keys (module level: the compiler reads their source)


@dataflow
def nested(rows: RowStream[int, int]):
    for k, _g in group_by(lambda r: (r[0], str(session(r[1], gap=5))), rows):
        yield k


@dataflow
def twice(rows: RowStream[int, int]):
    for k, _g in group_by(lambda r: (session(r[0], gap=5), session(r[1], gap=5)), rows):
        yield k


@dataflow
def wrong_gap(rows: RowStream[int, int]):
    for k, _g in group_by(lambda r: session(r[1], gap=datetime.timedelta(minutes=5)), rows):
        yield k
