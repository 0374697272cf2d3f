"""Compiled algorithms in Spark SQL: :func:`register` and :func:`sql`.

``register(spark, *algorithms)`` makes algorithms callable by name:

- from :func:`sql` (the fast path), which parses the query with sqlglot,
  finds the calls and splices each compiled graph into the query between two
  projections, so Spark optimizes across the boundary: a scalar algorithm
  becomes its native expression, an aggregate native aggregate functions
  (plus, for action states, a native ``collect_list`` of the map phase and
  an Arrow function over each group's list, so it shares one Aggregate with
  the query's other aggregates), a table algorithm its generated plan over
  the ``TABLE(...)`` argument;
- from plain ``spark.sql``: scalar algorithms as SQL functions (inlined by
  Spark), aggregates as grouped Arrow UDAFs and table algorithms as Python
  UDTFs running the reference Python. Correct, but opaque to the optimizer.
"""

from __future__ import annotations

import decimal
import itertools
import re
import types
import uuid
import weakref
from dataclasses import dataclass
from typing import Any

from .registry import Algorithm
from .sqltext import quote_ident, sql_literal, sql_string

__all__ = ["LoopliftSQLError", "register", "registered", "sql"]


def _arrow_udf(fn: Any, rtype: str, kind: str) -> Any:
    """``arrow_udf`` with an explicit function type (without Spark's nudge toward hints)."""
    import warnings

    from pyspark.sql.functions import ArrowUDFType, arrow_udf

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return arrow_udf(fn, rtype, functionType=getattr(ArrowUDFType, kind))


_REGISTRY: weakref.WeakKeyDictionary[Any, dict[str, Algorithm]] = weakref.WeakKeyDictionary()
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_COUNTER = itertools.count()


class LoopliftSQLError(ValueError):
    """A query looplift cannot run, with the position of the call it is about."""

    def __init__(self, message: str, query: str | None = None, start: int | None = None,
                 end: int | None = None) -> None:  # fmt: skip
        self.reason = message
        self.line = self.col = None
        text = f"looplift.sql: {message}"
        if query is not None and start is not None:
            line = query.count("\n", 0, start) + 1
            col = start - (query.rfind("\n", 0, start) + 1) + 1
            self.line, self.col = line, col
            src = query.splitlines()[line - 1] if query.splitlines() else ""
            width = max(1, min((end or start) - start + 1, len(src) - col + 1))
            text = (
                f"looplift.sql: line {line}, col {col}: {message}\n"
                f"  {src}\n  {' ' * (col - 1)}{'^' * width}"
            )
        super().__init__(text)


# -- registration ---------------------------------------------------------------------------------


def registered(spark: Any) -> dict[str, Algorithm]:
    """The algorithms registered in a session, by lower-case name."""
    return dict(_REGISTRY.get(spark, {}))


def register(spark: Any, *algorithms: Any, **renamed: Any) -> dict[str, Algorithm]:
    """Make compiled algorithms callable by name from :func:`sql` and ``spark.sql``.

    Each argument is a ``@dataflow`` algorithm, a module (its ``@dataflow``
    algorithms, or a build package's), or a compiled :class:`Algorithm`.
    Keyword arguments register one algorithm under another name
    (``register(spark, top_pages=mode)``). Returns the registered algorithms.
    """
    from .spark import prepare_session, ship

    todo: list[Algorithm] = []
    for a in algorithms:
        todo.extend(_algorithms_of(a))
    for name, a in renamed.items():
        found = _algorithms_of(a)
        if len(found) != 1:
            raise TypeError(f"register(..., {name}=...) takes one algorithm, not {a!r}")
        todo.append(found[0].renamed(name))
    names: dict[str, Algorithm] = {}
    for alg in todo:
        if not _NAME.match(alg.name):
            raise ValueError(f"`{alg.name}` is not a plain SQL name; register it under another")
        if alg.name.lower() in names and names[alg.name.lower()] != alg:
            raise ValueError(f"two algorithms named `{alg.name}`; rename one with name=algorithm")
        names[alg.name.lower()] = alg
    prepare_session(spark)
    ship(sorted({r for alg in names.values() for r in alg.refs}))
    builtins = _builtin_functions(spark)
    for alg in names.values():
        if alg.name.lower() in builtins:
            raise ValueError(
                f"`{alg.name}` is a Spark built-in function; register it under another name, "
                f"e.g. looplift.register(spark, my_{alg.name}={alg.name})"
            )
    for alg in names.values():
        _register_plain(spark, alg)
    reg = _REGISTRY.setdefault(spark, {})
    reg.update(names)
    return names


def _algorithms_of(a: Any) -> list[Algorithm]:
    from .api import Dataflow

    if isinstance(a, Algorithm):
        return [a]
    if isinstance(a, Dataflow):
        return [a.algorithm()]
    if isinstance(a, types.ModuleType):
        built = getattr(a, "ALGORITHMS", None)
        if isinstance(built, dict):
            return list(built.values())
        found = [v for v in vars(a).values()
                 if isinstance(v, Dataflow) and v.fn.__module__ == a.__name__]  # fmt: skip
        if not found:
            raise TypeError(f"module {a.__name__} has no @dataflow algorithms")
        return [v.algorithm() for v in sorted(found, key=lambda d: d.name)]
    raise TypeError(f"register() takes @dataflow algorithms or modules, not {a!r}")


def _builtin_functions(spark: Any) -> set[str]:
    cache = _BUILTINS.get(spark)
    if cache is None:
        rows = spark.sql("SHOW SYSTEM FUNCTIONS").collect()
        cache = {r[0].split(".")[-1].lower() for r in rows}
        _BUILTINS[spark] = cache
    return cache


_BUILTINS: weakref.WeakKeyDictionary[Any, set[str]] = weakref.WeakKeyDictionary()


def _register_plain(spark: Any, alg: Algorithm) -> None:
    """Register ``alg`` for plain ``spark.sql`` (and its helpers for :func:`sql`)."""
    from .spark import register_pycalls

    if alg.kind == "scalar":
        assert alg.scalar is not None
        register_pycalls(spark, alg.scalar["pycalls"])
        create = alg.scalar["create"]
        spark.sql(create)  # the hashed name :func:`sql` splices
        fn = quote_ident(alg.scalar["function"])
        spark.sql(create.replace(fn, quote_ident(alg.name), 1))
    elif alg.kind == "aggregate":
        spark.udf.register(alg.name, _reference_udaf(alg))
    else:
        spark.udtf.register(alg.name, _reference_udtf(spark, alg))


# -- plain spark.sql: the reference Python as a UDAF / UDTF ---------------------------------------


def _reference_udaf(alg: Algorithm) -> Any:
    """A grouped Arrow aggregate: the group's rows through the reference function."""
    from .spark import _out, _pylist

    ref, nfields, rtype = alg.reference(), len(alg.fields), alg.output[0][1]
    order = _param_order(alg)

    def reduce_group(*cols: Any) -> Any:
        lists = [_pylist(c) for c in cols]
        rows = list(zip(*lists[:nfields], strict=True))
        scalars = iter(lst[0] if lst else None for lst in lists[nfields:])
        args = [rows if k == "rows" else next(scalars) for k in order]
        return _out(ref(*args), rtype)

    return _arrow_udf(reduce_group, rtype, "GROUPED_AGG")


def _param_order(alg: Algorithm) -> list[str]:
    return [kind for _, kind, _ in alg.params]


def _reference_udtf(spark: Any, alg: Algorithm) -> Any:
    """A Python UDTF over a ``TABLE(...)`` argument: all rows, then the reference function."""
    from pyspark.sql.functions import udtf
    from pyspark.sql.udtf import AnalyzeResult

    schema = _output_schema(spark, alg)
    ref, order = alg.reference(), _param_order(alg)
    ftypes = [f.dataType.simpleString() for f in schema.fields]

    class ReferenceTable:
        @staticmethod
        def analyze(*_args: Any) -> Any:
            return AnalyzeResult(schema=schema, withSinglePartition=True)

        def __init__(self) -> None:
            self.rows: list[tuple] = []
            self.scalars: list[Any] = []

        def eval(self, row: Any, *scalars: Any) -> None:
            self.rows.append(tuple(row))
            self.scalars = list(scalars)

        def terminate(self) -> Any:
            from .spark import _out

            it = iter(self.scalars)
            args = [self.rows if k == "rows" else next(it, None) for k in order]
            for r in ref(*args):
                yield tuple(_out(v, t) for v, t in zip(r, ftypes, strict=True))

    ReferenceTable.__name__ = f"looplift_{alg.name}"
    return udtf(ReferenceTable)


def _output_schema(spark: Any, alg: Algorithm) -> Any:
    """A table algorithm's output schema, as its compiled plan produces it."""
    from pyspark.sql.types import StructType

    from .spark import _CAST

    ddl = ", ".join(f"f{i} {_CAST.get(_base(t), 'DOUBLE')}" for i, t in enumerate(alg.fields))
    empty = spark.createDataFrame([], ddl)
    scalars = [_zero(t) for _, t in alg.scalar_params]
    out = alg.plan().plan(spark, empty, *scalars)
    assert isinstance(out.schema, StructType)
    return out.schema


def _base(t: str) -> str:
    """``int`` of ``Optional[int]``."""
    return t[len("Optional[") : -1] if t.startswith("Optional[") else t


def _zero(t: str) -> Any:
    return {"int": 0, "float": 0.0, "str": "", "bool": False}.get(_base(t))


# -- looplift.sql: splicing ----------------------------------------------------------------------


def sql(spark: Any, query: str) -> Any:
    """Run a Spark SQL query in which registered algorithms are spliced in natively.

    Calls of registered algorithms may appear wherever their kind fits: scalar
    algorithms in expressions, aggregates where an aggregate function may go
    (with or without ``GROUP BY``, in ``HAVING`` and ``ORDER BY``), table
    algorithms in ``FROM`` as ``name(TABLE(t))`` or ``name(TABLE(SELECT ...))``.
    Scalar parameters take literals (or constant expressions).
    """
    reg = _REGISTRY.get(spark, {})
    splicer = _Splicer(spark, reg, query)
    try:
        return splicer.run()
    finally:
        splicer.drop_views()


_PLACEHOLDER = re.compile(r"__looplift_splice_(\d+)__")


@dataclass
class _Call:
    node: Any
    alg: Algorithm
    start: int | None
    end: int | None


class _Splicer:
    def __init__(self, spark: Any, reg: dict[str, Algorithm], query: str,
                 outer_ctes: list[Any] | None = None, views: list[str] | None = None) -> None:  # fmt: skip
        self.spark, self.reg, self.query = spark, reg, query
        self.splices: dict[int, str] = {}
        self.outer_ctes = outer_ctes or []
        self.views: list[str] = views if views is not None else []

    # -- driver ----------------------------------------------------------------------
    def run(self) -> Any:
        tree = self.parse()
        calls = self.calls(tree)
        if not calls:
            if not self.outer_ctes:
                return self.execute(self.query, tree)
            return self.execute(self.resolve(self.with_ctes(tree).sql(dialect="spark")), tree)
        for c in calls:  # table calls first: their views must exist when other calls are typed
            if c.alg.kind == "table" and _attached(c.node, tree):
                self.splice_table(c, tree)
        for c in calls:  # inner calls before the calls whose arguments contain them
            if c.alg.kind != "table" and _attached(c.node, tree):
                self.splice_expression(c, tree)
        text = self.resolve(self.with_ctes(tree).sql(dialect="spark"))
        return self.execute(text, tree)

    def execute(self, text: str, tree: Any) -> Any:
        """``spark.sql(text)``; an unknown function is reported at its call in the query."""
        try:
            return self.spark.sql(text)
        except Exception as e:
            m = re.search(r"UNRESOLVED_ROUTINE\] Cannot resolve routine `([^`]+)`", str(e))
            if m is None:
                raise
            import difflib

            from sqlglot import exp

            name = m.group(1).split(".")[-1]
            node = next((n for n in tree.walk() if isinstance(n, exp.Func)
                         and str(n.name if isinstance(n, exp.Anonymous) else n.sql_name()).lower()
                         == name.lower()), None)  # fmt: skip
            close = difflib.get_close_matches(name.lower(), list(self.reg), n=1)
            hint = f"; did you mean `{self.reg[close[0]].name}`?" if close else ""
            known = ", ".join(sorted(a.name for a in self.reg.values())) or "none"
            start = (node.meta or {}).get("start") if node is not None else None
            raise LoopliftSQLError(
                f"unknown function `{name}`{hint} (registered algorithms: {known}; register "
                "more with looplift.register(spark, ...))",
                self.query,
                start,
                _call_end(self.query, start),
            ) from None

    def drop_views(self) -> None:
        for v in self.views:
            self.spark.catalog.dropTempView(v)
        self.views.clear()

    def error(self, message: str, call: _Call | None = None) -> LoopliftSQLError:
        if call is None:
            return LoopliftSQLError(message, self.query)
        return LoopliftSQLError(message, self.query, call.start, call.end)

    # -- parsing ---------------------------------------------------------------------
    def parse(self) -> Any:
        import sqlglot
        from sqlglot import errors

        try:
            trees = [t for t in sqlglot.parse(self.query, dialect=_dialect(self.reg)) if t]
        except errors.ParseError as e:
            err = e.errors[0] if e.errors else {}
            start = _offset(self.query, err.get("line"), err.get("col"))
            raise LoopliftSQLError(
                f"cannot parse the query: {err.get('description', e)}", self.query, start, start
            ) from None
        if len(trees) != 1:
            raise LoopliftSQLError(f"expected one query, got {len(trees)} statements")
        return trees[0]

    def calls(self, tree: Any) -> list[_Call]:
        """Calls of registered algorithms, innermost first."""
        from sqlglot import exp

        out = []
        for node in tree.walk(bfs=False):
            if not isinstance(node, exp.Func):
                continue
            name = node.name if isinstance(node, exp.Anonymous) else node.sql_name()
            alg = self.reg.get(str(name).lower())
            if alg is None:
                continue
            meta = node.meta or {}
            start = meta.get("start")
            end = _call_end(self.query, start)
            out.append(_Call(node, alg, start, end))
        out.reverse()  # pre-order reversed: children before parents
        return out

    def with_ctes(self, tree: Any) -> Any:
        """``tree`` with the CTEs of an enclosing query (for a ``TABLE(SELECT ...)``)."""
        if not self.outer_ctes:
            return tree
        from sqlglot import exp

        tree = tree.copy()
        own = tree.args.get("with_") or tree.args.get("with")
        ctes = [c.copy() for c in self.outer_ctes] + (list(own.expressions) if own else [])
        key = "with_" if "with_" in tree.arg_types else "with"
        tree.set(key, exp.With(expressions=ctes))
        return tree

    def resolve(self, text: str) -> str:
        for _ in range(100):
            new = _PLACEHOLDER.sub(lambda m: self.splices[int(m.group(1))], text)
            if new == text:
                return new
            text = new
        raise AssertionError("looplift.sql: splices nest too deep")

    def placeholder(self, text: str) -> Any:
        from sqlglot import exp

        i = len(self.splices)
        self.splices[i] = text
        return exp.column(f"__looplift_splice_{i}__")

    # -- table calls -----------------------------------------------------------------
    def splice_table(self, call: _Call, tree: Any) -> None:
        from sqlglot import exp

        node, alg = call.node, call.alg
        parent = node.parent
        if not isinstance(parent, exp.Table) or isinstance(parent.parent, exp.Lateral):
            raise self.error(
                f"`{alg.name}` is a table algorithm; call it in FROM: "
                f"SELECT * FROM {alg.name}(TABLE(...))",
                call,
            )
        args = list(_args(node))
        nrows = sum(1 for p in alg.params if p[1] == "rows")
        if len(args) != len(alg.params):
            raise self.error(
                f"`{alg.name}` takes {len(alg.params)} argument(s) "
                f"({_describe_params(alg)}), got {len(args)}",
                call,
            )
        if nrows != 1:
            raise self.error(f"`{alg.name}` takes {nrows} tables; only one is supported", call)
        frames, scalars = [], []
        for (pname, kind, ftypes), arg in zip(alg.params, args, strict=True):
            if kind == "rows":
                frames.append(self.table_argument(call, pname, ftypes, arg, tree))
            else:
                scalars.append(self.constant(call, pname, ftypes[0] if ftypes else "any", arg))
        it = iter(scalars)
        plan_args = [frames[0] if k == "rows" else next(it) for _, k, _ in alg.params]
        out = alg.plan().plan(self.spark, *plan_args)
        view = f"__looplift_{alg.name}_{next(_COUNTER)}_{uuid.uuid4().hex[:8]}"
        out.createOrReplaceTempView(view)
        self.views.append(view)
        alias = parent.args.get("alias")
        new = exp.Table(this=exp.to_identifier(view))
        if alias is None:
            alias = exp.TableAlias(this=exp.to_identifier(alg.name))
        new.set("alias", alias)
        parent.replace(new)

    def table_argument(self, call: _Call, pname: str, ftypes: tuple[str, ...], arg: Any,
                       tree: Any) -> Any:  # fmt: skip
        from sqlglot import exp

        from .spark import DataflowInputError, entry

        inner = None
        if isinstance(arg, exp.Anonymous) and str(arg.name).upper() == "TABLE":
            inner = arg.expressions[0] if len(arg.expressions) == 1 else None
        elif isinstance(arg, (exp.Subquery, exp.Select, exp.Union)):
            inner = arg
        if inner is None:
            raise self.error(
                f"argument `{pname}` of `{call.alg.name}` is a table: pass TABLE(name) or "
                "TABLE(SELECT ...)",
                call,
            )
        if isinstance(inner, exp.Subquery):
            inner = inner.this
        if isinstance(inner, (exp.Column, exp.Table, exp.Identifier, exp.Dot)):
            parts = [p.name for p in inner.parts] if hasattr(inner, "parts") else [inner.name]
            inner = exp.select("*").from_(exp.Table(this=exp.to_identifier(parts[-1]),
                db=exp.to_identifier(parts[-2]) if len(parts) > 1 else None))  # fmt: skip
        ctes = self.outer_ctes + _enclosing_ctes(call.node)
        sub = _Splicer(self.spark, self.reg, inner.sql(dialect="spark"), ctes, self.views)
        try:
            df = sub.run()
        except LoopliftSQLError:
            raise
        except Exception as e:  # noqa: BLE001 - name the call, keep Spark's reason
            raise self.error(
                f"the table argument of `{call.alg.name}` fails: {_first(e)}", call
            ) from None
        try:
            entry(df, pname, list(ftypes))  # types and arity, checked before running
        except DataflowInputError as e:
            raise self.error(f"`{call.alg.name}(TABLE(...))`: {e}", call) from None
        return df

    # -- scalar and aggregate calls --------------------------------------------------
    def splice_expression(self, call: _Call, tree: Any) -> None:
        from sqlglot import exp

        node, alg = call.node, call.alg
        if isinstance(node.parent, exp.Table):
            raise self.error(
                f"`{alg.name}` is a{'n' if alg.kind == 'aggregate' else ''} {alg.kind} algorithm, "
                "not a table: call it in an expression, e.g. "
                + (
                    f"SELECT {alg.name}(...) FROM t"
                    + (" GROUP BY ..." if alg.kind == "aggregate" else "")
                ),  # fmt: skip
                call,
            )
        if isinstance(node.parent, exp.Window):
            raise self.error(f"`{alg.name}` cannot be used as a window function (OVER)", call)
        args = list(_args(node))
        if any(isinstance(a, exp.Distinct) for a in args) or node.args.get("distinct"):
            raise self.error(f"`{alg.name}(DISTINCT ...)` is not supported", call)
        if any(isinstance(a, (exp.Star, exp.Kwarg, exp.PropertyEQ)) for a in args):
            raise self.error(f"`{alg.name}` takes positional arguments", call)
        if alg.kind == "scalar":
            text = self.scalar_call(call, args, tree)
        else:
            text = self.aggregate_call(call, args, tree)
        ph = self.placeholder(text)
        if isinstance(node.parent, exp.Select) and node.arg_key == "expressions":
            label = f"{alg.name}({', '.join(a.sql(dialect='spark') for a in args)})"
            ph = exp.alias_(ph, _PLACEHOLDER.sub(lambda m: "…", label), quoted=True)
        elif isinstance(node.parent, exp.Filter):  # f(...) FILTER (WHERE ...)
            raise self.error(f"`{alg.name}(...) FILTER (WHERE ...)` is not supported; "
                             "filter the rows in a subquery", call)  # fmt: skip
        node.replace(ph)

    def scalar_call(self, call: _Call, args: list[Any], tree: Any) -> str:
        alg = call.alg
        assert alg.scalar is not None
        if len(args) != len(alg.params):
            raise self.error(
                f"`{alg.name}` takes {len(alg.params)} argument(s) ({_describe_params(alg)}), "
                f"got {len(args)}",
                call,
            )
        ptypes = [p[2][0] if p[2] else "any" for p in alg.params]
        names = [p[0] for p in alg.params]
        checked = self.fields(call, args, ptypes, names, aggregate=False)
        return f"{quote_ident(alg.scalar['function'])}({', '.join(checked)})"

    def aggregate_call(self, call: _Call, args: list[Any], tree: Any) -> str:
        alg = call.alg
        fields = alg.fields
        need = len(fields) + len(alg.scalar_params)
        if len(args) != need:
            raise self.error(
                f"`{alg.name}` takes {need} argument(s) ({_describe_params(alg)}), got {len(args)}",
                call,
            )
        field_args, scalar_vals = [], {}
        it = iter(args)
        for pname, kind, ftypes in alg.params:
            if kind == "rows":
                field_args = [next(it) for _ in ftypes]
            else:
                scalar_vals[pname] = self.constant(call, pname, ftypes[0] if ftypes else "any",
                                                   next(it))  # fmt: skip
        rows_name = alg.rows_param[0] if alg.rows_param else "rows"
        labels = [f"field {i} of `{rows_name}`" for i in range(len(fields))]
        checked = self.fields(call, field_args, list(fields), labels, aggregate=True)
        from .spark import register_pycalls

        if alg.agg is None:
            return self.reference_aggregate(call, checked, scalar_vals)
        register_pycalls(self.spark, alg.agg["pycalls"])
        text = alg.agg["sql"]
        for i, c in enumerate(checked):
            text = text.replace(f"\x02{i}\x02", f"({c})")
        for k, v in scalar_vals.items():
            text = text.replace(f"\x01{k}\x01", sql_literal(v))
        for name, spec in alg.agg["reducers"]:
            text = _collect_reducer(self.spark, text, name, spec)
        return f"({text})"

    def reference_aggregate(self, call: _Call, checked: list[str], scalars: dict) -> str:
        """An aggregate the states do not let us write natively: the rows collected (native)
        and the reference Python over each group's list (one Arrow function, after the
        Aggregate)."""
        alg = call.alg
        name = f"looplift_ref_{alg.name}"
        _register_once(self.spark, name, lambda: _reference_list_udf(alg))
        struct = ", ".join(f"{sql_string(f'f{i}')}, {c}" for i, c in enumerate(checked))
        lits = [sql_literal(scalars[p]) for p, _ in alg.scalar_params]
        return f"{quote_ident(name)}({', '.join([f'collect_list(named_struct({struct}))', *lits])})"

    # -- argument checks ---------------------------------------------------------------
    def fields(self, call: _Call, args: list[Any], ftypes: list[str], labels: list[str],
               aggregate: bool) -> list[str]:  # fmt: skip
        """Argument SQL, cast to the field types; a wrong type is an error naming the call,
        a null where the field is not Optional raises when the query runs."""
        from .spark import _CAST, _COMPATIBLE

        texts = [self.resolve(a.sql(dialect="spark")) for a in args]
        types_ = self.probe(call, texts, aggregate)
        out = []
        for i, (text, t, label) in enumerate(zip(texts, ftypes, labels, strict=True)):
            optional = t.startswith("Optional[")
            base = t[len("Optional[") : -1] if optional else t
            if base not in _COMPATIBLE:
                out.append(f"({text})")
                continue
            actual, nullable = types_[i] if types_ else (None, True)
            if actual is not None:
                shown = actual
                if actual.startswith("decimal") and base == "float":
                    actual = "double"
                if actual == "void":  # NULL literal
                    actual = _CAST[base].lower()
                if actual not in _COMPATIBLE[base]:
                    raise self.error(
                        f"argument {i + 1} of `{call.alg.name}` ({text}) is {shown}, but "
                        f"{label} is {t}" + _cast_hint(base),
                        call,
                    )
            value = f"({text})" if actual == _CAST[base].lower() else (
                f"CAST(({text}) AS {_CAST[base]})")  # fmt: skip
            if not optional and nullable:
                msg = sql_string(
                    f"looplift: {call.alg.name} argument {i + 1} ({text}) is null; {label} is "
                    f"{t} (declare it Optional[{base}] or filter the nulls)"
                )
                value = f"coalesce({value}, raise_error({msg}))"
            out.append(value)
        return out

    def probe(self, call: _Call, texts: list[str], aggregate: bool) -> list[tuple] | None:
        """Spark's type and nullability of each argument, by analysing (not running) a
        projection of them over the call's FROM clause."""
        from sqlglot import exp

        if not texts:
            return []
        sel = call.node.find_ancestor(exp.Select)
        if sel is None:
            return None
        probe = sel.copy()
        for key in ("order", "limit", "offset", "having", "qualify", "distinct", "windows"):
            probe.set(key, None)
        if aggregate:
            probe.set("group", None)
        probe.set("expressions", [exp.column(f"__looplift_arg_{i}") for i in range(len(texts))])
        ctes = self.outer_ctes + _enclosing_ctes(sel)
        if ctes:
            own = probe.args.get("with_") or probe.args.get("with")
            key = "with_" if "with_" in probe.arg_types else "with"
            probe.set(key, exp.With(expressions=[c.copy() for c in ctes]
                                    + (list(own.expressions) if own else [])))  # fmt: skip
        text = self.resolve(probe.sql(dialect="spark"))
        for i, t in enumerate(texts):
            text = text.replace(f"__looplift_arg_{i}", f"{t} AS `__looplift_arg_{i}`", 1)
        try:
            schema = self.spark.sql(text).schema
        except Exception:  # noqa: BLE001 - correlated or otherwise unprobeable: unchecked
            return None
        return [(f.dataType.simpleString(), f.nullable) for f in schema.fields]

    def constant(self, call: _Call, pname: str, t: str, arg: Any) -> Any:
        """The Python value of a scalar parameter's argument (a literal or constant
        expression), checked against the parameter's type."""
        from sqlglot import exp

        if arg.find(exp.Column) is not None:
            raise self.error(
                f"scalar parameter `{pname}` of `{call.alg.name}` takes a literal, "
                f"not a column expression ({arg.sql(dialect='spark')})",
                call,
            )
        text = self.resolve(arg.sql(dialect="spark"))
        try:
            value = self.spark.sql(f"SELECT {text}").first()[0]
        except Exception as e:  # noqa: BLE001
            raise self.error(
                f"argument `{pname}` of `{call.alg.name}`: {_first(e)}", call
            ) from None
        base = t.removeprefix("Optional[").rstrip("]") if t.startswith("Optional[") else t
        if isinstance(value, decimal.Decimal):  # SQL's 1.5 is a decimal literal
            value = float(value) if base == "float" else value
        ok = {
            "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
            "float": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
            "str": lambda v: isinstance(v, str),
            "bool": lambda v: isinstance(v, bool),
        }.get(base)
        if value is None and not t.startswith("Optional["):
            raise self.error(f"scalar parameter `{pname}` of `{call.alg.name}` is NULL", call)
        if value is not None and ok is not None and not ok(value):
            raise self.error(
                f"scalar parameter `{pname}` of `{call.alg.name}` is {t}, got {value!r}", call
            )
        if base == "float" and isinstance(value, int):
            value = float(value)
        if hasattr(value, "is_integer") and base == "float":
            value = float(value)
        return value


# -- helpers -------------------------------------------------------------------------------------


def _dialect(reg: dict[str, Algorithm]) -> Any:
    """Spark's dialect, with registered names parsed as plain calls (not sqlglot's
    built-in functions of the same name)."""
    from sqlglot.dialects.spark import Spark

    names = {n.upper() for n in reg}
    clash = names & (set(Spark.Parser.FUNCTIONS) | set(Spark.Parser.FUNCTION_PARSERS))
    if not clash:
        return Spark
    parser = type("Parser", (Spark.Parser,), {
        "FUNCTIONS": {k: v for k, v in Spark.Parser.FUNCTIONS.items() if k not in clash},
        "FUNCTION_PARSERS": {k: v for k, v in Spark.Parser.FUNCTION_PARSERS.items()
                             if k not in clash},
    })  # fmt: skip
    return type("LoopliftSpark", (Spark,), {"Parser": parser})


def _args(node: Any) -> list[Any]:
    from sqlglot import exp

    if isinstance(node, exp.Anonymous):
        return list(node.expressions)
    out = []
    for v in node.args.values():
        if isinstance(v, list):
            out.extend(v)
        elif isinstance(v, exp.Expression):
            out.append(v)
    return out


def _attached(node: Any, tree: Any) -> bool:
    return node.root() is tree


def _enclosing_ctes(node: Any) -> list[Any]:
    """CTEs visible at ``node``: those of every enclosing query, outermost first."""
    out: list[Any] = []
    cur = node
    while cur is not None:
        w = cur.args.get("with_") or cur.args.get("with") if hasattr(cur, "args") else None
        if w is not None and cur is not node:
            out = list(w.expressions) + out
        cur = cur.parent
    return out


def _describe_params(alg: Algorithm) -> str:
    parts = []
    for name, kind, t in alg.params:
        if kind == "rows":
            if alg.kind == "table":
                parts.append(f"TABLE({name}: {', '.join(t)})")
            else:
                parts.extend(f"{name}.{i}: {x}" for i, x in enumerate(t))
        else:
            parts.append(f"{name}: {t[0] if t else 'any'}")
    return ", ".join(parts)


def _cast_hint(base: str) -> str:
    from .spark import _CAST

    return f"; CAST it (CAST(x AS {_CAST[base]})) if that is what you mean"


def _offset(query: str, line: int | None, col: int | None) -> int | None:
    if line is None or col is None:
        return None
    lines = query.split("\n")
    return sum(len(x) + 1 for x in lines[: line - 1]) + max(col - 1, 0)


def _call_end(query: str, start: int | None) -> int | None:
    """Offset of the closing parenthesis of the call starting at ``start``."""
    if start is None:
        return None
    i = query.find("(", start)
    if i < 0:
        return None
    try:
        return _split_call(query, i)[1] - 1
    except ValueError:
        return None


def _first(e: Exception) -> str:
    return str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__


def _split_call(text: str, at: int) -> tuple[list[str], int]:
    """The top-level argument texts of the call whose ``(`` is at ``at``, and the offset
    just past its ``)``."""
    depth, quote, args, cur = 0, None, [], at + 1
    i = at
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == "\\" and quote != "`":
                i += 1
            elif ch == quote:
                quote = None
        elif ch in "'\"`":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                args.append(text[cur:i].strip())
                return args, i + 1
        elif ch == "," and depth == 1:
            args.append(text[cur:i].strip())
            cur = i + 1
        i += 1
    raise ValueError("unbalanced call in generated SQL")


def _collect_reducer(spark: Any, text: str, name: str, spec: dict[str, Any]) -> str:
    """Rewrite calls of an action state's grouped reducer ``name(code, arg)`` into a native
    ``collect_list`` of the (code, arg) pairs and an Arrow function over each list: the
    same reduction, but one that shares an Aggregate with native aggregate functions."""
    fin = f"looplift_fin_{name.removeprefix('looplift_udaf_')}"
    _register_once(spark, fin, lambda: _reducer_list_udf(spec))
    call = quote_ident(name) + "("
    while call in text:
        at = text.index(call)
        (code, arg), end = _split_call(text, at + len(call) - 1)
        pairs = (
            f"collect_list(named_struct('c', {code}, 'a', {arg})) FILTER (WHERE {code} IS NOT NULL)"
        )
        text = text[:at] + f"{quote_ident(fin)}({pairs})" + text[end:]
    return text


_UDFS: weakref.WeakKeyDictionary[Any, set[str]] = weakref.WeakKeyDictionary()


def _register_once(spark: Any, name: str, make: Any) -> None:
    done = _UDFS.setdefault(spark, set())
    if name not in done:
        spark.udf.register(name, make())
        done.add(name)


def _reducer_list_udf(spec: dict[str, Any]) -> Any:
    """Arrow scalar function: per group, the list of (code, arg) pairs → the readers."""
    import pyarrow as pa

    from .spark import ActionReducer, _arrow_schema, import_ref

    kw = dict(spec)
    cls = import_ref(kw.pop("cls"))
    kw["sites"] = [tuple(s) for s in kw["sites"]]
    kw["readers"] = [r if isinstance(r, str) else (r[0], tuple(r[1])) for r in kw["readers"]]
    fields = ", ".join(f"_{i + 1}: {t}" for i, t in enumerate(kw["types"]))
    rtype = f"struct<{fields}>"
    out_type = _arrow_schema(f"r {rtype}").field("r").type

    def finish(lists: Any) -> Any:
        reducer = ActionReducer(cls, **kw)
        if reducer.grouped():
            return pa.StructArray.from_arrays(
                _grouped_lists(reducer, lists), names=[f"_{j + 1}" for j in range(len(kw["types"]))]
            ).cast(out_type)
        out = []
        for i in range(len(lists)):
            items = lists[i].values if lists[i].is_valid else None
            if items is None or len(items) == 0:
                out.append(dict(zip([f"_{j + 1}" for j in range(len(kw["types"]))],
                                    reducer.fresh(), strict=True)))  # fmt: skip
                continue
            out.append(reducer.apply([items.field("c"), items.field("a")]))
        return pa.array(out, type=out_type)

    return _arrow_udf(finish, rtype, "SCALAR")


def _grouped_lists(reducer: Any, lists: Any) -> list[Any]:
    """All groups' (code, arg) lists at once through the state's grouped readers: one
    vectorized pass instead of a state object per group."""
    import numpy as np
    import pyarrow as pa

    n = len(lists)
    lengths = lists.value_lengths().fill_null(0).to_numpy(zero_copy_only=False)
    flat = lists.flatten()
    keys = np.repeat(np.arange(n, dtype=np.int64), lengths)
    fresh = reducer.fresh()
    out = [[fresh[j]] * n for j in range(len(reducer.readers))]
    if len(keys):
        ukeys, columns = reducer.grouped_read(keys, flat.field("c"), flat.field("a"))
        for values, got in zip(out, columns, strict=True):
            for k, v in zip(ukeys.tolist(), got, strict=True):
                values[k] = v
    return [pa.array(values) for values in out]


def _reference_list_udf(alg: Algorithm) -> Any:
    """Arrow scalar function: per group, the list of rows → the reference function's value."""
    import pyarrow as pa

    from .spark import _arrow_schema, _out, _pylist

    fn, rtype, order = alg.reference(), alg.output[0][1], _param_order(alg)
    nfields = len(alg.fields)
    out_type = _arrow_schema(f"r {rtype}").field("r").type

    def finish(lists: Any, *scalars: Any) -> Any:
        out = []
        for i in range(len(lists)):
            items = lists[i].values
            cols = [_pylist(items.field(f"f{j}")) for j in range(nfields)]
            rows = list(zip(*cols, strict=True)) if cols else []
            it = iter(s[i].as_py() for s in scalars)
            args = [rows if k == "rows" else next(it) for k in order]
            out.append(_out(fn(*args), rtype))
        return pa.array(out, type=out_type)

    return _arrow_udf(finish, rtype, "SCALAR")
