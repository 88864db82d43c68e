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
from collections.abc import Container, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .eager import EagerTensor
from .errors import NotDifferentiable, RuleError
from .graph import reachable
from .recording import paused
from .rule_errors import cotangent_tuple, passes_through, reject_cotangent, rule_error
from .tensor import Hollow, freeze, seal
from .trace import CALL, Node, Vertex, result_node

if TYPE_CHECKING:
    from .session import EagerSession


def _unbroadcast(session: EagerSession, node: Node, index: int, arg: EagerTensor, ct: Any) -> EagerTensor:
    """A per-input rule's cotangent that is not a tensor of its input's shape and dtype:
    summed back by the op's ``unbroadcast`` when it broadcasts (the sweep's only call of
    it, so ops that did not broadcast pay nothing), else the RuleError saying what is wrong.
    A cotangent held as another engine's array (a dask array) of the right type is fine."""
    spec, rt = node.spec, session._rt
    if type(ct) is not EagerTensor or ct._rt is not rt or isinstance(ct._value, Hollow):
        reject_cotangent(node, index, arg, ct, rt)
    if ct.shape == arg.shape and ct.dtype == arg.dtype:
        return ct
    if spec.unbroadcast is not None:
        try:
            ct = spec.unbroadcast(session, ct, arg)
        except Exception as exc:
            raise RuleError(f"the VJP of {spec.name} (plugin {spec.plugin!r}) failed to unbroadcast: {exc}") from exc
        if type(ct) is EagerTensor and ct.shape == arg.shape and ct.dtype == arg.dtype:
            return ct
    reject_cotangent(node, index, arg, ct, rt)
    return ct  # not reached: reject_cotangent raises


def node_cotangents(
    session: EagerSession, node: Node, g: EagerTensor, needed: set[int] | None = None
) -> list[EagerTensor | None]:
    """The cotangents a node sends to its inputs, given the cotangent ``g`` of its result:
    one per input, None where no gradient is wanted or the derivative is zero. Each is
    checked (see :func:`_input_cotangent`; a whole-op rule's are only checked, as such a
    rule unbroadcasts itself) or a RuleError names the op. The conformance
    suite and forward mode (which transposes a VJP) call this; the sweep calls it for
    whole-op rules and calls, and runs per-input rules through :func:`_input_cotangent`
    itself, so all of them check alike.

    Per-input rules are called only for inputs whose parent is wanted (``needed`` holds
    the vertices that lead to a wanted variable inside ``rt.grad``); a whole-op rule is
    called once."""
    spec, rt = node.spec, session._rt
    if spec.vjp is None and spec.vjps is None:
        raise NotDifferentiable(
            f"op {spec.name} (plugin {spec.plugin!r}) has no VJP rule, so derivatives cannot "
            f"flow through it; compute it from constants or under rt.no_grad()"
        )
    # The result, or where the trace did not keep its value the node (its shape and dtype):
    # an EagerTensor per node would cost a tenth of the sweep.
    if node.output is None:
        out = node if node.value is None else EagerTensor(node.value, rt, node)
    else:  # an op with several results: its rule gets them all, and a cotangent for each
        if node.output != CALL:  # one result (as the conformance suite asks): the call's rule
            call = node.parents[0]
            g = tuple(g if index == node.output else None for index in range(len(call.value)))
            node = call
        out = stand_ins(node, rt)
    rules = spec.vjps
    if rules is not None:
        return [
            None
            if rule is None or parent is None or (needed is not None and id(parent) not in needed)
            else _input_cotangent(session, node, index, g, out)
            for index, (rule, parent) in enumerate(zip(rules, node.parents))
        ]
    try:
        returned = spec.vjp(session, g, node.inputs, out, **node.params)
        if type(returned) is not tuple and isinstance(returned, Iterator):  # a generator rule runs here
            returned = tuple(returned)
    except Exception as exc:
        if passes_through(exc):
            raise
        raise rule_error(node, exc, spec.vjp) from exc
    cotangents = list(cotangent_tuple(spec, returned, len(node.inputs)))
    for index, ct in enumerate(cotangents):  # a whole-op rule unbroadcasts itself: only check
        if ct is not None:
            arg = node.inputs[index]
            if type(ct) is not EagerTensor or ct._rt is not rt or isinstance(ct._value, Hollow):
                reject_cotangent(node, index, arg, ct, rt)
            if ct._value.shape != arg._value.shape or ct._value.dtype != arg._value.dtype:
                reject_cotangent(node, index, arg, ct, rt)
    return cotangents


def _input_cotangent(session: EagerSession, node: Node, index: int, g: Any, out: Any) -> EagerTensor | None:
    """What per-input rule ``index`` of ``node`` returns for cotangent ``g`` of result(s)
    ``out``, checked: None (zero), or an EagerTensor of this runtime with a value, of its
    input's shape and dtype (summed back first by the op's ``unbroadcast`` when it
    broadcasts); else a RuleError names the op. What the rule raises is wrapped in one
    too, unless it already says what is wrong (see :func:`passes_through`)."""
    inputs, params = node.inputs, node.params
    rule = node.spec.vjps[index]  # type: ignore[index]
    try:
        ct = rule(session, g, out, *inputs, **params) if params else rule(session, g, out, *inputs)
    except Exception as exc:
        if passes_through(exc):
            raise
        raise rule_error(node, exc, rule) from exc
    if ct is not None:
        value = ct._value if type(ct) is EagerTensor else None
        arg = inputs[index]._value
        if (
            type(value) is not np.ndarray
            or ct._rt is not session._rt
            or value.shape != arg.shape
            or value.dtype != arg.dtype
        ):
            ct = _unbroadcast(session, node, index, inputs[index], ct)
    return ct


def stand_ins(call: Node, rt: Any) -> tuple[Any, ...]:
    """The results of a call as its rules see them, one per result (see :func:`_stand_in`)."""
    return tuple(_stand_in(call, index, rt) for index in range(len(call.value)))


def _stand_in(call: Node, index: int, rt: Any) -> Any:
    """Result ``index`` of a call as its rule sees it: its tensor, recorded from a result
    node of its own (so a rule that reads it stays differentiable), or that node where
    the trace did not keep the value; a constant result as it is."""
    stand_in = call.value[index]
    if type(stand_in) is EagerTensor:
        return stand_in
    node = result_node(call, index)
    return node if node.value is None else EagerTensor(node.value, rt, node)


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
    stopping = bool(stops)
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
            out = node if node.value is None else EagerTensor(node.value, rt, node)  # (see node_cotangents)
            given = None
        else:  # a whole-op rule, or a call's rules (or none: NotDifferentiable), once
            out, given = None, node_cotangents(session, node, g if output is None else tuple(g), needed)
        sums = None  # cotangents for a vertex that has one already: added once every rule ran
        for index, parent in enumerate(node.parents):
            if parent is None or (needed is not None and id(parent) not in needed):
                continue  # a constant, a scalar, or a branch that leads to no wanted variable
            if given is not None:
                ct = given[index]
            elif rules[index] is None:
                ct = None
            else:  # the rule called here, not through a list node_cotangents makes (~1 µs a node)
                ct = _input_cotangent(session, node, index, g, out)
            if ct is None:
                zero_branches.append(parent)
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
    if zero_branches:  # a zero branch whose vertex also got a cotangent from elsewhere adds nothing
        zero_branches = [
            v
            for v in zero_branches
            if (v not in pending if type(v) is Node else leaves.get(id(v), (v, None))[1] is None)
        ]
        for reached in reachable(*zero_branches).values() if zero_branches else ():
            if type(reached) is not Node:
                leaves.setdefault(id(reached), (reached, None))
    for key, (variable, ct) in leaves.items():
        if ct is not None and (
            not _COUNTS_EXACT or _holders(ct) != _HANDED_ONCE or getattr(ct._value, "base", None) is not None
        ):
            leaves[key] = (variable, _fresh(session, ct))
    return leaves


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
