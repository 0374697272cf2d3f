"""Sensor readings with gaps: Optional fields and loop-carried locals.

A reading may be missing (``None``, a SQL null): the field is declared
``Optional[float]`` and the algorithm tests ``x is not None`` before using
it. The running ``n += 1``, ``total += x``, ``lo = min(lo, x)`` and
``hi = max(hi, x)`` are loop-carried locals that the compiler recognizes as
reductions (Count, Sum, Min, Max), so no state class is needed and the loop
order does not matter.

>>> reading_summary([(1, 2.0), (1, None), (2, 4.0)])
(2, 1, 3.0, 2.0, 4.0)
"""

import math
from typing import Optional

from looplift import RowStream, dataflow, group_by


@dataflow
def reading_summary(
    readings: RowStream[int, Optional[float]],  # noqa: UP045 (SPEC §2 spells it Optional)
) -> tuple[int, int, float, float, float]:
    """(present, missing, mean, lowest, highest); the last three are 0.0 without readings."""
    n = 0
    missing = 0
    total = 0.0
    lo = math.inf
    hi = -math.inf
    for _sensor, x in readings:
        if x is not None:
            n += 1
            total += x
            lo = min(lo, x)
            hi = max(hi, x)
        else:
            missing += 1
    if n == 0:
        return 0, missing, 0.0, 0.0, 0.0
    return n, missing, total / n, lo, hi


@dataflow(columns=("sensor_id", "n", "mean", "stddev", "status"))
def sensor_report(readings: RowStream[int, Optional[float]], limit: float):  # noqa: UP045
    """Per sensor: readings, mean, population standard deviation, and a status word.

    The status is ``"no data"`` without readings, ``"alarm"`` when some reading's
    magnitude exceeds ``limit``, else ``"ok"``.
    """
    for sensor, rs in group_by(0, readings):
        n = 0
        s = 0.0
        squares = 0.0
        peak = 0.0
        for _sensor, x in rs:
            if x is not None:
                n += 1
                s += x
                squares += x * x
                peak = max(peak, abs(x))
        mean = s / n if n > 0 else 0.0
        variance = squares / n - mean**2 if n > 0 else 0.0
        stddev = math.sqrt(max(variance, 0.0))
        status = "no data" if n == 0 else ("alarm" if peak > limit else "ok")
        yield sensor, n, round(mean, 3), round(stddev, 3), status
