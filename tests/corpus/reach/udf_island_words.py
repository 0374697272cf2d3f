"""Word-level text UDFs: loops and comprehensions over `s.split()` building a string or a
count (Python islands, issue 25), per row inside a loop over rows too."""
from collections import Counter

from looplift import RowStream, dataflow


@dataflow
def title_case(s: str) -> str:
    words = []
    for w in s.split():
        words.append(w[:1].upper() + w[1:].lower())
    return " ".join(words)


@dataflow
def acronym(s: str) -> str:
    out = ""
    for w in s.replace("-", " ").split():
        if w[0].isalpha():
            out += w[0].upper()
    return out


@dataflow
def most_common_word(s: str) -> str:
    words = s.lower()
    return Counter(words.split()).most_common(1)[0][0] if words.strip() else ""


@dataflow(columns=("doc", "long_words", "shout"))
def word_stats(docs: RowStream[int, str]):
    for doc, text in docs:
        n = 0
        for w in text.split():
            if len(w) > 6:
                n += 1
        shout = " ".join(w.upper() for w in text.split() if w.endswith("!"))
        yield doc, n, shout
