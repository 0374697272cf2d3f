"""Random well-formed programs from a small grammar keep the IR and graph
invariants after every pass, and mean what CPython says they mean."""

from __future__ import annotations

import itertools
import os
import tempfile
import textwrap
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from looplift.compiler import pipeline
from looplift.compiler.cli import algorithms_of, load_module
from looplift.compiler.ir.interp import evaluate
from looplift.compiler.ir.verify import verify
from looplift.compiler.program import Program

from tests.compiler.test_semantics import canon, same

_COUNTER = itertools.count()
STATES = ("Sum", "Count", "Max", "Min")


class Gen:
    """Draws one random program in the looplift language."""

    def __init__(self, data: st.DataObject) -> None:
        self.d = data
        self.lines: list[str] = []
        self.n = 0

    def draw(self, strat):  # noqa: ANN001
        return self.d.draw(strat)

    def fresh(self, base: str) -> str:
        self.n += 1
        return f"{base}{self.n}"

    def expr(self, names: list[str], depth: int = 0) -> str:
        choices = ["lit", "name"] + (["bin", "call", "cond", "div"] if depth < 2 else [])
        kind = self.draw(st.sampled_from(choices))
        if kind == "lit" or not names:
            return str(self.draw(st.integers(-5, 5)))
        if kind == "name":
            return self.draw(st.sampled_from(names))
        a, b = self.expr(names, depth + 1), self.expr(names, depth + 1)
        if kind == "bin":
            return f"({a} {self.draw(st.sampled_from(['+', '-', '*']))} {b})"
        if kind == "div":
            k = self.draw(st.sampled_from([2, 3, -4, 7]))
            return f"({a} {self.draw(st.sampled_from(['//', '%']))} {k})"
        if kind == "call":
            f = self.draw(st.sampled_from(["abs", "min", "max"]))
            return f"abs({a})" if f == "abs" else f"{f}({a}, {b})"
        return f"({a} if {self.cond(names, depth + 1)} else {b})"

    def cond(self, names: list[str], depth: int = 0) -> str:
        op = self.draw(st.sampled_from(["<", "<=", "==", "!=", ">"]))
        c = f"{self.expr(names, depth + 1)} {op} {self.expr(names, depth + 1)}"
        extra = self.draw(st.sampled_from(["", "and", "or", "not"]))
        if extra == "not":
            return f"not ({c})"
        if extra:
            return f"({c}) {extra} ({self.expr(names, depth + 1)} > 0)"
        return c

    def body(self, ind: str, names: list[str], states: list[tuple[str, str]],
             locals_: list[tuple[str, str]], depth: int = 0) -> None:  # fmt: skip
        for _ in range(self.draw(st.integers(1, 3))):
            kind = self.draw(st.sampled_from(["act", "act", "local", "temp", "if"]))
            if kind == "act" and states:
                s, cls = self.draw(st.sampled_from(states))
                arg = "" if cls == "Count" else self.expr(names)
                self.lines.append(f"{ind}{s}.add({arg})")
            elif kind == "local" and locals_:
                v, how = self.draw(st.sampled_from(locals_))
                e = self.expr(names)
                self.lines.append(
                    {"sum": f"{ind}{v} += {e}", "sub": f"{ind}{v} -= {e}",
                     "max": f"{ind}{v} = max({v}, {e})", "min": f"{ind}{v} = min({e}, {v})"}[how]
                )  # fmt: skip
            elif kind == "temp":
                t = self.fresh("t")
                self.lines.append(f"{ind}{t} = {self.expr(names)}")
                names = [*names, t]
            elif kind == "if" and depth < 2:
                self.lines.append(f"{ind}if {self.cond(names)}:")
                self.body(ind + "    ", names, states, locals_, depth + 1)
                if self.draw(st.booleans()):
                    self.lines.append(f"{ind}elif {self.cond(names)}:")
                    self.body(ind + "    ", names, states, locals_, depth + 1)
                self.lines.append(f"{ind}else:")
                self.body(ind + "    ", names, states, locals_, depth + 1)
            else:
                self.lines.append(f"{ind}pass")

    def decls(self, ind: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
        states = []
        for _ in range(self.draw(st.integers(0, 2))):
            s, cls = self.fresh("s"), self.draw(st.sampled_from(STATES))
            self.lines.append(f"{ind}{s} = {cls}()")
            states.append((s, cls))
        locals_ = []
        for _ in range(self.draw(st.integers(0 if states else 1, 2))):
            v, how = self.fresh("v"), self.draw(st.sampled_from(["sum", "sub", "max", "min"]))
            self.lines.append(f"{ind}{v} = {self.draw(st.integers(-3, 3))}")
            locals_.append((v, how))
        return states, locals_

    def reads(self, states: list[tuple[str, str]], locals_: list[tuple[str, str]]) -> list[str]:
        out = []
        for s, cls in states:
            r = f"{s}.value()"
            out.append(f"({r} if {r} is not None else 0)" if cls in ("Max", "Min") else r)
        return out + [v for v, _ in locals_]

    def program(self) -> str:
        table = self.draw(st.booleans())
        head = "@dataflow(columns=None)" if table else "@dataflow"
        self.lines += [head, "def prog(rows: RowStream[int, int, int], t: int):"]
        if table:
            key = self.draw(st.sampled_from(["0", "1", "(0, 1)"]))
            self.lines.append(f"    for k, g in group_by({key}, rows):")
            states, locals_ = self.decls("        ")
            self.lines.append("        for a, b, c in g:")
            self.body("            ", ["a", "b", "c", "t"], states, locals_)
            out = ", ".join(["k", *self.reads(states, locals_)])
            self.lines.append(f"        yield {out}")
        else:
            states, locals_ = self.decls("    ")
            if self.draw(st.booleans()):  # loops inside both branches of an `if`
                self.lines.append(f"    if {self.cond(['t'])}:")
                self.lines.append("        for a, b, c in rows:")
                self.body("            ", ["a", "b", "c", "t"], states, locals_)
                self.lines.append("    else:")
                self.lines.append("        for a, b, c in rows.project(2, 1, 0):")
                self.body("            ", ["a", "b", "c", "t"], states, locals_)
            else:
                self.lines.append("    for a, b, c in rows:")
                self.body("        ", ["a", "b", "c", "t"], states, locals_)
            self.lines.append(f"    return ({', '.join(self.reads(states, locals_))},)")
        return "\n".join(self.lines) + "\n"


HEADER = textwrap.dedent(
    """\
    from looplift import RowStream, dataflow, group_by
    from looplift.states import Count, Max, Min, Sum


    """
)

ROWS = st.lists(st.tuples(*[st.integers(-6, 6)] * 3), max_size=12)


@settings(max_examples=int(os.environ.get("LOOPLIFT_PROPERTY_EXAMPLES", "120")), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(st.data(), ROWS, st.integers(-3, 3))
def test_random_programs_keep_invariants_and_meaning(data, rows, t) -> None:  # noqa: ANN001
    src = HEADER + Gen(data).program()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"prop_{next(_COUNTER)}.py"
        path.write_text(src)
        module = load_module(str(path), name=path.stem)
        (algo,) = algorithms_of(module)
        expected = algo(rows, t)
        fn, refs, problems = pipeline.frontend(algo)
        assert not problems, src
        verify(fn, "frontend")
        prog = Program(fn, refs, pipeline._loader(refs))
        for step in pipeline.PIPELINE:
            prog = step(prog)
            verify(prog.fn, step.__name__)
            got = evaluate(prog.fn, prog.refs, [rows, t])
            assert same(canon(prog.fn.returns, got), canon(prog.fn.returns, expected)), (
                f"after {step.__name__}: {got!r} != {expected!r}\n{src}"
            )
        compiled = pipeline.compile_dataflow(algo, verify=True)
        compiled.graph.verify()
        assert compiled.kind == ("table" if "yield" in src else "aggregate")
        assert not [op for op in compiled.program.operators if op.ordered]
