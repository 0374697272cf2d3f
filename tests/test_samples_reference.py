"""Reference semantics of the samples and the valid corpus, run as plain Python.

A ``@dataflow`` function called on lists of tuples is ordinary CPython
(SPEC §4); these are the answers every compiled plan must reproduce. The
expected values below are worked out by hand, in the comments next to
them, not copied from a run. Results of table algorithms are compared as
multisets (row order is not part of the contract), floats to 1e-9
relative.

The corpus (``tests/corpus/valid``) is checked for shape — every
``@dataflow`` function has ``EXAMPLES`` — and run; a module's optional
``EXPECTED`` dict (function name -> one result per example) is compared
the same way. ``tests/corpus/invalid`` annotations are checked to point
at real code (see ``tests/corpus/README.md``).

Nothing here imports the compiler: these are the answers, so they must not
depend on the code under test.
"""

from __future__ import annotations

import ast
import datetime
import doctest
import importlib.util
import inspect
import math
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from looplift import Dataflow

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "samples"
CORPUS = Path(__file__).resolve().parent / "corpus"
VALID = sorted((CORPUS / "valid").glob("*.py"))
INVALID = sorted((CORPUS / "invalid").glob("*.py"))
SAMPLE_FILES = sorted(SAMPLES.glob("*.py"))
HOSTLIB = SAMPLES / "hostlib" / "__init__.py"  # the samples' host functions, no @dataflow


# -- helpers -------------------------------------------------------------------


def load(path: Path, prefix: str) -> ModuleType:
    """Import ``path`` as ``<prefix>_<stem>``, with its folder importable meanwhile.

    Sibling modules it imports (``from hostlib import ...``) are dropped from
    ``sys.modules`` again afterwards so that their plain names cannot shadow
    other test helpers.
    """
    stem = path.parent.name if path.name == "__init__.py" else path.stem
    name = f"{prefix}_{stem}"
    if name in sys.modules:
        return sys.modules[name]
    before = set(sys.modules)
    sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    finally:
        sys.path.remove(str(path.parent))
        for extra in set(sys.modules) - before - {name}:
            file = getattr(sys.modules[extra], "__file__", None)
            if file and path.parent in Path(file).parents:
                del sys.modules[extra]
    return module


def sample(stem: str) -> ModuleType:
    return load(SAMPLES / f"{stem}.py", "looplift_sample")


def dataflows(module: ModuleType) -> dict[str, Dataflow]:
    """The ``@dataflow`` functions defined in ``module`` itself (not imported ones)."""
    return {
        name: obj
        for name, obj in vars(module).items()
        if isinstance(obj, Dataflow) and obj.fn.__module__ == module.__name__
    }


def same(actual: Any, expected: Any) -> bool:
    """Equality with floats to 1e-9 relative (and NaN equal to NaN), recursively."""
    if isinstance(expected, float) and isinstance(actual, (int, float)):
        if math.isnan(expected):
            return isinstance(actual, float) and math.isnan(actual)
        return actual == pytest.approx(expected, rel=1e-9, abs=1e-12)
    if isinstance(expected, (tuple, list)):
        return (
            type(actual) is type(expected)
            and len(actual) == len(expected)
            and all(same(a, e) for a, e in zip(actual, expected, strict=True))
        )
    return type(actual) is type(expected) and actual == expected


def assert_value(actual: Any, expected: Any) -> None:
    """An aggregate's or a scalar algorithm's result: exact types, approximate floats."""
    assert same(actual, expected), f"{actual!r} != {expected!r}"


def assert_rows(actual: list[tuple[Any, ...]], expected: list[tuple[Any, ...]]) -> None:
    """A table algorithm's result, compared as a multiset of rows."""
    assert isinstance(actual, list), actual
    left, right = sorted(actual, key=_row_key), sorted(expected, key=_row_key)
    assert len(left) == len(right) and all(same(a, e) for a, e in zip(left, right, strict=True)), (
        f"\n  got      {left!r}\n  expected {right!r}"
    )


def _row_key(row: Any) -> str:
    """Rows may mix None, numbers and strings: order them by their text, floats rounded."""
    if isinstance(row, tuple | list):
        return "(" + ", ".join(_row_key(v) for v in row) + ")"
    if isinstance(row, float):
        return f"{row:.6g}"
    return repr(row)


def dt(*args: int) -> datetime.datetime:
    return datetime.datetime(*args)


# -- every sample --------------------------------------------------------------


@pytest.mark.parametrize(
    "path", [*SAMPLE_FILES, HOSTLIB], ids=lambda p: p.parent.name if p == HOSTLIB else p.stem
)
def test_sample_is_documented_and_its_doctests_pass(path: Path) -> None:
    module = load(path, "looplift_sample")
    assert module.__doc__ and module.__doc__.strip(), f"{path} needs a module docstring"
    if path != HOSTLIB:
        assert dataflows(module), f"{path.name} defines no @dataflow function"
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


def test_every_sample_function_has_a_reference_test() -> None:
    source = Path(__file__).read_text()
    missing = [
        f"{path.stem}.{name}"
        for path in SAMPLE_FILES
        for name in dataflows(load(path, "looplift_sample"))
        if not re.search(rf"\bm\.{name}\(", source)
    ]
    assert not missing, f"no reference test calls {missing}"


def test_enough_samples() -> None:
    assert len(SAMPLE_FILES) >= 12


# -- clickstream (SPEC §2, §5) -------------------------------------------------


def test_clickstream_spec_example() -> None:
    m = sample("clickstream")
    # SPEC §5: open at 10, one item at 11, close at 12 -> one closed interval of size 1.
    assert_rows(m.clickstream([(1, 0, 10), (1, 5, 11), (1, 1, 12)]), [(1, 1.0)])


def test_clickstream_several_users_out_of_order() -> None:
    m = sample("clickstream")
    rows = [
        (1, 1, 22), (2, 2, 6), (1, 3, 11), (1, 0, 20), (3, 4, 1),
        (1, 1, 13), (1, 5, 21), (1, 0, 10), (2, 0, 5), (1, 4, 12),
    ]  # fmt: skip
    # user 1: [10, 13) holds 11 and 12 (size 2), [20, 22) holds 21 (size 1) -> 1.5
    # user 2: opened at 5, never closed -> no closed interval -> None
    # user 3: a lone item -> None
    assert_rows(m.clickstream(rows), [(1, 1.5), (2, None), (3, None)])


def test_avg_path() -> None:
    m = sample("clickstream")
    assert_value(m.avg_path([(0, 1), (1, 2)]), 0.0)  # closed, but empty
    assert m.avg_path([]) is None  # nothing closed
    # [0, 10) holds 3, 4, 5; [20, 30) holds 25 -> (3 + 1) / 2
    assert_value(
        m.avg_path([(0, 0), (7, 3), (7, 4), (7, 5), (1, 10), (0, 20), (9, 25), (1, 30)]), 2.0
    )


# -- thesis basics (Fig. 6.1) --------------------------------------------------


def test_thesis_sum() -> None:
    m = sample("sum")
    assert m.sum([(1, 10), (2, 5), (1, -3)]) == 12  # 10 + 5 - 3
    assert m.sum([]) == 0


def test_thesis_count() -> None:
    m = sample("count")
    assert m.count([(1, 10), (2, 5), (1, -3)]) == 3
    assert m.count([]) == 0


def test_thesis_average() -> None:
    m = sample("average")
    # key 1: (10 - 3) / 2 = 3.5; key 2: 5 / 1 = 5.0
    assert_rows(m.average([(1, 10), (2, 5), (1, -3)]), [(1, 3.5), (2, 5.0)])
    assert_rows(m.average([]), [])
    assert_value(m.mean([(1, 1), (1, 2)]), 1.5)
    assert_value(m.mean([]), 0.0)  # div_not_zero guards the empty input
    assert_value(m.div_not_zero(0, 5), 0.0)
    assert_value(m.div_not_zero(4, 2), 0.5)  # 2 / 4: the count comes first, as in the thesis


# -- pages: scalar algorithm, conditional actions -------------------------------


def test_page_class() -> None:
    m = sample("pages")
    # 0 and 1 keep their class, 2..9 are products, anything else is "other".
    for pagetype, cls in [(0, 0), (1, 1), (2, 2), (9, 2), (10, 3), (-1, 3)]:
        assert m.page_class(pagetype) == cls


def test_funnel() -> None:
    m = sample("pages")
    rows = [(1, 0, 10), (1, 4, 11), (1, 1, 12), (1, 0, 13), (2, 11, 1), (2, 1, 2)]
    # user 1: entries 2 (two 0s), views 1 (the 4), exits 1, other 0 -> conversion 1/2
    # user 2: entries 0, views 0, exits 1, other 1 (the 11) -> conversion 0.0 (no entries)
    assert_rows(m.funnel(rows), [(1, 2, 1, 1, 0, 0.5), (2, 0, 0, 1, 1, 0.0)])


# -- sessions: ordered loops --------------------------------------------------


def test_sessions() -> None:
    m = sample("sessions")
    rows = [(7, 100), (7, 10), (7, 20), (7, 95), (8, 61), (8, 0), (8, 30), (9, 5), (9, 5)]
    # user 7 sorted: 10 | 20 (+10) | 95 (+75 > 30: new) | 100 (+5) -> 2
    # user 8 sorted: 0 | 30 (+30, not more than 30) | 61 (+31: new) -> 2
    # user 9: two events at the same time -> 1
    assert_rows(m.sessions(rows), [(7, 2), (8, 2), (9, 1)])


def test_session_stats() -> None:
    m = sample("sessions")
    rows = [
        (1, dt(2024, 5, 1, 10, 5, 10)),
        (1, dt(2024, 5, 1, 10, 0, 0)),
        (2, dt(2024, 5, 2, 8, 0, 0)),
        (1, dt(2024, 5, 1, 10, 5, 0)),
        (1, dt(2024, 5, 1, 10, 0, 20)),
    ]
    # user 1 sorted: 10:00:00, 10:00:20 (+20), 10:05:00 (+280 > 60: new), 10:05:10 (+10)
    #   -> 2 sessions, lasting 20 s and 10 s; first event 10:00:00
    # user 2: one event -> 1 session of 0 s
    assert_rows(
        m.session_stats(rows, 60),
        [(1, 2, 20, dt(2024, 5, 1, 10, 0, 0)), (2, 1, 0, dt(2024, 5, 2, 8, 0, 0))],
    )
    # With a gap of 300 s everything of user 1 is one session of 310 s.
    assert_rows(
        m.session_stats(rows, 300),
        [(1, 1, 310, dt(2024, 5, 1, 10, 0, 0)), (2, 1, 0, dt(2024, 5, 2, 8, 0, 0))],
    )


# -- geo: nested groups, tuple keys ---------------------------------------------


def test_visits_by_country_and_pair() -> None:
    m = sample("geo")
    rows = [("de", 1, "a"), ("de", 2, "b"), ("de", 1, "c"), ("fr", 3, "a")]
    # de has 3 visits: user 1 has 2 (2/3 -> 0.667), user 2 has 1 (0.333); fr: user 3, 1/1
    assert_rows(
        m.visits_by_country(rows),
        [("de", 1, 2, 0.667), ("de", 2, 1, 0.333), ("fr", 3, 1, 1.0)],
    )
    # the same counts by the tuple key (country, user), labelled "country/user"
    assert_rows(
        m.visits_by_pair(rows),
        [("de", 1, 2, "de/1"), ("de", 2, 1, "de/2"), ("fr", 3, 1, "fr/3")],
    )


# -- weblog: per-row table, host functions, multiple yields ----------------------

HITS = [
    (1, "http://www.Shop.example/cart?x=1", 200),
    (2, "shop.example/a", 503),
    (3, "HTTPS://shop.example/b/", 404),
    (4, "shop.example/", 301),
]


def test_page_hits() -> None:
    m = sample("weblog")
    # 200 and 301 are "ok"; 404 is a client error; 503 gives the page and an alert row
    # for its site. Scheme, "www.", case, query and trailing "/" are normalized away.
    assert_rows(
        m.page_hits(HITS),
        [
            (1, "shop.example/cart", "ok"),
            (2, "shop.example/a", "error 503"),
            (0, "shop.example", "alert"),
            (3, "shop.example/b", "client error 404"),
            (4, "shop.example", "ok"),
        ],
    )


def test_log_summary() -> None:
    m = sample("weblog")
    # URL lengths 32 + 14 + 23 + 13 = 82 over 4 hits = 20.5; 404 and 503 are errors: 2/4
    assert_value(m.log_summary(HITS), (4, 20.5, 0.5))
    assert_value(m.log_summary([]), (0, 0.0, 0.0))


# -- sensors: Optional fields, loop-carried reductions ---------------------------


def test_reading_summary() -> None:
    m = sample("sensors")
    # present 2.0 and 4.0 (mean 3.0), one missing
    assert_value(m.reading_summary([(1, 2.0), (1, None), (2, 4.0)]), (2, 1, 3.0, 2.0, 4.0))
    # (-1.5 + 0.5 + 4.0) / 3 = 1.0
    assert_value(m.reading_summary([(1, -1.5), (2, 0.5), (3, 4.0)]), (3, 0, 1.0, -1.5, 4.0))
    assert_value(m.reading_summary([(1, None)]), (0, 1, 0.0, 0.0, 0.0))


def test_sensor_report() -> None:
    m = sample("sensors")
    rows = [(1, 2.0), (1, 4.0), (1, None), (2, None), (3, -12.0)]
    # sensor 1: mean 3, variance (4 + 16) / 2 - 9 = 1, stddev 1, peak 4 <= 10: ok
    # sensor 2: only a null -> no data, zeros
    # sensor 3: one reading, variance 144 - 144 = 0, |-12| > 10: alarm
    assert_rows(
        m.sensor_report(rows, 10.0),
        [(1, 2, 3.0, 1.0, "ok"), (2, 0, 0.0, 0.0, "no data"), (3, 1, -12.0, 0.0, "alarm")],
    )


# -- orders: scalar parameters, datetimes, // and % -----------------------------

ORDERS = [
    (1, dt(2024, 5, 1, 23, 10), 12000),  # big, 23h is night
    (1, dt(2024, 5, 2, 9, 0), 500),
    (1, dt(2024, 5, 3, 3, 0), -2500),  # refund at 3h: night, never big
    (2, dt(2024, 5, 1, 12, 0), 10000),  # exactly the threshold: big
    (2, dt(2024, 5, 4, 6, 0), -1),  # 6h is no longer night
    (3, dt(2024, 5, 4, 22, 0), 0),  # 22h is night again
]


def test_euros() -> None:
    m = sample("orders")
    assert m.euros(1234) == "12.34"
    assert m.euros(-5) == "-0.05"  # sign first, then |cents| // 100 and % 100
    assert m.euros(0) == "0.00"
    assert m.euros(-150) == "-1.50"


def test_order_report() -> None:
    m = sample("orders")
    # customer 1: 3 orders, 1 big, 2 at night, net 12000 + 500 - 2500 = 10000 -> "100.00"
    # customer 2: 2 orders, 1 big, 0 at night, net 9999 -> "99.99"
    # customer 3: 1 order, 0 big, 1 at night, net 0 -> "0.00"
    assert_rows(
        m.order_report(ORDERS, 10000),
        [(1, 3, 1, 2, "100.00"), (2, 2, 1, 0, "99.99"), (3, 1, 0, 1, "0.00")],
    )


def test_size_buckets_floor_like_python() -> None:
    m = sample("orders")
    t = dt(2024, 1, 1)
    rows = [(1, t, 250), (2, t, -50), (3, t, 1999), (4, t, -1000), (5, t, -1001)]
    # -50 // 1000 = -1 rest 950; -1000 -> -1 rest 0; -1001 -> -2 rest 999
    assert_rows(
        m.size_buckets(rows),
        [(1, 0, 250), (2, -1, 950), (3, 1, 999), (4, -1, 0), (5, -2, 999)],
    )


def test_revenue_share() -> None:
    m = sample("orders")
    t = dt(2024, 1, 1)
    # 400 and 600 of 1000
    assert_rows(
        m.revenue_share([(1, t, 300), (2, t, 600), (1, t, 100)]),
        [(1, 400, 0.4), (2, 600, 0.6)],
    )
    # net zero overall: the guard gives 0.0 instead of dividing by zero
    assert_rows(m.revenue_share([(1, t, 5), (2, t, -5)]), [(1, 5, 0.0), (2, -5, 0.0)])


# -- mode: user state with an explicit undo ------------------------------------


def test_favourite_page() -> None:
    m = sample("mode")
    rows = [(1, 3, 10), (1, 4, 11), (1, 3, 12), (2, 9, 10), (3, 5, 1), (3, 2, 2)]
    # user 1: page 3 twice; user 2: page 9 once; user 3: tie 5/2 -> the smaller, 2
    assert_rows(m.favourite_page(rows), [(1, 3, 2), (2, 9, 1), (3, 2, 1)])


def test_cohorts_reference() -> None:
    m = sample("cohorts")
    rows = [(1, 3, 3), (1, 3, 5), (2, 3, 5), (3, 4, 4), (4, 4, 3)]
    # cohort 3: one event in month 0 after signup, two in month 2; cohort 4: one in month 0,
    # and user 4's event before signup (age -1) is not counted
    assert_rows(m.cohort_activity(rows), [(3, 0, 1), (3, 2, 2), (4, 0, 1)])
    # cohort 3: users {1, 2}, months {3, 5}, busiest month 5 with 2 events
    assert_rows(m.cohort_summary(rows), [(3, 2, 2, 2), (4, 2, 2, 1)])


def test_moving_reference() -> None:
    m = sample("moving")
    rows = [(1, 30, 6.0), (1, 10, 2.0), (1, 40, 9.0), (1, 20, 4.0), (2, 1, 5.0)]
    # sensor 1 in time order: 2, 4, 6, 9 -> means of the last three: 2, 3, 4, 19/3
    want = [(1, 10, 2.0), (1, 20, 3.0), (1, 30, 4.0), (1, 40, 19 / 3), (2, 1, 5.0)]
    assert_rows(m.moving_average(rows), want)


def test_mode_state_undo() -> None:
    m = sample("mode")
    s = m.Mode()
    for x in (1, 2, 2):
        s.add(x)
    assert (s.value(), s.frequency()) == (2, 2)
    s.add.undo(2)
    s.add.undo(2)  # both 2s gone: the entry is dropped, 1 is the mode again
    assert (s.value(), s.frequency(), s.counts) == (1, 1, {1: 1})
    s.add.undo(1)
    assert (s.value(), s.frequency()) == (None, 0)


# -- top2: Flink's Top2, a state without undo --------------------------------------


def test_top2() -> None:
    m = sample("top2")
    rows = [("a", 3), ("b", 7), ("a", 9), ("a", 3), ("a", 1), ("c", -2)]
    # a: 9, then the duplicate 3 ranks second; b and c have one price each (no rank 2)
    assert_rows(m.top2(rows), [("a", 9, 1), ("a", 3, 2), ("b", 7, 1), ("c", -2, 1)])
    assert m.top2([]) == []


def test_top2_state_has_no_undo() -> None:
    m = sample("top2")
    s = m.Top2()
    for x in (4, 8, 8, 1):
        s.add(x)
    assert (s.largest(), s.runner_up()) == (8, 8)  # duplicates count twice
    with pytest.raises(TypeError, match="has no undo"):
        s.add.undo(8)


# -- funds: math.*, ** and round -------------------------------------------------


def test_geometric_mean() -> None:
    m = sample("funds")
    # 1.1 * 0.5 * 2.0 = 1.1; 1.1 ** (1/3) = 1.0322801 -> 0.03228
    assert_value(m.geometric_mean([(0.1,), (-0.5,), (1.0,)]), 0.03228)
    # sqrt(1.21 * 1.0) = 1.1 -> 0.1
    assert_value(m.geometric_mean([(0.21,), (0.0,)]), 0.1)
    assert_value(m.geometric_mean([]), 0.0)


def test_fund_report() -> None:
    m = sample("funds")
    rows = [("a", 0.1), ("a", -0.5), ("a", 1.0), ("b", 0.01)]
    # a: monthly 0.03228, yearly 1.03228 ** 12 - 1 = 0.46411 -> 0.4641, worst -50 %
    # b: monthly 0.01, yearly 1.01 ** 12 - 1 = 0.126825 -> 0.1268, worst min(0.0, 0.01) -> 0
    assert_rows(m.fund_report(rows), [("a", 3, 0.03228, 0.4641, -50), ("b", 1, 0.01, 0.1268, 0)])


# -- stats: library states --------------------------------------------------------


def test_price_stats() -> None:
    m = sample("stats")
    rows = [(1, 7, 3.0), (1, 8, 1.0), (1, 7, 2.0), (2, 9, 5.0), (2, 9, 5.0)]
    # product 1: 3 sales, buyers {7, 8}, prices 1 2 3: median 2, population variance
    #   2/3 -> stddev 0.8165 -> 0.816 (0.81649...), top three 3 2 1
    # product 2: 2 sales by one buyer at 5.0: variance 0, top three keeps the duplicate
    assert_rows(
        m.price_stats(rows),
        [
            (1, 3, 2, 1.0, 2.0, 3.0, 0.816, [3.0, 2.0, 1.0]),
            (2, 2, 1, 5.0, 5.0, 5.0, 0.0, [5.0, 5.0]),
        ],
    )


def test_market() -> None:
    m = sample("stats")
    # products {1, 2, 3}, customers {7, 8, 9}, median of 1 1 3 5 = (1 + 3) / 2
    assert_value(m.market([(1, 7, 3.0), (2, 7, 1.0), (1, 8, 5.0), (3, 9, 1.0)]), (3, 3, 2.0))


# -- the corpus ------------------------------------------------------------------


def test_corpus_sizes() -> None:
    assert len(VALID) >= 30 and len(INVALID) >= 30


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.stem)
def test_valid_corpus_runs_as_python(path: Path) -> None:
    module = load(path, "looplift_corpus")
    flows = dataflows(module)
    assert flows, f"{path.name} defines no @dataflow function"
    examples = getattr(module, "EXAMPLES", None)
    assert isinstance(examples, dict), f"{path.name} needs a module-level EXAMPLES dict"
    assert set(examples) == set(flows), "EXAMPLES must list exactly the @dataflow functions"
    expected = getattr(module, "EXPECTED", {})
    assert set(expected) <= set(flows)
    for name, calls in examples.items():
        assert calls, f"EXAMPLES[{name!r}] is empty"
        if name in expected:
            assert len(expected[name]) == len(calls), f"EXPECTED[{name!r}] needs one per example"
        for i, args in enumerate(calls):
            assert isinstance(args, tuple), f"EXAMPLES[{name!r}][{i}] must be a tuple of args"
            result = flows[name](*args)
            if name in expected:
                want = expected[name][i]
                if inspect.isgeneratorfunction(flows[name].fn):  # a table algorithm
                    assert_rows(result, want)
                else:
                    assert_value(result, want)


EXPECT = re.compile(r"#\s*expect:\s*(\d+):(\d+)\s+([a-z_]+)\s*$")


def expectations(path: Path) -> list[tuple[int, int, str]]:
    """The ``# expect: LINE:COL keyword`` lines heading an invalid corpus file."""
    out = []
    for line in path.read_text().splitlines():
        if not line.startswith("#"):
            break
        if match := EXPECT.match(line):
            out.append((int(match[1]), int(match[2]), match[3]))
    return out


@pytest.mark.parametrize("path", INVALID, ids=lambda p: p.stem)
def test_invalid_corpus_annotations_point_at_code(path: Path) -> None:
    source = path.read_text()
    compile(source, str(path), "exec", flags=0, dont_inherit=True)  # plain Python is fine
    tree = ast.parse(source)
    decorators = {
        ast.unparse(d.func if isinstance(d, ast.Call) else d)
        for n in ast.walk(tree)
        if isinstance(n, ast.FunctionDef)
        for d in n.decorator_list
    }
    assert "dataflow" in decorators, f"{path.name} has no @dataflow function"
    expects = expectations(path)
    assert expects, f"{path.name} has no '# expect: LINE:COL keyword' line"
    assert len(set(expects)) == len(expects), "duplicate expectation"
    lines = source.splitlines()
    for line, col, _keyword in expects:
        assert 1 <= line <= len(lines) and not lines[line - 1].lstrip().startswith("#")
        text = lines[line - 1]
        assert 1 <= col <= len(text) and not text[col - 1].isspace(), (line, col, text)


# -- issue 10 samples: tables, datetimes, raise, strings, order forms ---------------------


def test_billing() -> None:
    m = sample("billing")
    assert m.to_eur(10.0, "EUR") == 10.0
    assert math.isclose(m.to_eur(100.0, "GBP"), 117.0)  # 100 * 1.17
    with pytest.raises(ValueError, match="unknown currency JPY"):
        m.to_eur(1.0, "JPY")
    assert m.plan_fee("free") == 0.0 and m.plan_fee("basic") == 9.0
    with pytest.raises(ValueError, match="unknown plan gold"):
        m.plan_fee("gold")
    t = datetime.datetime(2024, 2, 29, 18, 0)
    # February 2024 has 29 days: the period ends 2024-03-01 00:00, six hours after t
    assert_rows(
        m.invoice_lines([(3, "pro", "CHF", 50.0, t)]),
        [(3, datetime.datetime(2024, 2, 1), datetime.datetime(2024, 3, 1), 6.0, 29.0, 52.0)],
    )
    with pytest.raises(ValueError):
        m.invoice_lines([(3, "pro", "XXX", 50.0, t)])


def test_dedup_latest() -> None:
    m = sample("dedup")
    rows = [(7, 10, "new", 5.0), (7, 30, "paid", 6.0), (7, 20, "held", 7.0), (8, 5, "new", 1.0)]
    # order 7: the version at 30 is the newest; order 8 has one version
    assert_rows(m.latest(rows), [(7, 30, "paid", 6.0), (8, 5, "new", 1.0)])
    assert m.latest([]) == []


def test_logparse() -> None:
    m = sample("logparse")
    log = [
        (1, '1.2.3.4 - - [01/Jan/2024:07:00:00 +0000] "GET /A/b?q=1 HTTP/1.0" 404 12', "x"),
        (2, "# comment", None),
        (3, '5.6.7.8 - - [01/Jan/2024:23:59:59 +0000] "PUT /z HTTP/1.1" 500 -', "my-bot"),
    ]
    # line 1: path lower-cased without the query, hour 07, not a bot;
    # line 3: size '-' counts 0, the agent contains "bot"
    assert_rows(
        m.parse_access(log),
        [(1, "1.2.3.4", "GET /a/b", 404, 12, 7, False), (3, "5.6.7.8", "PUT /z", 500, 0, 23, True)],
    )
    # two lines parse, one is a 5xx, 12 bytes served
    assert m.status_summary(log) == (2, 1, 12)


def test_regex_text() -> None:
    m = sample("regex_text")
    lines = [(1, "2024-03-07 13:05:59 [ERROR] db.pool: timeout"), (2, "garbage"),
             (3, "2024-03-07 13:06:00 [TRACE] web: x"), (4, "2024-03-07 13:06:00 [INFO] web: tail\r")]  # fmt: skip
    # lines 2 and 3 do not match; the message keeps a final \r ('.' stops at \n only)
    assert_rows(m.parse_log(lines), [(1, "2024-03-07", "13", "ERROR", "db.pool", "timeout"),
                                     (4, "2024-03-07", "13", "INFO", "web", "tail\r")])  # fmt: skip
    assert m.clean_text("<b>Paid</b>\t on 3/14/2024") == " Paid on 2024-3-14"
    # other scripts' digits are digits to Python's \d, not under re.ASCII
    assert m.clean_text("\u0663/\u0661/\u0662\u0660\u0662\u0664") == "\u0662\u0660\u0662\u0664-\u0663-\u0661"
    assert m.clean_text_ascii("\u0663/\u0661/\u0662\u0660\u0662\u0664") == "\u0663/\u0661/\u0662\u0660\u0662\u0664"


def test_top_products() -> None:
    m = sample("topn")
    rows = [("a", "p", 3), ("a", "q", 9), ("a", "r", 5), ("a", "s", 1), ("b", "t", 4)]
    # category a: q (9) then r (5); b has a single product
    assert_rows(m.top_products(rows), [("a", 1, "q", 9), ("a", 2, "r", 5), ("b", 1, "t", 4)])


def test_weekly_revenue() -> None:
    m = sample("weekly")
    rows = [(1, 6, "sale", 10.0), (1, 7, "sale", 3.0), (1, 13, "refund", 1.0), (2, 0, "sale", 2.0)]
    # store 1: day 6 is week 0 (10.0, one transaction); days 7 and 13 are week 1
    # (3.0 - 1.0 = 2.0, two transactions); store 2: week 0 (2.0, one)
    assert_rows(m.weekly_revenue(rows), [(1, 0, 10.0, 1), (1, 1, 2.0, 2), (2, 0, 2.0, 1)])


# -- ordered loops of issue 11: running totals, sessions, change detection ----------


def test_running_balance() -> None:
    m = sample("ledger")
    rows = [
        ("a", 2, 1, -30), ("a", 1, 2, None), ("a", 1, 1, 100), ("a", 2, 2, -80),
        ("b", 1, 1, 5), ("b", 1, 1, 5), ("c", 1, 1, 7), ("c", 1, 1, -2),
    ]  # fmt: skip
    # a by (day, seq): +100 -> 100; pending -> 100; -30 -> 70; -80 -> -10 (may go negative)
    # b: the same booking twice -> 5, 10
    # c: a tie in (day, seq) goes to the amount, ascending: -2 -> -2, then 7 -> 5
    assert_rows(
        m.running_balance(rows),
        [
            ("a", 1, 1, 100), ("a", 1, 2, 100), ("a", 2, 1, 70), ("a", 2, 2, -10),
            ("b", 1, 1, 5), ("b", 1, 1, 10), ("c", 1, 1, -2), ("c", 1, 1, 5),
        ],
    )  # fmt: skip
    assert m.running_balance([]) == []
    # Python's ints do not wrap: 2**62 + 2**62 is 2**63 (one beyond int64; Spark must raise)
    assert m.running_balance([("a", 1, 1, 2**62), ("a", 1, 2, 2**62)])[-1] == ("a", 1, 2, 2**63)


def test_stock_levels() -> None:
    m = sample("stock")
    rows = [
        ("nut", 1, 5.0), ("nut", 2, -7.5), ("nut", 3, 2.0), ("nut", 4, -0.5), ("nut", 5, -1.5),
        ("bolt", 2, 3.0), ("bolt", 1, -1.0),
    ]  # fmt: skip
    # nut: 0+5 = 5; 5-7.5 = -2.5 -> level 0, 2.5 short; 0+2 = 2; 2-0.5 = 1.5;
    #      1.5-1.5 = 0 exactly: not negative, nothing short
    # bolt by time: -1 on an empty shelf -> 0, 1.0 short; then +3 -> 3
    assert_rows(
        m.stock_levels(rows),
        [
            ("nut", 1, 5.0, 0.0), ("nut", 2, 0.0, 2.5), ("nut", 3, 2.0, 0.0),
            ("nut", 4, 1.5, 0.0), ("nut", 5, 0.0, 0.0),
            ("bolt", 1, 0.0, 1.0), ("bolt", 2, 3.0, 0.0),
        ],
    )  # fmt: skip


def test_session_ids() -> None:
    m = sample("clicks")
    nine = dt(2024, 5, 1, 9, 0)
    eight = dt(2024, 5, 2, 8, 0)
    at = lambda minutes: nine + datetime.timedelta(minutes=minutes)  # noqa: E731
    rows = [(1, at(45), "/b"), (1, at(0), "/"), (1, at(75), "/c"), (1, at(10), "/a"),
            (2, eight, "/z"), (2, eight, "/")]  # fmt: skip
    # user 1 by time: 9:00 (first: session 1), 9:10 (+600 s), 9:45 (+2100 > 1800: session 2),
    #   10:15 (+1800, not more than the gap: still 2)
    # user 2: two clicks at the same time, by page: "/" then "/z" 0 s later, one session
    assert_rows(
        m.session_ids(rows, 1800),
        [
            (1, at(0), "/", 1, None), (1, at(10), "/a", 1, 600.0),
            (1, at(45), "/b", 2, 2100.0), (1, at(75), "/c", 2, 1800.0),
            (2, eight, "/", 1, None), (2, eight, "/z", 1, 0.0),
        ],
    )  # fmt: skip
    # a gap of 0: every pause starts a session, a click at the same instant does not
    assert [r[3] for r in sorted(m.session_ids(rows, 0))] == [1, 2, 3, 4, 1, 1]


def test_visit_summary() -> None:
    m = sample("visits")
    rows = [
        (1, 4201, "buy"), (1, 0, "view"), (1, 600, "buy"), (1, 2400, "view"), (1, 4300, "buy"),
        (2, 50, "view"), (3, 7, "buy"), (3, 7, "buy"),
    ]  # fmt: skip
    # user 1 by time: 0, 600 (+600), 2400 (+1800: not more than 30 min) -> one session
    #   0..2400 with 3 events, 1 buy; 4201 (+1801: new) and 4300 -> 4201..4300, 2 events, 2 buys
    # user 2: one event; user 3: the same purchase twice -> 2 events, 2 buys
    assert_rows(
        m.visit_summary(rows),
        [(1, 0, 2400, 3, 1), (1, 4201, 4300, 2, 2), (2, 50, 50, 1, 0), (3, 7, 7, 2, 2)],
    )
    assert m.visit_summary([]) == []


def test_address_history() -> None:
    m = sample("addresses")
    rows = [
        (7, 5, "Bergen", 1), (7, 1, "Oslo", 1), (7, 3, "Oslo", 1), (7, 8, None, 2),
        (7, 6, None, 2), (8, 2, None, 1), (9, 4, "Rome", 3), (9, 4, "Rome", 1),
    ]  # fmt: skip
    # 7 by day: Oslo/1 (day 1), unchanged on day 3, Bergen/1 on day 5, unknown/2 on day 6,
    #   unchanged on day 8 (None == None) -> three versions, valid 1-5, 5-6, 6-
    # 8: a single snapshot with no city -> one current version
    # 9: two snapshots on day 4 go by (city, tier): tier 1 then tier 3 -> a version valid
    #   from day 4 to day 4, and the current one
    assert_rows(
        m.address_history(rows),
        [
            (7, 1, "Oslo", 1, 1, 5), (7, 2, "Bergen", 1, 5, 6), (7, 3, None, 2, 6, None),
            (8, 1, None, 1, 2, None), (9, 1, "Rome", 1, 4, 4), (9, 2, "Rome", 3, 4, None),
        ],
    )  # fmt: skip


def test_trip_length() -> None:
    m = sample("trips")
    rows = [
        ("v1", 5, 6.0, 8.0), ("v1", 1, 0.0, 0.0), ("v1", 2, None, None), ("v1", 3, 3.0, 4.0),
        ("v1", 4, 3.0, None), ("v2", 1, 1.0, 1.0), ("v3", 1, None, 2.0),
        ("v4", 3, 1.0, 2.0), ("v4", 1, 0.0, 0.0), ("v4", 2, 1.0, 0.0),
    ]  # fmt: skip
    # v1 uses (0,0), (3,4), (6,8) (fixes 2 and 4 lack a coordinate): hops 5 and 5
    # v2: one fix, no hop; v3: no usable fix
    # v4 by time: (0,0) -> (1,0) -> (1,2): hops 1 and 2
    assert_rows(
        m.trip_length(rows),
        [("v1", 3, 10.0, 5.0), ("v2", 1, 0.0, 0.0), ("v3", 0, 0.0, 0.0), ("v4", 3, 3.0, 2.0)],
    )


# -- windows: tumbling, sliding and session windows ----------------------------


def test_clicks_per_window() -> None:
    m = sample("windows")
    rows = [
        (1, dt(2024, 5, 1, 9, 4, 59)), (1, dt(2024, 5, 1, 9, 5)),
        (1, dt(2024, 5, 1, 9, 0)), (2, dt(1969, 12, 31, 23, 58)),
        (2, dt(1969, 12, 31, 23, 55)),
    ]  # fmt: skip
    # user 1: 9:00 and 9:04:59 in [9:00, 9:05); 9:05 starts the next window
    # user 2, before the epoch: both in [23:55, 0:00) (the floor, not toward zero)
    assert_rows(
        m.clicks_per_window(rows),
        [(1, dt(2024, 5, 1, 9, 0), 2), (1, dt(2024, 5, 1, 9, 5), 1),
         (2, dt(1969, 12, 31, 23, 55), 2)],
    )  # fmt: skip


def test_sliding_counts() -> None:
    m = sample("windows")
    rows = [(1, dt(2024, 5, 1, 10, 0)), (2, dt(2024, 5, 1, 10, 7))]
    # 10:00 is in the 12 one-hour windows starting 9:05, 9:10, ..., 10:00;
    # 10:07 in those starting 9:10, ..., 10:05: both in 9:10 .. 10:00 (11 windows)
    want = [(dt(2024, 5, 1, 9, 5), 1), (dt(2024, 5, 1, 10, 5), 1)]
    want += [(dt(2024, 5, 1, 9, 10) + datetime.timedelta(minutes=5 * k), 2) for k in range(11)]
    assert_rows(m.sliding_counts(rows), want)


def test_session_summary() -> None:
    m = sample("windows")
    rows = [
        (1, dt(2024, 5, 1, 10, 0)), (1, dt(2024, 5, 1, 9, 0)),
        (1, dt(2024, 5, 1, 9, 29, 59)), (1, dt(2024, 5, 1, 9, 0)),
        (2, dt(2024, 5, 1, 8, 0)),
    ]  # fmt: skip
    # user 1 sorted: 9:00, 9:00, 9:29:59 (+29:59) | 10:00 (+30:01 >= 30 min: new session)
    # user 2: one click, a session ending 30 minutes later
    assert_rows(
        m.session_summary(rows),
        [(1, dt(2024, 5, 1, 9, 0), dt(2024, 5, 1, 9, 59, 59), 3),
         (1, dt(2024, 5, 1, 10, 0), dt(2024, 5, 1, 10, 30), 1),
         (2, dt(2024, 5, 1, 8, 0), dt(2024, 5, 1, 8, 30), 1)],
    )  # fmt: skip


def test_sessions_per_user() -> None:
    m = sample("eventtime")
    rows = [
        (1, dt(2024, 5, 1, 23, 50)), (1, dt(2024, 5, 2, 0, 10)), (1, dt(2024, 5, 1, 23, 0)),
        (2, dt(2024, 5, 2, 0, 29, 59)), (2, dt(2024, 5, 2, 0, 0)), (2, dt(2024, 5, 2, 0, 59, 59)),
        (2, dt(2024, 5, 2, 0, 0)),
    ]  # fmt: skip
    # user 1 in time order: 23:00 | 23:50 (+50 min: a new session), 0:10 (+20 min: the same,
    # across midnight); user 2: 0:00, 0:00 (equal times), 0:29:59 (+29:59) | 0:59:59 (+30:00
    # exactly, >= GAP: a new session)
    assert_rows(
        m.sessions_per_user(rows),
        [(1, dt(2024, 5, 1, 23, 0), 1), (1, dt(2024, 5, 1, 23, 50), 2),
         (2, dt(2024, 5, 2, 0, 0), 3), (2, dt(2024, 5, 2, 0, 59, 59), 1)],
    )  # fmt: skip


def test_daily_sessions() -> None:
    m = sample("eventtime")
    rows = [
        (1, dt(2024, 5, 1, 23, 50)), (1, dt(2024, 5, 2, 0, 10)), (1, dt(2024, 5, 1, 23, 0)),
        (2, dt(2024, 5, 2, 0, 0)), (2, dt(2024, 5, 2, 0, 29, 59)), (2, dt(2024, 5, 2, 0, 59, 59)),
    ]  # fmt: skip
    # user 1, May 1: 23:00 | 23:50 (+50 min: a new session) ; May 2: 0:10 (a new day, its own
    # session although 20 minutes after 23:50); user 2, May 2: 0:00, 0:29:59 (+29:59 < 30 min:
    # one session of 2, ending at 0:59:59) | 0:59:59 (+30:00 exactly, >= GAP: a new session)
    may1, may2 = dt(2024, 5, 1), dt(2024, 5, 2)
    assert_rows(
        m.daily_sessions(rows),
        [(1, may1, dt(2024, 5, 1, 23, 0), dt(2024, 5, 1, 23, 30), 1),
         (1, may1, dt(2024, 5, 1, 23, 50), dt(2024, 5, 2, 0, 20), 1),
         (1, may2, dt(2024, 5, 2, 0, 10), dt(2024, 5, 2, 0, 40), 1),
         (2, may2, dt(2024, 5, 2, 0, 0), dt(2024, 5, 2, 0, 59, 59), 2),
         (2, may2, dt(2024, 5, 2, 0, 59, 59), dt(2024, 5, 2, 1, 29, 59), 1)],
    )  # fmt: skip
