from looplift import dataflow


@dataflow
def page_class(pagetype: int, weight: float) -> float:
    if pagetype == 0:
        score = 1.0
        bonus = 0.5
    elif pagetype in (1, 2):
        score = weight * 2
        bonus = 0.0
    else:
        score = -1.0
        bonus = 0.0
    return score + bonus if 0 < pagetype < 10 else score
