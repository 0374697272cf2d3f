"""The ``@dataflow`` decorator and the objects it makes.

A decorated function stays callable as ordinary Python (the reference
semantics): RowStream arguments may be any iterable of tuples, a table
algorithm returns the list of yielded rows, an aggregate its value.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Generic, ParamSpec, TypeVar, overload

from .physplan import mark_plan, physical_plan
from .streams import Rows, as_rows, stream_kind

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

    from .notebook import Graph

__all__ = ["Dataflow", "dataflow"]

P = ParamSpec("P")
R = TypeVar("R", covariant=True)


class Dataflow(Generic[P, R]):
    """A ``@dataflow`` algorithm: Python-callable, compilable.

    Generic in the decorated function's parameters ``P`` and result ``R``
    (``Dataflow[[RowStream[int, int]], int]``), so that type checkers and IDEs know
    what ``f(rows)`` takes and returns; ``f(df)`` returns a DataFrame and a scalar
    algorithm called with Columns a Column.
    """

    def __init__(
        self,
        fn: Callable[P, R],
        columns: Sequence[str] | None = None,
        strict: bool = False,
        largest_group: int | None = None,
    ):
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.name = fn.__name__
        self.strict = bool(strict)  # every Python island is an error (fully native plans only)
        n = largest_group
        if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 0):
            raise TypeError(
                f"@dataflow(largest_group=...) wants a number of rows, not {largest_group!r}"
            )
        #: the most rows one group holds, if the user knows it: ordered loops above
        #: ``compiler/backend/ordered_cost.py``'s FOLD_ROWS run as windows (they spill)
        self.largest_group = largest_group
        if columns is not None and (isinstance(columns, str) or not isinstance(columns, Sequence)):
            raise TypeError(
                f"@dataflow(columns=...) wants a tuple of column names, not {columns!r}"
            )
        self.columns = tuple(columns) if columns is not None else None
        self.signature = inspect.signature(fn)
        self._compiled: Any = None
        self._backend: Any = None
        self._module: Any = None
        self._agg: Any = None
        self._algorithm: Any = None

    def __getstate__(self) -> dict[str, Any]:
        """Pickle (to Spark's workers) without the compiled artifacts, which hold modules."""
        state = dict(self.__dict__)
        for k in ("_compiled", "_backend", "_module", "_agg", "_algorithm"):
            state[k] = None
        return state

    # -- reference semantics -------------------------------------------------
    @overload
    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R: ...
    @overload
    def __call__(self, df: DataFrame, /, *args: Any, **kwargs: Any) -> DataFrame: ...
    @overload
    def __call__(self, col: Column, /, *args: Any, **kwargs: Any) -> Column: ...
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        spark_kind = _spark_kind([*args, *kwargs.values()])
        if spark_kind == "dataframe":
            return self._call_dataframe(*args, **kwargs)
        if spark_kind == "column":
            return self._call_columns(*args, **kwargs)
        streams, positional = self.call_shape()
        plain = positional and not kwargs and len(args) == len(streams)
        if plain:  # (every argument by position: no binding, e.g. replay's calls)
            args = tuple(as_rows(v, rs) if rs and not isinstance(v, Rows) else v
                         for v, rs in zip(args, streams, strict=True))  # fmt: skip
            result = self.fn(*args)
        else:
            bound = self.signature.bind(*args, **kwargs)
            for name, value in bound.arguments.items():
                ann = self.signature.parameters[name].annotation
                rs = stream_kind(ann, self.fn)
                if rs and not isinstance(value, Rows):
                    bound.arguments[name] = as_rows(value, rs)
            result = self.fn(*bound.args, **bound.kwargs)
        if inspect.isgenerator(result):
            return [r if isinstance(r, tuple) else _row_tuple(r) for r in result]
        return result

    def call_shape(self) -> tuple[tuple[Any, ...], bool]:
        """Which parameters are RowStreams (each one's row class, True for plain tuples,
        False for a scalar), and whether all are positional; computed once.

        Resolve it before the function is shipped to Spark's workers (a UDTF or UDAF of
        ``looplift.register``): a function pickled by value keeps only the globals its code
        reads, and a row class named only in a string annotation is not among them, so the
        worker would read a ``RowStream[Click]`` as plain tuples."""
        shape = self.__dict__.get("_call_shape")
        if shape is None:
            params = self.signature.parameters.values()
            shape = self._call_shape = (
                tuple(stream_kind(p.annotation, self.fn) for p in params),
                all(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params),
            )
        return shape

    # -- compilation -----------------------------------------------------------
    def compile(self) -> Any:
        """Compile (once) and return the :class:`looplift.compiler.Compiled` result."""
        if self._compiled is None:
            from .compiler import compile_dataflow

            self._compiled = compile_dataflow(self)
        return self._compiled

    def backend(self) -> Any:
        """The generated Spark plan module (tables, aggregates) or SQL function (scalars)."""
        if self._backend is None:
            self._backend = self.compile().backend  # made once, with the compiled result
        return self._backend

    def plan_module(self) -> Any:
        """The generated plan as an imported module (``plan(spark, df, *scalars)``)."""
        if self._module is None:
            import types

            gen = self.backend()
            mod = types.ModuleType(f"looplift_plan_{self.name}")
            mod.__file__ = f"<looplift plan of {self.name}>"
            exec(compile(gen.source, mod.__file__, "exec"), mod.__dict__)  # noqa: S102
            self._module = mod
        return self._module

    def algorithm(self) -> Any:
        """This algorithm compiled, as :class:`looplift.registry.Algorithm` (what
        ``looplift.register`` and ``looplift.sql`` use, and what builds write)."""
        if self._algorithm is None:
            from .registry import Algorithm

            compiled = self.compile()
            prog = compiled.program
            params = tuple((p.name, p.kind, tuple(p.types)) for p in prog.fn.params)
            row_fields = next((p.fields for p in prog.fn.stream_params), ())
            gen = self.backend()
            ref = prog.fn.ref
            pycalls = [[c.name, c.kind, c.ref, list(c.arg_types), c.return_type]
                       for c in gen.pycalls]  # fmt: skip
            if compiled.kind == "scalar":
                self._algorithm = Algorithm(
                    name=self.name,
                    kind="scalar",
                    ref=ref,
                    params=params,
                    output=((self.name, gen.return_type),),
                    refs=tuple(sorted({ref, *(c[2] for c in pycalls if c[1] == "host")})),
                    scalar={"function": gen.name, "create": gen.create_sql(), "pycalls": pycalls},
                    shape=compiled.shape.to_json(),
                )
            else:
                agg, agg_error = None, None
                if compiled.kind == "aggregate":
                    from .compiler.backend.aggexpr import agg_expression
                    from .compiler.backend.sql import BackendError

                    try:
                        e = agg_expression(prog)
                        agg = {
                            "sql": e.sql,
                            "reducers": [[n, dict(spec)] for n, spec in e.reducers],
                            "pycalls": [
                                [c.name, c.kind, c.ref, list(c.arg_types), c.return_type]
                                for c in e.pycalls
                            ],  # fmt: skip
                            "return_type": e.return_type,
                        }
                    except BackendError as err:
                        agg_error = str(err)
                self._algorithm = Algorithm(
                    name=self.name,
                    kind=compiled.kind,
                    ref=ref,
                    params=params,
                    output=tuple(zip(gen.columns, gen.output_types, strict=True)),
                    refs=gen.refs,
                    agg=agg,
                    agg_error=agg_error,
                    shape=compiled.shape.to_json(),
                    row_fields=tuple(row_fields),
                    _plan=self.plan_module,
                )
        return self._algorithm

    def _call_dataframe(self, *args: Any, **kwargs: Any) -> Any:
        bound = self.signature.bind(*args, **kwargs)
        if self.compile().kind == "scalar":
            raise TypeError(
                f"`{self.name}` is a scalar algorithm: call it with Columns, "
                f"e.g. df.select({self.name}(df.col))"
            )
        frames = [v for v in bound.arguments.values() if _is_dataframe(v)]
        spark = frames[0].sparkSession
        if self._backend is None:
            self._learn_host_types(bound.args)
        return self.plan_module().plan(spark, *bound.args)

    def _learn_host_types(self, args: Sequence[Any]) -> None:
        """Build the plan with the result types of host functions whose source does not
        say them, observed on the input's first rows (a build has no rows: it asks for a
        return annotation instead). Warns, naming each function and the type learnt."""
        import warnings

        from .compiler.backend import backend_for
        from .compiler.backend.host_probe import (
            PROBE_ROWS,
            learn_host_types,
            needs_host_probe,
            probed_types,
        )

        compiled = self.compile()
        if not needs_host_probe(compiled.program):
            self.backend()  # every type is known: no Spark job before the plan
            return
        first = [[tuple(r) for r in a.limit(PROBE_ROWS).collect()] if _is_dataframe(a) else a
                 for a in args]  # fmt: skip
        learned = learn_host_types(compiled.program, first)
        if not learned:
            return
        for ref, (t, null) in sorted(learned.items()):
            what = "state reader" if "." in ref.rpartition(":")[2] else "host function"
            warnings.warn(
                f"looplift: {what} `{ref}` has no return annotation and its source does "
                f"not say its type; `{self.name}` types its result {t}{' or None' if null else ''}"
                f", as returned on the first {PROBE_ROWS} input rows; annotate it so that "
                "builds and SQL compile it too",
                stacklevel=3,
            )
        with probed_types(learned):
            self._backend = backend_for(compiled)

    def _call_columns(self, *args: Any, **kwargs: Any) -> Any:
        from pyspark.sql import functions as F

        from .spark import active_session, register_pycalls

        if self.compile().kind != "scalar":
            raise TypeError(
                f"`{self.name}` is a {self.compile().kind} algorithm: call it with a DataFrame"
                + (
                    f", or use `{self.name}.agg(...)` in groupBy().agg"
                    if self.compile().kind == "aggregate"
                    else ""
                )
            )
        bound = self.signature.bind(*args, **kwargs)
        fn = self.backend()
        spark = active_session(*bound.args)
        if spark is None:
            raise RuntimeError("looplift: no active SparkSession to register the function in")
        from .spark import ship

        ship([c.ref for c in fn.pycalls if c.kind == "host"])
        register_pycalls(spark, [[c.name, c.kind, c.ref, list(c.arg_types), c.return_type]
                                 for c in fn.pycalls])  # fmt: skip
        key = (id(spark), fn.name)
        if key not in _SQL_FUNCTIONS:
            spark.sql(fn.create_sql())
            _SQL_FUNCTIONS.add(key)
        from .spark import column_label, not_null

        cols = []
        for i, (v, (pname, _kind, types)) in enumerate(
            zip(bound.args, self.algorithm().params, strict=True)
        ):
            if _is_column(v):
                what = f"argument {i + 1} `{pname}` of `{self.name}`"
                cols.append(not_null(v, column_label(v), what, types[0] if types else "any"))
            else:
                cols.append(F.lit(v))
        return F.call_function(fn.name, *cols).alias(self.name)

    def agg(self, *columns: str | Column, **scalars: Any) -> Column:
        """This aggregate as one aggregate Column, for ``df.groupBy(...).agg(...)``.

        ``columns`` name the input columns bound to the RowStream's fields, in order
        (strings or column references); scalar parameters are given by keyword. With no
        columns, a named row type's fields are the columns of their names.
        """
        from pyspark.sql import functions as F

        from .spark import ActionReducer, active_session, import_ref, register_pycalls, ship
        from .sqltext import bind_columns, bind_params, quote_ident

        if self._agg is None:
            from .compiler.backend.aggexpr import agg_expression

            self._agg = agg_expression(self.compile().program)
        expr = self._agg
        if not columns and self.algorithm().row_fields:  # RowStream[Click]: by field name
            columns = self.algorithm().row_fields
        spark = active_session(*columns)
        if spark is None:
            raise RuntimeError("looplift: no active SparkSession")
        # the user's modules (states, host functions) must reach the workers, as in f(df)
        ship([dict(spec)["cls"] for _, spec in expr.reducers] + [c.ref for c in expr.pycalls])
        register_pycalls(spark, [[c.name, c.kind, c.ref, list(c.arg_types), c.return_type]
                                 for c in expr.pycalls])  # fmt: skip
        for name, spec in expr.reducers:
            key = (id(spark), name)
            if key not in _SQL_FUNCTIONS:
                kw = dict(spec)
                reducer = ActionReducer(import_ref(kw.pop("cls")), **kw)
                spark.udf.register(name, reducer.udf)
                _SQL_FUNCTIONS.add(key)
        names = [quote_ident(c if isinstance(c, str) else _column_name(c)) for c in columns]
        names = [
            _not_null_sql(n, c, i, t, self.name)
            for i, (n, c, t) in enumerate(
                zip(names, columns, self.algorithm().fields, strict=False)
            )
        ]
        try:
            nonnull = tuple(i for i, n in enumerate(names) if n.startswith("coalesce("))
            sql = bind_columns(bind_params(expr.sql, scalars), names, nonnull,
                               per_row=bool(expr.reducers))  # fmt: skip
        except ValueError:
            raise TypeError(
                f"`{self.name}.agg` needs one column per field and every scalar parameter"
            ) from None
        return F.expr(sql).alias(self.name)

    def incremental(self, spark: Any, checkpoint: str, *scalars: Any, store: str = "auto",
                    keep_versions: int | None = None, buckets: int | None = None,
                    driver_keys: int | None = None,
                    storage_options: dict | None = None) -> Any:  # fmt: skip
        """A view of this algorithm's result maintained over signed batches
        (:class:`looplift.incremental.IncrementalView`), stored in ``checkpoint``;
        reopening the same directory resumes where it stopped. ``store``: ``"local"``
        (SQLite on the driver), ``"spark"`` (Parquet, maintained by Spark jobs) or
        ``"auto"`` (local, or Spark for a first batch of 1M rows or more).
        ``checkpoint`` may be ``s3://bucket/prefix`` (the Spark store; connection
        settings in ``storage_options`` or the AWS environment variables,
        :mod:`looplift.viewstorage`)."""
        from .incremental import IncrementalView

        return IncrementalView(self, spark, checkpoint, *scalars, store=store,
                               keep_versions=keep_versions, buckets=buckets,
                               driver_keys=driver_keys,
                               storage_options=storage_options)  # fmt: skip

    def stream(self, streaming_df: Any, sign: str = "_sign", *scalars: Any,
               changes: bool | None = None, event_time: str | None = None,
               watermark: Any = None, allowed_lateness: Any = None) -> Any:  # fmt: skip
        """This algorithm over a streaming DataFrame of signed rows (Structured Streaming,
        per-scope-key state in Spark's state store): a native update stream of each key's
        current row for additive states, else signed changes per key in Python;
        ``changes=True`` forces the signed changes (:mod:`looplift.streaming`).
        ``event_time="ts", watermark="10 minutes"``: each window's final rows in append
        mode, late rows dropped and counted (:mod:`looplift.eventtime`)."""
        from .streaming import stream

        return stream(self, streaming_df, sign, *scalars, changes=changes,
                      event_time=event_time, watermark=watermark,
                      allowed_lateness=allowed_lateness)  # fmt: skip

    def explain(self, *args: Any, file: Any = None) -> str:
        """Print (and return) the dataflow graph with native and Python parts marked.

        Given the call's arguments (a DataFrame and scalars), also Spark's physical
        plan of the compiled call, each operator marked ``[native]`` or ``[Python]``.
        """
        compiled = self.compile()
        parts = [compiled.explain()]
        try:
            backend = self.backend()
        except Exception as e:  # noqa: BLE001 - explain what cannot run, do not fail
            parts.append(f"spark backend: not available ({e})")
            backend = None
        if backend is not None and compiled.kind != "scalar":
            py = ", ".join(backend.python_ops) or "none"
            parts.append(f"spark plan: generated module, Python operators: {py}")
            parts.append(_stream_text(self))
            from .eventtime import explain_line

            parts += [line for line in [explain_line(self)] if line]
            parts.append(_bulk_text(self))
        if args:
            out = self(*args)
            parts.append("spark physical plan:\n" + mark_plan(physical_plan(out)))
        text = "\n".join(parts)
        print(text, file=file)
        return text

    def graph(self) -> Graph:
        """The dataflow graph (compiling once): shown as SVG in Jupyter, written with
        ``.save("f.svg")`` (or ``.png``, ``.dot``); see :class:`looplift.notebook.Graph`."""
        from .notebook import Graph

        return Graph(self.compile().graph.to_dot(), self.name)

    def __repr__(self) -> str:
        """Name, signature and kind; once compiled, also native or its Python islands
        (a repr never compiles)."""
        from .notebook import text_repr

        return text_repr(self)

    def _repr_html_(self) -> str:
        """Jupyter's view: compiles (once) and shows what runs natively and the islands."""
        from .notebook import html_repr

        return html_repr(self)


def _stream_text(df: Dataflow) -> str:
    """What ``f.stream`` runs (:func:`looplift.streaming.stream_form`), for explain."""
    from .streaming import stream_form

    return _form_text(df, "stream", stream_form,
                      "native streaming aggregation of the signed sums per scope key "
                      "(update mode: each key's row with _key, _live; no Python)",
                      "signed changes per scope key, the reference code in Python")  # fmt: skip


def _bulk_text(df: Dataflow) -> str:
    """How a Spark-store view loads its first batch (:func:`looplift.bulkload.bulk_form_of`)."""
    from .bulkload import bulk_form_of

    return _form_text(df, "view bulk load (store='spark')", bulk_form_of,
                      "native, each scope key's states built from Spark aggregates "
                      "(one Python call per key)",
                      "the reference code per row")  # fmt: skip


def _form_text(df: Dataflow, label: str, form_of: Any, native: str, other: str) -> str:
    """``label: native`` or ``label: other (why)`` as ``form_of(df)`` says, for explain."""
    try:
        form, why = form_of(df)
    except Exception as e:  # noqa: BLE001 - explain what cannot run, do not fail
        return f"{label}: not available ({e})"
    return f"{label}: {native}" if form == "native" else f"{label}: {other} ({why})"


@overload
def dataflow(fn: Callable[P, R], /) -> Dataflow[P, R]: ...
@overload
def dataflow(
    fn: None = None,
    /,
    *,
    columns: Sequence[str] | None = None,
    strict: bool = False,
    largest_group: int | None = None,
) -> Callable[[Callable[P, R]], Dataflow[P, R]]: ...
def dataflow(
    fn: Callable[P, R] | None = None,
    /,
    *,
    columns: Sequence[str] | None = None,
    strict: bool = False,
    largest_group: int | None = None,
) -> Dataflow[P, R] | Callable[[Callable[P, R]], Dataflow[P, R]]:
    """Mark a module-level function as a looplift algorithm.

    Use bare (``@dataflow``) or with output column names for a table algorithm
    (``@dataflow(columns=("user_id", "avg_clicks"))``). ``strict=True`` refuses every
    Python island (code with no exact native lowering, run as vectorized Python): each is
    an error at its source line. ``largest_group=N`` says the largest group of the data
    holds about ``N`` rows: an ordered loop over groups larger than one task's memory holds
    as an array runs as window functions, which spill (``--explain`` says which plan).
    """
    if fn is not None:
        return Dataflow(fn, columns, strict)

    def decorate(f: Callable[P, R]) -> Dataflow[P, R]:
        return Dataflow(f, columns, strict, largest_group)

    return decorate


_SQL_FUNCTIONS: set[tuple[int, str]] = set()


def _column_name(c: Any) -> str:
    """The name of a plain column reference (``F.col("x")``, ``df.x``)."""
    text = str(c)
    if text.startswith("Column<'") and text.endswith("'>"):
        inner = text[len("Column<'") : -2]
        if inner.replace("_", "").replace(".", "").isalnum():
            return inner.split(".")[-1]
    raise TypeError(f"pass column names (or plain column references) to .agg, not {text}")


def _not_null_sql(ref: str, col: Any, i: int, t: str, name: str) -> str:
    """A quoted column reference bound to field ``i`` of type ``t``: a null raises naming
    the column unless the field is Optional (as the entry projection of a plan does)."""
    from .fieldtypes import FIELD_TYPES, base_type, is_optional
    from .sqltext import sql_string

    if is_optional(t) or base_type(t) not in FIELD_TYPES:
        return ref
    label = col if isinstance(col, str) else _column_name(col)
    msg = sql_string(f"looplift: column {label!r} (field {i} of `{name}`, {t}) is null; "
                     f"declare the field Optional[{base_type(t)}] to allow nulls")  # fmt: skip
    return f"coalesce({ref}, raise_error({msg}))"


def _is_dataframe(v: Any) -> bool:
    mod = type(v).__module__
    return mod.startswith("pyspark.sql") and type(v).__name__ == "DataFrame"


def _is_column(v: Any) -> bool:
    mod = type(v).__module__
    return mod.startswith("pyspark.sql") and type(v).__name__ == "Column"


def _spark_kind(values: list[Any]) -> str | None:
    if any(_is_dataframe(v) for v in values):
        return "dataframe"
    if any(_is_column(v) for v in values):
        return "column"
    return None


def _row_tuple(value: Any) -> tuple[Any, ...]:
    """A yielded value as an output row: a dataclass row's fields, else a 1-tuple."""
    from .rowtypes import field_names, is_row_class

    if is_row_class(type(value)):  # a dataclass (a NamedTuple is a tuple already)
        return tuple(getattr(value, n) for n in field_names(type(value)))
    return (value,)
