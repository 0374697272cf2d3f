"""Host functions without return annotations (issue 10 item 8): the result type is read
from the function's source, and a build that cannot read it says which function to
annotate. Before, an unannotated host function was assumed to return ``str`` and one
returning an int failed at run time."""

from __future__ import annotations

import datetime
import math
import textwrap
from pathlib import Path

import pytest
from looplift.compiler.backend import BackendError, backend_for
from looplift.compiler.backend.host_probe import learn_host_types, probed_types
from looplift.compiler.backend.host_reader import infer_host_return
from looplift.compiler.backend.types import host_return_type
from looplift.compiler.pipeline import compile_dataflow

from tests.helpers import import_path

# -- host functions as users write them (module level, so their source is readable) ------


def bucket(n):
    return n // 10


def half(x):
    return x / 2


def label(n):
    return f"n={n}"


def is_big(x):
    return x > 100


def width(s):
    return len(s.strip())


def clean(s):
    s = s.strip().lower()
    if not s:
        return None
    return s.replace(" ", "_")


def maybe_int(n):
    if n < 0:
        return None
    return int(n)


def falls_off(n):
    if n > 0:
        return n


def checksum(s):
    total = 0
    for ch in s:
        total += ord(ch)
    return total % 251


def annotated(x: float) -> float:
    return x * 2


def uses_annotated(x):
    return annotated(x) + 1


def uses_unannotated(n):
    return bucket(n) * 2


def uses_module(x):
    return math.floor(x)


def pair(s, n):
    return s[:3], n * 1.5


def hour(ts):
    return ts.hour


def typed_param(n: int):
    return n + 1


def mixed_numbers(n):
    if n > 0:
        return n
    return 0.5


def bool_or_int(n):
    return True if n else 0


def from_a_list(n):
    return [n, n][0]


def loops_to_find(xs):
    for x in xs:  # noqa: B007
        pass
    return x


# -- what the source says ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fn", "args", "expected"),
    [
        (bucket, ["int"], ("int", False)),
        (bucket, ["float"], ("float", False)),
        (half, ["int"], ("float", False)),
        (label, ["int"], ("str", False)),
        (is_big, ["float"], ("bool", False)),
        (width, ["str"], ("int", False)),
        (clean, ["str"], ("str", True)),
        (maybe_int, ["float"], ("int", True)),
        (falls_off, ["int"], ("int", True)),
        (checksum, ["str"], ("int", False)),
        (uses_annotated, ["int"], ("float", False)),
        (uses_unannotated, ["int"], ("int", False)),
        (uses_module, ["float"], ("int", False)),
        (pair, ["str", "int"], (("tuple", ("str", "float")), False)),
        (hour, ["datetime"], ("int", False)),
        (typed_param, ["any"], ("int", False)),
        (mixed_numbers, ["int"], ("float", False)),
    ],
)
def test_return_type_from_source(fn, args, expected) -> None:  # noqa: ANN001
    assert infer_host_return(fn, args) == expected
    assert host_return_type(fn, args) == expected


@pytest.mark.parametrize("fn", [bool_or_int, from_a_list, loops_to_find])
def test_unreadable_return_is_unknown(fn) -> None:  # noqa: ANN001
    assert infer_host_return(fn, ["int"]) is None


def test_an_argument_of_unknown_type_makes_arithmetic_unknown() -> None:
    assert infer_host_return(bucket, ["any"]) is None
    assert infer_host_return(bucket, ["str"]) is None


def test_the_results_of_the_reference_agree() -> None:
    """The inferred types are what CPython returns (a sanity check of the table above)."""
    assert isinstance(bucket(25), int) and isinstance(half(3), float)
    assert clean("  ") is None and clean("A b") == "a_b"
    assert isinstance(hour(datetime.datetime(2024, 1, 1, 5)), int)
    assert pair("abcd", 2) == ("abc", 3.0)


# -- the plan and the diagnostic -------------------------------------------------------------


def _module(tmp_path: Path, body: str):
    path = tmp_path / "host_mod.py"
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return import_path(path), path


def test_unannotated_int_host_function_gets_a_bigint_column(tmp_path: Path) -> None:
    """Regression (issue 10 item 8): this was typed `string` and failed on Spark."""
    mod, _ = _module(tmp_path, """\
        from looplift import RowStream, dataflow


        def bucket(n):
            return n // 10


        @dataflow(columns=("k", "b"))
        def buckets(rows: RowStream[int, int]):
            for k, v in rows:
                yield k, bucket(v) + 1
        """)  # fmt: skip
    gen = backend_for(compile_dataflow(mod.buckets))
    (call,) = gen.pycalls
    assert call.ref.endswith(":bucket") and call.return_type == "bigint"
    assert gen.output_types == ("bigint", "bigint")


def test_unreadable_host_function_is_a_diagnostic_naming_it(tmp_path: Path) -> None:
    mod, path = _module(tmp_path, """\
        from looplift import RowStream, dataflow


        def first(n):
            return [n][0]


        @dataflow(columns=("k", "b"))
        def firsts(rows: RowStream[int, int]):
            for k, v in rows:
                yield k, first(v)
        """)  # fmt: skip
    with pytest.raises(BackendError) as e:
        backend_for(compile_dataflow(mod.firsts))
    (d,) = e.value.diagnostics
    assert (d.span.path, d.span.line, d.span.col) == (str(path), 11, 18)
    assert "host function `first`" in d.message and "no return annotation" in d.message
    assert f"{path}:4" in d.message
    assert "def first(n) -> int:" in d.hint


def test_observed_types_complete_an_unreadable_source(tmp_path: Path) -> None:
    mod, _ = _module(tmp_path, """\
        from looplift import RowStream, dataflow


        def first(n):
            return [n][0]


        @dataflow(columns=("k", "b"))
        def firsts(rows: RowStream[int, int]):
            for k, v in rows:
                yield k, first(v)
        """)  # fmt: skip
    with probed_types({"host_mod:first": ("int", False)}):
        gen = backend_for(compile_dataflow(mod.firsts))
    assert gen.pycalls[0].return_type == "bigint"


def test_types_are_learnt_from_running_on_first_rows(tmp_path: Path) -> None:
    """What a DataFrame call does before building its plan, on the first rows."""
    mod, _ = _module(tmp_path, """\
        from looplift import RowStream, dataflow


        def first(n):
            return [n, None][n % 2]


        def twice(n):
            return 2 * n


        @dataflow(columns=("k", "b", "c"))
        def firsts(rows: RowStream[int, int]):
            for k, v in rows:
                yield k, first(v), twice(v)
        """)  # fmt: skip
    prog = compile_dataflow(mod.firsts).program
    # only `first` needs data (`twice` is read from source); None results make it nullable
    assert learn_host_types(prog, [[(1, 4), (2, 5)]]) == {"host_mod:first": ("int", True)}
    assert learn_host_types(prog, [[(1, 5)]]) == {}  # only None seen: nothing learnt
    assert learn_host_types(prog, [[]]) == {}


# -- readers of user states without annotations -------------------------------------


class _Top2:
    def __init__(self):
        self.first = None
        self.second = None
        self.n = 0

    def add(self, v):
        self.n += 1
        if self.first is None or v > self.first:
            self.second = self.first
            self.first = v
        elif self.second is None or v > self.second:
            self.second = v

    def value(self):
        return self.first, self.second

    def count(self):
        return self.n

    def mean_gap(self):
        if self.second is None:
            return None
        return (self.first - self.second) / 2

    def opaque(self):
        return self.lookup[0]


def test_state_reader_types_from_the_class_source() -> None:
    from looplift.compiler.backend.reader_types import infer_state_reader

    ints = {"add": ["int"]}
    assert infer_state_reader(_Top2, "value", ints, []) == (("tuple", ("int", "int")), False)
    assert infer_state_reader(_Top2, "count", ints, []) == ("int", False)
    assert infer_state_reader(_Top2, "mean_gap", ints, []) == ("float", True)
    floats = {"add": ["float"]}
    assert infer_state_reader(_Top2, "value", floats, []) == (("tuple", ("float", "float")), False)
    # a field nothing types: unknown, and the plan asks for an annotation
    assert infer_state_reader(_Top2, "opaque", ints, []) is None
    assert infer_state_reader(_Top2, "value", {}, []) is None
