"""Top-N per group: the best-selling products of every category.

``sorted(items, key=..., reverse=True)[:2]`` over a group is a *ranked*
stream: the compiled plan numbers each category's rows with a native
``row_number() OVER (PARTITION BY category ORDER BY units DESC, ...)`` window
and runs the loop body for the rows ranked 1 and 2 — no Python at run time.
``enumerate`` gives the rank. Ties (equal units) are broken by the remaining
fields in ascending order, as CPython's stable sort over a stream does.

>>> top_products([("toys", "ball", 30), ("toys", "kite", 50), ("toys", "yoyo", 20),
...               ("books", "atlas", 5)])
[('toys', 1, 'kite', 50), ('toys', 2, 'ball', 30), ('books', 1, 'atlas', 5)]
"""

from looplift import RowStream, dataflow, group_by


@dataflow(columns=("category", "rank", "product", "units"))
def top_products(sales: RowStream[str, str, int]):
    """Per category: the two products with the most units sold, with their rank."""
    for category, items in group_by(0, sales):
        for i, row in enumerate(sorted(items, key=lambda r: r[2], reverse=True)[:2]):
            yield category, i + 1, row[1], row[2]
