"""The reverse sweep: walk a trace from its output back to the variables, calling each
op's VJP rule and adding up cotangents.

The sweep runs the rules on a session. In ``backward`` that session records nothing, so
no derivative trace is built; in ``rt.grad`` it records, so the gradient it returns is
itself a traced result and can be differentiated again.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator
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


def _is_one_of(tensor: EagerTensor, inputs: tuple[Any, ...]) -> bool:
    """Whether ``tensor`` is one of ``inputs`` (by identity; ``in`` would use ``==``)."""
    for arg in inputs:
        if arg is tensor:
            return True
    return False


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


def _run_rule(session: EagerSession, node: Node, g: EagerTensor) -> tuple[Any, ...]:
    """The node's VJP rule called on cotangent ``g``: one cotangent per input (None = zero)."""
    spec = node.spec
    pullback = spec.pullback
    if pullback is None:
        raise NotDifferentiable(
            f"op {spec.name} (plugin {spec.plugin!r}) has no VJP rule, so derivatives cannot "
            f"flow through it; compute it from constants or under rt.no_grad()"
        )
    out = EagerTensor(node.value if node.value is not None else node, session._rt, node)
    params = node.params
    try:
        returned = (
            pullback(session, g, node.inputs, out, **params) if params else pullback(session, g, node.inputs, out)
        )
        if type(returned) is not tuple and isinstance(returned, Iterator):  # a generator rule runs here
            returned = tuple(returned)
    except Exception as exc:  # the inputs were checked when the op ran: this is the rule's bug
        raise RuleError(
            f"the VJP of {spec.name} (plugin {spec.plugin!r}) failed: {exc}. {_forward_hint(node)}"
        ) from exc
    if type(returned) is not tuple or len(returned) != len(node.inputs):
        returned = _cotangent_tuple(spec, returned, len(node.inputs))
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
    pending: dict[int, EagerTensor] = {id(root): seed}  # the cotangent waiting at each node
    heap = [(-root.seq, root)]
    leaves: dict[int, tuple[EagerTensor, Any]] = {}
    zero_branches: list[Vertex] = []  # reached with a zero cotangent: their variables are reached too
    # Cotangents that are tensors someone else holds, kept alive here so that their ids
    # cannot be reused by fresh tensors while the sweep runs.
    borrowed: dict[int, EagerTensor] = {id(seed): seed}
    while heap:
        node = heapq.heappop(heap)[1]
        g = pending.pop(id(node))
        cotangents = _run_rule(session, node, g)
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
                _reject_cotangent(node, index, arg, ct, rt)
            if ct is g:  # passed through unchanged: borrowed if g was
                if id(g) in borrowed:
                    borrowed[id(ct)] = ct
            elif ct._node is node or _is_one_of(ct, inputs):  # the op's own output or input
                borrowed[id(ct)] = ct
            key = id(parent)
            if type(parent) is Node:
                if key in pending:
                    pending[key] = session.add_any(pending[key], ct)
                else:
                    pending[key] = ct
                    heapq.heappush(heap, (-parent.seq, parent))
            else:
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
