"""tests/spark: a one-line summary of what the differential comparisons found."""

from __future__ import annotations

from typing import Any


def pytest_terminal_summary(terminalreporter: Any) -> None:
    from tests.spark.harness import BATCHES, VERDICTS

    if VERDICTS:
        found = ", ".join(f"{n} {what}" for what, n in sorted(VERDICTS.items()))
        terminalreporter.write_line(f"spark differential comparisons: {found}")
    if BATCHES:
        found = ", ".join(f"{n} {what}" for what, n in sorted(BATCHES.items()))
        terminalreporter.write_line(f"batched comparisons: {found}")
