"""Top two prices per category: Flink's ``Top2`` table aggregate as a State without undo.

Flink's documentation shows user-defined table aggregates with ``Top2``: an
accumulator of the two largest values, an ``accumulate`` method and no
``retract``, emitting ``(value, rank)`` rows. ``Top2`` here is the same
state: ``add`` keeps the two largest values added (duplicates count
twice), in any order of arrival. It has no ``@add.undo``: keeping only two
values, it cannot take one back.

That is enough for a batch DataFrame call and for SQL, which only ever add
rows. An incremental view (``top2.incremental(spark, checkpoint)``) or a
stream has to take deleted rows back, so it is refused with an error that
names ``Top2.add`` and asks for ``@add.undo``.

The readers carry no annotations: their types are read from the class (the
fields hold what ``add`` is called with, an int here, or None).

>>> top2([("books", 12), ("books", 30), ("toys", 5), ("books", 19)])
[('books', 30, 1), ('books', 19, 2), ('toys', 5, 1)]
"""

from looplift import RowStream, State, action, dataflow, group_by


class Top2(State):
    """The two largest values added (None while fewer were added)."""

    def __init__(self):
        self.first = None
        self.second = None

    @action
    def add(self, value):
        if self.first is None or value > self.first:
            self.second = self.first
            self.first = value
        elif self.second is None or value > self.second:
            self.second = value

    def largest(self):
        return self.first

    def runner_up(self):
        return self.second


@dataflow(columns=("category", "price", "rank"))
def top2(items: RowStream[str, int]):
    """Per category, its largest price with rank 1 and the second largest with rank 2."""
    for category, g in group_by(0, items):
        top = Top2()
        for _category, price in g:
            top.add(price)
        yield category, top.largest(), 1
        if top.runner_up() is not None:
            yield category, top.runner_up(), 2
