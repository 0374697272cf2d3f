"""Log-line fields extracted with patterns compiled inside the UDF, as UDF authors write
them (``re.compile`` in the function body, flags or'ed together)."""
import re

from looplift import dataflow


@dataflow
def status_class(line: str) -> str:
    status = re.compile(r'" (\d{3}) ')
    m = status.search(line)
    if not m:
        return "unknown"
    bots = re.compile(r"bot|crawler|spider", re.IGNORECASE | re.ASCII)
    kind = "bot" if bots.search(line) else "human"
    return m.group(1)[0] + "xx/" + kind
