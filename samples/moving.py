"""Moving averages: a list as a bounded window inside an ordered loop.

Each reading is ``(sensor, ts, value)``. ``moving_average`` walks every
sensor's readings in time order (``group_by(0, readings, order_by=1)``) and
keeps the last three values in a list: ``append`` the new value, ``pop(0)``
the oldest once the window is full, and yield the window's mean for every
reading. ``window.append`` / ``window.pop(0)`` / ``len(window)`` /
``sum(window)`` depend on the order of the rows, which the ordered loop
defines: the loop body runs as Python once per sensor, rows sorted by time.

>>> moving_average([(1, 10, 2.0), (1, 20, 4.0), (1, 30, 6.0), (1, 40, 8.0), (2, 5, 1.0)])
[(1, 10, 2.0), (1, 20, 3.0), (1, 30, 4.0), (1, 40, 6.0), (2, 5, 1.0)]
"""

from looplift import RowStream, dataflow, group_by


@dataflow(columns=("sensor", "ts", "avg_last_3"))
def moving_average(readings: RowStream[int, int, float]):
    """Per sensor and reading: the mean of the last three values up to that reading."""
    for sensor, rs in group_by(0, readings, order_by=1):
        window = []
        for _sensor, ts, value in rs:
            window.append(value)
            if len(window) > 3:
                window.pop(0)
            yield sensor, ts, sum(window) / len(window)
