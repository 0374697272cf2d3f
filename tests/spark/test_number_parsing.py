"""``int(s)`` and ``float(s)`` of strings, compiled, against CPython on generated strings.

The native lowering has three paths (``backend/strnumbers.py``): a number written as Spark
prints it, one that a plain ``CAST`` reads (ASCII whitespace, a sign, at most 18
digits), and Python's whole grammar (``primitives/grammar.py``: Unicode digits and
whitespace, underscores). A ``try``'s test reads the same grammar. Each example is one
Spark job over a batch of strings built from the pieces those paths tell apart: every
whitespace character (CPython's ``int()`` strips U+001C..U+001F as ``str.isspace`` does
not), signs, ASCII and other digits, underscores, exponents, ``inf``/``nan``, numbers at
the 64-bit bounds.
"""

from __future__ import annotations

import math
import textwrap
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from looplift.strings import WHITESPACE

from tests.helpers import import_path

MODULE = """
from looplift import dataflow


@dataflow
def parse_int(s: str) -> int:
    try:
        return int(s)
    except ValueError:
        return -1


@dataflow
def parse_float(s: str) -> float:
    try:
        return float(s)
    except ValueError:
        return -1.5


@dataflow
def plain_int(s: str) -> int:
    return int(s)
"""

PIECES = [
    *WHITESPACE, "\x00", "\x1b", "+", "-", "_", ".", "e", "E", "x", "inf", "nan", "Infinity",
    "0", "7", "42", "007", "123456789012345678", "9223372036854775807", "9223372036854775808",
    "١٢", "٣", "１２", "²", "½", "𝟗",
]  # fmt: skip
INT64 = range(-(2**63), 2**63)


def _outcome(f: Any, s: str) -> Any:
    try:
        return f(s)
    except ValueError:
        return "ValueError"


@pytest.fixture(scope="module")
def algos(tmp_path_factory: pytest.TempPathFactory) -> Any:
    path = Path(tmp_path_factory.mktemp("numbers")) / "number_parsing.py"
    path.write_text(textwrap.dedent(MODULE), encoding="utf-8")
    return import_path(path)


strings = st.lists(st.lists(st.sampled_from(PIECES), min_size=0, max_size=5).map("".join),
                   min_size=50, max_size=200)  # fmt: skip


@pytest.mark.spark
@settings(
    max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(batch=strings)
def test_int_and_float_of_strings_agree_with_cpython(
    spark: Any, algos: Any, batch: list[str]
) -> None:
    from pyspark.sql import functions as F

    # a number beyond 64 bits is a documented difference (OverflowError, Python a big int)
    batch = [s for s in batch if not isinstance(_outcome(int, s), int) or _outcome(int, s) in INT64]
    rows = [(i, s) for i, s in enumerate(batch)]
    df = spark.createDataFrame(rows, "i bigint, s string")
    valid = [r for r in rows if isinstance(_outcome(int, r[1]), int)]
    out = df.select(
        "i", algos.parse_int(F.col("s")).alias("n"), algos.parse_float(F.col("s")).alias("x")
    )
    bad = []
    for i, n, x in out.collect():
        s = batch[i]
        want_n = algos.parse_int(s)
        want_x = algos.parse_float(s)
        if n != want_n:
            bad.append(f"int({s!r}): compiled {n!r}, CPython {want_n!r}")
        if not (x == want_x or (math.isnan(x) and math.isnan(want_x))):
            bad.append(f"float({s!r}): compiled {x!r}, CPython {want_x!r}")
    if valid:  # without a try: the lowering's own paths
        plain = spark.createDataFrame(valid, "i bigint, s string")
        for i, n in plain.select("i", algos.plain_int(F.col("s"))).collect():
            if n != int(batch[i]):
                bad.append(
                    f"int({batch[i]!r}) outside a try: compiled {n!r}, CPython {int(batch[i])!r}"
                )
    assert not bad, "\n".join(bad[:40])


@pytest.mark.spark
def test_separators_and_line_ends(spark: Any, algos: Any) -> None:
    """U+001C..U+001F are whitespace to ``str.isspace`` and ``split()``, not to ``int()``;
    a number before a last line terminator (where Java's ``$`` matches) is read whole."""
    from pyspark.sql import functions as F

    cases = ["\x1c5", "5\x1f", "\x855", "\u3000-7\u2028", " 12 ", "0\u2028", "3\x85", "4\r\n"]
    df = spark.createDataFrame([(s,) for s in cases], "s string")
    got = df.select(algos.parse_int(F.col("s")), algos.parse_float(F.col("s"))).collect()
    assert (
        [r[0] for r in got] == [algos.parse_int(s) for s in cases] == [-1, -1, 5, -7, 12, 0, 3, 4]
    )
    assert [r[1] for r in got] == [algos.parse_float(s) for s in cases]
    plain = df.where(~F.col("s").isin("\x1c5", "5\x1f"))
    assert [r[0] for r in plain.select(algos.plain_int(F.col("s"))).collect()] == [
        5,
        -7,
        12,
        0,
        3,
        4,
    ]
