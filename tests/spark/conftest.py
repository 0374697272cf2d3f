"""tests/spark: a one-line summary of what the differential comparisons found (summed
over the workers when ``make test`` runs the suite on two of them)."""

from __future__ import annotations

from typing import Any

import pytest


def pytest_terminal_summary(terminalreporter: Any) -> None:
    from tests.spark.harness import BATCHES, VERDICTS

    if VERDICTS:
        found = ", ".join(f"{n} {what}" for what, n in sorted(VERDICTS.items()))
        terminalreporter.write_line(f"spark differential comparisons: {found}")
    if BATCHES:
        found = ", ".join(f"{n} {what}" for what, n in sorted(BATCHES.items()))
        terminalreporter.write_line(f"batched comparisons: {found}")


def pytest_sessionfinish(session: Any) -> None:
    """On a pytest-xdist worker: hand this worker's counts to the controller."""
    out = getattr(session.config, "workeroutput", None)
    if out is not None:
        from tests.spark.harness import BATCHES, VERDICTS

        out["looplift_verdicts"] = dict(VERDICTS)
        out["looplift_batches"] = dict(BATCHES)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """On the controller: add up what each worker counted."""
    from tests.spark.harness import BATCHES, VERDICTS

    out = getattr(node, "workeroutput", {}) or {}
    VERDICTS.update(out.get("looplift_verdicts", {}))
    BATCHES.update(out.get("looplift_batches", {}))
