"""Argument checks of spliced calls: field arguments typed by Spark (and cast, with a
run-time error for a null where the field is not Optional), scalar parameters evaluated
to constants of the parameter's type. Errors name the call and point at it in the query."""

from __future__ import annotations

import decimal
from typing import Any

from sqlglot import exp

from ..fieldtypes import FIELD_TYPES, base_type, is_optional
from ..registry import Algorithm
from ..sqltext import sql_string
from .errors import LoopliftSQLError, first_line
from .parse import Call, Spliced, enclosing_ctes, label, render, with_ctes

__all__ = ["Checks", "cast_hint", "describe_params"]


class Checks:
    """The checks, for a splicer (its session, query and enclosing CTEs)."""

    spark: Any
    query: str
    outer_ctes: list[Any]

    def error(self, message: str, call: Call | None = None) -> LoopliftSQLError:
        if call is None:
            return LoopliftSQLError(message, self.query)
        return LoopliftSQLError(message, self.query, call.start, call.end)

    def fields(self, call: Call, args: list[Any], ftypes: list[str], labels: list[str],
               aggregate: bool) -> list[str]:  # fmt: skip
        """Argument SQL, cast to the field types; a wrong type is an error naming the call,
        a null where the field is not Optional raises when the query runs."""
        texts = [render(a) for a in args]
        types_ = self.probe(call, texts, aggregate)
        out = []
        for i, (text, t, what) in enumerate(zip(texts, ftypes, labels, strict=True)):
            optional, base = is_optional(t), base_type(t)
            ft = FIELD_TYPES.get(base)
            if ft is None:
                out.append(f"({text})")
                continue
            actual, nullable = types_[i] if types_ else (None, True)
            if actual is not None:
                shown = actual
                if actual.startswith("decimal") and base == "float":
                    actual = "double"
                if actual == "void":  # NULL literal
                    actual = ft.spark
                if actual not in ft.accepts:
                    raise self.error(
                        f"argument {i + 1} of `{call.alg.name}` ({text}) is {shown}, but "
                        f"{what} is {t}" + cast_hint(base),
                        call,
                    )
            value = f"({text})" if actual == ft.spark else f"CAST(({text}) AS {ft.cast})"
            if not optional and nullable:
                msg = sql_string(
                    f"looplift: {call.alg.name} argument {i + 1} ({text}) is null; {what} is "
                    f"{t} (declare it Optional[{base}] or filter the nulls)"
                )
                value = f"coalesce({value}, raise_error({msg}))"
            out.append(value)
        return out

    def probe(self, call: Call, texts: list[str], aggregate: bool) -> list[tuple] | None:
        """Spark's type and nullability of each argument, by analysing (not running) a
        projection of them over the call's FROM clause."""
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
        probe.set("expressions", [exp.alias_(Spliced(this=t), f"__looplift_arg_{i}", quoted=True)
                                  for i, t in enumerate(texts)])  # fmt: skip
        ctes = self.outer_ctes + enclosing_ctes(sel)
        if ctes:
            probe = with_ctes(probe, ctes)
        try:
            schema = self.spark.sql(render(probe)).schema
        except Exception:  # noqa: BLE001 - correlated or otherwise unprobeable: unchecked
            return None
        return [(f.dataType.simpleString(), f.nullable) for f in schema.fields]

    def constant(self, call: Call, pname: str, t: str, arg: Any) -> Any:
        """The Python value of a scalar parameter's argument (a literal or constant
        expression), checked against the parameter's type."""
        if arg.find(exp.Column, Spliced) is not None:
            raise self.error(
                f"scalar parameter `{pname}` of `{call.alg.name}` takes a literal, "
                f"not a column expression ({label(arg)})",
                call,
            )
        try:
            value = self.spark.sql(f"SELECT {render(arg)}").first()[0]
        except Exception as e:  # noqa: BLE001
            raise self.error(
                f"argument `{pname}` of `{call.alg.name}`: {first_line(e)}", call
            ) from None
        base = base_type(t)
        if isinstance(value, decimal.Decimal):  # SQL's 1.5 is a decimal literal
            value = float(value) if base == "float" else value
        ft = FIELD_TYPES.get(base)
        ok = ft.check if ft is not None else None
        if value is None and not is_optional(t):
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


def describe_params(alg: Algorithm) -> str:
    """The signature of an algorithm as an error message shows it."""
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


def cast_hint(base: str) -> str:
    return f"; CAST it (CAST(x AS {FIELD_TYPES[base].cast})) if that is what you mean"


def arguments_error(alg: Algorithm, need: int, got: int) -> str:
    return f"`{alg.name}` takes {need} argument(s) ({describe_params(alg)}), got {got}"
