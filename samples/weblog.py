"""Web server log: a per-row table algorithm with host functions.

``page_hits`` looks at every hit on its own (no grouping): it keeps the
successful ones, labels client errors, and emits *two* rows for a server
error (the page, and an alert row for the site). URLs are cleaned by
``normalize_url`` and ``site_of``, plain Python functions imported from
another module: each becomes one vectorized Python operator, while the
filtering, labelling and string concatenation stay native.

``log_summary`` is an aggregate over the same log returning a tuple; it
only needs sums and counts, so it runs without Python.

>>> page_hits([(1, "http://www.Shop.example/cart?x=1", 200), (2, "shop.example/a", 503)])
[(1, 'shop.example/cart', 'ok'), (2, 'shop.example/a', 'error 503'), (0, 'shop.example', 'alert')]
"""

from hostlib import normalize_url, site_of
from looplift import RowStream, dataflow


@dataflow(columns=("user_id", "page", "kind"))
def page_hits(hits: RowStream[int, str, int]):
    """Successful hits, labelled client errors, and server errors with an alert row."""
    for uid, url, status in hits:
        page = normalize_url(url)
        if status < 400:
            yield uid, page, "ok"
        elif status < 500:
            yield uid, page, "client error " + str(status)
        else:
            yield uid, page, "error " + str(status)
            yield 0, site_of(page), "alert"


@dataflow
def log_summary(hits: RowStream[int, str, int]) -> tuple[int, float, float]:
    """(hits, average URL length, fraction of hits with status >= 400)."""
    n = 0
    chars = 0
    errors = 0
    for _uid, url, status in hits:
        n += 1
        chars += len(url)
        if status >= 400:
            errors += 1
    if n == 0:
        return 0, 0.0, 0.0
    return n, chars / n, errors / n
