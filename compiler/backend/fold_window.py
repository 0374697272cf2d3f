"""The rows a fold yields as window functions: which window function each carry's form is.

The fold (:mod:`.fold`) records, per carry, how one iteration updates it (its form:
``keep``, ``set``, ``add``, ``cset``, ``reset``, ``max``, ``min``, ``any``). Where every
carry's form is one of :class:`~.fold_model.WindowCarry`'s and no carry's new value
reads its own old one, each carry's value before a row is a window function of the rows
before it (a ``lag``, a running ``sum``, the ``last`` value set under a condition, a
running ``max`` / ``min``, or a running total that resets), computed in the order the
carries read each other. :data:`RESET_WINDOW` switches the reset form off (the plan is
then the ``aggregate()`` fold). The plan's window steps are :mod:`.strategies.window_plan`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .fold_model import ACC_REF, Carry, Window, WindowCarry, WindowForm

__all__ = ["RESET_WINDOW", "window_of"]

#: a reset sum read on every row as windows (``WindowForm.RESET``); False compiles the
#: aggregate() fold instead (the benchmarks' alternative plan)
RESET_WINDOW = True


def window_of(
    carries: Sequence[Carry],
    forms: Sequence[tuple],
    sites: tuple[tuple[str, tuple[str, ...]], ...],
    after: Callable[[str], str],
) -> Window | None:
    """Window functions for the carries, when every carry's update is one of the forms
    of :class:`WindowCarry` and they depend on each other without a cycle; else None.
    ``forms``: per carry, its form (as :attr:`~.fold_model.Fold.forms`); ``sites``: the
    yields (condition, the row's fields); ``after(field)``: a carry's value after the row."""
    found: dict[str, WindowCarry] = {}
    needs: dict[str, set[str]] = {}
    for c, form in zip(carries, forms, strict=True):
        if form[0] not in {f.value for f in WindowForm}:  # ("any", ...): no window computes it
            return None
        kind = WindowForm(form[0])
        if kind is WindowForm.ADD and c.type not in ("int", "float", "bool"):
            return None
        if kind in (WindowForm.MAX, WindowForm.MIN) and c.member != kind:
            return None
        wc = WindowCarry(c, kind)
        if kind in (WindowForm.SET, WindowForm.ADD, WindowForm.MAX, WindowForm.MIN):
            wc = WindowCarry(c, kind, form[1])
        elif kind is WindowForm.CSET:
            wc = WindowCarry(c, kind, form[2], form[1])
        elif kind is WindowForm.RESET:
            if (
                not RESET_WINDOW or c.type != "int" or c.nullable
            ):  # a float sum in another order rounds apart
                return None
            cond, start, d = form[1:]
            wc = WindowCarry(c, kind, d, cond, start, after(c.field))
        refs = set(ACC_REF.findall(f"{wc.sql} {wc.cond} {wc.start}"))
        if c.field in refs:
            return None  # its new value depends on its old one: a fold, not a window
        found[c.field], needs[c.field] = wc, refs
    ordered: list[WindowCarry] = []
    done: set[str] = set()
    while len(ordered) < len(found):
        ready = [f for f in found if f not in done and needs[f] <= done]
        if not ready:
            return None  # carries depending on each other
        for f in ready:
            ordered.append(found[f])
            done.add(f)
    return Window(tuple(ordered), sites)
