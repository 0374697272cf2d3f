"""How compiler-made names relate to the names the user wrote.

- a loop-carried local ``x`` lives in the carry state ``x.carry``;
- an inlined callee's names are prefixed with the callee: ``count.acc``;
- let-normalization renames a rebound ``x`` to ``x_1``, ``x_2`` ...;
- compiler temporaries start with ``_`` (``_t3``, ``_loop1``).
"""

from __future__ import annotations

__all__ = ["CARRY_SUFFIX", "carry_var", "user_name", "is_temp"]

CARRY_SUFFIX = ".carry"


def carry_var(name: str) -> str:
    return name + CARRY_SUFFIX


def is_temp(name: str) -> bool:
    return name.split(".")[-1].startswith("_") or name.endswith(CARRY_SUFFIX)


def user_name(name: str, *, keep_callee: bool = True) -> str:
    """``count.acc`` → ``count.acc`` (or ``acc``); ``x.carry`` → ``x``; ``x_2`` → ``x``."""
    head, _, tail = name.rpartition("_")
    if head and tail.isdigit() and not head.endswith("_"):
        name = head
    name = name.removesuffix(CARRY_SUFFIX)
    if not keep_callee:
        name = name.split(".")[-1]
    return name
