"""A user-defined state with an explicit `@add.undo`: a two-argument action,
a reader with an argument, per-group and global instances."""

from looplift import RowStream, State, action, dataflow, group_by


class KeyedMax(State):
    """Per key, the largest amount; a multiset per key so that deletions work."""

    def __init__(self):
        self.amounts = {}

    @action
    def add(self, key, amount):
        bag = self.amounts.setdefault(key, {})
        bag[amount] = bag.get(amount, 0) + 1

    @add.undo
    def add(self, key, amount):
        bag = self.amounts[key]
        bag[amount] -= 1
        if bag[amount] == 0:
            del bag[amount]
        if not bag:
            del self.amounts[key]

    def best(self, key):
        bag = self.amounts.get(key)
        return max(bag) if bag else None

    def keys(self):
        return len(self.amounts)

    def total_of_maxima(self):
        return sum(max(bag) for bag in self.amounts.values())


@dataflow
def best_bids(bids: RowStream[str, int]) -> tuple[int, int]:
    book = KeyedMax()
    for item, amount in bids:
        book.add(item, amount)
    return book.keys(), book.total_of_maxima()


@dataflow(columns=("bidder", "top_bid_on_a"))
def per_bidder(bids: RowStream[int, str, int]):
    for bidder, g in group_by(0, bids):
        book = KeyedMax()
        for _b, item, amount in g:
            book.add(item, amount)
        yield bidder, book.best("a")


EXAMPLES = {
    "best_bids": [([("a", 5), ("b", 3), ("a", 9), ("a", 9)],), ([],)],
    "per_bidder": [([(1, "a", 5), (1, "b", 7), (2, "b", 1), (1, "a", 2)],)],
}

EXPECTED = {
    # items a (max 9) and b (max 3)
    "best_bids": [(2, 12), (0, 0)],
    # bidder 2 never bid on "a"
    "per_bidder": [[(1, 5), (2, None)]],
}
