"""Host functions with every result annotation Spark can carry (``test_host_returns``).

Plain Python, imported by ``hostret_algos``: each call becomes a vectorized Arrow
function whose result column has the Spark type of the annotation.
"""

from __future__ import annotations

import datetime
import typing

PLUS2 = datetime.timezone(datetime.timedelta(hours=2))


def stamp(n: int) -> datetime.datetime:
    """A naive datetime (UTC wall time on Spark, as datetime fields are)."""
    return datetime.datetime(2024, 2, 28, 23, 50) + datetime.timedelta(
        minutes=7 * n, microseconds=n
    )


def stamp_aware(n: int) -> datetime.datetime:
    """An aware datetime at UTC+2 (its instant on Spark)."""
    return datetime.datetime(2024, 3, 31, 0, 30, tzinfo=PLUS2) + datetime.timedelta(hours=n)


def maybe_stamp(n: int) -> datetime.datetime | None:
    return None if n % 4 == 0 else stamp(n)


def maybe_day(n: int) -> typing.Optional[datetime.date]:  # noqa: UP045 - the typing spelling
    return None if n % 5 == 0 else day(n)


def day(n: int) -> datetime.date:
    return datetime.date(2024, 2, 27) + datetime.timedelta(days=n)


def split_pair(n: int) -> tuple[int, str]:
    return n * 3, "v" + str(n)


def bare_pair(n: int) -> tuple:
    """A bare ``tuple``: its items (int, float) are read from the return statement."""
    return n % 5, n * 0.5


def bare_list(n: int) -> list:
    """A bare ``list``: a list of str, read from the return statement."""
    return [str(n), "x"]


def bare_dict(n: int) -> dict:
    if n % 2:
        return {"odd": n}
    return {"even": n // 2, "half": n // 2}


def maybe_half(n: int) -> float | None:
    return None if n % 3 == 0 else n / 2


def maybe_pair(n: int) -> tuple[int, str | None] | None:
    if n % 3 == 0:
        return None
    return n, (None if n % 2 else str(n))


def digits(n: int) -> list[int]:
    return [int(c) for c in str(abs(n))]


def maybe_digits(n: int) -> list[int] | None:
    return None if n % 3 == 0 else digits(n)


def words(n: int) -> list[str | None]:
    return [None if i % 2 else "w" + str(i) for i in range(abs(n) % 4)]


def counts(n: int) -> dict[str, int]:
    d = {"n": n}
    if n % 2 == 0:
        d["even"] = n // 2
    return d


def nested(n: int) -> dict[str, list[tuple[int, datetime.date]]]:
    return {"a": [(n, day(n))], "b": []}


def big(n: int) -> int:
    return n * 2**62


def big_items(n: int) -> list[int]:
    return [n, n * 2**64]


def nan_or(n: int) -> float:
    return float("nan") if n % 2 else float(n)


def mistyped(n: int) -> datetime.date:
    """Annotated date, returns a datetime: the plan refuses rather than drop the time."""
    return datetime.datetime(2024, 1, 1) + datetime.timedelta(days=n)


def describe(p: tuple[int, str], d: dict[str, int], xs: list[int], t: datetime.datetime) -> str:
    """Results passed back into a host function arrive as Python made them."""
    assert isinstance(p, tuple) and isinstance(d, dict) and isinstance(xs, list)
    return f"{p[1]}|{sorted(d.items())}|{sum(xs)}|{t.isoformat()}"


def flag(n: int) -> bool:
    """Annotated bool, returns an int: 1 is not True in Python's result, so the plan refuses."""
    return n % 2  # type: ignore[return-value]


def keyed(n: int) -> dict[str | None, int]:
    """A None key: a Spark map has none, so the plan refuses (TypeError)."""
    return {None: n}
