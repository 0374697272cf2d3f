"""looplift's JVM kernels: Python's ``str.strip()`` family and ASCII case mapping as
expressions inside Spark's generated code, with an exact SQL form for sessions without
them (issue 27, item 4); and Spark's ``regexp_like`` / ``regexp_extract`` reading each
row's match once (``Regex.java``: a filter on ``m = P.match(s)`` and five of its groups
cost one match a row, not six). (The same jar reads Spark's statistics of a plan's input
for :mod:`looplift.groupform` in one call: ``Stats.java``.)

A plan calls each kernel by its SQL name (``looplift_strip(s)``). :func:`install`, run on
every session looplift prepares (``prepare_session``), defines the names once per session:

- **JVM** (the jar :func:`jar_path`, built from ``jvm/looplift/kernels``): each call is a
  ``StaticInvoke`` of a static method that reads the string's UTF-8 bytes in place, in
  Spark's generated code: ``strip`` costs what Spark's ``trim(s)`` costs, and ``lower``
  less than ``lower(s)`` (one pass over an ASCII string instead of two). A classic
  session gets them through Py4J (the jar added with ``ADD JAR`` if the session was made
  without it; :func:`~looplift.local_session` puts it in ``spark.jars``); a Spark Connect
  server started with ``--jars <jar_path()> --conf
  spark.sql.extensions=looplift.kernels.Extensions`` (as :mod:`looplift.connect` starts
  one) has them in every session;
- **Java UDFs**, on a Spark Connect server without the extension: the client uploads the
  jar (``addArtifacts``) and registers ``looplift.kernels.Udfs``; exact, slower (each
  value becomes a Java string and back);
- **SQL** where neither is possible: ``CREATE TEMPORARY FUNCTION <name>(s STRING) RETURN
  <form>`` with the forms below. Spark inlines SQL functions (a plan costs what the form
  written in place costs) but refuses them inside a higher-order function's lambda
  (``UNSUPPORTED_FEATURE.LAMBDA_FUNCTION_WITH_SQL_UDF``), where folds and bindings call them.

Each is exact against CPython on every string. The kernels that do not decide every
string (``looplift_lower_ascii``: ASCII strings only) return null where they do not, and
the plan continues with its exact path (``coalesce(looplift_lower_ascii(s), ...)``).

The SQL form of ``strip`` decides the common rows by tests of the string's two ends that
cost no scan; ``trim(BOTH <the 29 characters> FROM s)`` is exact but copies the string
and, for its end, builds two position arrays of it (about 3.5x ``trim(s)``), so it is
taken only where a cheap test cannot decide:

- spaces first: ``t = trim(s)`` (``rtrim(s)`` for ``rstrip``) reads the ends' bytes in
  place, and returns ``s`` itself when no space is at either end. Python's strip of ``s``
  is ``t`` whenever ``t`` starts and ends with a character that is not whitespace, so a
  row ending in spaces (``"end "``) takes the common path too;
- the first character: string comparisons read the first bytes only (UTF-8 orders as code
  points), so ``t >= '!' AND t < '\\u0085'`` says "the first character is one of
  U+0021..U+0084", none of them whitespace (with two more ranges of non-whitespace);
- the last character: ``substr(CAST(t AS BINARY), -1)`` is the last byte (the cast copies
  the bytes, no scan of characters). Whitespace ends in one of 26 bytes
  (:data:`WS_LAST_BYTES`); a string ending in any other byte ends in a character that
  is not whitespace.

>>> print(stripped("LEADING", "`s`"))  # doctest: +ELLIPSIS
(CASE WHEN (`s` >= '!' AND (`s` < '\\u0085' OR `s` >= '\\u00a1' AND `s` < '\\u1680' OR `s` >= '\\u3001')) THEN `s` ELSE trim(LEADING '\\u0009...' FROM `s`) END)
>>> print(stripped("TRAILING", "`s`"))  # doctest: +ELLIPSIS
(CASE WHEN substr(CAST(rtrim(`s`) AS BINARY), -1) BETWEEN X'21' AND X'7F' THEN rtrim(`s`) WHEN (substr(CAST(rtrim(`s`) AS BINARY), -1) BETWEEN X'00' AND X'08' OR ...) THEN rtrim(`s`) ELSE trim(TRAILING ... FROM `s`) END)
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .sqltext import sql_string
from .strings import WHITESPACE

__all__ = ["jar_path", "install", "mode", "kernels_called", "needing_jvm", "portable", "builtins_in_lambdas", "with_jar",
           "Kernel", "KERNELS", "METHODS", "SQL_FORMS", "STRIP", "LOWER_ASCII", "IS_ASCII", "REGEX", "stripped",
           "udf_class"]  # fmt: skip

#: the jar of the kernels' classes (built from jvm/ by jvm/build_jar.py)
JAR = Path(__file__).with_name("jars") / "looplift-kernels.jar"
#: spark.sql.extensions value that defines the kernels in every session of a server
EXTENSIONS = "looplift.kernels.Extensions"

#: ``s.strip()`` / ``s.lstrip()`` / ``s.rstrip()`` (no argument, or None): the SQL name
STRIP = {"strip": "looplift_strip", "lstrip": "looplift_lstrip", "rstrip": "looplift_rstrip"}
#: ``s.lower()`` / ``s.upper()`` of an ASCII string, else null
LOWER_ASCII = {"lower": "looplift_lower_ascii", "upper": "looplift_upper_ascii"}


def jar_path() -> str:
    """The path of looplift's kernel jar (for ``--jars`` / ``spark.jars``)."""
    return str(JAR)


# -- the SQL forms ------------------------------------------------------------------------

#: the last byte of each whitespace character's UTF-8 form
WS_LAST_BYTES = frozenset(c.encode()[-1] for c in WHITESPACE)
#: code point ranges [lo, hi) holding no whitespace, tested on the first character
#: (hi None: no end); the first is the printable ASCII, the others Latin-1 letters and the
#: scripts before U+1680, and everything after the ideographic space U+3000
FIRST_OK_RANGES = ((0x21, 0x85), (0xA1, 0x1680), (0x3001, None))
assert not any(lo <= ord(c) < (hi or 0x110000) for lo, hi in FIRST_OK_RANGES for c in WHITESPACE)
#: printable ASCII (and DEL): the common last byte
_PRINTABLE = (0x21, 0x7F)
#: last bytes of characters that are not whitespace, besides printable ASCII (other control
#: characters, and the continuation bytes no whitespace character ends in)
_OTHER_OK = ((0x00, 0x08), (0x0E, 0x1B), (0x8B, 0x9E), (0xA1, 0xA7), (0xAA, 0xAE), (0xB0, 0xFF))
assert {b for lo, hi in _OTHER_OK for b in range(lo, hi + 1)} == (
    set(range(256)) - WS_LAST_BYTES - set(range(_PRINTABLE[0], _PRINTABLE[1] + 1))
)


def _byte_in(x: str, ranges: tuple[tuple[int, int], ...]) -> str:
    """``x`` (a one-byte binary) in one of ``ranges``, in SQL."""
    parts = [f"{x} = X'{lo:02X}'" if lo == hi else f"{x} BETWEEN X'{lo:02X}' AND X'{hi:02X}'"
             for lo, hi in ranges]  # fmt: skip
    return "(" + " OR ".join(parts) + ")"


def _lit(cp: int) -> str:
    return "'!'" if cp == 0x21 else f"'\\u{cp:04x}'"


def first_ok(s: str) -> str:
    """Is the first character of ``s`` one that is not whitespace (one of
    :data:`FIRST_OK_RANGES`)? False on the empty string."""
    (lo0, hi0), *rest = FIRST_OK_RANGES
    alts = [f"{s} < {_lit(hi0)}"] + [
        f"{s} >= {_lit(lo)}" + (f" AND {s} < {_lit(hi)}" if hi is not None else "")
        for lo, hi in rest
    ]
    return f"({s} >= {_lit(lo0)} AND (" + " OR ".join(alts) + "))"


def stripped(where: str, s: str) -> str:
    """``s.strip()`` (``BOTH``), ``s.lstrip()`` (``LEADING``) or ``s.rstrip()``
    (``TRAILING``) of Python's whitespace, in SQL."""
    full = f"trim({where} {sql_string(WHITESPACE)} FROM {s})"
    if where == "LEADING":
        return f"(CASE WHEN {first_ok(s)} THEN {s} ELSE {full} END)"
    t = f"trim({s})" if where == "BOTH" else f"rtrim({s})"
    last = f"substr(CAST({t} AS BINARY), -1)"
    common = f"{last} BETWEEN X'{_PRINTABLE[0]:02X}' AND X'{_PRINTABLE[1]:02X}'"
    other = _byte_in(last, _OTHER_OK)  # rarer: a control character, a non-ASCII letter
    if where == "BOTH":
        common, other = f"{common} AND {first_ok(t)}", f"{first_ok(t)} AND {other}"
    return f"(CASE WHEN {common} THEN {t} WHEN {other} THEN {t} ELSE {full} END)"


#: is every character of ``s`` ASCII (the test before a fast path: ``strfast.ascii_first``)
IS_ASCII = "looplift_is_ascii"
#: ``m = P.match(s)`` read natively (``compiler/backend/matchsql.py``): Spark's
#: ``regexp_like(s, p)`` and ``regexp_extract(s, p, k)``, each row's match read once
REGEX = {"like": "looplift_regex_like", "group": "looplift_regex_group"}


@dataclass(frozen=True)
class Kernel:
    """One kernel: its SQL name, the static method that computes it (``Class.method`` of
    ``looplift.kernels``), its parameters and result (SQL types), and its SQL form over the
    parameters: ``form``, or where Spark has a function of the same arguments and meaning,
    ``builtin`` (the plan means the same calling it; the kernel is faster): a function
    name, or a form of the one argument (``{0}``)."""

    name: str
    method: str
    params: tuple[tuple[str, str], ...]
    returns: str
    form: str | None = None  # the SQL form, where no builtin gives it
    builtin: str | None = None

    @property
    def sql(self) -> str:
        """The SQL form over the parameters' names: ``form``, else the builtin's call."""
        if self.form is not None:
            return self.form
        names = [p for p, _ in self.params]
        assert self.builtin is not None, self.name
        return self.builtin.format(*names) if "{" in self.builtin else f"{self.builtin}({', '.join(names)})"

    @property
    def signature(self) -> str:
        """As ``Functions.table()`` writes it: ``name:Class.method(types)->type``."""
        return f"{self.name}:{self.method}({','.join(t for _, t in self.params)})->{self.returns}"


_S = (("s", "string"),)
#: is every character of ``{0}`` ASCII, in Spark's functions (counting the characters)
_ASCII = "(length({0}) = octet_length({0}))"
#: every kernel by SQL name (Java's own table, ``Functions.KERNELS``, is checked against it)
KERNELS = {k.name: k for k in (
    Kernel(STRIP["strip"], "PyStrings.strip", _S, "string", stripped("BOTH", "s")),
    Kernel(STRIP["lstrip"], "PyStrings.lstrip", _S, "string", stripped("LEADING", "s")),
    Kernel(STRIP["rstrip"], "PyStrings.rstrip", _S, "string", stripped("TRAILING", "s")),
    # one character a byte: ASCII, whose case mappings Spark and CPython share
    Kernel(LOWER_ASCII["lower"], "PyStrings.lowerAscii", _S, "string",
           f"IF({_ASCII.format('s')}, lower(s), NULL)"),
    Kernel(LOWER_ASCII["upper"], "PyStrings.upperAscii", _S, "string",
           f"IF({_ASCII.format('s')}, upper(s), NULL)"),
    # the kernel tests 8 bytes at a time
    Kernel(IS_ASCII, "PyStrings.isAscii", _S, "boolean", builtin=_ASCII),
    Kernel(REGEX["like"], "Regex.like", (*_S, ("p", "string")), "boolean", builtin="regexp_like"),
    Kernel(REGEX["group"], "Regex.group", (*_S, ("p", "string"), ("k", "int")), "string",
           builtin="regexp_extract"),
)}  # fmt: skip
#: each kernel's SQL form over its parameters
SQL_FORMS = {name: k.sql for name, k in KERNELS.items()}
#: SQL name -> its static method (``Class.method`` of ``looplift.kernels``)
METHODS = {name: k.method for name, k in KERNELS.items()}


def create_sql(name: str) -> str:
    """The statement that defines kernel ``name`` as its SQL form."""
    k = KERNELS[name]
    params = ", ".join(f"{p} {t.upper()}" for p, t in k.params)
    return (f"CREATE OR REPLACE TEMPORARY FUNCTION {name}({params}) RETURNS {k.returns.upper()} "
            f"RETURN {k.sql}")  # fmt: skip


# -- a session's kernels ------------------------------------------------------------------

_MODE: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()
_JAR_ADDED: weakref.WeakSet[Any] = weakref.WeakSet()  # SparkContexts given the jar here


def kernels_called(text: str) -> list[str]:
    """The kernels a plan's or function's SQL text calls, in :data:`KERNELS`' order."""
    return [k for k in KERNELS if f"{k}(" in text]


def needing_jvm(text: str) -> list[str]:
    """The kernels ``text`` calls that have no Spark function of the same meaning
    (:func:`portable` cannot replace them)."""
    return [k for k in kernels_called(text) if KERNELS[k].builtin is None]


def _with_builtin(sql: str) -> bool:
    return any(f"{k.name}(" in sql for k in KERNELS.values() if k.builtin)


def _rename_calls(sql: str, inside_lambdas: bool) -> str:
    from sqlglot.dialects.spark import Spark
    from sqlglot.tokens import TokenType

    out, pos = [], 0
    tokens = Spark().tokenize(sql)
    depth, bodies = 0, []  # paren depth; the depths at which open lambda bodies started
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        i += 1
        if tok.token_type == TokenType.L_PAREN:
            depth += 1
        elif tok.token_type == TokenType.R_PAREN:
            while bodies and bodies[-1] == depth:  # the call holding the lambda ends
                bodies.pop()
            depth -= 1
        elif tok.token_type == TokenType.COMMA:
            while bodies and bodies[-1] == depth:  # the lambda's argument ends
                bodies.pop()
        elif tok.token_type == TokenType.ARROW:
            bodies.append(depth)
        k = KERNELS.get(tok.text)
        if k is None or k.builtin is None or (inside_lambdas and not bodies):
            continue
        if nxt is None or nxt.token_type != TokenType.L_PAREN or tok.token_type != TokenType.VAR:
            continue
        if sql[tok.start : tok.end + 1] != k.name:
            continue
        out.append(sql[pos : tok.start])
        if "{" not in k.builtin:  # a function of the same arguments: its name
            out.append(k.builtin)
            pos = tok.end + 1
            continue
        # a form of its one argument: the call up to its closing parenthesis
        level, j = 0, i
        while True:
            t = tokens[j].token_type
            level += t == TokenType.L_PAREN
            level -= t == TokenType.R_PAREN
            if level == 0:
                break
            j += 1
        arg = _rename_calls(sql[nxt.end + 1 : tokens[j].start], inside_lambdas=False)
        out.append(k.builtin.format(arg))
        pos, i = tokens[j].end + 1, j + 1
    out.append(sql[pos:])
    return "".join(out)


def portable(sql: str) -> str:
    """``sql`` with each call of a kernel that has a Spark function of the same meaning
    (``Kernel.builtin``) calling that function instead: the same value, for a text run
    where the kernels may not be defined (``functions.sql``). Calls are found by Spark
    SQL's tokens, so a name inside a string literal or a quoted identifier stays."""
    return _rename_calls(sql, inside_lambdas=False) if _with_builtin(sql) else sql


def builtins_in_lambdas(sql: str) -> str:
    """:func:`portable` inside the lambdas of higher-order functions only (``x -> ...``):
    where a session has the kernels as SQL functions (:func:`install`'s last resort),
    Spark refuses them there. The regular expression kernels gain little in a lambda
    (their saving is a projection's many reads of one row's match)."""
    return _rename_calls(sql, inside_lambdas=True) if "->" in sql and _with_builtin(sql) else sql


def with_jar(confs: dict[str, str], extensions: bool = False) -> dict[str, str]:
    """``confs`` with the kernel jar appended to ``spark.jars`` (and, for a server, the
    extension to ``spark.sql.extensions``); as they are where the jar is missing."""
    if not JAR.exists():
        return confs
    add = {"spark.jars": str(JAR)} | ({"spark.sql.extensions": EXTENSIONS} if extensions else {})
    return confs | {k: ",".join(x for x in (confs.get(k), v) if x) for k, v in add.items()}


def udf_class(name: str) -> str:
    """The Java UDF class of kernel ``name`` (``looplift.kernels.Udfs``): ``Udfs$Strip``
    for ``PyStrings.strip``, ``Udfs$RegexLike`` for ``Regex.like``."""
    owner, m = KERNELS[name].method.split(".")
    prefix = "" if owner == "PyStrings" else owner
    return f"looplift.kernels.Udfs${prefix}{m[0].upper()}{m[1:]}"


def mode(spark: Any) -> str | None:
    """How the session runs the kernels: ``"jvm"`` (StaticInvoke expressions), ``"udf"``
    (Java UDFs), ``"sql"`` (SQL functions), or None (not installed by this process)."""
    return _MODE.get(spark)


def install(spark: Any) -> str:
    """Define the kernels in ``spark`` (once per session object), the fastest way it
    allows; returns :func:`mode`'s answer.

    - a classic session: the jar's ``Functions.register`` through Py4J, after ``ADD JAR``
      where the driver cannot load it or the executors may not have it (not a local
      master, the jar not in ``spark.jars``); the Java UDFs if that fails (a Spark whose
      classes differ from the ones the jar was compiled against);
    - a Spark Connect session: the server's extension has defined them already; else the
      jar is uploaded (``addArtifacts``) and each kernel registered as a Java UDF; else
      (a server that takes no artifacts) their SQL forms, which Spark does not allow inside
      a higher-order function's lambda.
    """
    got = _MODE.get(spark)
    if got is None:
        classic = getattr(spark, "_jsparkSession", None) is not None
        got = _classic(spark) if classic else _connect(spark)
        _MODE[spark] = got
    return got


def _classic(spark: Any) -> str:
    sc = spark.sparkContext
    shipped = sc.master.startswith("local") or "looplift-kernels" in (
        sc.getConf().get("spark.jars") or ""
    )
    if not shipped and sc not in _JAR_ADDED:  # the executors fetch it (SparkContext.addJar)
        spark.sql(f"ADD JAR {sql_string(str(JAR))}")
        _JAR_ADDED.add(sc)
    for attempt in range(2):
        try:
            spark._jvm.looplift.kernels.Functions.register(spark._jsparkSession)
            return "jvm"
        except Exception:  # noqa: BLE001 - the driver has no jar (a Py4J package, not a class), or a Spark whose classes differ
            if attempt or sc in _JAR_ADDED:
                break
            # ADD JAR puts the jar in the session's class loader, which Py4J's thread uses
            spark.sql(f"ADD JAR {sql_string(str(JAR))}")
            _JAR_ADDED.add(sc)
    try:
        return _java_udfs(spark)
    except Exception:  # noqa: BLE001 - no jar at all
        return _sql_kernels(spark)


def _connect(spark: Any) -> str:
    if spark.catalog.functionExists(STRIP["strip"]):  # the server's extension (or a call before)
        described = " ".join(str(r[0]) for r in spark.sql(f"DESCRIBE FUNCTION {STRIP['strip']}").collect())
        return "jvm" if "PyStrings" in described else "udf" if "Udfs" in described else "sql"
    try:
        return _connect_udfs(spark)
    except Exception:  # noqa: BLE001 - a server that takes no artifacts
        return _sql_kernels(spark)


def _connect_udfs(spark: Any) -> str:
    """The jar uploaded to the session (its class loader on the server), each kernel
    registered as a Java UDF."""
    spark.addArtifacts(str(JAR))
    return _java_udfs(spark)


def _java_udfs(spark: Any) -> str:
    for name, k in KERNELS.items():
        spark.udf.registerJavaFunction(name, udf_class(name), k.returns)
    return "udf"


def _sql_kernels(spark: Any) -> str:
    for name in KERNELS:
        spark.sql(create_sql(name))
    return "sql"
