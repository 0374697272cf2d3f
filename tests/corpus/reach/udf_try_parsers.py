"""Scalar parsers as UDF authors write them: a bare `except:` around the parsing, the
handler returning a default (a phone number's digits, a price with a currency sign and
thousands separators, a date from `YYYY-MM-DD`)."""

import datetime
from typing import Optional

from looplift import dataflow


@dataflow
def phone_digits(s: Optional[str]) -> Optional[int]:  # noqa: UP045
    try:
        digits = s.replace("(", "").replace(")", "").replace("-", "").replace(" ", "")
        return int(digits.removeprefix("+"))
    except:  # noqa: E722
        return None


@dataflow
def price(s: Optional[str]) -> float:  # noqa: UP045
    try:
        x = float(s.strip().removeprefix("$").replace(",", ""))
    except (ValueError, TypeError, AttributeError):
        x = 0.0
    return x


@dataflow
def parse_date(s: str) -> Optional[datetime.date]:  # noqa: UP045
    try:
        y = int(s[0:4])
        m = int(s[5:7])
        d = int(s[8:10])
        return datetime.date(y, m, d)
    except Exception:  # noqa: BLE001
        return None
