"""Total distance travelled per vehicle (haversine between consecutive points)."""
import math

from looplift import RowStream, dataflow, group_by


def haversine(lat1, lon1, lat2, lon2):
    r = 6371.0
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp = p2 - p1
    dl = math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 2 * r * math.asin(math.sqrt(a))


@dataflow(columns=("vehicle", "km"))
def distance(points: RowStream[int, int, float, float]):
    for vid, g in group_by(0, points, order_by=1):
        total = 0.0
        prev = None
        for _v, _ts, lat, lon in g:
            if prev is not None:
                total += haversine(prev[0], prev[1], lat, lon)
            prev = (lat, lon)
        yield vid, total
