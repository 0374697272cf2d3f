"""`try`/`except` around primitives other than int()/float(): slicing and indexing with
`except (ValueError, IndexError)`, a lookup table's KeyError, a division's
ZeroDivisionError caught as ArithmeticError, a bare `except:` in a group loop, several
handlers in order and `else:`."""

from looplift import RowStream, dataflow, group_by

RATES = {"EUR": 1.1, "USD": 1.0}


@dataflow
def third_code(s: str) -> int:
    try:
        n = int(s.split(",")[2][:2])
    except (ValueError, IndexError):
        n = -1
    return n


@dataflow(columns=("k", "usd", "bad"))
def totals(rows: RowStream[str, str, str]):
    for k, g in group_by(0, rows):
        usd = 0.0
        bad = 0
        for _, amount, cur in g:
            try:
                v = float(amount) * RATES[cur]
            except KeyError:
                v = float(amount)
                bad += 1
            except:  # noqa: E722
                v = 0.0
                bad += 10
            else:
                v = v + 0.0
            usd += v
        yield k, usd, bad


@dataflow
def ratio(a: int, b: int) -> float:
    try:
        r = a / b
    except ArithmeticError:
        r = 0.0
    return r


EXAMPLES = {
    "third_code": [("a,b,12x",), ("a,b",), ("a,b,x1",), ("1,2,٣٤",)],
    "totals": [([("a", "1.5", "EUR"), ("a", "2", "GBP"), ("b", "x", "USD"), ("b", "3", "USD")],)],
    "ratio": [(1, 2), (3, 0), (-7, 2)],
}
