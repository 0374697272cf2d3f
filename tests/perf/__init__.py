"""Benchmarks of compiled looplift plans against hand-written Spark (not part of `make test`).

Run them as modules from the repository root, e.g. ``python -m tests.perf.clickstream``;
see ``tests/perf/README.md``.
"""
