"""Differential tests of compiled algorithms on Spark against the CPython reference."""
