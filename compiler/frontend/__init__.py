"""Frontend: a ``@dataflow`` function's libcst tree → lambda IR.

Transforms this::

    def avg_path(clicks: RowStream[int, int]) -> float:
        seq = IntervalSequence()
        for category, ts in clicks:
            if category == 0:
                seq.open(ts)
            ...
        return seq.average_closed_size()

into::

    let seq = new looplift.states...:IntervalSequence() in
    let _ = smap[ordered=False](\\category ts -> if(eq(category, 0), \\() -> (let _ = seq#open(ts) in None), ...), clicks) in
    seq#average_closed_size()

Names resolve against the module's globals (the decorated function's
``__globals__``): other ``@dataflow`` functions, state classes, ``math``,
constants, and importable *host* functions. Every construct SPEC §2 rejects is
diagnosed with its span: the rejection visitor (``reject.py``) reports every
construct refused by syntax, and translation goes on after an error so that
all problems of a file are reported at once.

Loop-carried locals (a name bound before a loop and updated inside it) become
states of the pseudo class ``carry`` whose actions record the update (``add``,
``sub``, ``max``, ``min``, ``set``) and whose reader ``get`` yields the value;
the ``recognize_reductions`` pass turns them into library states.

Modules: ``parse`` (files → libcst trees with positions), ``env`` (binding
kinds), ``reject`` (the rejection table and visitor), ``translator`` (the
function), ``stmts`` / ``control`` (statements, ``if`` and loops), ``exprs`` /
``calls`` (expressions), ``classes`` (state-class expressions), ``syntax``
(tree helpers).
"""

from .classes import state_expr
from .parse import ParsedModule, parse_module, ref_of
from .syntax import SCALAR_TYPES
from .translator import translate

__all__ = ["ParsedModule", "parse_module", "translate", "ref_of", "SCALAR_TYPES", "state_expr"]
