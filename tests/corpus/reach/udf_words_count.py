"""Word count per row: the classic `len(text.split())` UDF, written as a loop over the words
with a minimum length, and the words per document of a corpus."""
from looplift import RowStream, dataflow


@dataflow
def word_count(text: str, min_len: int) -> int:
    n = 0
    for word in text.split():
        if len(word) >= min_len:
            n += 1
    return n


@dataflow(columns=("doc_id", "words", "chars"))
def doc_stats(docs: RowStream[int, str]):
    for doc_id, body in docs:
        words = 0
        chars = 0
        for w in body.split():
            words += 1
            chars += len(w)
        yield doc_id, words, chars
