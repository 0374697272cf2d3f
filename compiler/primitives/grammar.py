"""Python's grammar of ``int(s)`` and ``float(s)`` of a string, as Java regexes (Spark's
``RLIKE``): Unicode whitespace, every Unicode decimal digit CPython accepts, underscores
between digits. Each ends in ``\\z``, the end of the text: Java's ``$`` also matches
before a last line terminator (``"1\\u2028"``, ``"1\\x85"``). The string primitives'
lowering (``backend/strnumbers.py``) and their partiality's native tests (a ``try``'s test,
``strmethods.py``) read them."""

from __future__ import annotations

import sys
import unicodedata

from looplift.strings import WHITESPACE

from .charclass import java_class

__all__ = ["FLOAT_RE", "INT_RE"]


def _python_digits() -> tuple[str, str]:
    """Every Unicode decimal digit CPython's int()/float() accept, and its ASCII value."""
    src, dst = [], []
    for c in range(0x80, sys.maxunicode + 1):
        ch = chr(c)
        if unicodedata.category(ch) == "Nd":
            src.append(ch)
            dst.append(str(unicodedata.decimal(ch)))
    return "".join(src), "".join(dst)


_WS = java_class(WHITESPACE)
#: the whitespace int() and float() strip: CPython keeps an ASCII character as it is and
#: strips only " \t\n\v\f\r" of them (U+001C..U+001F, whitespace to ``str.isspace``,
#: are refused), and reads every non-ASCII whitespace character as a space
_NUM_WS = java_class("".join(c for c in WHITESPACE if not c.isascii() or c in " \t\n\x0b\f\r"))
_UDIGITS, _UDIGIT_VALUES = _python_digits()
_D = java_class("0123456789" + _UDIGITS)  # a digit, ASCII or other
_DIGITS = f"{_D}+(?:_{_D}+)*"
_INT_RE = f"^{_NUM_WS}*[+-]?{_DIGITS}{_NUM_WS}*\\z"
INT_RE = _INT_RE  # Python's int() grammar, for a try's test
_FLOAT_RE = (
    f"^{_NUM_WS}*[+-]?(?:(?:{_DIGITS}(?:\\.(?:{_DIGITS})?)?|\\.{_DIGITS})(?:[eE][+-]?{_DIGITS})?"
    f"|(?i:inf|infinity|nan)){_NUM_WS}*\\z"
)
FLOAT_RE = _FLOAT_RE  # Python's float() grammar, for a try's test
