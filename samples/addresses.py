"""Address history, SCD type 2: change detection over consecutive rows.

Each snapshot is ``(customer, day, city, tier)``: the customer's record as
exported on that day; ``city`` may be unknown (``None``). Walking each
customer's snapshots by day (``group_by(0, snapshots, order_by=1)``),
``address_history`` emits a new version whenever the tracked attributes
(city, tier) differ from the previous snapshot's, as a slowly changing
dimension of type 2: version number, the attributes, ``valid_from`` (the day
of the change) and ``valid_to`` (the day the next version starts, ``None``
for the current one). A version is yielded when the next change closes it,
and the current one after the loop.

>>> address_history([(7, 1, "Oslo", 1), (7, 3, "Oslo", 1), (7, 5, "Bergen", 1), (7, 6, None, 2)])
[(7, 1, 'Oslo', 1, 1, 5), (7, 2, 'Bergen', 1, 5, 6), (7, 3, None, 2, 6, None)]
"""

from typing import Optional

from looplift import RowStream, dataflow, group_by


@dataflow(columns=("customer", "version", "city", "tier", "valid_from", "valid_to"))
def address_history(snapshots: RowStream[int, int, Optional[str], int]):  # noqa: UP045
    """Per customer: one row per version of (city, tier), with its validity."""
    for cid, history in group_by(0, snapshots, order_by=1):
        version = 0
        city = None
        tier = 0
        since = 0
        for _cid, day, new_city, new_tier in history:
            if version == 0 or new_city != city or new_tier != tier:
                if version > 0:
                    yield cid, version, city, tier, since, day
                version += 1
                city = new_city
                tier = new_tier
                since = day
        if version > 0:
            yield cid, version, city, tier, since, None
