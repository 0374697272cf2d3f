"""``f.agg`` of a Python-reduced state with a field the expression never reads.

The null check of an unread non-Optional field cannot be a ``bool_or`` beside a grouped
pandas UDF (Spark runs such a UDF beside no other aggregate): it goes into the columns
the UDF reads, per row. Compared with CPython; a null there raises naming the column.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from tests.helpers import import_path

MODULE = '''
from looplift import RowStream, State, action, dataflow


class Spread(State):
    """Largest minus smallest value added (a user-defined state: a Python reducer)."""

    def __init__(self):
        self.values = []

    @action
    def add(self, x):
        self.values.append(x)

    @add.undo
    def add(self, x):
        self.values.remove(x)

    def value(self) -> int:
        return max(self.values) - min(self.values) if self.values else 0


@dataflow
def spread(clicks: RowStream[int, int]) -> int:
    s = Spread()
    for _page, ts in clicks:
        s.add(ts)
    return s.value()
'''


@pytest.fixture(scope="module")
def spread(tmp_path_factory: pytest.TempPathFactory):  # noqa: ANN201
    path = Path(tmp_path_factory.mktemp("unread")) / "agg_unread_field.py"
    path.write_text(textwrap.dedent(MODULE), encoding="utf-8")
    return import_path(path).spread


def test_python_reduced_agg_with_an_unread_field(spark, spread) -> None:  # noqa: ANN001
    rows = [(1, 5, 30), (1, 7, 10), (2, 1, 4), (2, None, 9), (1, 2, 11)]
    df = spark.createDataFrame(rows, "user_id bigint, page bigint, ts bigint")
    ok = df.where("page IS NOT NULL")
    got = {r[0]: r[1] for r in ok.groupBy("user_id").agg(spread.agg("page", "ts")).collect()}
    want = {}
    for u in {r[0] for r in rows if r[1] is not None}:
        want[u] = spread([(p, t) for uid, p, t in rows if uid == u and p is not None])
    assert got == want
    with pytest.raises(Exception, match="column 'page'"):
        df.groupBy("user_id").agg(spread.agg("page", "ts")).collect()
