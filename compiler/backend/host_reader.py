"""Types of the values in a host function's source: what its ``return`` expressions say.

A host function becomes a vectorized Python operator whose result column
needs a Spark type before any row is seen. When the function has no return
annotation, its ``return`` expressions say it in most code a data engineer
writes: literals, ``int(...)``/``float(...)``/``str(...)``/``bool(...)``/
``len(...)``, arithmetic on annotated parameters (or on the argument types at
the call site), calls of annotated functions, f-strings, comparisons, ``str``
methods. A ``return None`` branch (or falling off the end) makes the result
nullable. When one ``return`` says nothing this module can read, the result
is unknown (:mod:`.host_types` then tries the first rows of a DataFrame call,
:mod:`.host_probe`).

>>> def bucket(n):
...     return n // 10
>>> infer_host_return(bucket, ["int"])
('int', False)
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from typing import Any

from ..primitives.typerules import unify
from .host_annotations import known_type, return_annotation
from .typevocab import Type, py_type

__all__ = [
    "KNOWN_HOSTS",
    "ItemOf",
    "SourceReader",
    "infer_host_return",
    "join_types",
    "reader_for",
    "returned_type",
    "returns_of",
]

_SCALARS = ("int", "float", "str", "bool", "datetime", "date")

# ``str`` methods by result type (the receiver is a str)
_STR_METHODS = {
    **dict.fromkeys(
        ("lower", "upper", "strip", "lstrip", "rstrip", "title", "capitalize", "casefold",
         "replace", "removeprefix", "removesuffix", "zfill", "center", "ljust", "rjust",
         "swapcase", "join", "format", "expandtabs"),
        "str",
    ),
    **dict.fromkeys(("find", "rfind", "index", "rindex", "count"), "int"),
    **dict.fromkeys(
        ("startswith", "endswith", "isdigit", "isalpha", "isalnum", "isspace", "islower",
         "isupper", "isnumeric", "isdecimal", "istitle"),
        "bool",
    ),
    **dict.fromkeys(("split", "rsplit", "splitlines"), ("list", "str")),
}  # fmt: skip
_DATE_FIELDS = ("year", "month", "day")
_DATETIME_FIELDS = (*_DATE_FIELDS, "hour", "minute", "second", "microsecond")
_BUILTIN_RESULTS = {"int": "int", "float": "float", "str": "str", "bool": "bool", "len": "int",
                    "ord": "int", "chr": "str", "repr": "str", "hash": "int"}  # fmt: skip
_DEPTH = 3  # calls of unannotated functions followed this deep (recursion ends here)


# return types of common unannotated library functions
KNOWN_HOSTS: dict[str, Any] = {
    "posixpath:splitext": ("tuple", ("str", "str")),
    "posixpath:split": ("tuple", ("str", "str")),
    "ntpath:splitext": ("tuple", ("str", "str")),
    "ntpath:split": ("tuple", ("str", "str")),
    "posixpath:basename": "str",
    "posixpath:dirname": "str",
    "posixpath:join": "str",
    "posixpath:normpath": "str",
    "builtins:ord": "int",
    "builtins:chr": "str",
    "builtins:hash": "int",
}


def infer_host_return(
    fn: Any, arg_types: list[Type], depth: int = 0, displays: bool = False
) -> tuple[Type, bool] | None:
    """(type, nullable) of ``fn``'s result from its source, or None when unknown.

    Args:
        fn: the host function (a plain module-level Python function).
        arg_types: the looplift types of the arguments at the call site, used for
            parameters without annotations.
        depth: how many unannotated calls led here.
        displays: read list and dict displays (``[a, b]``, ``{k: v}``): for a function
            annotated with a bare ``list`` or ``dict``.
    """
    got = reader_for(fn, arg_types, depth, displays)
    if got is None:
        return None
    reader, tree = got
    return returned_type(reader, tree.body)


def reader_for(
    fn: Any, arg_types: list[Type], depth: int, displays: bool = False
) -> tuple[SourceReader, ast.FunctionDef] | None:
    """A reader of ``fn``'s body with its parameters and locals typed (None: no source)."""
    tree = _function_def(fn)
    if tree is None or depth > _DEPTH:
        return None
    env: dict[str, tuple[Type, bool]] = {}
    params = [*tree.args.posonlyargs, *tree.args.args]
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    for i, p in enumerate(params):
        ann = sig.parameters[p.arg].annotation if p.arg in sig.parameters else None
        t, null = py_type(ann) if ann is not None else ("any", True)
        if t == "any" and i < len(arg_types):
            t, null = arg_types[i], False
        env[p.arg] = (t, null)
    reader = SourceReader(fn, env, depth, displays)
    reader.locals_(tree.body)
    return reader, tree


def returned_type(reader: SourceReader, body: list[ast.stmt]) -> tuple[Type, bool] | None:
    """(type, nullable) of what ``body`` returns (falling off the end returns None), typed
    by ``reader``; None when one ``return`` says nothing it can read."""
    results = [reader.expr(r.value) if r.value is not None else ("none", True)
               for r in returns_of(body)]  # fmt: skip
    if not _alwaysreturns_of(body):
        results.append(("none", True))
    if not results or any(r is None for r in results):
        return None
    t: Type = "none"
    null = False
    for rt, rn in results:
        null = null or rn or rt == "none"
        t = join_types(t, rt)
        if t is None:
            return None
    return (t, null) if known_type(t) else None


def _function_def(fn: Any) -> ast.FunctionDef | None:
    try:  # an island's code is compiled at the user's lines: its own text is kept apart
        src = getattr(fn, "__looplift_island_source__", None) or textwrap.dedent(
            inspect.getsource(fn))
        mod = ast.parse(src)
    except (OSError, TypeError, SyntaxError):
        return None
    node = mod.body[0] if mod.body else None
    return node if isinstance(node, ast.FunctionDef) else None


def returns_of(body: list[ast.stmt]) -> list[ast.Return]:
    """Every ``return`` of the function itself (not of nested functions or lambdas)."""
    out: list[ast.Return] = []
    todo: list[ast.AST] = list(body)
    while todo:
        n = todo.pop()
        if isinstance(n, ast.Return):
            out.append(n)
        elif not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(n))
    return out


def _alwaysreturns_of(body: list[ast.stmt]) -> bool:
    """Whether control never falls off the end of ``body`` (which would return None)."""
    if not body:
        return False
    last = body[-1]
    if isinstance(last, (ast.Return, ast.Raise)):
        return True
    if isinstance(last, ast.If):
        return _alwaysreturns_of(last.body) and _alwaysreturns_of(last.orelse)
    if isinstance(last, ast.Try):
        handlers = all(_alwaysreturns_of(h.body) for h in last.handlers)
        return (_alwaysreturns_of(last.body) or _alwaysreturns_of(last.orelse)) and handlers
    if isinstance(last, (ast.With, ast.AsyncWith)):
        return _alwaysreturns_of(last.body)
    if isinstance(last, ast.Match):
        return all(_alwaysreturns_of(c.body) for c in last.cases)
    return False


def join_types(a: Type, b: Type) -> Type | None:
    """The type of a value that is ``a`` or ``b``; None when no one column holds both."""
    if (a == "bool") != (b == "bool") and "none" not in (a, b):
        return None  # True and 1 are different values in Python, not in a bigint column
    t = unify(a, b)
    return None if t == "any" else t


class SourceReader:
    """Types of expressions in one function body (names: parameters and simple locals)."""

    def __init__(self, fn: Any, env: dict[str, tuple[Type, bool]], depth: int,
                 displays: bool = False) -> None:  # fmt: skip
        self.fn = fn
        self.env = env
        self.depth = depth
        # list and dict displays are read only for a function annotated with a bare `list` /
        # `dict` (an unannotated one keeps its type unknown, and learnt from data)
        self.displays = displays
        self.globals: dict[str, Any] = getattr(fn, "__globals__", {})

    def locals_(self, body: list[ast.stmt]) -> None:
        """Type the local names: a name assigned values of several types, or anything this
        reader cannot type, is unknown (flow-insensitive, so every assignment counts)."""
        assigned: dict[str, list[ast.AST | None]] = {}
        for n in ast.walk(ast.Module(body=body, type_ignores=[])):
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                continue
            if isinstance(n, ast.Assign):
                for tgt in n.targets:
                    for name in _names(tgt):
                        assigned.setdefault(name, []).append(n.value if isinstance(tgt, ast.Name)
                                                             else None)  # fmt: skip
            elif isinstance(n, (ast.AugAssign, ast.AnnAssign)) and isinstance(n.target, ast.Name):
                val = (
                    ast.BinOp(n.target, n.op, n.value) if isinstance(n, ast.AugAssign) else n.value
                )
                assigned.setdefault(n.target.id, []).append(val)
            elif isinstance(n, ast.For) and isinstance(n.target, ast.Name):
                assigned.setdefault(n.target.id, []).append(ItemOf(n.iter))
            elif isinstance(n, (ast.For, ast.comprehension, ast.With, ast.NamedExpr)):
                tgt = n.target if not isinstance(n, ast.With) else None
                for name in _names(tgt) if tgt is not None else ():
                    assigned.setdefault(name, []).append(None)
        # optimistic fixed point: a name's type joins its values that are typed so far
        # (ends: a type only moves up the finite lattice, and rounds are bounded)
        params = dict(self.env)
        for _ in range(8):
            before = dict(self.env)
            for name, values in assigned.items():
                got = [t for t in map(self.expr, values) if t is not None]
                if name in params:
                    got.append(params[name])
                joined = self._either(got) if got else None
                if joined is not None:
                    self.env[name] = joined
                else:
                    self.env.pop(name, None)
            if self.env == before:
                break
        # then drop every name with a value still untyped or of another type (and what uses it)
        changed = True
        while changed:
            changed = False
            for name, values in assigned.items():
                if name not in self.env:
                    continue
                got = [self.expr(v) for v in values]
                if name in params:
                    got.append(params[name])
                if any(t is None for t in got) or self._either(got) != self.env[name]:
                    del self.env[name]
                    changed = True

    def expr(self, e: ast.AST | None) -> tuple[Type, bool] | None:
        return self._expr(e) if e is not None else None

    def _expr(self, e: ast.AST) -> tuple[Type, bool] | None:  # noqa: C901, PLR0911, PLR0912
        if isinstance(e, ast.Constant):
            v = e.value
            if v is None:
                return "none", True
            for py, name in ((bool, "bool"), (int, "int"), (float, "float"), (str, "str")):
                if isinstance(v, py):
                    return name, False
            return None
        if isinstance(e, ast.JoinedStr):
            return "str", False
        if isinstance(e, ast.Name):
            return self.env.get(e.id)
        if isinstance(e, ast.Tuple):
            parts = [self.expr(x) for x in e.elts]
            if any(p is None for p in parts):
                return None
            return ("tuple", tuple(p[0] for p in parts)), False  # type: ignore[index]
        if isinstance(e, (ast.List, ast.Dict)) and self.displays:
            return self._display(e)
        if isinstance(e, ast.Compare):
            return "bool", False
        if isinstance(e, ast.UnaryOp):
            if isinstance(e.op, ast.Not):
                return "bool", False
            inner = self.expr(e.operand)
            if inner is None or inner[0] not in ("int", "float", "bool"):
                return None
            return ("int" if inner[0] == "bool" else inner[0]), inner[1]
        if isinstance(e, ast.BoolOp):
            return self._either([self.expr(x) for x in e.values])
        if isinstance(e, ast.IfExp):
            return self._either([self.expr(e.body), self.expr(e.orelse)])
        if isinstance(e, ast.BinOp):
            return self._binop(e)
        if isinstance(e, ast.Subscript):
            base = self.expr(e.value)
            if base is None:
                return None
            if base[0] == "str":
                return "str", base[1]
            if isinstance(base[0], tuple) and base[0][0] == "list":
                return (base[0] if isinstance(e.slice, ast.Slice) else base[0][1]), False
            if isinstance(base[0], tuple) and base[0][0] == "tuple":
                i = e.slice.value if isinstance(e.slice, ast.Constant) else None
                if isinstance(i, int) and -len(base[0][1]) <= i < len(base[0][1]):
                    return base[0][1][i], base[1]
            return None
        if isinstance(e, ast.Attribute):
            base = self.expr(e.value)
            if base is not None and base[0] == "datetime" and e.attr in _DATETIME_FIELDS:
                return "int", base[1]
            if base is not None and base[0] == "date" and e.attr in _DATE_FIELDS:
                return "int", base[1]
            return None
        if isinstance(e, ast.Call):
            return self._call(e)
        if isinstance(e, ItemOf):  # what `for x in <e.value>` binds x to
            it = e.value
            if (isinstance(it, ast.Call) and isinstance(it.func, ast.Name)
                    and it.func.id == "range" and "range" not in self.globals):  # fmt: skip
                return "int", False
            base = self.expr(it)
            if base is not None and base[0] == "str":
                return "str", False
            if base is not None and isinstance(base[0], tuple) and base[0][0] == "list":
                return base[0][1], False
            return None
        return None

    def _display(self, e: ast.List | ast.Dict) -> tuple[Type, bool] | None:
        """``[a, b]`` (a list of their joined type) or ``{k: v}`` (a dict); an empty one
        says no item type (another ``return`` may)."""
        cols = [e.elts] if isinstance(e, ast.List) else [e.keys, e.values]
        joined: list[Type] = []
        for xs in cols:
            if any(x is None or isinstance(x, ast.Starred) for x in xs):
                return None  # `{**d}`, `[*xs]`
            got = self._either([self.expr(x) for x in xs])
            if got is None:
                return None
            joined.append(got[0])
        return (("list", joined[0]) if len(joined) == 1 else ("dict", *joined)), False

    def _either(self, parts: list[tuple[Type, bool] | None]) -> tuple[Type, bool] | None:
        if any(p is None for p in parts):
            return None
        t: Type = "none"
        null = False
        for pt, pn in parts:  # type: ignore[misc]
            t = join_types(t, pt)
            if t is None:
                return None
            null = null or pn or pt == "none"
        return t, null

    def _binop(self, e: ast.BinOp) -> tuple[Type, bool] | None:
        lt, rt = self.expr(e.left), self.expr(e.right)
        if lt is None or rt is None:
            return None
        a, b = lt[0], rt[0]
        null = lt[1] or rt[1]
        nums = ("int", "float", "bool")
        if isinstance(e.op, ast.Add) and a == b == "str":
            return "str", null
        if isinstance(e.op, ast.Mult) and {a, b} == {"str", "int"}:
            return "str", null
        if isinstance(e.op, ast.Mod) and a == "str":
            return "str", null  # %-formatting
        if a not in nums or b not in nums:
            return None
        if isinstance(e.op, ast.Div):
            return "float", null
        if isinstance(e.op, ast.Pow):
            if "float" in (a, b):
                return "float", null
            neg = not (isinstance(e.right, ast.Constant) and isinstance(e.right.value, int)
                       and e.right.value >= 0)  # fmt: skip
            return ("float" if neg else "int"), null
        if isinstance(e.op, (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod)):
            return ("float" if "float" in (a, b) else "int"), null
        if isinstance(e.op, (ast.BitAnd, ast.BitOr, ast.BitXor, ast.LShift, ast.RShift)):
            return None if "float" in (a, b) else ("bool" if a == b == "bool" else "int", null)
        return None

    def _call(self, e: ast.Call) -> tuple[Type, bool] | None:
        f = e.func
        if isinstance(f, ast.Attribute):
            recv = self.expr(f.value)
            if recv is not None and recv[0] == "str" and f.attr in _STR_METHODS:
                return _STR_METHODS[f.attr], recv[1]
            target = self._resolve(f)
        elif isinstance(f, ast.Name):
            if f.id in ("abs", "round", "min", "max") and f.id not in self.globals:
                return self._numeric_builtin(f.id, e)
            if f.id in _BUILTIN_RESULTS and f.id not in self.globals:
                return _BUILTIN_RESULTS[f.id], False
            target = self.globals.get(f.id)
        else:
            return None
        if target is None or not callable(target):
            return None
        known = _library_type(target)
        if known is not None:
            return known, False
        said, bare = return_annotation(target)
        if said is not None:
            t, null = said
            return (t, null) if known_type(t) or t == "none" else None
        if inspect.isfunction(target) and not e.keywords:  # unannotated, or a bare container
            args = [self.expr(a) for a in e.args]
            if any(a is None or isinstance(a, ast.Starred) for a in args):
                return None
            return infer_host_return(target, [a[0] for a in args], self.depth + 1,  # type: ignore[index]
                                     displays=bare in ("list", "dict"))  # fmt: skip
        return None

    def _numeric_builtin(self, name: str, e: ast.Call) -> tuple[Type, bool] | None:
        args = [self.expr(a) for a in e.args]
        if e.keywords or not args or any(a is None for a in args):
            return None
        if name == "round":
            return ("int", False) if len(args) == 1 else args[0]
        if name == "abs":
            t, null = args[0]  # type: ignore[misc]
            return ("int" if t == "bool" else t), null
        if len(args) == 1:
            t = args[0][0]  # type: ignore[index]
            if isinstance(t, tuple) and t[0] == "list":
                return t[1], False
            return ("str", False) if t == "str" else None
        return self._either(args)

    def _resolve(self, f: ast.Attribute) -> Any:
        """``module.function`` through the function's globals, else None."""
        if not isinstance(f.value, ast.Name):
            return None
        base = self.globals.get(f.value.id)
        return getattr(base, f.attr, None) if inspect.ismodule(base) else None


def _library_type(fn: Any) -> Type | None:
    """Result types of unannotated library functions (``math``, ``os.path``, ``ord`` ...)."""
    mod = getattr(fn, "__module__", None) or ""
    name = getattr(fn, "__qualname__", "")
    if mod == "math":
        if name in ("floor", "ceil", "trunc", "comb", "perm", "gcd", "lcm", "isqrt", "factorial"):
            return "int"
        if name in ("isnan", "isinf", "isfinite", "isclose"):
            return "bool"
        return "float"
    return KNOWN_HOSTS.get(f"{mod}:{name}")


class ItemOf(ast.expr):
    """The item a ``for`` loop binds its name to, for :meth:`SourceReader.locals_`."""

    _fields = ("value",)


def _names(t: ast.AST) -> list[str]:
    if isinstance(t, ast.Name):
        return [t.id]
    if isinstance(t, (ast.Tuple, ast.List)):
        return [n for x in t.elts for n in _names(x)]
    if isinstance(t, ast.Starred):
        return _names(t.value)
    return []
