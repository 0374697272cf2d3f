"""Host functions for the samples: plain, importable Python.

A call from a ``@dataflow`` function to one of these becomes its own opaque,
vectorized Python operator; the rest of the algorithm stays native. This
module has no ``@dataflow`` functions of its own. The samples import it by
its plain name (``from hostlib import normalize_url``), the way Python finds
modules next to a script.

``hour_of`` and ``seconds_between`` have no return annotation, as most
helper functions don't: the compiler reads their ``int`` results from their
``return`` statements (``ts.hour`` of a datetime, ``int(...)``), so their
Spark columns are ``bigint`` without running them first.

>>> normalize_url("HTTPS://www.Shop.example/cart/?id=7")
'shop.example/cart'
"""

import datetime

__all__ = ["hour_of", "normalize_url", "seconds_between", "site_of"]


def normalize_url(s: str) -> str:
    """Lower-case ``s`` and drop the scheme, ``www.``, query, fragment and trailing ``/``.

    >>> normalize_url("http://example.org/a/b/#top")
    'example.org/a/b'
    """
    s = s.strip().lower()
    for scheme in ("https://", "http://"):
        if s.startswith(scheme):
            s = s[len(scheme) :]
    if s.startswith("www."):
        s = s[len("www.") :]
    s = s.split("#", 1)[0].split("?", 1)[0]
    return s.rstrip("/")


def site_of(page: str) -> str:
    """The site of a normalized page: everything before the first ``/``.

    >>> site_of("shop.example/cart/items")
    'shop.example'
    """
    return page.split("/", 1)[0]


def hour_of(ts: datetime.datetime):
    """The hour of the day (0-23) of a timestamp.

    >>> hour_of(datetime.datetime(2024, 5, 1, 23, 59))
    23
    """
    return ts.hour


def seconds_between(start: datetime.datetime, end: datetime.datetime):
    """Whole seconds from ``start`` to ``end`` (negative if ``end`` is earlier).

    >>> seconds_between(datetime.datetime(2024, 1, 1), datetime.datetime(2024, 1, 1, 0, 2))
    120
    """
    return int((end - start).total_seconds())
