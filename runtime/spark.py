"""Spark-side runtime of looplift: the helpers generated plans call (sessions are
:mod:`looplift.sessions`, named here too).

Generated plan modules (see ``shells/plan.py.j2``) import this module as
``ll``; it needs pyspark and pyarrow, never the compiler.

>>> # spark = local_session()            # local[2], UI off, PYSPARK_PYTHON set
"""

from __future__ import annotations

import importlib
import math
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from .fieldtypes import FIELD_TYPES, base_type, is_optional
from .groupform import few_large_groups
from .pycalls import register_pycalls
from .pyprims import IMPLS as PY_IMPLS
from .pyvalues import _out, _pylist, _split_schema
from .sessions import active_session, is_connect, local_session, remote_session
from .sqltext import bind_params, quote_ident, sql_string
from .state import Carry
from .strings import IMPLS as STRING_IMPLS

__all__ = [
    "local_session",
    "remote_session",
    "is_connect",
    "active_session",
    "entry",
    "join_on_keys",
    "few_large_groups",
    "union_all",
    "default_row",
    "ActionReducer",
    "OrderedReducer",
    "OrderedRows",
    "Carry",
    "sort_key",
    "sort_rows",
    "import_ref",
    "register_pycalls",
    "expr_binder",
    "DataflowInputError",
    "STRING_IMPLS",
    "try_code",
    "PY_IMPLS",
]


def try_code(thunk: Callable[[], Any], handlers: list[list[str]]) -> int:
    """A ``try``'s test in Python code (an ordered loop's body): 0 where ``thunk()``
    returns, 1 + the index of the first handler catching what it raises, else -1."""
    import builtins

    try:
        thunk()
    except Exception as e:  # noqa: BLE001 - which handler catches it is the answer
        for k, names in enumerate(handlers):
            if any(isinstance(e, getattr(builtins, n, ())) for n in names):
                return k + 1
        return -1
    return 0


def _arrow_udf(fn: Callable[..., Any], ddl: str, kind: str) -> Any:
    """pyspark's ``arrow_udf`` with an explicit function type: the reducers' arity varies
    per plan, so they have no type hints, and pyspark's warning that it prefers hints is
    quieted here, around this call only (not for the user's own UDFs)."""
    from pyspark.sql.functions import ArrowUDFType, arrow_udf

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="It is preferred to specify type hints")
        return arrow_udf(fn, ddl, functionType=getattr(ArrowUDFType, kind))


class DataflowInputError(ValueError):
    """The input DataFrame does not fit the algorithm's RowStream."""


# -- entry projection ---------------------------------------------------------------------


def check_fields(
    fields: Sequence[Any], name: str, types: Sequence[str],
    by_name: Sequence[str] | None = None,
) -> list[tuple[Any, str, str]]:
    """(schema field, field type, Spark type name) of each of a DataFrame's data columns
    (``fields``, StructFields in field order), refused with a message when their number
    or a type does not fit the RowStream of ``name`` (no Spark call: the schema only).

    ``by_name``: the field names of a named row type (``RowStream[Click]``): each field is
    bound to the column of its name (:func:`looplift.rowtypes.bind_columns`); other
    columns are ignored."""
    if by_name is not None:
        from .rowtypes import bind_columns

        cols = bind_columns([f.name for f in fields], by_name, name)
        of = {f.name: f for f in fields}
        fields = [of[c] for c in cols]
    if len(fields) != len(types):
        have = ", ".join(f"{f.name} {f.dataType.simpleString()}" for f in fields)
        raise DataflowInputError(
            f"`{name}` is a RowStream[{', '.join(types)}] ({len(types)} fields) but the DataFrame "
            f"has {len(fields)} columns ({have}); select the columns in field order"
        )
    out = []
    for i, (f, t) in enumerate(zip(fields, types, strict=True)):
        ft = FIELD_TYPES[base_type(t)]
        actual = f.dataType.simpleString()
        if actual.startswith("decimal") and base_type(t) == "float":
            actual = "double"
        if actual not in ft.accepts:
            field = repr(by_name[i]) if by_name is not None else i
            raise DataflowInputError(
                f"column {f.name!r} (field {field} of `{name}`) is {actual}, but the field "
                f"is {t}"
            )
        out.append((f, t, actual))
    return out


def entry(df: Any, name: str, types: Sequence[str], keep: Sequence[str] = (),
          names: Sequence[str] | None = None, by_name: Sequence[str] | None = None,
          checked: bool = True) -> Any:  # fmt: skip
    """The entry projection: the fields named ``names`` (by default ``f0..fn``), in order,
    types checked, nulls refused.

    The fields of a named row type (``by_name``: its field names) are the columns of
    those names, in any order, other columns ignored; else the columns by position.

    A null in a field that is not ``Optional`` raises at run time with a message
    naming the column (one filter, :func:`null_checks`, over the nullable columns only);
    a column of the wrong type is refused before running. The columns named in ``keep``
    (a signed plan's ``_sign``) follow the fields as they are.

    ``checked=False``: the same projection without the null checks, for the rows of a plan
    that also reads them checked where every row is read (the aggregate a plan broadcasts
    and joins back to its rows: its job runs first, and fails on a null).

    A checked field is not nullable for Spark after the entry (``coalesce(f, raise_error(...),
    0L)``, its last operand never reached): Spark infers no ``isnotnull`` filter from a
    join on it (which, above the checks' filter, stops a cached scan's column pruning) and
    drops null handling downstream. (Not for ``datetime``: ``TIMESTAMP`` has no literal of
    both kinds.)
    """
    fields = [f for f in df.schema.fields if f.name not in keep]
    cols, checks = [], []
    for i, (f, t, actual) in enumerate(check_fields(fields, name, types, by_name)):
        optional, base = is_optional(t), base_type(t)
        ft = FIELD_TYPES[base]
        ref = quote_ident(f.name)
        if not optional and f.nullable:
            field = repr(by_name[i]) if by_name is not None else i
            msg = sql_string(
                f"looplift: column {f.name!r} (field {field} of `{name}`, {t}) is null; "
                f"declare the field Optional[{base}] to allow nulls"
            )
            checks.append(f"WHEN {ref} IS NULL THEN raise_error({msg})")
        value = ref if actual == ft.spark else f"CAST({ref} AS {ft.cast})"
        if checked and not optional and f.nullable and ft.sql_zero is not None:
            # the filter below raised on a null; the check again (should Spark ever evaluate
            # this first), then a last operand never reached: not nullable for Spark
            value = f"coalesce({value}, raise_error({msg}), {ft.sql_zero})"
        cols.append(f"{value} AS {quote_ident(names[i] if names is not None else f'f{i}')}")
    if checks and checked:
        df = df.where(null_checks(checks))  # (SQL text: one call of the JVM, F.expr three)
    # SQL text in one selectExpr: building the step costs a few calls of the JVM, where a
    # Column per field (F.expr, alias) costs about ten each (PySpark's call-site capture)
    return df.selectExpr(*cols, *[quote_ident(k) for k in keep])


def null_checks(checks: Sequence[str]) -> str:
    """The entry's filter: each ``WHEN <field> IS NULL THEN raise_error(...)`` of
    ``checks``, else keep the row.

    The filter is the one place the checks run, for the fields the plan reads and those
    it does not (a projection's check is pruned with its unread column). Its ``ELSE`` is
    nondeterministic (``spark_partition_id() >= 0``, true and about free), which makes it
    a barrier: Spark neither merges a filter of the plan into it nor pushes one below it.
    Without it, a null-rejecting predicate above the entry (an ``isnotnull(f)`` Spark
    infers from a join on ``f`` or from ``f > 0``) would join this filter's conjunction
    and run first, dropping a null row before its check raises.
    """
    return f"CASE {' '.join(checks)} ELSE spark_partition_id() >= 0 END"


def not_null(col: Any, label: str, what: str, t: str) -> Any:
    """A Column argument bound to a field or parameter of type ``t``: when ``t`` is not
    ``Optional``, a null raises at run time naming the argument (``label``, its SQL text)
    and ``what`` it is bound to, as :func:`entry` does for a DataFrame's columns."""
    from pyspark.sql import functions as F

    if is_optional(t) or base_type(t) not in FIELD_TYPES:
        return col
    msg = (f"looplift: column {label!r} ({what}, {t}) is null; "
           f"declare it Optional[{base_type(t)}] to allow nulls")  # fmt: skip
    if base_type(t) == "str":
        # a last operand never reached (raise_error raises) makes the column non-nullable,
        # so Spark drops the SQL function's own null check: the body is then the top of the
        # expression, where Spark computes a value used in every condition of a CASE once
        return F.coalesce(col, F.raise_error(F.lit(msg)), F.lit(""))
    return F.coalesce(col, F.raise_error(F.lit(msg)))


def column_label(col: Any) -> str:
    """The SQL text of a Column (``str(col)`` is ``Column<'text'>``)."""
    text = str(col)
    if text.startswith("Column<'") and text.endswith("'>"):
        return text[len("Column<'") : -2]
    return text


def refuse_nulls(name: str, types: Sequence[str], rows: Sequence[Sequence[Any]],
                 labels: Sequence[str]) -> None:
    """Rows reaching the reference in Python (plain ``spark.sql``'s UDAF and UDTF): a None
    in a field that is not ``Optional`` raises, naming the column (``labels``), as the
    entry projection of a compiled plan does."""
    checked = [i for i, t in enumerate(types)
               if not is_optional(t) and base_type(t) in FIELD_TYPES]  # fmt: skip
    if not checked:
        return
    for row in rows:
        for i in checked:
            if i < len(row) and row[i] is None:
                t = types[i]
                raise DataflowInputError(
                    f"looplift: column {labels[i]!r} (field {i} of `{name}`, {t}) is null; "
                    f"declare the field Optional[{base_type(t)}] to allow nulls"
                )


def join_on_keys(left: Any, right: Any, keys: list[str], not_null: Sequence[str] = (),
                 broadcast: bool = False) -> Any:  # fmt: skip
    """Join on scope-key columns. A key may be None (group_by groups None too), so the
    keys compare null-safely, except those in ``not_null`` (no row has null there), which
    compare with ``=``: Spark then hashes the column itself, not ``coalesce(k, 0)`` and
    ``isnull(k)``. With ``broadcast``, ``right`` (known small) is broadcast: ``left`` is
    neither shuffled nor sorted."""
    from pyspark.sql import functions as F

    if not keys:
        return left.crossJoin(right)
    right = F.broadcast(right) if broadcast else right
    if all(k in not_null for k in keys):  # one step: Spark keeps the left side's keys
        return left.join(right, on=list(keys), how="inner")
    renamed = right
    for k in keys:
        renamed = renamed.withColumnRenamed(k, f"__r_{k}")
    cond = [left[k] == renamed[f"__r_{k}"] if k in not_null else left[k].eqNullSafe(renamed[f"__r_{k}"])
            for k in keys]  # fmt: skip
    out = left.join(renamed, on=cond, how="inner")
    return out.drop(*[f"__r_{k}" for k in keys])


def union_all(dfs: list[Any]) -> Any:
    out = dfs[0]
    for d in dfs[1:]:
        out = out.union(d)
    return out


def default_row(spark: Any, df: Any, defaults: list[tuple[str, Any]]) -> Any:
    """``df`` (at most one row, a global aggregate) or, when empty, one row of defaults."""
    from pyspark.sql import functions as F

    marked = df.withColumn("__present", F.lit(True))
    one = spark.range(1).select()
    joined = one.join(marked, on=F.lit(True), how="left")
    cols = [
        F.when(F.col("__present").isNull(), F.lit(v)).otherwise(F.col(quote_ident(c))).alias(c)
        for c, v in defaults
    ]
    return joined.select(*cols)


# -- values crossing into Python -------------------------------------------------------------


class ActionReducer:
    """The reduce part of an action state: apply each row's signed actions to a fresh
    state per scope key, then evaluate the readers (one grouped Arrow aggregate).

    ``sites`` lists (action name, number of arguments) per action site. ``packed``:
    the sites are exclusive and the map part sent one code column (the site number)
    and one argument column; otherwise one marker column and the argument columns
    per site. A trailing ``_sign`` column is optional (incremental mode).
    """

    def __init__(
        self,
        cls: type,
        ctor: tuple[Any, ...],
        sites: list[tuple[str, int]],
        packed: bool,
        readers: list[str],
        types: list[str],
        signed: bool = False,
    ) -> None:
        self.cls, self.ctor, self.sites, self.packed = cls, tuple(ctor), sites, packed
        self.readers, self.types, self.signed = readers, types, signed
        self._udf: Any = None
        self._schema: Any = None

    def _read(self, state: Any) -> list[Any]:
        out = []
        for r, t in zip(self.readers, self.types, strict=True):
            name, args = (r, ()) if isinstance(r, str) else (r[0], tuple(r[1]))
            out.append(_out(getattr(state, name)(*args), t))
        return out

    def fresh(self) -> tuple[Any, ...]:
        return tuple(self._read(self.cls(*self.ctor)))

    def apply(self, cols: list[Any]) -> Any:
        """Fold one scope key's columns (pyarrow arrays) into a fresh state; its readers."""
        return {f"_{i + 1}": v for i, v in enumerate(self._read(self.fold(cols)))}

    def fold(self, cols: list[Any]) -> Any:
        """One scope key's columns (pyarrow arrays) folded into a fresh state."""
        state = self.cls(*self.ctor)
        signs = _pylist(cols[-1]) if self.signed else None
        if self.packed:
            codes, args = cols[0], cols[1]
            batch = getattr(self.cls, "batch_apply", None)
            names = [m for m, _ in self.sites]
            if batch is not None:
                import numpy as np
                import pyarrow.compute as pc

                valid = pc.is_valid(codes)
                if not pc.all(valid).as_py():
                    codes, args = codes.filter(valid), args.filter(valid)
                    if signs is not None:
                        signs = [s for s, v in zip(signs, valid.to_pylist(), strict=True) if v]
                order = self.cls.codes() if hasattr(self.cls, "codes") else names
                lut = np.array([list(order).index(m) for m in names], dtype=np.int64)
                code_np = lut[codes.to_numpy(zero_copy_only=False).astype(np.int64)]
                arg_values = (
                    args.to_numpy(zero_copy_only=False) if _numeric(args) else _pylist(args)
                )
                batch(code_np, arg_values, signs, state=state, ctor_args=self.ctor)
            else:
                bound = [getattr(state, m) for m in names]
                sgn = signs or [1] * len(codes)
                for c, a, s in zip(_pylist(codes), _pylist(args), sgn, strict=True):
                    if c is not None:
                        bound[c].apply(s, a)
        else:
            lists = [_pylist(c) for c in (cols[:-1] if self.signed else cols)]
            n = len(lists[0]) if lists else 0
            sgn = signs or [1] * n
            pos = 0
            for method, nargs in self.sites:
                marks = lists[pos]
                argl = lists[pos + 1 : pos + 1 + nargs]
                pos += 1 + nargs
                act = getattr(state, method)
                for r in range(n):
                    if marks[r] is not None:
                        act.apply(sgn[r], *[a[r] for a in argl])
        return state

    def grouped(self) -> bool:
        """Can whole partitions be reduced at once (the state offers grouped readers)?"""
        g = getattr(self.cls, "grouped_reader", None)
        return bool(
            self.packed
            and not self.signed
            and not self.ctor
            and g is not None
            and all(isinstance(r, str) and g(r) is not None for r in self.readers)
        )

    def partitions(self, batches: Any) -> Any:
        """mapInArrow: all rows of a hash partition (key, code, argument) → one row per key.

        Every key's rows are in one partition (the plan repartitions by key), so the
        state's grouped readers see whole groups; rows without an action (code NULL)
        still make their key appear, with a fresh state's readers.
        """
        import pyarrow as pa

        tables = [pa.Table.from_batches([b]) for b in batches]
        if not tables:
            return
        table = pa.concat_tables(tables)
        if table.num_rows == 0:
            return
        ukeys, columns = self.grouped_read(
            table.column(0).to_numpy(), table.column(1), table.column(2)
        )
        out = {f"_{i + 1}": values for i, values in enumerate(columns)}
        yield pa.RecordBatch.from_pydict({"k": ukeys.tolist(), **out}, schema=self._schema)

    def grouped_read(self, keys: Any, codes: Any, args: Any) -> tuple[Any, list[list[Any]]]:
        """The readers of a fresh state per key, for all keys at once (:meth:`grouped`):
        ``keys`` a numpy array, ``codes``/``args`` Arrow arrays of the (code, argument)
        pairs. Returns the keys present and, per reader, its values (None for NaN)."""
        import numpy as np

        names = [m for m, _ in self.sites]
        order = list(self.cls.codes()) if hasattr(self.cls, "codes") else names
        lut = np.array([order.index(m) for m in names] + [99] * 100, dtype=np.int64)
        code_np = codes.fill_null(99).to_numpy(zero_copy_only=False).astype(np.int64)
        code_np = lut[np.minimum(code_np, len(lut) - 1)]
        arg_np = args.fill_null(0).to_numpy(zero_copy_only=False)
        ukeys, columns = None, []
        for r, t in zip(self.readers, self.types, strict=True):
            ukeys, values = self.cls.grouped_reader(r)(keys, code_np, arg_np)
            columns.append([_out(None if isinstance(v, float) and math.isnan(v) else v, t)
                            for v in values.tolist()])  # fmt: skip
        return ukeys, columns

    def partition_schema(self, key_type: str) -> str:
        """The output schema of :meth:`partitions` (resolved on the driver)."""
        fields = ", ".join(f"_{i + 1} {t}" for i, t in enumerate(self.types))
        ddl = f"k {key_type}, {fields}"
        self._schema = _arrow_schema(ddl)
        return ddl

    @property
    def udf(self) -> Any:
        if self._udf is None:
            fields = ", ".join(f"_{i + 1}: {t}" for i, t in enumerate(self.types))
            reducer = self

            def reduce_group(*cols: Any) -> Any:
                return reducer.apply(list(cols))

            self._udf = _arrow_udf(reduce_group, f"struct<{fields}>", "GROUPED_AGG")
        return self._udf


def _numeric(arr: Any) -> bool:
    import pyarrow as pa

    return pa.types.is_integer(arr.type) or pa.types.is_floating(arr.type)


class OrderedReducer:
    """Run an ordered loop's body (generated Python) over one scope key's rows."""

    def __init__(
        self, fn: Callable[..., tuple], nfields: int, nfree: int, types: list[str]
    ) -> None:
        self.fn, self.nfields, self.nfree, self.types = fn, nfields, nfree, types
        self._udf: Any = None

    @property
    def udf(self) -> Any:
        if self._udf is None:
            fields = ", ".join(f"_{i + 1}: {t}" for i, t in enumerate(self.types))
            me = self

            ddl = f"struct<{fields}>"
            # the result's Arrow type, resolved here on the driver: pyspark would infer one
            # from the value, and cannot for a map (a dict host result the loop carries)
            typed = _arrow_schema(f"r {ddl}").field("r").type

            def reduce_group(*cols: Any) -> Any:
                import pyarrow as pa

                lists = [_pylist(c) for c in cols]
                rows = list(zip(*lists[: me.nfields], strict=True))
                free = [lst[0] if lst else None for lst in lists[me.nfields :]]
                result, _rows = me.fn(rows, *free)
                value = {
                    f"_{i + 1}": _out(v, t)
                    for i, (v, t) in enumerate(zip(result, me.types, strict=True))
                }
                return pa.scalar(value, type=typed)

            self._udf = _arrow_udf(reduce_group, ddl, "GROUPED_AGG")
        return self._udf


class OrderedRows:
    """The rows an ordered loop yields, per scope key (``groupBy().applyInArrow``)."""

    def __init__(self, fn: Callable[..., tuple], nfields: int, nkeys: int, schema: str) -> None:
        self.fn, self.nfields, self.nkeys, self.ddl = fn, nfields, nkeys, schema
        self._arrow: Any = None

    @property
    def schema(self) -> str:
        """The output schema (DDL); resolves the Arrow schema on the driver, before pickling."""
        if self._arrow is None:
            self._arrow = _arrow_schema(self.ddl)
        return self.ddl

    def apply(self, *args: Any) -> Any:
        import pyarrow as pa

        table = args[-1]  # (key, table) or (table,)
        cols = [_pylist(c) for c in table.columns[self.nkeys :]]
        rows = list(zip(*cols[: self.nfields], strict=True))
        free = [c[0] if c else None for c in cols[self.nfields :]]
        _readers, out = self.fn(rows, *free)
        fields = list(self._arrow)
        types = [_split_schema(self.ddl)[i].split(" ", 1)[1] for i in range(len(fields))]
        columns = list(zip(*out, strict=True)) if out else [() for _ in fields]
        data = {
            f.name: [_out(v, t) for v in col]
            for f, t, col in zip(fields, types, columns, strict=True)
        }
        return pa.Table.from_pydict(data, schema=self._arrow)


def _arrow_schema(schema: str) -> Any:
    import pyarrow as pa
    from pyspark.sql.pandas.types import to_arrow_type
    from pyspark.sql.types import StructType, _parse_datatype_string

    st = _parse_datatype_string(schema)
    assert isinstance(st, StructType)
    # Spark's Python workers type timestamps as UTC instants (naive datetimes are UTC wall
    # time, as with the session time zone looplift sets)
    return pa.schema(
        [pa.field(f.name, to_arrow_type(f.dataType, timezone="UTC"), True) for f in st.fields]
    )


def sort_key(order: list[int]) -> Callable[[tuple], tuple]:
    """Rows sorted by ``order`` fields, None first (as ``group_by(..., order_by=)`` does)."""

    def key(row: tuple) -> tuple:
        return tuple(
            (row[i] is not None, row[i]) if row[i] is not None else (False, 0) for i in order
        )

    return key


def sort_rows(rows: Any, order: list[tuple[int, bool]]) -> list[tuple]:
    """``rows`` in ``order`` ((field, descending) for every field): None first ascending,
    last descending (Spark's defaults), as ``group_by(..., order_by=)`` and ``sorted_by`` do."""
    out = list(rows)
    for i, desc in reversed(order):
        out.sort(key=lambda r: (False, 0) if r[i] is None else (True, r[i]), reverse=desc)
    return out


def import_ref(ref: str) -> Any:
    """The object named ``module:qualname``."""
    mod, _, qual = ref.partition(":")
    obj: Any = importlib.import_module(mod)
    for part in qual.split("."):
        obj = getattr(obj, part)
    return obj


def ship(refs: list[str]) -> None:
    """Make the user's modules (states, host functions) reach Spark's Python workers.

    Modules that workers cannot import (a script's own module, a file loaded by
    path) are pickled by value with the functions and classes that use them. The same
    holds on Spark Connect: the client pickles every Python function, and the server's
    workers unpickle it, so a module only the client has needs no artifact upload.
    """
    from pyspark import cloudpickle

    for ref in refs:
        mod_name = ref.partition(":")[0]
        mod = sys.modules.get(mod_name)
        if mod is None or mod_name.startswith(("looplift", "pyspark", "builtins")):
            continue
        if getattr(mod, "__looplift_islands__", False):  # generated: no worker can import it
            if mod_name not in _SHIPPED:
                cloudpickle.register_pickle_by_value(mod)
                _SHIPPED.add(mod_name)
            continue
        path = getattr(mod, "__file__", None) or ""
        if "site-packages" in path or "dist-packages" in path or not path:
            continue
        if mod_name in _SHIPPED:
            continue
        try:
            cloudpickle.register_pickle_by_value(mod)
        except ValueError:
            continue
        _SHIPPED.add(mod_name)


_SHIPPED: set[str] = set()


def expr_binder(params: dict[str, Any]) -> Callable[[str], Any]:
    """``F.expr`` with the plan's scalar parameters bound as SQL literals."""
    from pyspark.sql import functions as F

    def expr(sql: str) -> Any:
        return F.expr(bind_params(sql, params))

    return expr
