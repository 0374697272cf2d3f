"""Every call form on a Spark Connect session (issue 12), against CPython.

A real Spark Connect server (``looplift.connect``, ``runtime/connect.py``: pyspark's own ``spark-connect``
jar, ``local[2]``, on 127.0.0.1) and its client session (``looplift.spark.remote_session``).
Per form, a few samples covering each kind of plan: a native fold (clickstream), a
user-defined state's Python reducer (mode), an ordered loop as a native window (ledger) and
as Python per group (moving), a host function and a scalar parameter (orders), scalar
algorithms (pages, orders). Each is compared with the reference on the module's doctest
examples and on hypothesis-generated inputs (``LOOPLIFT_CONNECT_EXAMPLES`` per algorithm,
default 1, derandomized). User modules reach the server's Python workers by value: a
module in a temporary directory, which the server cannot import, runs with its own state
class in every form.
"""

from __future__ import annotations

import os
import textwrap
from collections import Counter
from pathlib import Path
from typing import Any

import looplift
import pytest
from hypothesis import HealthCheck, Phase, given, settings

from tests.helpers import SAMPLES, import_path
from tests.spark.harness import (
    Case,
    assert_same,
    cases_of,
    check_scalar_batch,
    collect,
    expect_same_or_both_raise,
    reference_ok,
    row_types,
    scalar_inputs,
    table_inputs,
    to_df,
)

pytestmark = pytest.mark.spark

EXAMPLES = int(os.environ.get("LOOPLIFT_CONNECT_EXAMPLES", "1"))


def _case(module: str, name: str) -> Case:
    path = SAMPLES / f"{module}.py"
    return next(c for c in cases_of(path, import_path(path)) if c.algo.name == name)


TABLES = [("clickstream", "clickstream"), ("mode", "favourite_page"), ("ledger", "running_balance"),
          ("moving", "moving_average"), ("orders", "order_report")]  # fmt: skip
SCALARS = [("pages", "page_class"), ("orders", "euros")]


def _settings(n: int, salt: str, body: Any) -> Any:
    body._hypothesis_internal_add_digest = salt.encode()  # one seed per algorithm
    return settings(max_examples=n, deadline=None, derandomize=True, database=None,
                    phases=[Phase.explicit, Phase.generate],
                    suppress_health_check=list(HealthCheck))  # fmt: skip


@pytest.mark.parametrize("module,name", TABLES, ids=[f"{m}::{n}" for m, n in TABLES])
def test_dataframe_call(connect: Any, module: str, name: str) -> None:
    """``f(df)`` on a Connect DataFrame: the module's examples and generated inputs."""
    case = _case(module, name)
    for args in case.examples:
        rows = args[0]
        expect_same_or_both_raise(connect, case.algo, rows, tuple(args[1:]))

    def body(inputs: tuple) -> None:
        rows, scalars = inputs
        if reference_ok(case.algo, rows, scalars):
            expect_same_or_both_raise(connect, case.algo, rows, scalars)

    body = given(table_inputs(case.algo, case.pools, max_size=12))(body)
    _settings(EXAMPLES, f"connect/{case.id}", body)(body)()


@pytest.mark.parametrize("module,name", SCALARS, ids=[f"{m}::{n}" for m, n in SCALARS])
def test_scalar_column_call(connect: Any, module: str, name: str) -> None:
    """``df.select(f(col))``: the scalar algorithm as one SQL function over Columns."""
    case = _case(module, name)
    check_scalar_batch(connect, case.algo, [tuple(a) for a in case.examples])

    def body(batch: list) -> None:
        check_scalar_batch(connect, case.algo, batch)

    body = given(scalar_inputs(case.algo, case.pools, max_size=20))(body)
    _settings(1, f"connect/{case.id}", body)(body)()


def test_errors_surface_as_python_classes(connect: Any) -> None:
    """A ``raise ValueError(...)`` in a scalar and in a table algorithm surfaces through
    Spark Connect's exceptions as Python's class (``raise_error`` in the plan)."""
    import datetime

    billing = import_path(SAMPLES / "billing.py")
    counts = check_scalar_batch(connect, billing.to_eur, [(2.0, "USD"), (1.0, "XYZ")])
    assert counts["raising rows"] == 1
    t = datetime.datetime(2024, 12, 30, 12, 0)
    rows = [(7, "basic", "GBP", 2.0, t), (8, "gold", "EUR", 1.0, t)]
    assert expect_same_or_both_raise(connect, billing.invoice_lines, rows) == "both raised"


def _clicks() -> list[tuple]:
    return [(1, 0, 10), (1, 5, 11), (1, 1, 12), (1, 0, 13), (2, 0, 1), (2, 3, 2), (2, 1, 3),
            (3, 1, 5), (3, 0, 6), (4, 2, 7)]  # fmt: skip


def test_aggregate_forms(connect: Any) -> None:
    """An aggregate as ``f(df)`` (one row) and as one Column in ``groupBy().agg``."""
    from pyspark.sql import functions as F

    mod = import_path(SAMPLES / "clickstream.py")
    rows = _clicks()
    expect_same_or_both_raise(connect, mod.avg_path, [r[1:] for r in rows])
    df = connect.createDataFrame(rows, "user_id long, pagetype long, ts long")
    out = df.groupBy("user_id").agg(mod.avg_path.agg("pagetype", F.col("ts")))
    users = sorted({r[0] for r in rows})
    want = [(u, mod.avg_path([r[1:] for r in rows if r[0] == u])) for u in users]
    assert_same("table", sorted(collect(out)), want, "avg_path.agg on Spark Connect")


def test_sql_forms(connect: Any) -> None:
    """``looplift.register`` then ``looplift.sql`` (spliced: table calls' plans travel
    with the query) and plain ``spark.sql`` (SQL function, UDAF, UDTF)."""
    click = import_path(SAMPLES / "clickstream.py")
    mode = import_path(SAMPLES / "mode.py")
    pages = import_path(SAMPLES / "pages.py")
    looplift.register(connect, click.clickstream, click.avg_path, mode.favourite_page,
                      pages.page_class)  # fmt: skip
    rows = _clicks()
    connect.createDataFrame(rows, "user_id long, pagetype long, ts long").createOrReplaceTempView(
        "connect_clicks"
    )
    per_user = [(u, click.avg_path([r[1:] for r in rows if r[0] == u]))
                for u in sorted({r[0] for r in rows})]  # fmt: skip
    for run in (lambda q: looplift.sql(connect, q), connect.sql):
        got = collect(run("SELECT * FROM clickstream(TABLE(connect_clicks))"))
        assert_same("table", got, click.clickstream(rows), "clickstream(TABLE(...))")
        got = collect(run("SELECT f.* FROM favourite_page(TABLE(SELECT * FROM connect_clicks)) f"))
        assert_same("table", got, mode.favourite_page(rows), "favourite_page(TABLE(SELECT ...))")
        got = collect(run("SELECT user_id, avg_path(pagetype, ts) FROM connect_clicks "
                          "GROUP BY user_id ORDER BY user_id"))  # fmt: skip
        assert_same("table", got, per_user, "avg_path(...) GROUP BY")
        got = collect(run("SELECT pagetype, page_class(pagetype) FROM connect_clicks"))
        want = [(r[1], pages.page_class(r[1])) for r in rows]
        assert_same("table", got, want, "page_class(...)")
    # a table call joined with its own input, in one spliced query
    got = collect(looplift.sql(connect, "SELECT c.user_id, c.avg_clicks, n.k FROM "
                               "clickstream(TABLE(connect_clicks)) c JOIN (SELECT user_id, "
                               "count(*) AS k FROM connect_clicks GROUP BY user_id) n "
                               "ON c.user_id = n.user_id"))  # fmt: skip
    counts = Counter(r[0] for r in rows)
    assert_same("table", got, [(u, a, counts[u]) for u, a in click.clickstream(rows)], "join")


def test_explain(connect: Any, capsys: Any) -> None:
    """``f.explain(df)``: the server's physical plan, each operator marked native or Python."""
    mode = import_path(SAMPLES / "mode.py")
    click = import_path(SAMPLES / "clickstream.py")
    df = connect.createDataFrame(_clicks(), "user_id long, pagetype long, ts long")
    text = mode.favourite_page.explain(df)
    assert "spark physical plan:" in text and "[Python]" in text and "[native]" in text
    assert "ArrowAggregatePython" in text or "MapInArrow" in text
    native = click.clickstream.explain(df)
    assert "runs: fully native" in native and "[Python]" not in native
    assert "ObjectHashAggregate" in native


def test_stream(connect: Any, tmp_path: Path) -> None:
    """``f.stream(...)`` on a Connect streaming DataFrame (``applyInPandasWithState``): a
    parquet source of signed rows, a parquet sink (a ``foreachBatch`` function would run on
    the server), the summed changes equal the reference on the net rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    click = import_path(SAMPLES / "clickstream.py")
    src = tmp_path / "src"
    src.mkdir()
    first = [(1, 0, 10), (1, 5, 11), (1, 1, 12), (2, 0, 1), (2, 1, 3)]
    deleted = [(2, 1, 3)]
    signed = [(r, 1) for r in first] + [(r, -1) for r in deleted]
    cols = {f"c{i}": pa.array([r[i] for r, _ in signed], pa.int64()) for i in range(3)}
    cols["_sign"] = pa.array([s for _, s in signed], pa.int32())
    pq.write_table(pa.table(cols), src / "part-0.parquet")
    sdf = connect.readStream.schema("c0 bigint, c1 bigint, c2 bigint, _sign int").parquet(str(src))
    out = click.clickstream.stream(sdf, "_sign")
    assert out.isStreaming and list(out.columns) == ["user_id", "avg_clicks", "_sign"]
    query = (out.writeStream.format("parquet").option("path", str(tmp_path / "out"))
             .option("checkpointLocation", str(tmp_path / "ckpt"))
             .trigger(availableNow=True).start())  # fmt: skip
    query.awaitTermination(300)
    assert query.exception() is None, query.exception()
    total: Counter = Counter()
    for *row, sign in collect(connect.read.parquet(str(tmp_path / "out"))):
        total[tuple(row)] += sign
    net = list((Counter(first) - Counter(deleted)).elements())
    assert +total == Counter(click.clickstream(net))


@pytest.mark.parametrize("store", ["local", "spark"])
def test_incremental_view(connect: Any, tmp_path: Path, store: str) -> None:
    """``f.incremental(spark, checkpoint).apply(signed_df)`` with a Connect DataFrame, in
    both stores (the Spark store: bulk load, apply job and result through the server)."""
    click = import_path(SAMPLES / "clickstream.py")
    view = click.clickstream.incremental(connect, str(tmp_path / "view"), store=store)
    assert view.store == store
    first = _clicks()
    ddl = "user_id long, pagetype long, ts long, _sign int"
    changes = view.apply(connect.createDataFrame([(*r, 1) for r in first], ddl))
    assert list(changes.columns) == ["user_id", "avg_clicks", "_sign"]
    deleted = first[:2]
    view.apply(connect.createDataFrame([(*r, -1) for r in deleted], ddl))
    net = list((Counter(first) - Counter(deleted)).elements())
    assert_same("table", collect(view.result()), click.clickstream(net), "incremental view")


USER_MODULE = '''
"""A user module the Spark Connect server cannot import (it lives in a temp dir)."""

from looplift import RowStream, State, action, dataflow, group_by


def bucket(ts: int) -> int:
    return ts // 10


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


@dataflow(columns=("user_id", "spread", "buckets"))
def {name}(clicks: RowStream[int, int, int]):
    for uid, user_clicks in group_by(0, clicks):
        s = Spread()
        n = 0
        for _uid, _page, ts in user_clicks:
            s.add(ts)
            n += bucket(ts)
        yield uid, s.value(), n


@dataflow
def {name}_agg(clicks: RowStream[int, int]) -> int:
    s = Spread()
    for _page, ts in clicks:
        s.add(ts)
    return s.value()
'''


def test_user_module_not_importable_on_server(connect: Any, tmp_path: Path) -> None:
    """A user state class and host function from a module only the client has (a temp
    dir) run on the server's Python workers, pickled by value: ``f(df)``, ``f.agg``,
    ``looplift.sql`` and plain ``spark.sql``."""
    from pyspark.sql import functions as F

    name = f"connect_user_{os.getpid()}"
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(USER_MODULE).replace("{name}", name), encoding="utf-8")
    mod = import_path(path)
    algo, agg = getattr(mod, name), getattr(mod, f"{name}_agg")

    @F.udf("boolean")
    def importable() -> bool:
        import importlib.util

        return importlib.util.find_spec(name) is not None

    assert connect.range(1).select(importable()).first()[0] is False

    rows = _clicks()
    expect_same_or_both_raise(connect, algo, rows)
    df = to_df(connect, rows, row_types(algo), ["user_id", "pagetype", "ts"])
    got = collect(df.groupBy("user_id").agg(agg.agg("pagetype", "ts")))
    want = [(u, agg([r[1:] for r in rows if r[0] == u])) for u in sorted({r[0] for r in rows})]
    assert_same("table", sorted(got), want, "user state .agg on Spark Connect")
    looplift.register(connect, algo)
    df.createOrReplaceTempView("connect_user_clicks")
    for run in (lambda q: looplift.sql(connect, q), connect.sql):
        got = collect(run(f"SELECT * FROM {name}(TABLE(connect_user_clicks))"))
        assert_same("table", got, algo(rows), f"{name}(TABLE(...)) on Spark Connect")


def test_generated_plans_use_no_jvm() -> None:
    """The generated plan modules only use the DataFrame/Column/SQL API (no SparkContext,
    JVM handles or RDDs), so they run on Spark Connect."""
    for module, name in TABLES:
        source = _case(module, name).algo.backend().source
        for word in ("sparkContext", "_jvm", "_jdf", ".rdd", "_jsc"):
            assert word not in source, f"{module}::{name}'s plan uses {word}"


def test_errors_name_the_source_line(connect: Any) -> None:
    """A plan's run-time error through Spark Connect says CPython's class and message and
    the user's ``file:line``; ``looplift.python_errors()`` re-raises it as the class."""
    from tests.spark import errors_prog
    from tests.spark.test_runtime_errors import line_of

    df = connect.createDataFrame([(1, "12"), (2, "x")], "k long, text string")
    with pytest.raises(ValueError) as e, looplift.python_errors():
        errors_prog.parse_counts(df).collect()
    text = str(e.value)
    assert "invalid literal for int() with base 10: 'x'" in text, text
    assert f"errors_prog.py:{line_of('int')} in parse_counts" in text, text


def test_string_kernels(connect: Any) -> None:
    """The server ``looplift.connect`` starts has looplift's JVM kernels in every session
    (its extension): ``strip`` and ASCII ``lower`` on Spark Connect call them, exactly;
    a session of a server without the extension registers them as Java UDFs instead."""
    from looplift import kernels
    from pyspark.sql import functions as F

    from tests.spark.test_kernels import EDGES, plain

    df = connect.createDataFrame([(s,) for s in EDGES], "s string")
    rows = df.select("s", plain(F.col("s")).alias("r")).collect()
    assert kernels.mode(connect) == "jvm"
    assert [r.s for r in rows if tuple(r.r) != plain(r.s)] == []
    # the path of a server without the extension, on a session of its own
    other = connect.newSession()
    assert kernels._connect_udfs(other) == "udf"
    kernels._MODE[other] = "udf"
    one = [name for name, k in kernels.KERNELS.items() if len(k.params) == 1]
    got = other.createDataFrame([(s,) for s in EDGES], "s string").selectExpr(
        "s", *[f"{name}(s) AS `{name}`" for name in one],
        "looplift_regex_like(s, '(a)|b') AS like", "looplift_regex_group(s, '(a)|b', 1) AS g1",
        "regexp_like(s, '(a)|b') AS like_", "regexp_extract(s, '(a)|b', 1) AS g1_").collect()  # fmt: skip
    for r in got:
        assert (r.looplift_strip, r.looplift_lstrip, r.looplift_rstrip) == (
            r.s.strip(), r.s.lstrip(), r.s.rstrip()), r.s  # fmt: skip
        assert r.looplift_lower_ascii == (r.s.lower() if r.s.isascii() else None), r.s
        assert (r.like, r.g1) == (r.like_, r.g1_), r.s
