from looplift import RowStream, dataflow, group_by
from looplift.states import Count, Sum


@dataflow(columns=("country", "user", "clicks", "country_total"))
def per_user(rows: RowStream[str, int, int]):
    everyone = Count()
    for country, by_country in group_by(0, rows):
        total = Sum()
        for _c, _u, v in by_country:
            total.add(v)
            everyone.add()
        for user, by_user in group_by(1, by_country):
            n = Count()
            for _c2, _u2, _v2 in by_user:
                n.add()
            yield country, user, n.value(), total.value()
