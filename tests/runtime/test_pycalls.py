"""The batch function behind every Python call of a plan (an island, a host function, a
primitive without a native lowering): per row, null off the call's path, else the value
or the error Python raised; a batch with repeated argument tuples is called once per
distinct tuple, with the same result as calling every row."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st
from looplift.errors import exception_text
from looplift.pycalls import _vectorized_call

STRUCT = {"string": pa.struct([("v", pa.string()), ("e", pa.string())]),
          "bigint": pa.struct([("v", pa.int64()), ("e", pa.string())])}  # fmt: skip


def scaled(s: str | None, k: int) -> int:
    """Raises for some values (None, a non-number), returns past 64 bits for others."""
    return int(s) * 10**k


def expected(fn: Any, rtype: str, path: list[bool], *cols: list[Any]) -> list[Any]:
    """What each row must hold: None off the path, else (value, None) or (None, error)."""
    out: list[Any] = []
    for on, *xs in zip(path, *cols, strict=True):
        if not on:
            out.append(None)
            continue
        try:
            v = fn(*xs)
        except Exception as exc:  # noqa: BLE001 - compared
            out.append({"v": None, "e": exception_text(exc)})
            continue
        if rtype == "bigint" and not -(2**63) <= v < 2**63:
            out.append({"v": None, "e": "OverflowError"})
        else:
            out.append({"v": v, "e": None})
    return out


def run(fn: Any, rtype: str, path: list[bool], cols: list[Any], types: list[Any],
        distinct: bool) -> list[Any]:  # fmt: skip
    arrays = [pa.array(path, pa.bool_()), *(pa.array(c, t) for c, t in zip(cols, types, strict=True))]
    got = _vectorized_call(fn, arrays, rtype, STRUCT[rtype], [None] * len(arrays), distinct)
    return got.to_pylist()


def same(got: list[Any], want: list[Any]) -> bool:
    """Equal, where an overflow's message need only name its class."""
    for g, w in zip(got, want, strict=True):
        if w is not None and w["e"] == "OverflowError":
            if g is None or g["v"] is not None or "OverflowError" not in (g["e"] or ""):
                return False
        elif g != w:
            return False
    return len(got) == len(want)


WORDS = st.sampled_from(["1", "-7", " 3 ", "x", "", "９", "99999999999999999999", None, "é"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(WORDS, st.integers(0, 20), st.booleans()), min_size=0, max_size=1200))
def test_distinct_calls_give_every_row_its_own_result(rows: list[tuple]) -> None:
    texts = [r[0] for r in rows]
    ks = [r[1] for r in rows]
    everywhere = [True] * len(rows)
    want = expected(scaled, "bigint", everywhere, texts, ks)
    for distinct in (True, False):
        got = run(scaled, "bigint", everywhere, [texts, ks], [pa.string(), pa.int64()], distinct)
        assert same(got, want)
        # a function called on every row has no path column (``EVERY_ROW``): the same rows
        arrays = [None, pa.array(texts, pa.string()), pa.array(ks, pa.int64())]
        got = _vectorized_call(scaled, arrays, "bigint", STRUCT["bigint"], [None] * 3, distinct)
        assert same(got.to_pylist(), want)
    # off the path (some rows): None there, whether or not the batch repeats itself
    path = [r[2] for r in rows]
    got = run(scaled, "bigint", path, [texts, ks], [pa.string(), pa.int64()], True)
    assert same(got, expected(scaled, "bigint", path, texts, ks))


def test_a_repetitive_batch_calls_once_per_distinct_tuple() -> None:
    calls: list[tuple] = []

    def upper(s: str | None, n: int) -> str:
        calls.append((s, n))
        return (s or "-").upper() * n

    texts = ["a", "b", None, "a"] * 500
    ns = [1, 2, 1, 1] * 500
    got = run(upper, "string", [True] * 2000, [texts, ns], [pa.string(), pa.int64()], True)
    assert [g["v"] for g in got] == [(s or "-").upper() * n for s, n in zip(texts, ns, strict=True)]
    assert sorted(calls, key=repr) == sorted({("a", 1), ("b", 2), (None, 1)}, key=repr)


def test_floats_are_never_merged() -> None:
    """0.0 and -0.0 are equal keys but different Python values (``str``, ``copysign``)."""
    xs = [0.0, -0.0] * 400
    got = run(str, "string", [True] * len(xs), [xs], [pa.float64()], True)
    assert [g["v"] for g in got] == [str(x) for x in xs]


def test_values_of_another_type_than_declared_are_errors_not_conversions() -> None:
    got = run(lambda x: [x, True, 1.5, 2**70][x % 4], "bigint", [True] * 8,
              [list(range(8))], [pa.int64()], True)  # fmt: skip
    assert [g["v"] for g in got][::4] == [0, 4]
    assert all("TypeError" in g["e"] for g in got[1::4] + got[2::4])
    assert all("OverflowError" in g["e"] for g in got[3::4])


def test_stop_iteration_raised_by_the_function_is_its_error_not_the_end_of_the_batch() -> None:
    """(``map`` would take it for the end of the rows and shift every later result.)"""

    def first(s: str) -> str:
        return next(iter(s))

    texts = ["ab", "", "cd"]
    got = run(first, "string", [True] * 3, [texts], [pa.string()], False)
    assert [g["v"] for g in got] == ["a", None, "c"]
    assert got[1]["e"].startswith("StopIteration")
