"""Scalar parsers as their authors write them: a bare `except:` around the parsing, a
`None` for anything malformed (Python islands, issue 25)."""
from typing import Optional

from looplift import dataflow


@dataflow
def parse_price(raw: Optional[str]) -> Optional[float]:
    try:
        return float(raw.replace("$", "").replace(",", "").strip())
    except:
        return None


@dataflow
def header_value(line: str, key: str) -> Optional[str]:
    try:
        for part in line.split(";"):
            k, v = part.split("=", 1)
            if k.strip().lower() == key:
                return v.strip()
        return None
    except Exception:
        return None


@dataflow
def minutes(hhmm: str) -> int:
    try:
        h, m = hhmm.split(":")
        total = int(h) * 60 + int(m)
    except (ValueError, AttributeError):
        total = -1
    return total
