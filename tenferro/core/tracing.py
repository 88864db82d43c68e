"""What a trace of a function (``tf.vmap``'s, on one example; ``tf.jit``'s, on its
arguments) notes while the function runs.

The trace is replayed (on the whole batch, one batched call per recorded op; or as
``tf.jit``'s plan, on later arguments), so it must be the same program for every value:
a function of its traced arguments through recorded ops only. Whatever makes it depend on
their values some other way blocks the replay (``tf.vmap`` runs the function once per
example instead; ``tf.jit`` refuses it with an error): an op of a traced value giving
integers or bools (recorded nowhere, read for control flow), and a read of a traced value
into NumPy or Python (``bool(x > 0)``, ``np.asarray``, a ``tenferro.numpy`` function
computing in NumPy). Nodes recorded during a trace keep every input, the constants that
no VJP reads included, for the replay.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar
from typing import Any


class Trace:
    """One trace: ``blocked`` is the first reason it cannot be replayed (None: it can).
    ``refuse`` (``tf.jit``'s, which has no loop to fall back to) turns a reason into an
    error raised where the function blocks it: ``refuse(reason)`` returns the exception."""

    __slots__ = ("blocked", "refuses", "traced", "checks")

    def __init__(self, refuse: Callable[[str], Exception] | None = None, traced: str = "the mapped arguments") -> None:
        self.blocked: str | None = None
        self.refuses = refuse
        self.traced = traced  # what the trace follows, as a reason names it
        #: The value checks rules made (see :func:`check_values`): per check, the vertex checked and the check.
        self.checks: list[tuple[Any, Callable[[Any], None]]] = []

    def block(self, reason: str) -> None:
        if self.refuses is not None:
            raise self.refuses(reason)
        if self.blocked is None:
            self.blocked = reason


#: The trace running in this context (None outside ``tf.vmap``'s).
TRACING: ContextVar[Trace | None] = ContextVar("tenferro_tracing", default=None)


def note_read(x: Any, where: str) -> None:
    """``x``'s value read into NumPy or Python at ``where``: while a trace runs, a value a
    mapped argument may have computed (one that tracks) blocks it."""
    trace = TRACING.get()
    if trace is not None and x.tracks_grad():
        trace.block(f"{where} reads a value computed from {trace.traced}")


def check_values(x: Any, check: Callable[[Any], None]) -> None:
    """``check(values)``: a derivative rule's test of a tensor's values that raises to refuse
    (a singular matrix, a rank-deficient factor) and decides nothing else. It runs now;
    while a trace runs it is kept with the trace, and the replay runs it again on the
    values it computes for ``x`` (a stack of them under ``tf.vmap``, so ``check`` must take
    leading batch axes), where reading them here would stop the trace. A check that
    chooses a formula is a read (``np.asarray``), which a trace cannot replay."""
    held = getattr(x, "_held", None)  # an EagerTensor (eager.py imports this module, not the other way)
    if held is None:  # an array: a constant
        check(x)
        return
    check(held())
    trace = TRACING.get()
    if trace is not None and x.tracks_grad():
        trace.checks.append((x._node if x._node is not None else x, check))
