"""Table UDFs that generate rows from a scan of a string or a counter (Python islands,
issue 25): the shapes of Spark's own Python UDTF examples (split a sentence and yield
each word with its length), a character scanner yielding tokens, and a sequence expander
yielding one row per step."""
from looplift import RowStream, dataflow, group_by


@dataflow(columns=("id", "token", "kind"))
def tokens(lines: RowStream[int, str]):
    """A hand-written scanner: runs of digits are numbers, runs of letters words; every
    other character is its own token."""
    for line_id, text in lines:
        i = 0
        while i < len(text):
            c = text[i]
            if c.isspace():
                i += 1
                continue
            j = i + 1
            if c.isdigit():
                while j < len(text) and text[j].isdigit():
                    j += 1
                yield line_id, text[i:j], "number"
            elif c.isalpha():
                while j < len(text) and text[j].isalpha():
                    j += 1
                yield line_id, text[i:j], "word"
            else:
                yield line_id, c, "symbol"
            i = j


@dataflow(columns=("user", "month", "amount"))
def installments(plans: RowStream[str, int, int, int]):
    """A payment plan expanded to one row per month: ``total`` split into ``months``
    parts, the remainder on the first ones."""
    for user, start, total, months in plans:
        k = 0
        while k < months:
            part = total // months + (1 if k < total % months else 0)
            yield user, start + k, part
            k += 1


@dataflow(columns=("user", "step", "value"))
def collatz_steps(seeds: RowStream[str, int]):
    """Per user, the Collatz sequence of each seed (capped at 50 steps)."""
    for user, g in group_by(0, seeds):
        for _, n in g:
            step = 0
            while n != 1 and step < 50:
                n = n // 2 if n % 2 == 0 else 3 * n + 1
                step += 1
                yield user, step, n
