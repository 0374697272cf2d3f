"""Lookups in module-level constant tables: `except KeyError` for a missing currency,
`except LookupError` for a tier index beyond a tuple, `except (IndexError, KeyError,
ValueError)` around a parsed amount converted by a rate."""

from looplift import dataflow

FX = {"EUR": 1.08, "GBP": 1.27, "JPY": 0.0067, "USD": 1.0}
TIERS = ("bronze", "silver", "gold", "platinum")


@dataflow
def to_usd(amount: float, currency: str) -> float:
    try:
        rate = FX[currency.upper()]
    except KeyError:
        rate = 1.0
    return amount * rate


@dataflow
def tier(points: int) -> str:
    try:
        name = TIERS[points // 1000]
    except LookupError:
        name = "diamond"
    return name


@dataflow
def parse_amount(s: str) -> float:
    try:
        parts = s.split(" ")
        return float(parts[0]) * FX[parts[1]]
    except (IndexError, KeyError, ValueError):
        return -1.0
