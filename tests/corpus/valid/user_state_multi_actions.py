"""A user-defined state with three additive actions chosen by an if/elif/else
chain (one nested in a branch, one branch only `pass`)."""

from looplift import RowStream, State, action, dataflow, group_by


class Ledger(State):
    def __init__(self):
        self.balance = 0
        self.deposits = 0
        self.withdrawals = 0

    @action
    def deposit(self, x):
        self.balance += x
        self.deposits += 1

    @action
    def withdraw(self, x):
        self.balance -= x
        self.withdrawals += 1

    @action
    def fee(self, x):
        self.balance -= x

    def value(self):
        return self.balance

    def activity(self):
        return self.deposits + self.withdrawals


@dataflow(columns=("account", "balance", "activity"))
def ledger(tx: RowStream[int, str, int]):
    for account, g in group_by(0, tx):
        led = Ledger()
        for _a, kind, amount in g:
            if kind == "deposit":
                led.deposit(amount)
            elif kind == "withdraw":
                led.withdraw(amount)
                if amount > 1000:
                    led.fee(5)
            else:
                pass
        yield account, led.value(), led.activity()


EXAMPLES = {
    "ledger": [([(1, "deposit", 500), (1, "withdraw", 200), (1, "withdraw", 2000),
                 (1, "noop", 9), (2, "deposit", 10)],)],
}

EXPECTED = {
    # account 1: 500 - 200 - 2000 - 5 (fee on the large withdrawal) = -1705, 3 moves
    "ledger": [[(1, -1705, 3), (2, 10, 1)]],
}
