"""looplift.sql and register(): where calls may sit, plan shapes, errors, escaping.

Results are compared with the CPython reference on hypothesis-generated clicks; plan
shapes are read from Spark's physical plan; errors must name the call and its position.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

import looplift
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from looplift import LoopliftSQLError
from looplift.physplan import physical_plan, python_operator_count

from tests.frames import create_frame
from tests.helpers import SAMPLES, import_path
from tests.sql import algos

average = import_path(SAMPLES / "average.py")
clickstream = import_path(SAMPLES / "clickstream.py")
pages = import_path(SAMPLES / "pages.py")

pytestmark = pytest.mark.spark

CLICKS = st.lists(
    st.tuples(st.integers(1, 6), st.integers(0, 5), st.integers(0, 40)), min_size=1, max_size=60
)
SETTINGS = settings(max_examples=3, deadline=None, derandomize=True, database=None,
                    suppress_health_check=list(HealthCheck))  # fmt: skip


@pytest.fixture(scope="module")
def reg(spark: Any) -> dict:
    return looplift.register(
        spark, clickstream, pages.page_class, algos, avg_n=average.mean, avg_table=average.average
    )


def _clicks(spark: Any, rows: list, name: str = "clicks") -> None:
    df = create_frame(spark, rows, "user_id bigint, pagetype bigint, ts bigint")
    df.createOrReplaceTempView(name)


def _by_user(rows: list) -> dict[int, list]:
    out: dict[int, list] = defaultdict(list)
    for u, p, t in rows:
        out[u].append((p, t))
    return out


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    return a == b


def _rows(df: Any) -> list[tuple]:
    return [tuple(r) for r in df.collect()]


# -- the forms of SPEC §5 against CPython ---------------------------------------------------------


def test_spec_examples(spark: Any, reg: dict) -> None:
    @SETTINGS
    @given(CLICKS)
    def check(rows: list) -> None:
        _clicks(spark, rows)
        want_table = sorted(clickstream.clickstream(rows), key=lambda r: r[0])
        got = _rows(
            looplift.sql(spark, "SELECT * FROM clickstream(TABLE(clicks)) ORDER BY user_id")
        )
        assert [r[0] for r in got] == [r[0] for r in want_table]
        assert all(_same(g[1], w[1]) for g, w in zip(got, want_table, strict=True))
        got2 = _rows(looplift.sql(spark, "SELECT * FROM clickstream(TABLE(SELECT user_id, "
                                         "pagetype, ts FROM clicks)) ORDER BY user_id"))  # fmt: skip
        assert got2 == got
        by_user = _by_user(rows)
        got3 = _rows(
            looplift.sql(
                spark,
                """
            SELECT user_id, avg_path(pagetype, ts) AS avg_clicks
            FROM clicks GROUP BY user_id ORDER BY user_id""",
            )
        )
        want3 = [(u, clickstream.avg_path(by_user[u])) for u in sorted(by_user)]
        assert [r[0] for r in got3] == [r[0] for r in want3]
        assert all(_same(g[1], w[1]) for g, w in zip(got3, want3, strict=True))
        got4 = _rows(looplift.sql(spark, "SELECT page_class(pagetype) AS c FROM clicks"))
        assert sorted(r[0] for r in got4) == sorted(pages.page_class(p) for _, p, _ in rows)

    check()


def test_aggregates_share_one_aggregate_with_native_ones(spark: Any, reg: dict) -> None:
    q = """SELECT user_id, count(*) AS n, avg_path(pagetype, ts) AS a, avg_n(pagetype, ts) AS m,
                  max(ts) AS last
           FROM clicks GROUP BY user_id HAVING count(*) > 1 AND avg_n(pagetype, ts) >= 0
           ORDER BY a DESC NULLS LAST, user_id"""

    @SETTINGS
    @given(CLICKS)
    def check(rows: list) -> None:
        _clicks(spark, rows)
        by_user = _by_user(rows)
        want = []
        for u, cs in by_user.items():
            full = [(u, p, t) for p, t in cs]
            m = average.mean([(p, t) for p, t in cs])
            if len(cs) > 1 and m >= 0:
                want.append((u, len(cs), clickstream.avg_path(cs), m, max(t for _, t in cs)))
                assert full
        want.sort(key=lambda r: (r[2] is None, -(r[2] or 0), r[0]))
        got = _rows(looplift.sql(spark, q))
        assert len(got) == len(want), (got, want)
        for g, w in zip(got, want, strict=True):
            assert all(_same(x, y) for x, y in zip(g, w, strict=True)), (g, w)

    check()
    plan = physical_plan(looplift.sql(spark, q))
    # one shuffle by user_id, one aggregate pair for count, max, avg_n's sums and avg_path's
    # collect_list; avg_path's IntervalSequence is read natively after it (aggregate())
    assert plan.count("Exchange hashpartitioning(user_id") == 1, plan
    assert "collect_list" in plan and "ArrowEvalPython" not in plan, plan


def test_calls_in_ctes_subqueries_joins_and_where(spark: Any, reg: dict) -> None:
    @SETTINGS
    @given(CLICKS)
    def check(rows: list) -> None:
        _clicks(spark, rows)
        users = [(u, f"user {u}") for u in {r[0] for r in rows}]
        spark.createDataFrame(users, "id bigint, name string").createOrReplaceTempView("users")
        table = {u: a for u, a in clickstream.clickstream(rows)}
        q = """
            WITH recent AS (SELECT user_id, pagetype, ts FROM clicks WHERE ts >= 5),
                 per_user AS (SELECT * FROM clickstream(TABLE(recent)))
            SELECT u.name, p.avg_clicks
            FROM per_user p JOIN users u ON u.id = p.user_id
            WHERE p.user_id IN (SELECT user_id FROM clicks WHERE page_class(pagetype) = 2)
            ORDER BY u.name"""
        recent = [r for r in rows if r[2] >= 5]
        per_user = dict(clickstream.clickstream(recent))
        keep = {u for u, p, _ in rows if pages.page_class(p) == 2}
        want = sorted((f"user {u}", a) for u, a in per_user.items() if u in keep)
        got = _rows(looplift.sql(spark, q))
        assert [g[0] for g in got] == [w[0] for w in want]
        assert all(_same(g[1], w[1]) for g, w in zip(got, want, strict=True))
        assert table is not None
        # a scalar call inside an aggregate's argument, and in GROUP BY
        q2 = """SELECT page_class(pagetype) AS c, count(*) AS n,
                       avg_path(CASE WHEN page_class(pagetype) = 3 THEN 2 ELSE pagetype END, ts) AS a
                FROM clicks GROUP BY page_class(pagetype) ORDER BY c"""
        groups: dict[int, list] = defaultdict(list)
        for _u, p, t in rows:
            groups[pages.page_class(p)].append((2 if pages.page_class(p) == 3 else p, t))
        want2 = [(c, len(v), clickstream.avg_path(v)) for c, v in sorted(groups.items())]
        got2 = _rows(looplift.sql(spark, q2))
        assert [g[:2] for g in got2] == [w[:2] for w in want2]
        assert all(_same(g[2], w[2]) for g, w in zip(got2, want2, strict=True))

    check()


def test_global_aggregate_and_table_with_scalar_literals(spark: Any, reg: dict) -> None:
    rows = [("a", 1), ("b", 2), ("a", 3), ("it's", 4)]
    spark.createDataFrame(rows, "name string, v bigint").createOrReplaceTempView("tags")
    got = _rows(looplift.sql(spark, "SELECT tag_total(name, v, 'a') AS t FROM tags"))
    assert got == [(algos.tag_total(rows, "a"),)]
    got = _rows(looplift.sql(spark, "SELECT tag_total(name, v, 'it\\'s') FROM tags WHERE v < 0"))
    assert got == [(algos.tag_total([], "it's"),)]
    got = sorted(
        _rows(looplift.sql(spark, "SELECT * FROM tag_report(TABLE(tags), concat('x', 'y'))"))
    )
    assert got == sorted(algos.tag_report(rows, "xy"))


# -- plan shapes ---------------------------------------------------------------------------------


def test_scalar_is_native_and_plain_udtf_is_python(spark: Any, reg: dict) -> None:
    _clicks(spark, [(1, 0, 10), (1, 5, 11), (1, 1, 12)])
    assert (
        python_operator_count(looplift.sql(spark, "SELECT page_class(pagetype) FROM clicks")) == 0
    )
    native = looplift.sql(spark, "SELECT avg_n(pagetype, ts) FROM clicks GROUP BY user_id")
    assert python_operator_count(native) == 0
    assert "HashAggregate" in physical_plan(native)
    plain = spark.sql("SELECT * FROM clickstream(TABLE(clicks))")
    assert "BatchEvalPythonUDTF" in physical_plan(plain) or python_operator_count(plain) > 0
    # the pushed-down filter reaches below the spliced plan's entry projection
    q = looplift.sql(spark, "SELECT * FROM clickstream(TABLE(clicks)) WHERE user_id = 1")
    assert _rows(q) == [(1, 1.0)]


# -- errors --------------------------------------------------------------------------------------


ERRORS = [
    ("SELECT avg_path(pagetype) FROM clicks", "takes 2 argument(s)", 1, 8),
    (
        "SELECT user_id,\n  avg_path(CAST(pagetype AS STRING), ts) FROM clicks GROUP BY user_id",
        "argument 1 of `avg_path` (CAST(pagetype AS STRING)) is string",
        2,
        3,
    ),
    ("SELECT clickstream(pagetype) FROM clicks", "is a table algorithm", 1, 8),
    ("SELECT * FROM avg_path(TABLE(clicks))", "not a table", 1, 15),
    ("SELECT * FROM page_class(TABLE(clicks))", "not a table", 1, 15),
    ("SELECT avg_path(pagetype, ts) OVER (PARTITION BY user_id) FROM clicks", "window", 1, 8),
    ("SELECT avg_path(DISTINCT pagetype, ts) FROM clicks", "DISTINCT", 1, 8),
    ("SELECT tag_total(pagetype, ts, pagetype) FROM clicks", "takes a literal", 1, 8),
    ("SELECT tag_total(CAST(pagetype AS STRING), ts, 3) FROM clicks", "is str, got 3", 1, 8),
    ("SELECT * FROM clickstream(clicks)", "is a table: pass TABLE(name)", 1, 15),
    ("SELECT * FROM clickstream(TABLE(SELECT ts FROM clicks))", "has 1 columns", 1, 15),
    ("SELECT * FROM clickstream(TABLE(clicks), 3)", "takes 1 argument(s)", 1, 15),
    ("SELECT avg_pth(pagetype, ts) FROM clicks", "unknown function `avg_pth`", 1, 8),
    ("SELECT page_class(pagetype FROM clicks", "cannot parse", 1, None),
    ("SELECT 1; SELECT 2", "one query", None, None),
]


@pytest.mark.parametrize(("query", "words", "line", "col"), ERRORS)
def test_errors_name_the_call_and_its_position(spark: Any, reg: dict, query: str, words: str,
                                               line: int | None, col: int | None) -> None:  # fmt: skip
    _clicks(spark, [(1, 0, 10)])
    with pytest.raises(LoopliftSQLError) as info:
        looplift.sql(spark, query).collect()
    err = info.value
    assert words in str(err), str(err)
    if line is not None:
        assert err.line == line, str(err)
    if col is not None:
        assert err.col == col, str(err)
        assert "^" in str(err)


def test_null_in_a_field_names_the_argument(spark: Any, reg: dict) -> None:
    spark.createDataFrame([(1, None, 10)], "user_id bigint, pagetype bigint, ts bigint") \
        .createOrReplaceTempView("nulls")  # fmt: skip
    with pytest.raises(Exception, match=r"avg_path argument 1 \(pagetype\) is null"):
        looplift.sql(spark, "SELECT avg_path(pagetype, ts) FROM nulls").collect()


def test_register_refuses_builtin_and_bad_names(spark: Any) -> None:
    with pytest.raises(ValueError, match="Spark built-in function"):
        looplift.register(spark, average.mean)
    with pytest.raises(ValueError, match="plain SQL name"):
        looplift.register(spark, **{"bad name": average.mean})
    with pytest.raises(TypeError, match="@dataflow"):
        looplift.register(spark, 42)


# -- hostile identifiers and literals ------------------------------------------------------------

HOSTILE = ["user`id", "page'type; DROP TABLE clicks --", 'ts "größe" ✓\\']


def test_hostile_column_names_and_literals(spark: Any, reg: dict) -> None:
    rows = [(1, 0, 10), (1, 5, 11), (1, 1, 12), (2, 0, 3), (2, 1, 9)]
    df = spark.createDataFrame(rows, [*HOSTILE])
    df.createOrReplaceTempView("hostile_view")
    cols = ", ".join("`" + c.replace("`", "``") + "`" for c in HOSTILE)
    view = "`hostile_view`"
    got = sorted(
        _rows(looplift.sql(spark, f"SELECT * FROM clickstream(TABLE(SELECT {cols} FROM {view}))"))
    )
    assert got == sorted(clickstream.clickstream(rows))
    u, p, t = ("`" + c.replace("`", "``") + "`" for c in HOSTILE)
    got = sorted(
        _rows(
            looplift.sql(
                spark, f"SELECT {u}, avg_path({p}, {t}) AS `a``b` FROM {view} GROUP BY {u}"
            )
        )
    )
    want = sorted((k, clickstream.avg_path(v)) for k, v in _by_user(rows).items())
    assert got == want
    nasty = "it's `x`; DROP TABLE y; -- \\ \" ünï ✓"
    strings = [(nasty, 1), ("plain", 2), (nasty, 5)]
    spark.createDataFrame(strings, ["na`me", "v'al"]).createOrReplaceTempView("strs")
    lit = "'" + nasty.replace("\\", "\\\\").replace("'", "\\'") + "'"
    got = _rows(looplift.sql(spark, f"SELECT tag_total(`na``me`, `v'al`, {lit}) FROM strs"))
    assert got == [(algos.tag_total(strings, nasty),)]
    got = sorted(_rows(looplift.sql(spark, f"SELECT * FROM tag_report(TABLE(strs), {lit})")))
    assert got == sorted(algos.tag_report(strings, nasty))
    got = _rows(looplift.sql(spark, "SELECT quoted(`na``me`) FROM strs"))
    assert sorted(r[0] for r in got) == sorted(algos.quoted(s) for s, _ in strings)
    got = _rows(spark.sql("SELECT quoted(`na``me`) FROM strs"))  # the plain SQL function
    assert sorted(r[0] for r in got) == sorted(algos.quoted(s) for s, _ in strings)


def test_scalar_parameter_literals_keep_python_types(spark: Any, reg: dict) -> None:
    rows = [("a", 1), ("b", 2)]
    spark.createDataFrame(rows, "name string, v bigint").createOrReplaceTempView("tags")
    vs = [(v,) for _, v in rows]
    assert _rows(looplift.sql(spark, "SELECT scaled_total(v, 1.5) FROM tags")) == [
        (algos.scaled_total(vs, 1.5),)
    ]
    assert _rows(looplift.sql(spark, "SELECT scaled_total(v, 2) FROM tags")) == [
        (algos.scaled_total(vs, 2.0),)
    ]
    with pytest.raises(LoopliftSQLError, match="is str, got Decimal"):
        looplift.sql(spark, "SELECT tag_total(name, v, 1.5) FROM tags")
    with pytest.raises(LoopliftSQLError, match="is NULL"):
        looplift.sql(spark, "SELECT scaled_total(v, NULL) FROM tags")
