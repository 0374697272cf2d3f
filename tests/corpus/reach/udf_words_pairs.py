"""Bigram and co-occurrence pairs per row: adjacent words, and every unordered pair of
distinct tags (a pair generator, as in market-basket analysis)."""
import itertools

from looplift import RowStream, dataflow


@dataflow(columns=("doc_id", "first", "second"))
def bigrams(docs: RowStream[int, str]):
    for doc_id, body in docs:
        words = body.lower().split()
        for i in range(len(words) - 1):
            yield doc_id, words[i], words[i + 1]


@dataflow(columns=("basket", "a", "b"))
def tag_pairs(baskets: RowStream[int, str]):
    for basket, tags in baskets:
        items = sorted({t.strip() for t in tags.split(",") if t.strip()})
        for a, b in itertools.combinations(items, 2):
            yield basket, a, b
