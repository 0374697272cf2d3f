"""A mutation fuzzer for ``uda-compile --check``: mutated programs never make the compiler crash.

:mod:`tests.fuzz.mutate` makes mutants of ``samples/*.py`` and ``tests/corpus/**.py`` (deterministic
by seed); :mod:`tests.fuzz.pool` compiles them in a small pool of long-lived worker processes and
judges each run. ``python -m tests.fuzz -n 5000 --seed 1`` runs it from the command line.
"""
