"""The function translator: a ``@dataflow`` function's libcst tree → an IR ``Function``.

``Translator`` combines the statement, loop, expression and call mixins;
``translate`` runs it after the rejection visitor has reported every construct
that is refused by syntax alone.
"""

from __future__ import annotations

import contextvars
import dataclasses
from typing import Any

import libcst as cst

from ..errors import Diagnostic, FrontendError
from ..ir.nodes import UNIT, Function, Param, ParamKind, Span
from .argbest import ArgBestMixin
from .calls import CallMixin
from .containers import ContainerMixin
from .control import ControlMixin
from .env import Env, Rows, Value
from .exprs import ExprMixin
from .genexps import GeneratorMixin
from .indexloops import IndexLoopMixin
from .islands import Island, Outliner
from .jumps import LoopRewriteMixin
from .parse import ParsedModule, ref_of
from .reject import rejections
from .stmts import StmtMixin
from .syntax import SCALAR_TYPES, code_of, contains, norm_type
from .tries import TryMixin

__all__ = ["STRICT", "Translator", "strict_diagnostic", "translate"]


def translate(
    dataflow_obj: Any, parsed: ParsedModule, *, partial: bool = False, strict: bool | None = None
) -> tuple[Function, dict[str, Any], list[Diagnostic]]:
    """Translate one ``Dataflow`` into IR.

    Returns the IR function, the table of referenced objects (``ref`` →
    Python object: callee Dataflows, state classes, host functions) and the
    diagnostics. Raises :class:`FrontendError` with every diagnostic found,
    unless ``partial``: then the IR (without the statements in error) is
    returned with the diagnostics, so later passes can find more problems.

    A refusal of a construct that has a meaning in parallel is outlined instead: the
    smallest enclosing unit becomes a Python island (``islands.py``) and the function is
    translated again, until nothing more can be outlined. ``strict`` (``@dataflow(strict=
    True)``, ``uda-compile --strict``) reports every island as an error at its source line.
    """
    if strict is None:
        strict = bool(getattr(dataflow_obj, "strict", False)) or STRICT.get()
    t = Translator(dataflow_obj, parsed)
    fn = t.run()
    diags = _dedupe(t.diags)
    user = t.user_node
    if diags and user is not None:
        outliner = Outliner(dataflow_obj, user, parsed.span, parsed.origins)
        node, first = user, (t, fn, diags)
        for _ in range(_ROUNDS):
            node2 = outliner.outline(node, diags, t.envs)
            if node2 is None:
                break
            node = node2
            t = Translator(dataflow_obj, parsed, node=node, islands=outliner.functions)
            fn = t.run()
            diags = _dedupe(t.diags)
            if not diags:
                break
        said = {(d.span.line, d.span.col, d.message) for d in first[2]}
        if any((d.span.line, d.span.col, d.message) not in said for d in diags):
            # outlining made a problem of its own (a container start outlined, then mutated
            # as a value): the user's refusals, as they were, say more
            t, fn, diags = first
            outliner.islands.clear()
        if outliner.islands:
            fn = dataclasses.replace(fn, islands=tuple(outliner.islands))
            if strict:  # every construct that made an island, as refused without them
                diags = _dedupe(diags + [_strict(d) for d in first[2]])
    if diags and not partial:
        raise FrontendError(diags)
    return fn, t.refs, diags


_ROUNDS = 12
#: ``uda-compile --strict``: every island is an error (``@dataflow(strict=True)`` for one)
STRICT: contextvars.ContextVar[bool] = contextvars.ContextVar("looplift_strict", default=False)


def _strict(d: Diagnostic) -> Diagnostic:
    hint = "strict=True: this would run as a Python island otherwise"
    return dataclasses.replace(d, hint=f"{d.hint} ({hint})" if d.hint else hint)


def strict_diagnostic(island: Island) -> Diagnostic:
    return Diagnostic(
        island.span,
        f"strict: {island.why}; this {island.kind} would run as a Python island ({island.cost})",
        island.hint or "rewrite it with what compiles natively, or drop strict=True",
    )


def _dedupe(diags: list[Diagnostic]) -> list[Diagnostic]:
    seen, out = set(), []
    for d in diags:
        k = (d.span.line, d.span.col, d.message)
        if k not in seen:
            seen.add(k)
            out.append(d)
    return out


class Translator(StmtMixin, ControlMixin, LoopRewriteMixin, IndexLoopMixin, GeneratorMixin, TryMixin, ArgBestMixin, ContainerMixin, CallMixin, ExprMixin):
    def __init__(self, obj: Any, parsed: ParsedModule, node: cst.FunctionDef | None = None,
                 islands: dict[str, Any] | None = None):  # fmt: skip
        super().__init__(obj.fn.__globals__, parsed)
        self.obj = obj
        self.parsed = parsed
        self.has_yield = False
        self.user_node = parsed.functions.get(obj.name)
        self.node = node if node is not None else self.user_node
        self.islands = islands or {}  # the generated functions the (outlined) node calls

    def global_obj(self, n: str) -> Any:
        if n in self.islands:
            return self.islands[n]
        return super().global_obj(n)

    # -- function ---------------------------------------------------------
    def run(self) -> Function:
        node = self.node
        ref = ref_of(self.obj)
        if node is None:
            self.diags.append(
                Diagnostic(
                    Span(self.parsed.path, 1, 1),
                    f"@dataflow function `{self.obj.name}` is not defined at module level "
                    "of its file",
                    "define algorithms as top-level functions",
                )
            )
            return Function(ref, self.obj.name, (), UNIT, "value")
        node = self.node = self.rewrite_tries(node)  # try/except ValueError: an if (tries.py)
        fspan = self.span(node)
        self.has_yield = contains(node.body, (cst.Yield,))
        env = Env()
        params = []
        for p in [*node.params.posonly_params, *node.params.params]:
            par = self.param(p)
            if par is None:
                continue
            params.append(par)
            if par.kind == ParamKind.ROWS:
                env.names[par.name] = Rows(
                    par.name, par.span, arity=len(par.types), types=par.types,
                    names=par.fields, row_type=par.row_type,
                )
            else:
                env.names[par.name] = Value(par.name, par.span)
        self.diags.extend(rejections(node.body, self.span))
        for extra in (node.params.star_arg, node.params.star_kwarg):
            if isinstance(extra, cst.Param):
                self.error(
                    extra,
                    "*args and **kwargs are not supported in @dataflow functions",
                    "declare each parameter with a type",
                )
        if node.asynchronous:
            self.error(node, "async functions are not supported", "remove `async`")
        columns = self.obj.columns
        if columns is None and self.has_yield:  # `yield Out(...)`, `-> Iterator[Out]`
            out_cls = self.output_row_class(node)
            if out_cls is not None:
                from looplift.rowtypes import field_names

                columns = field_names(out_cls)
        if columns is not None and not all(isinstance(c, str) for c in columns):
            self.error(
                node.name,
                f"the columns of `{self.obj.name}` are not all strings: {columns!r}",
                'name the output columns with strings: @dataflow(columns=("user_id", "n"))',
            )
        stream_params = [p for p in params if p.kind == ParamKind.ROWS]
        if self.has_yield and not stream_params:
            self.error(
                node.name,
                f"table algorithm `{self.obj.name}` yields rows but has no RowStream parameter",
                "take the input relation as a `RowStream[...]` parameter",
            )
        tail = UNIT
        body = self.block(list(node.body.body), env, tail_fn=lambda env: tail, top=True)
        returns = "rows" if self.has_yield else "value"
        ret_type = None
        if node.returns is not None:
            ret_type = code_of(node.returns.annotation)
        return Function(
            ref,
            self.obj.name,
            tuple(params),
            body,
            returns,
            columns,
            ret_type,
            span=fspan,
        )

    def param(self, p: cst.Param) -> Param | None:
        name = p.name.value
        sp = self.span(p.name)
        if p.annotation is None:
            self.error(
                p.name,
                f"parameter `{name}` needs a type annotation",
                "annotate it, e.g. `rows: RowStream[int, float]` or `threshold: int`",
            )
            return None
        if p.default is not None:
            self.error(
                p.default,
                f"parameter `{name}`: default values are not supported",
                "pass every argument at the call (SQL literals for scalar parameters)",
            )
        ann = p.annotation.annotation
        if isinstance(ann, cst.Subscript) and code_of(ann.value) in (
            "RowStream",
            "looplift.RowStream",
        ):
            named = self.named_param(name, ann, sp)
            if named is not None:  # RowStream[Click] of a NamedTuple / dataclass
                return named
            tys = []
            for el in ann.slice:
                t = self.field_type(el.slice.value if isinstance(el.slice, cst.Index) else None)
                if t is None:
                    self.error(
                        el,
                        f"unsupported RowStream field type `{code_of(el)}`",
                        "fields are int, float, str, bool, datetime.datetime, datetime.date, "
                        "or Optional[...] of those",
                    )
                    t = "int"
                tys.append(t)
            return Param(name, ParamKind.ROWS, tuple(tys), span=sp)
        t = norm_type(code_of(ann))
        opt = self.field_type(ann)  # `Optional[str]` / `str | None`: None is a valid argument
        if opt is not None and opt.startswith("Optional[") and opt[9:-1] in SCALAR_TYPES:
            return Param(name, ParamKind.SCALAR, (opt,), span=sp)
        if t not in SCALAR_TYPES:
            self.error(
                ann,
                f"unsupported parameter type `{code_of(ann)}` for `{name}`",
                "scalar parameters are int, float, str, bool, datetime.datetime, datetime.date or "
                "Optional[...] of those; relations are RowStream[...]",
            )
            t = "int"
        return Param(name, ParamKind.SCALAR, (t,), span=sp)

    def field_type(self, node: cst.BaseExpression | None) -> str | None:
        if node is None:
            return None
        text = code_of(node).replace(" ", "")
        opt = False
        for pre in ("Optional[", "typing.Optional["):
            if text.startswith(pre) and text.endswith("]"):
                text, opt = text[len(pre) : -1], True
        if text.endswith("|None"):
            text, opt = text[: -len("|None")], True
        if text.startswith("None|"):
            text, opt = text[len("None|") :], True
        t = norm_type(text)
        if t not in SCALAR_TYPES:
            return None
        return f"Optional[{t}]" if opt else t
