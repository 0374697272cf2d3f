"""Visits per country and user: nested groups and tuple group keys.

``visits_by_country`` groups by country, then, inside each country, by
user. The country total is computed in the outer scope and used in the
inner one: the compiler joins the two on the outer scope key.
``visits_by_pair`` reaches the same per-(country, user) counts with a
single ``group_by`` on the tuple key ``(0, 1)``.

>>> visits_by_country([("de", 1, "a"), ("de", 2, "b"), ("de", 1, "c"), ("fr", 3, "a")])
[('de', 1, 2, 0.667), ('de', 2, 1, 0.333), ('fr', 3, 1, 1.0)]
"""

from looplift import RowStream, dataflow, group_by


@dataflow(columns=("country", "user_id", "visits", "share"))
def visits_by_country(visits: RowStream[str, int, str]):
    """Per country and user: visits, and the user's share of the country's visits."""
    for country, in_country in group_by(0, visits):
        country_visits = 0
        for _country, _uid, _url in in_country:
            country_visits += 1
        for uid, by_user in group_by(1, in_country):
            n = 0
            for _country, _uid, _url in by_user:
                n += 1
            yield country, uid, n, round(n / country_visits, 3)


@dataflow(columns=("country", "user_id", "visits", "label"))
def visits_by_pair(visits: RowStream[str, int, str]):
    """Per (country, user) key: visits and a readable label such as ``"de/1"``."""
    for key, pair_visits in group_by((0, 1), visits):
        country, uid = key
        n = 0
        for _country, _uid, _url in pair_visits:
            n += 1
        yield country, uid, n, country + "/" + str(uid)
