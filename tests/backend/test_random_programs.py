"""Random well-formed programs (the compiler's property-test grammar) compiled to Spark
return what CPython returns."""

from __future__ import annotations

import itertools
import math
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from looplift.compiler.cli import algorithms_of, load_module

from tests.compiler.test_properties import HEADER, ROWS, Gen

_COUNTER = itertools.count()


def _same(a, b) -> bool:  # noqa: ANN001
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def _py(v):  # noqa: ANN001, ANN202
    if hasattr(v, "asDict"):
        return tuple(_py(x) for x in v)
    return v


@settings(max_examples=10, deadline=None, derandomize=True, phases=[Phase.generate],
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])  # fmt: skip
@given(st.data(), ROWS, st.integers(-3, 3))
def test_random_programs_on_spark_equal_cpython(spark, data, rows, t) -> None:  # noqa: ANN001
    src = HEADER + Gen(data).program()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"sprog_{next(_COUNTER)}.py"
        path.write_text(src)
        (algo,) = algorithms_of(load_module(str(path), name=path.stem))
        try:
            want = algo(rows, t)
        except (ArithmeticError, TypeError):
            return  # Python raises (e.g. a None max); covered by the trap tests
        df = spark.createDataFrame(rows, "a long, b long, c long")
        try:
            result = algo(df, t).collect()
        except Exception as e:  # noqa: BLE001
            if "overflow" in str(e).lower():
                return  # an intermediate beyond 64 bits (Python has big ints)
            raise AssertionError(f"{e}\n{src}") from e
        if algo.compile().kind == "table":
            got = sorted((_py(tuple(r)) for r in result), key=repr)
            assert _same(got, sorted(want, key=repr)), f"{got} != {want}\n{src}"
        else:
            got = _py(result[0][0])
            assert _same(got, want), f"{got} != {want}\n{src}"
