"""Java regex classes written as trees (``compiler/primitives/charclass.py``) hold exactly
their characters on Spark: generated sets of code points (ASCII, BMP, supplementary, many
ranges) and the compiler's own classes, each probed at every range's ends, one past them
and at random points, ``s RLIKE '^<class>\\z'`` against membership."""

from __future__ import annotations

import random
import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from looplift.compiler.backend import strsql
from looplift.compiler.primitives import grammar
from looplift.compiler.primitives.charclass import code_ranges, java_class
from looplift.sqltext import sql_string

SURROGATES = range(0xD800, 0xE000)


def _probes(cps: set[int], seed: int) -> list[int]:
    """Every range's ends and their neighbours, and random code points (no surrogates:
    Spark's strings are UTF-8)."""
    out = {0, 0x7F, 0x80, sys.maxunicode}
    for lo, hi in code_ranges(cps):
        out.update((lo - 1, lo, hi, hi + 1))
    rnd = random.Random(seed)
    out.update(rnd.randrange(0, sys.maxunicode + 1) for _ in range(40))
    out.update(rnd.randrange(0, 0x800) for _ in range(40))
    return sorted(c for c in out if 0 <= c <= sys.maxunicode and c not in SURROGATES)


def _check(spark, classes: list[tuple[str, set[int], bool]], seed: int = 0) -> None:
    """Each ``(class, code points, negated)``: the class holds the code points (every
    other one where negated)."""
    probes = sorted(set().union(*(_probes(cps, seed) for _, cps, _ in classes)))
    df = spark.createDataFrame([(c, chr(c)) for c in probes], "c int, s string")
    exprs = [
        f"s RLIKE {sql_string('^' + cls + chr(92) + 'z')} AS m{i}"
        for i, (cls, _, _) in enumerate(classes)
    ]
    for row in df.selectExpr("c", *exprs).collect():
        for i, (cls, cps, negated) in enumerate(classes):
            assert row[f"m{i}"] == ((row.c in cps) != negated), (hex(row.c), cls[:200])


def _cps(draw: st.DrawFn) -> set[int]:
    out: set[int] = set()
    for _ in range(draw(st.integers(1, 24))):
        top = draw(st.sampled_from([0x7F, 0x7FF, 0xFFFF, sys.maxunicode]))
        lo = draw(st.integers(0, top))
        hi = min(top, lo + draw(st.sampled_from([0, 1, 2, 10, 300])))
        out.update(c for c in range(lo, hi + 1) if c not in SURROGATES)
    return out


@st.composite
def code_sets(draw: st.DrawFn) -> list[tuple[bool, set[int]]]:
    return [(draw(st.booleans()), _cps(draw)) for _ in range(6)]


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(sets=code_sets(), seed=st.integers(0, 99))
def test_generated_classes_hold_their_characters(spark, sets, seed) -> None:
    _check(
        spark, [(java_class(sorted(cps), negate=negate), cps, negate) for negate, cps in sets], seed
    )


def test_the_compilers_classes_hold_their_characters(spark) -> None:
    def members(pred) -> set[int]:
        return {c for c in range(sys.maxunicode + 1) if c not in SURROGATES and pred(chr(c))}

    classes = [
        (strsql._CASE_GUARD, set(strsql._CASE_DIFF), False),
        (grammar._WS, members(str.isspace), False),
        (grammar._D, members(lambda ch: ch.isdecimal()), False),
        (java_class(strsql._CASE_DIFF, negate=True), set(strsql._CASE_DIFF), True),
    ]
    assert all("&&" in cls for cls, _, _ in classes)  # (each is a tree)
    _check(spark, classes)
