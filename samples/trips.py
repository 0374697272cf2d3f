"""Trip lengths: a sum over consecutive rows in an ordered loop.

Each GPS fix is ``(vehicle, ts, x, y)`` in metres on a local grid; a fix
whose position was lost has ``x`` and ``y`` of ``None`` and is skipped. The
length of a vehicle's track is the sum of the straight-line distances
between consecutive fixes in time order (``group_by(0, fixes, order_by=1)``):
``math.hypot(x - px, y - py)`` needs the *previous* position, a pair of
loop-carried locals. ``trip_length`` yields one row per vehicle: fixes used,
track length, and the longest single hop.

>>> trip_length([("v1", 3, 3.0, 4.0), ("v1", 1, 0.0, 0.0), ("v1", 2, None, None), ("v2", 1, 1.0, 1.0)])
[('v1', 2, 5.0, 5.0), ('v2', 1, 0.0, 0.0)]
"""

import math
from typing import Optional

from looplift import RowStream, dataflow, group_by


@dataflow(columns=("vehicle", "fixes", "length_m", "longest_hop_m"))
def trip_length(fixes: RowStream[str, int, Optional[float], Optional[float]]):  # noqa: UP045
    """Per vehicle: fixes with a position, track length and longest hop (metres)."""
    for vehicle, track in group_by(0, fixes, order_by=1):
        n = 0
        length = 0.0
        longest = 0.0
        px = None
        py = None
        for _vehicle, _ts, x, y in track:
            if x is not None and y is not None:
                if px is not None:
                    hop = math.hypot(x - px, y - py)
                    length += hop
                    longest = max(longest, hop)
                n += 1
                px = x
                py = y
        yield vehicle, n, length, longest
