"""Reach: real UDF shapes, written the way their authors write them, compile as written.

``tests/corpus/reach/`` holds programs in the shapes issue 10 collected from public
PySpark, pandas grouped-map, Flink, Beam and SQL-documentation code (sessionization,
funnels, cohorts, dedup latest-per-key, top-N, running totals with resets, moving
averages, histograms, log parsing, string cleaning, geo distance, change detection,
lookup tables, computed keys, flags, states without undo or annotations). Each one
must compile and get a Spark plan without a diagnostic; this runs no Spark, so a
regression in reach shows in seconds. Their results against CPython are the business
of the differential suites, which run the same features through the samples.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from looplift.compiler.backend import backend_for
from looplift.compiler.cli import algorithms_of
from looplift.compiler.pipeline import compile_dataflow

from tests.helpers import CORPUS, import_path

REACH = sorted((CORPUS / "reach").glob("*.py"))
ALGOS = [(p, a) for p in REACH for a in algorithms_of(import_path(p))]


def test_reach_corpus_is_there() -> None:
    assert len(REACH) >= 25 and len(ALGOS) >= len(REACH)


@pytest.mark.parametrize("path, algo", ALGOS, ids=lambda x: getattr(x, "name", getattr(x, "stem", "")))
def test_compiles_as_written(path: Path, algo: Any) -> None:
    compiled = compile_dataflow(algo)
    backend_for(compiled)  # the Spark plan (or the SQL function of a scalar algorithm)
    assert "runs:" in compiled.explain()
