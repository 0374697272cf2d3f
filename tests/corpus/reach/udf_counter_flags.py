"""Data-quality flags per batch: every reading in range, any reading missing its unit
(``ok = ok and ...`` / ``bad = bad or ...`` running booleans, as validation UDFs write them)."""
from looplift import RowStream, dataflow, group_by


@dataflow(columns=("batch", "all_in_range", "any_unitless"))
def batch_flags(readings: RowStream[int, float, str]):
    for batch, g in group_by(0, readings):
        all_in_range = True
        any_unitless = False
        for _b, value, unit in g:
            all_in_range = all_in_range and -50.0 <= value <= 150.0
            any_unitless = any_unitless or unit == ""
        yield batch, all_in_range, any_unitless
