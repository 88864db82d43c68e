"""The reverse sweep: walk a trace from its output back to the variables, calling each
op's VJP rule and adding up cotangents.

The sweep runs the rules on a session. In ``backward`` that session records nothing, so
no derivative trace is built; in ``rt.grad`` it records, so the gradient it returns is
itself a traced result and can be differentiated again.
"""

from __future__ import annotations

import heapq
import sys
import weakref
from collections.abc import Container, Sequence
from typing import Any

import numpy as np

from .eager import EagerTensor
from .graph import reachable
from .recording import paused
from .session import EagerSession
from .tensor import freeze, seal
from .trace import CALL, Node, Vertex
from .tracing import TRACING


def reverse_sweep(
    session: EagerSession,
    roots: Sequence[tuple[Vertex, EagerTensor]],
    stops: Container[Node] = (),
) -> dict[int, tuple[Any, Any]]:
    """Cotangents of the variables the ``roots`` depend on, given each root vertex's
    cotangent (``[(vertex, seed), ...]``; one root in ``backward`` and ``rt.grad``):
    ``{id(variable): (variable, cotangent)}``, where a cotangent of ``None`` means the
    derivative is zero along every path (the variable is reached, but nothing flows).

    Nodes are taken in decreasing creation order from a heap, starting at the roots: every
    consumer of a node was created after it, so a node runs only once all of its cotangent
    has arrived, and no separate topological sort is needed. Inside ``rt.grad`` only the
    vertices in ``session._needed`` (those that lead to a wanted variable) get cotangents.
    A node in ``stops`` is treated as a variable: its cotangent is returned under its id and
    goes no further (how a function transform differentiates with respect to its own
    arguments when they were computed by an enclosing one).

    Every cotangent returned is a fresh tensor with a value of its own: one that anything
    else holds (the seed or an input or output of an op a rule passed through unchanged,
    one two variables would share, one a rule kept) or a view (of a broadcast) is copied at
    the end, so no result is a tensor the caller holds or shares memory with one. Whether
    anything else holds it is read from reference counts (see :func:`_holders`), once per
    variable, rather than tracked along every edge.
    """
    needed, rt = session._needed, session._rt
    # The cotangent waiting at each node; None once the node has run (it stays, as visited).
    pending: dict[Node, EagerTensor | None] = {}
    heap: list[tuple[int, Node]] = []
    leaves: dict[int, tuple[Any, Any]] = {}
    _seed(session, roots, pending, heap, leaves)
    stopping = bool(stops)
    tracing = TRACING.get() is not None
    zero_branches: list[Vertex] = []  # reached with a zero cotangent: their variables are reached too
    pop, push = heapq.heappop, heapq.heappush
    while heap:
        node = pop(heap)[1]
        g = pending[node]
        pending[node] = None  # free the output's cotangent before its inputs' pile up
        if stopping and node in stops:
            leaves[id(node)] = (node, g)
            continue
        output = node.output
        if output is not None and output != CALL:  # one result of a call: its cotangent waits at
            _to_call(session, node, g, pending, heap)  # the call, which comes later (created first)
            continue
        rules = node.spec.vjps
        if output is None and rules is not None:  # per-input rules (most ops): called below
            out = node if node.value is None else EagerTensor(node.value, rt, node)  # (see op.result_of)
            given, input_vjp = None, node.op.input_vjp
        else:  # a whole-op rule, or a call's rules (or none: NotDifferentiable), once
            out, given = None, node.op.vjp(session, node, g if output is None else tuple(g), needed)
        sums = None  # cotangents for a vertex that has one already: added once every rule ran
        for index, parent in enumerate(node.parents):
            if parent is None or (needed is not None and id(parent) not in needed):
                continue  # a constant, a scalar, or a branch that leads to no wanted variable
            if given is not None:
                ct = given[index]
            elif rules[index] is None:
                ct = None
            else:  # the rule called here, not through the list Op.vjp makes (~1 µs a node)
                ct = input_vjp(session, node, index, g, out)
            if ct is None or (tracing and type(parent) is Node and parent.dtype.kind in "biu"):
                zero_branches.append(parent)  # (vmap's trace records integer results: no derivative)
            elif type(parent) is Node and parent not in pending:
                pending[parent] = ct  # the first to arrive: the node runs once all have
                push(heap, (-parent.seq, parent))
            elif type(parent) is not Node and leaves.get(id(parent), (None, None))[1] is None:
                leaves[id(parent)] = (parent, ct)  # a variable's first: the sum waits until the end
            else:
                if sums is None:
                    sums = []
                sums.append((parent, ct))
        del g, out, given  # no longer held here once the node's rules have run
        # Inside rt.grad rules and sums are both recorded, and the order of those nodes is the
        # order a later sweep adds in: the sums come after all of the node's rules (bitwise).
        for parent, ct in sums or ():
            if type(parent) is Node:
                pending[parent] = _accumulate(session, pending[parent], ct)
            else:
                leaves[id(parent)] = (parent, _accumulate(session, leaves[id(parent)][1], ct))
        sums = None
    g = ct = None  # the last cotangents handled (a stop's g too): no longer held here (see below)
    if zero_branches:
        _reach_through_zeros(zero_branches, pending, leaves)
    for key, (variable, ct) in leaves.items():
        if ct is not None and (
            not _COUNTS_EXACT or _holders(ct) != _HANDED_ONCE or getattr(ct._value, "base", None) is not None
        ):
            leaves[key] = (variable, _fresh(session, ct))
    return leaves


def _seed(
    session: EagerSession,
    roots: Sequence[tuple[Vertex, EagerTensor]],
    pending: dict[Node, Any],
    heap: list[tuple[int, Node]],
    leaves: dict[int, tuple[Any, Any]],
) -> None:
    """Put each root's cotangent where the sweep starts: at its node (on the heap), or, for
    a variable given as a root, among the results; two seeds of one vertex are added."""
    for root, seed in roots:
        if type(root) is Node:
            if root in pending:
                pending[root] = session.add_any(pending[root], seed)
            else:
                pending[root] = seed
                heap.append((-root.seq, root))
        else:  # a variable itself
            previous = leaves.get(id(root))
            leaves[id(root)] = (root, seed if previous is None else session.add_any(previous[1], seed))
    heapq.heapify(heap)


def _reach_through_zeros(zero_branches: list[Vertex], pending: dict[Node, Any], leaves: dict[int, Any]) -> None:
    """The variables behind branches reached with a zero cotangent (a rule gave None) are
    reached too: their entry is ``(variable, None)`` (zero along every path) unless a
    cotangent came from elsewhere. A zero branch whose vertex also got a cotangent adds
    nothing, so it is not walked."""
    zero_branches = [
        v for v in zero_branches if (v not in pending if type(v) is Node else leaves.get(id(v), (v, None))[1] is None)
    ]
    for reached in reachable(*zero_branches).values() if zero_branches else ():
        if type(reached) is not Node:
            leaves.setdefault(id(reached), (reached, None))


def _accumulate(session: EagerSession, total: EagerTensor, ct: EagerTensor) -> EagerTensor:
    """``total + ct``, two cotangents of one vertex. Where nothing records (``backward``),
    the sum is written into ``total``'s buffer when nothing but the sweep can see it, as
    PyTorch's InputBuffer accumulates into a gradient no one else holds: an array of its
    own, held by this tensor alone and by no weak reference (the identity caches of
    ``extend.is_immutable`` hold those), the tensor held only by the caller's running sum
    (so never the seed, an input or output of an op, nor one a rule kept). At
    N = 10^6 that is one buffer of 8 MB fewer to allocate and fault in; the values are
    bitwise those of ``add_any``."""
    if session._rt not in paused() or not _COUNTS_EXACT or _holders(total) != _HELD_ONCE:
        return session.add_any(total, ct)
    value = total._value
    if (
        type(value) is np.ndarray
        and value.base is None
        and value.flags.owndata  # (an array a C kernel made around memory it keeps has neither)
        and not weakref.getweakrefcount(value)  # a cache by identity (an LU, an einsum plan) saw it
        and type(ct._value) is np.ndarray
        and ct._value.shape == value.shape
        and ct._value.dtype == value.dtype
    ):
        value.setflags(True)  # (positional: a fifth of the cost of setting flags.writeable)
        try:
            np.add(value, ct._value, value)
        finally:
            value.setflags(False)
        return total
    return session.add_any(total, ct)


def _holders(tensor: EagerTensor) -> tuple[int, int]:
    """The reference counts of ``tensor``'s value and of ``tensor``, as seen from here."""
    return sys.getrefcount(tensor._value), sys.getrefcount(tensor)


def _held_once() -> tuple[int, int]:
    """:func:`_holders` of a tensor held by one container entry whose array only it holds,
    measured rather than assumed (counts differ between Python versions): any other holder
    of either adds one."""

    def accumulate(total: EagerTensor) -> tuple[int, int]:  # as _accumulate asks: from its parameter
        return _holders(total)

    box = {0: EagerTensor(np.empty(1), None)}  # type: ignore[arg-type]
    return accumulate(box[0])


_HELD_ONCE = _held_once()

#: Whether reference counts tell every holder: not on a free-threaded build (objects may be
#: counted lazily there), where every variable's cotangent is copied and nothing is added in place.


_COUNTS_EXACT = getattr(sys, "_is_gil_enabled", lambda: True)()


def _handed_once() -> tuple[int, int]:
    """:func:`_holders` of a cotangent only one variable's entry of a sweep's result holds,
    as the end of :func:`reverse_sweep` asks (any other holder adds one)."""
    leaves = {0: (None, EagerTensor(np.empty(1), None))}  # type: ignore[arg-type]
    for _key, (_variable, ct) in leaves.items():
        return _holders(ct)
    raise AssertionError("not reached")


_HANDED_ONCE = _handed_once()


def _to_call(session: EagerSession, result: Node, g: EagerTensor, pending: dict[Node, Any], heap: list) -> None:
    """Put the cotangent of a call's result in the call's slot for it (adding to one
    already there: a derivative trace may hold two nodes of one result)."""
    call = result.parents[0]
    slots = pending.get(call)
    if slots is None:
        slots = pending[call] = [None] * len(call.value)
        heapq.heappush(heap, (-call.seq, call))
    previous = slots[result.output]
    slots[result.output] = g if previous is None else session.add_any(previous, g)


def _fresh(session: EagerSession, ct: EagerTensor) -> EagerTensor:
    """``ct`` as a new tensor with a value of its own. In ``backward`` (nothing records) a
    copy; in ``rt.grad``, ``ct + (-0.0)``, so it is still recorded as computed from ct
    (adding -0.0 is the exact identity in IEEE arithmetic, signed zeros and NaNs included),
    with the -0.0 one element broadcast (no second buffer of ct's size)."""
    value, rt = ct._value, session._rt
    # -0.0 in both parts of a complex number: -0.0 + 0.0j would turn an imaginary -0.0 into +0.0
    zero = complex(-0.0, -0.0) if value.dtype.kind == "c" else -0.0
    if type(value) is np.ndarray:
        if rt in paused():
            return EagerTensor(freeze(value.copy()), rt)
        minus_zero = np.ndarray(value.shape, value.dtype, np.array(zero, value.dtype), 0, (0,) * value.ndim)
    elif rt in paused():  # another engine's array is immutable: a new tensor sharing it is fresh
        return EagerTensor(value, rt)
    else:  # -0.0 of the engine's own kind (lazy, no buffer of ct's size in this process)
        minus_zero = np.full_like(value, zero)
    return session.add_any(ct, EagerTensor(seal(minus_zero), rt))
