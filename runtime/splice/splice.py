"""Replacing the calls of registered algorithms in a parsed query (:class:`Splicer`).

Each call's node is replaced by a :class:`~.parse.Spliced` node carrying its SQL: a scalar
algorithm's SQL function over the checked arguments, an aggregate's native expression (or
the reference over the collected rows), and a table algorithm's plan over its ``TABLE(...)``
argument, as a temporary view in ``FROM``.
"""

from __future__ import annotations

import itertools
import re
import uuid
from typing import Any

from sqlglot import exp

from ..registry import Algorithm
from ..sqltext import bind_columns, bind_params, quote_ident, sql_literal, sql_string
from .checks import Checks, arguments_error
from .errors import LoopliftSQLError, first_line
from .parse import (
    Call,
    Spliced,
    args_of,
    attached,
    call_end,
    calls,
    enclosing_ctes,
    label,
    parse,
    render,
    split_call,
    with_ctes,
)
from .udfs import reducer_list_udf, reference_list_udf, register_once

__all__ = ["Splicer"]

_COUNTER = itertools.count()
_FRAMES: dict[str, Any] = {}  # the plan of each live table-call view, by view name


class Splicer(Checks):
    """One query (or a ``TABLE(SELECT ...)`` argument) with its calls spliced."""

    def __init__(self, spark: Any, reg: dict[str, Algorithm], query: str,
                 outer_ctes: list[Any] | None = None, views: list[str] | None = None) -> None:  # fmt: skip
        self.spark, self.reg, self.query = spark, reg, query
        self.outer_ctes = outer_ctes or []
        self.views: list[str] = views if views is not None else []

    # -- driver ----------------------------------------------------------------------
    def spliced(self) -> tuple[str, Any]:
        """The query's Spark SQL with every call spliced, and its tree."""
        tree = self.parse()
        found = calls(tree, self.reg, self.query)
        for c in found:  # table calls first: their views must exist when other calls are typed
            if c.alg.kind == "table" and attached(c.node, tree):
                self.splice_table(c, tree)
        for c in found:  # inner calls before the calls whose arguments contain them
            if c.alg.kind != "table" and attached(c.node, tree):
                self.splice_expression(c, tree)
        if not found and not self.outer_ctes:
            return self.query, tree
        return render(with_ctes(tree, self.outer_ctes) if self.outer_ctes else tree), tree

    def run(self) -> Any:
        text, tree = self.spliced()
        return self.execute(text, tree)

    def parse(self) -> Any:
        return parse(self.query, self.reg)

    def execute(self, text: str, tree: Any) -> Any:
        """``spark.sql(text)``; an unknown function is reported at its call in the query."""
        try:
            return self.run_sql(text)
        except Exception as e:
            m = re.search(r"UNRESOLVED_ROUTINE\] Cannot resolve routine `([^`]+)`", str(e))
            if m is None:
                raise
            import difflib

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
                call_end(self.query, start),
            ) from None

    def run_sql(self, text: str) -> Any:
        """``spark.sql(text)``. On Spark Connect the query is analyzed only when it runs,
        after :meth:`drop_views`: the table calls' plans go with the query as DataFrame
        arguments (``spark.sql("... {v} ...", v=df)``) instead of by view name."""
        from ..spark import is_connect

        used = [v for v in self.views if v in _FRAMES and v in text]
        if not used or not is_connect(self.spark):
            return self.spark.sql(text)
        escaped = text.replace("{", "{{").replace("}", "}}")
        for v in used:  # unique generated names: no other text contains them
            escaped = escaped.replace(f"`{v}`", v).replace(v, "{" + v + "}")
        return self.spark.sql(escaped, **{v: _FRAMES[v] for v in used})

    def drop_views(self) -> None:
        for v in self.views:
            self.spark.catalog.dropTempView(v)
            _FRAMES.pop(v, None)
        self.views.clear()

    # -- table calls -----------------------------------------------------------------
    def splice_table(self, call: Call, tree: Any) -> None:
        node, alg = call.node, call.alg
        parent = node.parent
        if not isinstance(parent, exp.Table) or isinstance(parent.parent, exp.Lateral):
            raise self.error(
                f"`{alg.name}` is a table algorithm; call it in FROM: "
                f"SELECT * FROM {alg.name}(TABLE(...))",
                call,
            )
        args = args_of(node)
        nrows = sum(1 for p in alg.params if p[1] == "rows")
        if len(args) != len(alg.params):
            raise self.error(arguments_error(alg, len(alg.params), len(args)), call)
        if nrows != 1:
            raise self.error(f"`{alg.name}` takes {nrows} tables; only one is supported", call)
        frames, scalars = [], []
        for (pname, kind, ftypes), arg in zip(alg.params, args, strict=True):
            if kind == "rows":
                frames.append(self.table_argument(call, pname, ftypes, arg))
            else:
                scalars.append(self.constant(call, pname, ftypes[0] if ftypes else "any", arg))
        it = iter(scalars)
        plan_args = [frames[0] if k == "rows" else next(it) for _, k, _ in alg.params]
        out = alg.plan().plan(self.spark, *plan_args)
        view = f"__looplift_{alg.name}_{next(_COUNTER)}_{uuid.uuid4().hex[:8]}"
        out.createOrReplaceTempView(view)
        self.views.append(view)
        _FRAMES[view] = out
        alias = parent.args.get("alias")
        new = exp.Table(this=exp.to_identifier(view))
        if alias is None:
            alias = exp.TableAlias(this=exp.to_identifier(alg.name))
        new.set("alias", alias)
        parent.replace(new)

    def table_argument(self, call: Call, pname: str, ftypes: tuple[str, ...], arg: Any) -> Any:
        from ..spark import DataflowInputError, entry

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
        ctes = self.outer_ctes + enclosing_ctes(call.node)
        sub = Splicer(self.spark, self.reg, render(inner), ctes, self.views)
        try:
            df = sub.run()
        except LoopliftSQLError:
            raise
        except Exception as e:  # noqa: BLE001 - name the call, keep Spark's reason
            raise self.error(
                f"the table argument of `{call.alg.name}` fails: {first_line(e)}", call
            ) from None
        try:
            # types and arity (named rows: the columns of their names), checked before running
            entry(df, pname, list(ftypes), by_name=call.alg.row_fields or None)
        except DataflowInputError as e:
            raise self.error(f"`{call.alg.name}(TABLE(...))`: {e}", call) from None
        return df

    # -- scalar and aggregate calls --------------------------------------------------
    def splice_expression(self, call: Call, tree: Any) -> None:
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
        args = args_of(node)
        if any(isinstance(a, exp.Distinct) for a in args) or node.args.get("distinct"):
            raise self.error(f"`{alg.name}(DISTINCT ...)` is not supported", call)
        if any(isinstance(a, (exp.Star, exp.Kwarg, exp.PropertyEQ)) for a in args):
            raise self.error(f"`{alg.name}` takes positional arguments", call)
        if alg.kind == "scalar":
            text = self.scalar_call(call, args)
        else:
            text = self.aggregate_call(call, args)
        new: Any = Spliced(this=text)
        if isinstance(node.parent, exp.Select) and node.arg_key == "expressions":
            shown = f"{alg.name}({', '.join(label(a) for a in args)})"
            new = exp.alias_(new, shown, quoted=True)
        elif isinstance(node.parent, exp.Filter):  # f(...) FILTER (WHERE ...)
            raise self.error(f"`{alg.name}(...) FILTER (WHERE ...)` is not supported; "
                             "filter the rows in a subquery", call)  # fmt: skip
        node.replace(new)

    def scalar_call(self, call: Call, args: list[Any]) -> str:
        alg = call.alg
        assert alg.scalar is not None
        if len(args) != len(alg.params):
            raise self.error(arguments_error(alg, len(alg.params), len(args)), call)
        ptypes = [p[2][0] if p[2] else "any" for p in alg.params]
        names = [p[0] for p in alg.params]
        checked = self.fields(call, args, ptypes, names, aggregate=False)
        return f"{quote_ident(alg.scalar['function'])}({', '.join(checked)})"

    def aggregate_call(self, call: Call, args: list[Any]) -> str:
        alg = call.alg
        fields = alg.fields
        need = len(fields) + len(alg.scalar_params)
        if len(args) != need:
            raise self.error(arguments_error(alg, need, len(args)), call)
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
        from ..spark import register_pycalls

        if alg.agg is None:
            return self.reference_aggregate(call, checked, scalar_vals)
        register_pycalls(self.spark, alg.agg["pycalls"])
        # parameters first: the columns are the user's SQL, never scanned for markers
        text = bind_params(alg.agg["sql"], scalar_vals)
        nonnull = tuple(i for i, c in enumerate(checked) if c.startswith("coalesce("))
        text = bind_columns(text, [f"({c})" for c in checked], nonnull)
        for name, spec in alg.agg["reducers"]:
            text = _collect_reducer(self.spark, text, name, spec)
        return f"({text})"

    def reference_aggregate(self, call: Call, checked: list[str], scalars: dict) -> str:
        """An aggregate the states do not let us write natively: the rows collected (native)
        and the reference Python over each group's list (one Arrow function, after the
        Aggregate)."""
        alg = call.alg
        name = f"looplift_ref_{alg.name}"
        register_once(self.spark, name, lambda: reference_list_udf(alg))
        struct = ", ".join(f"{sql_string(f'f{i}')}, {c}" for i, c in enumerate(checked))
        lits = [sql_literal(scalars[p]) for p, _ in alg.scalar_params]
        return f"{quote_ident(name)}({', '.join([f'collect_list(named_struct({struct}))', *lits])})"


def _collect_reducer(spark: Any, text: str, name: str, spec: dict[str, Any]) -> str:
    """Rewrite calls of an action state's grouped reducer ``name(code, arg)`` in the
    generated aggregate expression into a native ``collect_list`` of the (code, arg) pairs
    and an Arrow function over each list: the same reduction, but one that shares an
    Aggregate with native aggregate functions."""
    fin = f"looplift_fin_{name.removeprefix('looplift_udaf_')}"
    register_once(spark, fin, lambda: reducer_list_udf(spec))
    call = quote_ident(name) + "("
    while call in text:
        at = text.index(call)
        (code, arg), end = split_call(text, at + len(call) - 1)
        pairs = (
            f"collect_list(named_struct('c', {code}, 'a', {arg})) FILTER (WHERE {code} IS NOT NULL)"
        )
        text = text[:at] + f"{quote_ident(fin)}({pairs})" + text[end:]
    return text
