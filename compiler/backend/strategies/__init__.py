"""The planners of the state strategies, one module per family, registered by strategy
(:mod:`.registry`); importing the package registers them all. The ordered family's
planner (:mod:`.ordered`) has its window and boundary-position lowerings beside it
(:mod:`.window_plan`, :mod:`.boundary_plan`), over the rows :mod:`.ordered_rows` gives."""

from __future__ import annotations

from . import action, additive, argbest, container, fresh, ordered, sequence  # noqa: F401 (registers)
from .registry import Reduced, StatePlanner, planner_class, register

__all__ = ["Reduced", "StatePlanner", "planner_class", "register"]
