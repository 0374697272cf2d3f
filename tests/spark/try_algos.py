"""Algorithms with ``try``/``except`` around primitives (issue 25, item 4): the shapes of
real scalar UDFs (a bare ``except:``, ``except Exception``, tuples of classes, several
handlers, ``else:``, assignments before the failing statement), each compiled natively
and compared with CPython by ``test_tries.py``."""

from __future__ import annotations

import datetime
import math
import re
from typing import Optional

from looplift import RowStream, dataflow, group_by

RATES = {"EUR": 1.1, "USD": 1.0, "GBP": 1.25}
STEPS = ("start", "cart", "pay")


@dataflow
def price(s: Optional[str]) -> Optional[float]:  # noqa: UP045
    try:
        return float(s.strip().replace(",", "").removeprefix("$"))
    except:  # noqa: E722 - the shape under test
        return None


@dataflow
def to_int(s: Optional[str]) -> int:  # noqa: UP045
    try:
        n = int(s)
    except (ValueError, TypeError):
        n = -1
    return n


@dataflow
def to_int_value_error(s: Optional[str]) -> int:  # noqa: UP045
    """A None input raises TypeError, which ``except ValueError`` does not catch."""
    try:
        n = int(s)
    except ValueError:
        n = -1
    return n


@dataflow
def third_field(s: str) -> int:
    try:
        p = s.split(",")[2]
        n = int(p[1:3])
    except (ValueError, IndexError):
        n = -1
    return n


@dataflow
def field_kept(s: str) -> str:
    """The first statement's effect stands when the second raises."""
    a = "none"
    b = 0
    try:
        a = s.split(",")[0]
        b = int(s.split(",")[1])
    except LookupError:
        b = -2
    except ValueError:
        b = -3
    return a + ":" + str(b)


@dataflow
def only_index(s: str) -> int:
    """``except IndexError`` does not catch ValueError: int() of a non-number raises."""
    try:
        n = int(s.split(",")[1])
    except IndexError:
        n = 0
    return n


@dataflow
def safe_div(a: float, b: float) -> float:
    try:
        r = a / b
    except ZeroDivisionError:
        r = 0.0
    return r


@dataflow
def int_div(a: int, b: int) -> int:
    try:
        q = a // b
    except ArithmeticError:
        q = -1
    return q


@dataflow
def log_or(x: float) -> float:
    try:
        v = math.log(x)
    except ValueError:
        v = -1.0
    else:
        v = v * 2.0
    return v


@dataflow
def make_day(y: int, m: int, d: int) -> str:
    try:
        day = datetime.date(y, m, d)
        out = str(day.year) + "/" + str(day.day)
    except ValueError:
        out = "invalid"
    except Exception:  # noqa: BLE001 - the shape under test
        out = "other"
    return out


@dataflow
def date_or_none(y: int, m: int, d: int) -> Optional[datetime.date]:  # noqa: UP045
    try:
        d = datetime.date(y, m, d)
    except ValueError:
        return None
    return d


@dataflow
def first_number(s: str) -> int:
    try:
        n = int(re.search(r"(\d+)", s).group(1))
    except AttributeError:
        n = 0
    return n


@dataflow
def floor_of(x: float) -> int:
    try:
        n = int(x)
    except ValueError as e:  # noqa: F841 - e unused
        n = -1
    except OverflowError:
        n = -2
    return n


@dataflow
def rate(c: Optional[str]) -> float:  # noqa: UP045
    try:
        v = RATES[c]
    except KeyError:
        v = 0.0
    return v


@dataflow
def step_name(i: int) -> str:
    """A tuple indexed by a computed index: IndexError (a LookupError)."""
    try:
        name = STEPS[i]
    except LookupError:
        name = "?"
    return name


@dataflow
def convert(amount: str, cur: str) -> float:
    """Several failures in one statement, in Python's order: the amount's ValueError
    before the currency's KeyError."""
    try:
        v = float(amount) * RATES[cur]
    except ValueError:
        v = -1.0
    except KeyError:
        v = -2.0
    return v


@dataflow(columns=("k", "total", "bad"))
def parse_sum(rows: RowStream[str, str]):
    """A group loop: a try in the row loop's body."""
    for k, group in group_by(0, rows):
        total = 0.0
        bad = 0
        for _, v in group:
            try:
                x = float(v)
            except ValueError:
                x = 0.0
                bad += 1
            total += x
        yield k, total, bad


@dataflow(columns=("k", "last"))
def last_parsed(rows: RowStream[str, int, str]):
    """An ordered group loop (its body runs as Python in a reducer): the last value that
    parses."""
    for k, group in group_by(0, rows, order_by=1):
        last = -1
        for _, _, v in group:
            try:
                last = int(v.split(":")[1])
            except (ValueError, IndexError):
                pass
        yield k, last


@dataflow(columns=("k", "n"))
def parsed_rows(rows: RowStream[int, str]):
    """A row loop: a yield inside the try (the rows that fail are skipped)."""
    for k, s in rows:
        try:
            yield k, int(s.split("=")[1])
        except (ValueError, IndexError):
            pass


@dataflow(columns=("k", "acc", "n"))
def running(rows: RowStream[str, int, str]):
    """An ordered group loop whose try reads and sets carried locals."""
    for k, group in group_by(0, rows, order_by=1):
        acc = ""
        n = 0
        for _, _, v in group:
            try:
                n = n * 2 + int(v)
            except ValueError:
                n = n - 1
            acc = acc + str(n % 7)
        yield k, acc, n


EXAMPLES = {
    "price": [("$1,200.50",), (" 3 ",), ("abc",), (None,), ("",)],
    "to_int": [("12",), ("x",), (None,)],
    "third_field": [("a,b,c12",), ("a,b",), ("a,b,xx",)],
    "safe_div": [(1.0, 0.0), (1.0, 2.0)],
    "parse_sum": [("a", "1.5"), ("a", "x"), ("b", "2")],
}
