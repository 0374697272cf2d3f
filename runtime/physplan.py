"""Spark's physical plan of a DataFrame, as text, and which of its operators run Python.

What ``Dataflow.explain`` shows of a compiled call (each operator marked ``[native]`` or
``[Python]``), and what tests read to say a plan is native: on classic Spark the final
adaptive plan from the JVM, on Spark Connect the plan the server explains.
"""

from __future__ import annotations

from typing import Any

__all__ = ["mark_plan", "physical_plan", "python_operator_count"]

_PYTHON_NODES = ("ArrowAggregatePython", "FlatMapGroupsInArrow", "ArrowEvalPython",
                 "BatchEvalPython", "FlatMapGroupsInPandas", "AggregateInPandas", "MapInArrow",
                 "MapInPandas", "PythonUDF")  # fmt: skip


def physical_plan(df: Any) -> str:
    """Spark's executed physical plan of a DataFrame, as text (the final adaptive plan
    once the query ran, without the initial one)."""
    from .spark import is_connect

    if is_connect(df):
        return _connect_physical_plan(df)
    text = str(df._jdf.queryExecution().executedPlan().toString())
    return text.split("+- == Initial Plan ==")[0].rstrip()


def _connect_physical_plan(df: Any) -> str:
    """A Spark Connect DataFrame's physical plan, as the server explains it (no JVM on the
    client: the plan before adaptive execution, ``isFinalPlan=false``)."""
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        df.explain()  # mode "simple": the physical plan only
    text = out.getvalue().strip()
    return text.removeprefix("== Physical Plan ==").strip("\n").rstrip()


def mark_plan(plan: str) -> str:
    """Mark each physical operator as native or Python."""
    out = []
    for line in plan.splitlines():
        stripped = line.lstrip(" :+-*()0123456789")
        if not stripped:
            out.append(line)
            continue
        tag = "[Python]" if any(n in stripped.split(" ")[0] for n in _PYTHON_NODES) else "[native]"
        out.append(f"{line}   {tag}")
    return "\n".join(out)


def python_operator_count(df: Any) -> int:
    """How many operators of a DataFrame's physical plan run Python."""
    return sum(
        1
        for line in physical_plan(df).splitlines()
        if any(n in line.lstrip(" :+-*()0123456789").split(" ")[0] for n in _PYTHON_NODES)
    )
