"""Per account: currencies seen besides the home one, and transfer counts by direction
(containers that start with elements, as their authors write them)."""
from looplift import RowStream, dataflow, group_by


@dataflow(columns=("account", "n_currencies", "n_in", "n_out", "amounts"))
def currencies(transfers: RowStream[int, str, str, float]):
    for account, g in group_by(0, transfers):
        seen = {"EUR"}
        counts = {"in": 0, "out": 0}
        amounts = [0.0]
        for _a, currency, direction, amount in g:
            seen.add(currency)
            counts[direction] = counts.get(direction, 0) + 1
            amounts.append(amount)
        yield account, len(seen), counts["in"], counts["out"], sum(amounts)
