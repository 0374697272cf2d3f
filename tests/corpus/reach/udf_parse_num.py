"""Parse amounts that arrive as strings; bad values raise."""
from looplift import dataflow


@dataflow
def amount_cents(s: str) -> int:
    t = s.strip().replace(",", "")
    if t.startswith("$"):
        t = t[1:]
    return int(float(t) * 100)
