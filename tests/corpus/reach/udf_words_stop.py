"""Stop-word filter: the share of content words per row, the content words kept, and
the content words per author summed over their posts."""
from looplift import RowStream, dataflow, group_by

STOP_WORDS = ("a", "an", "and", "the", "of", "to", "in", "is", "it", "on", "for")


@dataflow
def content_ratio(text: str) -> float:
    words = text.lower().split()
    if not words:
        return 0.0
    return sum(1 for w in words if w not in STOP_WORDS) / len(words)


@dataflow
def strip_stop_words(text: str) -> str:
    return " ".join(w for w in text.split() if w.lower() not in STOP_WORDS)


@dataflow(columns=("author", "content_words"))
def content_per_author(posts: RowStream[str, str]):
    for author, g in group_by(0, posts):
        n = 0
        for _, text in g:
            for w in text.split():
                if w.lower() not in STOP_WORDS:
                    n += 1
        yield author, n
