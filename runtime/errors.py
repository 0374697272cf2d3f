"""Errors of compiled plans as the Python exceptions they stand for.

A compiled plan raises where CPython raises (SPEC §4), inside Spark: the native parts
through Spark's ``raise_error``, Python islands and host functions in a Python worker.
Every message a plan raises has one form, made by :func:`format_error`::

    ValueError: invalid literal for int() with base 10: 'x' (at parse.py:14 in parse_logs)

the Python class, CPython's own message (where the primitive knows it, worded as CPython
words it), then where in the user's source the failing statement is: the file's base
name, the line and the enclosing function. A primitive whose CPython message leaves out
the offending value puts it before the location (``math domain error (math.sqrt(-1.0)
at geo.py:12 in dist)``).

On the driver, Spark wraps the message in its own exception (``SparkRuntimeException``
with ``USER_RAISED_EXCEPTION``, ``PythonException`` with a worker traceback).
:func:`raised` turns such an exception back into the Python one, and
:func:`python_errors` does it around a block of code:

>>> from looplift.errors import format_error, parse_error
>>> text = format_error("ValueError", "invalid literal for int() with base 10: 'x'",
...                     "parse.py:14 in parse_logs")
>>> text
"ValueError: invalid literal for int() with base 10: 'x' (at parse.py:14 in parse_logs)"
>>> parse_error("[USER_RAISED_EXCEPTION] " + text + " SQLSTATE: P0001")
('ValueError', "invalid literal for int() with base 10: 'x' (at parse.py:14 in parse_logs)")
"""

from __future__ import annotations

import ast
import builtins
import functools
import logging
import os
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = [
    "enclosing_function",
    "exception_text",
    "format_error",
    "location",
    "parse_error",
    "python_errors",
    "quiet_query_context",
    "raised",
]


def location(path: str, line: int, fn: str | None) -> str:
    """``parse.py:14 in parse_logs``: the base name of ``path`` (plans do not depend on
    where the source was on the machine that compiled them; a build's ``X/source.py`` is
    the user's ``X.py``)."""
    name = os.path.basename(path)
    parent = os.path.dirname(path)
    if name == "source.py" and (".zip" in parent or os.path.exists(os.path.join(parent, "manifest.json"))):
        name = os.path.basename(parent) + ".py"  # a build's byte copy of the user's X.py
    where = f"{name}:{line}"
    return f"{where} in {fn}" if fn else where


@functools.cache
def _functions(path: str) -> tuple[tuple[int, int, str], ...]:
    """(first line, last line, name) of every function of the file."""
    try:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
    except (OSError, SyntaxError, ValueError):
        return ()
    return tuple(
        (n.lineno, n.end_lineno or n.lineno, n.name)
        for n in ast.walk(tree)
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    )


def enclosing_function(path: str, line: int) -> str | None:
    """The name of the innermost ``def`` of the file around ``line`` (None: none, or the
    file cannot be read)."""
    best = None
    for first, last, name in _functions(path):
        if first <= line <= last and (best is None or first >= best[0]):
            best = (first, name)
    return best[1] if best else None


def format_error(cls: str, message: str, where: str | None = None, detail: str = "") -> str:
    """The one form of a plan's error messages: ``Cls: message (detail at where)``."""
    if where is None:
        return f"{cls}: {message}" + (f" ({detail})" if detail else "")
    lead = f"{detail} " if detail else ""
    return f"{cls}: {message} ({lead}at {where})"


def class_name(cls: type[BaseException]) -> str:
    """A builtin's name, else ``module.Class`` (what :func:`raised` imports back)."""
    if cls.__module__ == "builtins" or getattr(builtins, cls.__name__, None) is cls:
        return cls.__name__
    if cls.__module__ == "statistics":
        return cls.__name__
    return f"{cls.__module__}.{cls.__qualname__}"


def exception_text(exc: BaseException) -> str:
    """The message of an exception raised by user code in a Python worker (a host function,
    an island): placed at the innermost frame of the user's code, where there is one."""
    import traceback

    frames = [f for f in traceback.extract_tb(exc.__traceback__) if _user_frame(f.filename)]
    where = None
    if frames:
        f = frames[-1]
        name = f.name
        island = _ISLAND.match(name)
        if island:  # an island: compiled at the user's own lines, in the user's function
            name = enclosing_function(f.filename, f.lineno or 0) or island.group(1)
        where = location(f.filename, f.lineno or 0, name)
    return format_error(class_name(type(exc)), str(exc), where)


# -- reading errors back ------------------------------------------------------------------

# Spark's error conditions (ANSI mode) where a native operator raises by itself, and the
# Python class and message each stands for
_CONDITIONS = {
    "DIVIDE_BY_ZERO": ("ZeroDivisionError", "division by zero"),
    "INTERVAL_DIVIDED_BY_ZERO": ("ZeroDivisionError", "division by zero"),
    "REMAINDER_BY_ZERO": ("ZeroDivisionError", "integer modulo by zero"),
    "ARITHMETIC_OVERFLOW": ("OverflowError", "integer result beyond 64 bits"),
    "BINARY_ARITHMETIC_OVERFLOW": ("OverflowError", "integer result beyond 64 bits"),
    "CAST_OVERFLOW": ("OverflowError", "value beyond 64 bits"),
    "NUMERIC_VALUE_OUT_OF_RANGE": ("OverflowError", "value out of range"),
    "INVALID_ARRAY_INDEX": ("IndexError", "list index out of range"),
    "INVALID_ARRAY_INDEX_IN_ELEMENT_AT": ("IndexError", "list index out of range"),
}
_USER_RAISED = re.compile(r"\[USER_RAISED_EXCEPTION\]\s*(.*?)\s*(?:SQLSTATE: \w+|$)", re.S)
_LEGACY = re.compile(r"^looplift: (.*) \(Python raises ([\w.]+)\)$", re.S)
_HEAD = re.compile(r"^([A-Za-z_][\w.]*): ?(.*)$", re.S)
_FRAME = re.compile(r'^\s*File "([^"]+)", line (\d+), in (\S+)', re.M)
_LAST = re.compile(r"^([A-Za-z_][\w.]*)(?:: (.*))?$")
_ISLAND = re.compile(r"^_island_(\w+?)(?:_L\d+_*)?$")  # compiler/frontend/islands.py's names
_AT = re.compile(r"\((?:.* )?at [^\s()]+:\d+(?: in [\w.<>]+)?\)$")


def _class(name: str) -> type[BaseException] | None:
    """The exception class a message names: a builtin, or ``module.Class`` of a module
    loaded already (``statistics.StatisticsError`` also by its bare name); never one of
    Spark's own (those are no user's error)."""
    module, _, qual = name.rpartition(".")
    candidates: list[Any] = [getattr(builtins, name, None)]
    if module:  # the user's module, imported by the driver (a message imports nothing)
        candidates.append(getattr(sys.modules.get(module), qual, None))
    else:
        import statistics

        candidates.append(getattr(statistics, name, None))
    for c in candidates:
        if isinstance(c, type) and issubclass(c, BaseException):
            if not c.__module__.startswith(("pyspark", "py4j")):
                return c
    return None


def parse_error(text: str) -> tuple[str, str] | None:
    """(class name, message) of a ``raise_error`` message in Spark's text, or None."""
    m = _USER_RAISED.search(text)
    if m is None:
        return None
    body = m.group(1).strip()
    legacy = _LEGACY.match(body)
    if legacy:
        return legacy.group(2), legacy.group(1)
    head = _HEAD.match(body)
    if head is None or _class(head.group(1)) is None:
        return None
    return head.group(1), head.group(2)


def _worker_error(text: str) -> tuple[str, str] | None:
    """(class name, message) of a Python worker's traceback: its last ``Cls: message``
    line, placed at the last frame outside pyspark and looplift's runtime."""
    lines = text.rstrip().splitlines()
    found = None
    for i in range(len(lines) - 1, -1, -1):
        m = _LAST.match(lines[i].strip())
        if m and _class(m.group(1)) is not None and not lines[i].startswith(" "):
            found = (m.group(1), "\n".join([m.group(2) or "", *lines[i + 1:]]).strip())
            head = "\n".join(lines[:i])
            break
    if found is None:
        return None
    cls, message = found
    if _AT.search(message):  # placed already (an island's own check)
        return cls, message
    frames = [f for f in _FRAME.findall(head) if _user_frame(f[0])]
    if frames:
        path, line, fn = frames[-1]
        message = f"{message} (at {location(path, int(line), fn)})"
    return cls, message


def _user_frame(path: str) -> bool:
    parts = path.replace("\\", "/").split("/")
    if "pyspark" in parts or "py4j" in parts or path.startswith("<"):
        return False
    here = os.path.dirname(os.path.abspath(__file__))
    return not os.path.abspath(path).startswith(here + os.sep)


def raised(exc: BaseException) -> BaseException | None:
    """The Python exception a Spark failure caused by a compiled plan stands for (its
    class, the clean message with the user's file:line), or None when ``exc`` is no such
    failure. The causes and contexts of ``exc`` are searched too."""
    seen: set[int] = set()
    e: BaseException | None = exc
    while e is not None and id(e) not in seen:
        seen.add(id(e))
        got = _raised_one(e)
        if got is not None:
            return got
        e = e.__cause__ or e.__context__
    return None


def _raised_one(e: BaseException) -> BaseException | None:
    if not type(e).__module__.startswith(("pyspark", "py4j")):
        return None
    text = str(e)
    found: tuple[str, str] | None
    if type(e).__name__ == "PythonException":
        found = _worker_error(text)
    else:
        found = parse_error(text)
        condition = getattr(e, "getCondition", lambda: None)() or ""
        if found is None and condition in _CONDITIONS:
            found = _CONDITIONS[condition]
    if found is None:
        return None
    cls = _class(found[0])
    if cls is None:
        return None
    try:
        return cls(found[1])
    except Exception:  # noqa: BLE001 - a class whose constructor takes other arguments
        return RuntimeError(f"{found[0]}: {found[1]}")


@contextmanager
def quiet_query_context() -> Iterator[None]:
    """Keep pyspark from logging a failed query's context (an ERROR line of JSON) while
    looplift handles the failure: only inside this block, other queries log as before."""
    from pyspark.logger import PySparkLogger

    # (made as pyspark makes them: its calls pass PySparkLogger's keywords)
    names = ("SQLQueryContextLogger", "DataFrameQueryContextLogger")
    loggers = [PySparkLogger.getLogger(n) for n in names]
    saved = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for lg, level in zip(loggers, saved, strict=True):
            lg.setLevel(level)


@contextmanager
def python_errors() -> Iterator[None]:
    """Inside the block, a Spark failure caused by a compiled plan is re-raised as the
    Python exception it stands for (from the Spark exception); other errors pass.

    >>> import looplift
    >>> with looplift.python_errors():
    ...     pass
    """
    with quiet_query_context():
        try:
            yield
        except Exception as e:
            py = raised(e)
            if py is None:
                raise
            raise py from e
