"""Cohort analysis: dict and set accumulators, read after the loop.

Each event is ``(user_id, signup_month, month)``. A *cohort* is the users
who signed up in the same month. ``cohort_activity`` counts, per cohort,
the events of each month since signup with a dict of counters
(``counts[age] = counts.get(age, 0) + 1``), then yields one row per entry of
``sorted(counts.items())``. ``cohort_summary`` keeps a set of users and a
dict of events per month and reads them with ``len`` and
``max(d.values())``. The containers compile to reversible states (a dict of
sums, a set), so deleting an event takes it back out; the reads after the
loop are native Spark array functions.

>>> cohort_activity([(1, 3, 3), (1, 3, 4), (2, 3, 4), (3, 4, 4), (1, 3, 4)])
[(3, 0, 1), (3, 1, 3), (4, 0, 1)]
>>> cohort_summary([(1, 3, 3), (1, 3, 4), (2, 3, 4), (3, 4, 4)])
[(3, 2, 2, 2), (4, 1, 1, 1)]
"""

from looplift import RowStream, dataflow, group_by


@dataflow(columns=("cohort", "months_since_signup", "events"))
def cohort_activity(events: RowStream[int, int, int]):
    """Per signup-month cohort: the number of events in each month since signup."""
    for cohort, rows in group_by(1, events):
        counts = {}
        for _user, signup, month in rows:
            age = month - signup
            if age >= 0:
                counts[age] = counts.get(age, 0) + 1
        for age, n in sorted(counts.items()):
            yield cohort, age, n


@dataflow(columns=("cohort", "users", "active_months", "busiest_month_events"))
def cohort_summary(events: RowStream[int, int, int]):
    """Per cohort: distinct users, months with events, and the events of the busiest month."""
    for cohort, rows in group_by(1, events):
        users = set()
        per_month = {}
        for user, _signup, month in rows:
            users.add(user)
            per_month[month] = per_month.get(month, 0) + 1
        yield cohort, len(users), len(per_month), max(per_month.values())
