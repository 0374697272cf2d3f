"""Tokens normalized and joined: lower-cased, punctuation stripped, empty tokens dropped,
then one row per token of each document (an explode)."""
from looplift import RowStream, dataflow


@dataflow
def normalize(text: str) -> str:
    tokens = [t.strip(".,;:!?\"'()").lower() for t in text.split()]
    return " ".join([t for t in tokens if t])


@dataflow(columns=("doc_id", "position", "token"))
def tokens(docs: RowStream[int, str]):
    for doc_id, body in docs:
        for i, tok in enumerate(body.lower().split(",")):
            tok = tok.strip()
            if tok:
                yield doc_id, i, tok
