"""String group keys and string building from the key, ints and floats."""

from looplift import RowStream, dataflow, group_by


@dataflow(columns=("word", "n", "line"))
def word_counts(words: RowStream[str, int]):
    for word, g in group_by(0, words):
        n = 0
        longest = 0
        for w, count in g:
            n += count
            longest = max(longest, len(w) * count)
        yield word, n, word + " x" + str(n) + " (" + str(float(longest)) + ")"


EXAMPLES = {
    "word_counts": [([("hi", 2), ("yo", 1), ("hi", 3)],)],
}

EXPECTED = {
    # hi: 2 + 3, longest max(2 * 2, 2 * 3) = 6; yo: 1, 2
    "word_counts": [[("hi", 5, "hi x5 (6.0)"), ("yo", 1, "yo x1 (2.0)")]],
}
