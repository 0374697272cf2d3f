"""Parse access-log lines into method, path and status."""
import re

from looplift import RowStream, dataflow

LINE = re.compile(r'"(GET|POST|PUT|DELETE) (\S+) HTTP/1\.[01]" (\d{3})')


@dataflow(columns=("method", "path", "status"))
def parse(lines: RowStream[str]):
    for line in lines:
        m = re.search(r'"(GET|POST|PUT|DELETE) (\S+) HTTP/1\.[01]" (\d{3})', line)
        if m:
            yield m.group(1), m.group(2).split("?")[0], int(m.group(3))
