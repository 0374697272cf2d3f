"""Container values in a plan: the SQL rules of the ``c_*`` entries of the table
(``primitives/containers.py``: their types, references and partiality).

A container accumulator (``states/containers.py``) reads back as an ordered
list: ``array<T>`` for a list or set, ``array<struct<_1: K, _2: V>>`` for a
dict (its items, ascending by key). The code after the loop reads it with
Spark's array functions; Python's exceptions (``max`` of nothing, a missing
key, an index out of range) are ``raise_error`` calls naming the Python class.

>>> element_type(("list", ("tuple", ("str", "int"))))
('tuple', ('str', 'int'))
"""

from __future__ import annotations

from typing import Any

from ..errtext import Sql, raise_sql
from ..ir.nodes import Expr, Lit
from ..primitives import CONTAINERS
from ..primitives.containers import element_type
from ..primitives.typerules import unify
from .rules import Emitter, reader_type, rule
from .typevocab import Type, spark_type

__all__ = ["CONTAINER_CLASSES", "container_py", "container_reader_type", "container_sql",
           "element_type"]  # fmt: skip

# the state classes of looplift.states.containers, by name: how their value() is typed
CONTAINER_CLASSES = {"KeyedSums": "items", "KeyedMax": "items", "KeyedMin": "items", "Bag": "elements", "ValueSet": "elements",
                     "InsertionDict": "items", "Seq": "elements", "PySet": "elements"}  # fmt: skip


@reader_type("looplift.states.containers", "value")
def container_reader_type(cls_name: str, arg_types: list[list[Type]]) -> tuple[Type, bool] | None:
    """The type of ``value()`` of a container state, from the types of its actions' arguments
    (``arg_types[i]``: the types seen for argument ``i``)."""
    how = CONTAINER_CLASSES.get(cls_name)
    if how is None:
        return None
    merged = []
    for ts in arg_types:
        t: Type = "none"
        for x in ts:
            t = unify(t, x)
        merged.append("int" if t == "none" else t)
    if how == "items":
        k = merged[0] if merged else "int"
        v = merged[1] if len(merged) > 1 else "int"
        if v == "bool" and cls_name == "KeyedSums":
            v = "int"  # True + True is 2
        return ("list", ("tuple", (k, v))), False
    return ("list", merged[0] if merged else "int"), False


def _err(cls: str, what: str) -> str:
    return raise_sql(cls, what)


def _none_compared(x: str, v: str, el: Any) -> str:
    """Two elements or more, one of them None: Python's comparison raises TypeError
    (elements that are tuples are never None themselves)."""
    if isinstance(el, tuple):
        return "FALSE"
    return f"size({x}) > 1 AND exists({x}, {v} -> {v} IS NULL)"


_NO_DATA = {"c_mean": "mean requires at least one data point",
            "c_fmean": "fmean requires at least one data point",
            "c_median": "no median for empty data", "c_median_low": "no median for empty data",
            "c_median_high": "no median for empty data"}  # fmt: skip


def _none_cmp_err() -> str:
    return _err("TypeError", "'<' not supported between instances of 'NoneType' and another")


def _fold_extreme(x: str, v: str, acc: str, el: Any, op: str) -> str:
    """``max(x)`` / ``min(x)`` of a non-empty array as Python computes it: from the first
    element, an element replaces the result when ``element > result`` (``<`` for min)
    holds in Python, which is false when either is NaN (Spark's NaN is the greatest)."""
    if el != "float":
        return f"{'array_max' if op == 'c_max' else 'array_min'}({x})"
    cmp = ">" if op == "c_max" else "<"
    test = f"{v} {cmp} {acc} AND NOT isnan({v}) AND NOT isnan({acc})"
    return f"aggregate({x}, element_at({x}, 1), ({acc}, {v}) -> IF({test}, {v}, {acc}))"


@rule(*(p.name for p in CONTAINERS if p.name.startswith("c_")))
def container_sql(r: Emitter, op: str, args: tuple[Expr, ...], ts: list[Any], x: list[str]) -> str:
    """Spark SQL of a ``c_*`` primitive (``x``: the rendered arguments)."""
    v = f"_ce{r.depth}"
    el = element_type(ts[0]) if ts else "any"
    none_cmp = _none_compared(x[0], v, el) if x else "FALSE"
    if op == "c_keys":
        return f"transform({x[0]}, {v} -> {v}._1)"
    if op == "c_count":  # each distinct element (its first occurrence) with its count
        w = f"_cc{r.depth}"
        n = f"CAST(size(filter({x[0]}, {w} -> {w} <=> {v})) AS BIGINT)"
        return f"transform(array_distinct({x[0]}), {v} -> named_struct('_1', {v}, '_2', {n}))"
    if op == "c_most_common":  # by count descending, ties by position (a stable sort)
        a, b, i = f"_ma{r.depth}", f"_mb{r.depth}", f"_mi{r.depth}"
        idx = f"transform({x[0]}, ({v}, {i}) -> named_struct('e', {v}, 'i', {i}))"
        cmp = (f"CASE WHEN {a}.e._2 > {b}.e._2 THEN -1 WHEN {a}.e._2 < {b}.e._2 THEN 1 "
               f"WHEN {a}.i < {b}.i THEN -1 WHEN {a}.i > {b}.i THEN 1 ELSE 0 END")  # fmt: skip
        out = f"transform(array_sort({idx}, ({a}, {b}) -> {cmp}), {v} -> {v}.e)"
        if isinstance(args[1], Lit) and args[1].value is None:
            return out
        k = f"CAST(least(greatest({x[1]}, 0), 2147483647) AS INT)"
        return f"CASE WHEN {x[1]} IS NULL THEN {out} ELSE slice({out}, 1, {k}) END"
    if op == "c_list":
        return f"array({', '.join(x)})"
    if op == "c_concat":
        return f"concat({', '.join(x)})"
    if op == "c_union":  # Spark keeps each element's first occurrence, in order
        return f"array_distinct(concat({x[0]}, {x[1]}))"
    if op == "c_merge_sums":
        hits = f"filter({x[1]}, _cm{r.depth} -> _cm{r.depth}._1 <=> {v}._1)"
        start = f"transform({x[0]}, {v} -> named_struct('_1', {v}._1, '_2', CASE WHEN size({hits}) = 0 THEN {v}._2 ELSE {v}._2 + element_at({hits}, 1)._2 END))"
        rest = f"filter({x[1]}, {v} -> NOT exists({x[0]}, _cm{r.depth} -> _cm{r.depth}._1 <=> {v}._1))"
        return f"concat({start}, {rest})"
    if op == "c_values":
        return f"transform({x[0]}, {v} -> {v}._2)"
    if op == "c_sorted":
        rev = isinstance(args[1], Lit) and bool(args[1].value)
        srt = f"reverse(array_sort({x[0]}))" if rev else f"array_sort({x[0]})"
        return _unless(none_cmp, _none_cmp_err(), srt)
    if op == "c_reversed":
        return f"reverse({x[0]})"
    if op == "c_distinct":
        return _unless(none_cmp, _none_cmp_err(), f"array_sort(array_distinct({x[0]}))")
    if op == "c_first":
        empty = _err("ValueError", "max() arg is an empty sequence")
        return f"(CASE WHEN size({x[0]}) = 0 THEN {empty} ELSE element_at({x[0]}, 1) END)"
    if op in ("c_mean", "c_fmean", "c_median", "c_median_low", "c_median_high"):
        empty = _err("StatisticsError", _NO_DATA[op])
        if op in ("c_mean", "c_fmean"):
            return _mean(r, op, x[0], v, empty)
        srt, n = f"array_sort({x[0]})", f"size({x[0]})"
        half = f"CAST({n} div 2 AS INT)"
        low, high = f"element_at({srt}, {half})", f"element_at({srt}, {half} + 1)"
        pick = {"c_median_low": f"IF({n} % 2 = 1, {high}, {low})", "c_median_high": high,
                "c_median": f"IF({n} % 2 = 1, {high}, ({low} + {high}) / 2)"}[op]  # fmt: skip
        return f"(CASE WHEN {n} = 0 THEN {empty} WHEN {none_cmp} THEN {_none_cmp_err()} ELSE {pick} END)"
    if op == "c_sum":
        t = spark_type("int" if el in ("int", "bool") else "float")
        total = f"aggregate({x[0]}, CAST(0 AS {t}), (_acc{r.depth}, {v}) -> _acc{r.depth} + {v})"
        if isinstance(el, tuple):
            return total
        return _unless(f"exists({x[0]}, {v} -> {v} IS NULL)", _none_add_err(), total)
    if op in ("c_max", "c_min"):
        name = op[2:]
        empty = x[1] if len(x) > 1 else _err("ValueError", f"{name}() arg is an empty sequence")
        best = _fold_extreme(x[0], v, f"_acc{r.depth}", el, op)
        return (f"(CASE WHEN size({x[0]}) = 0 THEN {empty} WHEN {none_cmp} THEN {_none_cmp_err()} "
                f"ELSE {best} END)")  # fmt: skip
    if op == "c_contains":
        return f"exists({x[0]}, {v} -> {v} <=> {x[1]})"  # None in [None] is True
    if op == "c_enumerate":
        return f"transform({x[0]}, ({v}, _ci{r.depth}) -> named_struct('_1', CAST(_ci{r.depth} AS BIGINT) + {x[1]}, '_2', {v}))"
    if op == "c_zip":
        if len(x) == 1:
            return f"transform({x[0]}, {v} -> named_struct('_1', {v}))"
        n = f"least({', '.join(f'size({a})' for a in x)})"
        i = f"_ci{r.depth}"
        fields = ", ".join(
            f"'_{k + 1}', try_element_at({a}, CAST({i} + 1 AS INT))" for k, a in enumerate(x)
        )
        seq = f"sequence(0, greatest({n}, 1) - 1)"
        return f"slice(transform({seq}, {i} -> named_struct({fields})), 1, {n})"
    if op == "c_range":
        return _range(r, args, x)
    if op in ("c_getitem", "c_get"):
        hits = f"filter({x[0]}, {v} -> {v}._1 <=> {x[1]})"
        missing = x[2] if op == "c_get" else _err("KeyError", "key not in the dict")
        # of duplicate keys the last counts, as in ``dict(items)``
        return f"(CASE WHEN size({hits}) = 0 THEN {missing} ELSE element_at({hits}, -1)._2 END)"
    if op == "c_index":
        n = f"size({x[0]})"
        i = x[1]
        return (f"(CASE WHEN {i} >= {n} OR {i} < -{n} THEN {_err('IndexError', 'list index out of range')} "
                f"ELSE element_at({x[0]}, CAST(CASE WHEN {i} >= 0 THEN {i} + 1 ELSE {i} END AS INT)) END)")  # fmt: skip
    if op == "c_unpack":  # `a, b = x`: a list of as many elements (a tuple is as it is)
        if not (isinstance(ts[0], tuple) and ts[0][0] == "list"):
            return x[0]
        n, want = f"size({x[0]})", x[1]
        many = raise_sql("ValueError", "too many values to unpack (expected ", Sql(want), ")")
        few = raise_sql("ValueError", "not enough values to unpack (expected ", Sql(want),
                        ", got ", Sql(f"CAST({n} AS STRING)"), ")")  # fmt: skip
        return f"(CASE WHEN {n} > {want} THEN {many} WHEN {n} < {want} THEN {few} ELSE {x[0]} END)"
    if op == "c_slice":
        n = f"size({x[0]})"

        def bound(e: Expr, sql: str, dflt: str) -> str:
            if isinstance(e, Lit) and e.value is None:
                return dflt
            return (f"(CASE WHEN {sql} < 0 THEN greatest({n} + {sql}, 0) "
                    f"ELSE least({sql}, {n}) END)")  # fmt: skip

        lo = bound(args[1], x[1], "0")
        hi = bound(args[2], x[2], n)
        return f"slice({x[0]}, CAST({lo} + 1 AS INT), CAST(greatest({hi} - {lo}, 0) AS INT))"
    raise ValueError(op)


def _range(r: Emitter, args: tuple[Expr, ...], x: list[str]) -> str:
    """``range(stop)``, ``range(start, stop)``, ``range(start, stop, step)``: Python's
    elements (none when the range is empty, whatever the step's sign), TypeError for a None
    argument, ValueError for a zero step. The length is counted in decimals, so ranges
    between the 64-bit limits neither overflow nor wrap; a range too long for an array
    raises."""
    big = [f"CAST({v} AS BIGINT)" for v in x]
    if len(x) == 1:
        n = big[0]
        out = f"slice(sequence(CAST(0 AS BIGINT), greatest({n}, 1) - 1), 1, CAST(greatest({n}, 0) AS INT))"
    elif len(x) == 2:
        lo, hi = big
        out = (f"(CASE WHEN {hi} > {lo} THEN sequence({lo}, {hi} - 1) "
               f"ELSE CAST(array() AS ARRAY<BIGINT>) END)")  # fmt: skip
    else:
        lo, hi, step = (f"CAST({v} AS DECIMAL(20, 0))" for v in x)
        up = f"(CASE WHEN {hi} > {lo} THEN ({hi} - {lo} - 1) div {step} + 1 ELSE 0 END)"
        down = f"(CASE WHEN {lo} > {hi} THEN ({lo} - {hi} - 1) div (-{step}) + 1 ELSE 0 END)"
        sign = args[2].value if isinstance(args[2], Lit) and isinstance(args[2].value, int) else None
        zero = _err("ValueError", "range() arg 3 must not be zero")
        if sign is None:
            n = f"(CASE WHEN {step} > 0 THEN {up} WHEN {step} < 0 THEN {down} ELSE {zero} END)"
        else:
            n = up if sign > 0 else down if sign < 0 else zero
        i = f"_ri{r.depth}"

        def build(v: list[str]) -> str:
            seq = f"slice(sequence(CAST(0 AS BIGINT), greatest({v[0]}, 1) - 1), 1, CAST(greatest({v[0]}, 0) AS INT))"
            return f"transform({seq}, {i} -> CAST({lo} + {i} * {step} AS BIGINT))"

        out = r.bind([f"CAST({n} AS BIGINT)"], build)
    nullable = [v for a, v in zip(args, x, strict=True) if r.ty.may_be_null(a)]
    if nullable:
        test = " OR ".join(f"{v} IS NULL" for v in nullable)
        none = _err("TypeError", "'NoneType' object cannot be interpreted as an integer")
        return f"(CASE WHEN {test} THEN {none} ELSE {out} END)"
    return out


def _mean(r: Emitter, op: str, xs: str, v: str, empty: str) -> str:
    """``statistics.mean`` (exact: a sum beyond the largest float of finite elements is
    divided first) and ``fmean`` (``math.fsum``: ValueError for ``inf + -inf``,
    OverflowError for finite elements whose sum is not finite)."""
    acc = f"_acc{r.depth}"
    finite = f"NOT exists({xs}, {v} -> isnan({v}) OR abs({v}) = CAST('Infinity' AS DOUBLE))"
    n = f"size({xs})"

    def build(t: list[str]) -> str:
        total = t[0]
        overflow = f"{finite} AND abs({total}) = CAST('Infinity' AS DOUBLE)"
        if op == "c_fmean":
            both = (f"exists({xs}, {v} -> {v} = CAST('Infinity' AS DOUBLE)) AND "
                    f"exists({xs}, {v} -> {v} = CAST('-Infinity' AS DOUBLE))")  # fmt: skip
            return (f"(CASE WHEN {both} THEN {_err('ValueError', '-inf + inf in fsum')} "
                    f"WHEN {overflow} THEN {_err('OverflowError', 'intermediate overflow in fsum')} "
                    f"ELSE {total} / {n} END)")  # fmt: skip
        scaled = f"aggregate({xs}, CAST(0 AS DOUBLE), ({acc}, {v}) -> {acc} + {v} / {n})"
        return f"(CASE WHEN {overflow} THEN {scaled} ELSE {total} / {n} END)"

    total = f"aggregate({xs}, CAST(0 AS DOUBLE), ({acc}, {v}) -> {acc} + {v})"
    none = f"exists({xs}, {v} -> {v} IS NULL)"
    return (f"(CASE WHEN {n} = 0 THEN {empty} WHEN {none} THEN {_none_add_err()} "
            f"ELSE {r.bind([total], build)} END)")  # fmt: skip


def _none_add_err() -> str:
    return _err("TypeError", "unsupported operand type(s) for +: 'NoneType'")


def _unless(test: str, error: str, sql: str) -> str:
    return sql if test == "FALSE" else f"(CASE WHEN {test} THEN {error} ELSE {sql} END)"


def container_py(op: str, x: list[str]) -> str:
    """Python of a ``c_*`` primitive (ordered loops run their body as Python)."""
    forms = {
        "c_keys": "[_e[0] for _e in {0}]",
        "c_values": "[_e[1] for _e in {0}]",
        "c_sorted": "sorted({0}, reverse={1})",
        "c_reversed": "list(reversed({0}))",
        "c_slice": "{0}[{1}:{2}]",
        "c_sum": "sum({0})",
        "c_contains": "({1} in {0})",
        "c_getitem": "dict({0})[{1}]",
        "c_get": "dict({0}).get({1}, {2})",
        "c_index": "{0}[{1}]",
        "c_enumerate": "list(enumerate({0}, {1}))",
        "c_zip": "list(zip({all}))",
        "c_range": "list(range({all}))",
        **{f"c_{f}": f"list(__import__('itertools').{f}({{all}}))"
           for f in ("combinations", "permutations", "product")},
        "c_distinct": "sorted(set({0}))",
        "c_list": "[{all}]",
        "c_count": "list(__import__('collections').Counter({0}).items())",
        "c_most_common": "__import__('collections').Counter(dict({0})).most_common({1})",
        "c_concat": "[_e for _x in ({all},) for _e in _x]",
        "c_row": "[{0}]",
        "c_empty": "[]",
        "c_union": "list(dict.fromkeys([*{0}, *{1}]))",
        "c_merge_sums": "ll.PY_IMPLS['c_merge_sums']({0}, {1})",
        "c_unpack": "ll.PY_IMPLS['c_unpack']({0}, {1})",
        "c_first": "({0}[0] if {0} else max({0}))",
        **{
            f"c_{m}": f"statistics.{m}({{0}})"
            for m in ("mean", "fmean", "median", "median_low", "median_high")
        },  # fmt: skip
    }
    if op in ("c_max", "c_min"):
        fn = op[2:]
        return f"{fn}({x[0]}, default={x[1]})" if len(x) > 1 else f"{fn}({x[0]})"
    if op not in forms:
        raise ValueError(f"no Python for {op}")
    return forms[op].format(*x, all=", ".join(x))
