"""The reverse sweep: walk a trace from its output back to the variables, calling each
op's VJP rule and adding up cotangents.

The sweep runs the rules on a session. In ``backward`` that session records nothing, so
no derivative trace is built; in ``rt.grad`` it records, so the gradient it returns is
itself a traced result and can be differentiated again.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .eager import EagerTensor
from .errors import NotDifferentiable, RuleError
from .graph import reachable
from .spec import OpSpec
from .tensor import describe
from .trace import Node, Vertex

if TYPE_CHECKING:
    from .session import EagerSession


def _reject_cotangent(node: Node, index: int, arg: Any, ct: Any, rt: Any) -> None:
    """Raise the RuleError that says what is wrong with cotangent ``ct`` of input ``index``."""
    spec = node.spec
    if type(ct) is not EagerTensor or ct._rt is not rt:
        raise RuleError(
            f"the VJP of {spec.name} (plugin {spec.plugin!r}) returned {type(ct).__name__} for input "
            f"{index} ({spec.inputs[index]!r}); a cotangent must be None or an EagerTensor made "
            f"with the session's ops"
        )
    raise RuleError(
        f"the VJP of {spec.name} (plugin {spec.plugin!r}) returned a cotangent of type "
        f"{describe(ct.shape, ct.dtype)} for input {index} ({spec.inputs[index]!r}) of type "
        f"{describe(arg.shape, arg.dtype)}; a cotangent must have its input's shape and dtype "
        f"(sum broadcast axes back, cast mixed precision back). {_forward_hint(node)}"
    )


def _unbroadcast(session: EagerSession, node: Node, index: int, arg: EagerTensor, ct: EagerTensor) -> EagerTensor:
    """A per-input rule's cotangent of another shape or dtype than its input: summed back
    by the op's ``unbroadcast`` when it broadcasts (the sweep's only call of it, so ops that
    did not broadcast pay nothing), else the RuleError that says what is wrong."""
    spec = node.spec
    if spec.unbroadcast is not None:
        try:
            ct = spec.unbroadcast(session, ct, arg)
        except Exception as exc:
            raise RuleError(f"the VJP of {spec.name} (plugin {spec.plugin!r}) failed to unbroadcast: {exc}") from exc
        if type(ct) is EagerTensor and ct.shape == arg.shape and ct.dtype == arg.dtype:
            return ct
    _reject_cotangent(node, index, arg, ct, session._rt)
    return ct  # not reached: _reject_cotangent raises


def _forward_hint(node: Node) -> str:
    """The sentence that points at the forward kernel when it, not the VJP, may be wrong."""
    shown = ", ".join(describe(a.shape, a.dtype) if hasattr(a, "dtype") else repr(a) for a in node.inputs)
    return (
        f"The op's result was {describe(node.shape, node.dtype)} from inputs ({shown}): if that is not "
        f"what the op should return, its forward kernel is at fault, not the VJP"
    )


def _cotangent_tuple(spec: OpSpec, returned: Any, count: int) -> tuple[Any, ...]:
    """A VJP's return value as a tuple of ``count`` cotangents, or the RuleError saying why
    it is not one."""
    if type(returned) is not tuple:
        if not isinstance(returned, list):
            shown = (
                "None"
                if returned is None
                else "a single EagerTensor"
                if isinstance(returned, EagerTensor)
                else f"a {type(returned).__name__}"
            )
            raise RuleError(
                f"the VJP of {spec.name} (plugin {spec.plugin!r}) returned {shown}; return a tuple with one "
                f"cotangent per input (None for zero), e.g. (g,) for a one-input op"
            )
        returned = tuple(returned)
    if len(returned) != count:
        raise RuleError(
            f"the VJP of {spec.name} (plugin {spec.plugin!r}) returned {len(returned)} "
            f"cotangents for {count} inputs; return one per input (None for zero)"
        )
    return returned


def _run_rules(session: EagerSession, node: Node, g: EagerTensor, needed: set[int] | None) -> Sequence[Any]:
    """The node's rules called on cotangent ``g``: one cotangent per input (None = zero),
    computed only for the inputs whose parent the sweep wants.

    Per-input rules are called here directly (this is the sweep's inner loop: no adapter,
    no needs_grad calls); a whole-op rule is called once and its result checked."""
    spec = node.spec
    if spec.pullback is None:
        raise NotDifferentiable(
            f"op {spec.name} (plugin {spec.plugin!r}) has no VJP rule, so derivatives cannot "
            f"flow through it; compute it from constants or under rt.no_grad()"
        )
    # The result, or where the trace did not keep its value the node (its shape and dtype):
    # an EagerTensor per node would cost a tenth of the sweep.
    out = node if node.value is None else EagerTensor(node.value, session._rt, node)
    inputs, params, rules = node.inputs, node.params, spec.vjps
    try:
        if rules is not None:
            cotangents = []
            for rule, parent in zip(rules, node.parents):
                if rule is None or parent is None or (needed is not None and id(parent) not in needed):
                    cotangents.append(None)  # no rule, or no gradient wanted there
                elif params:
                    cotangents.append(rule(session, g, out, *inputs, **params))
                else:
                    cotangents.append(rule(session, g, out, *inputs))
            return cotangents
        returned = spec.pullback(session, g, inputs, out, **params)
        if type(returned) is not tuple and isinstance(returned, Iterator):  # a generator rule runs here
            returned = tuple(returned)
    except Exception as exc:  # the inputs were checked when the op ran: this is the rule's bug
        raise RuleError(
            f"the VJP of {spec.name} (plugin {spec.plugin!r}) failed: {exc}. {_forward_hint(node)}"
        ) from exc
    if type(returned) is not tuple or len(returned) != len(inputs):
        returned = _cotangent_tuple(spec, returned, len(inputs))
    return returned


def reverse_sweep(session: EagerSession, root: Vertex, seed: EagerTensor) -> dict[int, tuple[EagerTensor, Any]]:
    """Cotangents of the variables ``root`` depends on, given the cotangent ``seed`` of
    ``root``: ``{id(variable): (variable, cotangent)}``, where a cotangent of ``None`` means
    the derivative is zero along every path (the variable is reached, but nothing flows).

    Nodes are taken in decreasing creation order from a heap, starting at ``root``: every
    consumer of a node was created after it, so a node runs only once all of its cotangent
    has arrived, and no separate topological sort is needed. Inside ``rt.grad`` only the
    vertices in ``session._needed`` (those that lead to a wanted variable) get cotangents.

    Every cotangent returned is a fresh tensor: one that a rule passed through unchanged
    (the seed, an input of the op, its output) is copied at the end, so no result is a
    tensor the caller holds or shares its memory.
    """
    if type(root) is not Node:  # the output is a variable itself
        return {id(root): (root, _fresh(session, seed))}
    rt, needed = session._rt, session._needed
    pending: dict[Node, EagerTensor] = {root: seed}  # the cotangent waiting at each node
    heap = [(-root.seq, root)]
    leaves: dict[int, tuple[EagerTensor, Any]] = {}
    zero_branches: list[Vertex] = []  # reached with a zero cotangent: their variables are reached too
    # Cotangents that are tensors someone else holds, kept alive here so that their ids
    # cannot be reused by fresh tensors while the sweep runs.
    borrowed: dict[int, EagerTensor] = {id(seed): seed}
    pop, push = heapq.heappop, heapq.heappush
    while heap:
        node = pop(heap)[1]
        g = pending.pop(node)
        cotangents = _run_rules(session, node, g, needed)
        inputs = node.inputs
        for index, parent in enumerate(node.parents):
            if parent is None or (needed is not None and id(parent) not in needed):
                continue  # a constant, a scalar, or a branch that leads to no wanted variable
            ct = cotangents[index]
            if ct is None:
                zero_branches.append(parent)
                continue
            arg = inputs[index]
            if type(ct) is not EagerTensor or ct._rt is not rt:
                _reject_cotangent(node, index, arg, ct, rt)
            value, like = ct._value, arg._value
            if value.shape != like.shape or (value.dtype is not like.dtype and value.dtype != like.dtype):
                ct = _unbroadcast(session, node, index, arg, ct)
            if ct is g:  # passed through unchanged: borrowed if g was
                if id(g) in borrowed:
                    borrowed[id(ct)] = ct
            elif ct._node is node:  # the op's own output
                borrowed[id(ct)] = ct
            else:
                for other in inputs:  # one of the op's inputs (by identity: `in` would use ==)
                    if other is ct:
                        borrowed[id(ct)] = ct
                        break
            if type(parent) is Node:
                if parent in pending:
                    pending[parent] = session.add_any(pending[parent], ct)
                else:
                    pending[parent] = ct
                    push(heap, (-parent.seq, parent))
            else:
                key = id(parent)
                previous = leaves.get(key)
                if previous is not None and previous[1] is not None:
                    ct = session.add_any(previous[1], ct)
                leaves[key] = (parent, ct)
        del g, cotangents  # free the output's cotangent before its inputs' pile up
    for reached in reachable(*zero_branches).values():
        if type(reached) is not Node:
            leaves.setdefault(id(reached), (reached, None))
    for key, (variable, ct) in leaves.items():
        if ct is not None and id(ct) in borrowed:
            leaves[key] = (variable, _fresh(session, ct))
    return leaves


def _fresh(session: EagerSession, ct: EagerTensor) -> EagerTensor:
    """``ct`` as a new tensor with a value of its own, still recorded as computed from ct
    (adding -0.0 is the exact identity in IEEE arithmetic, signed zeros and NaNs included)."""
    return session.add_any(ct, EagerTensor(np.full(ct.shape, -0.0, ct.dtype), session._rt))
