"""The reverse sweep: walk a trace from its output back to the variables, calling each
op's VJP rule and adding up cotangents.

The sweep runs the rules on a session. In ``backward`` that session records nothing, so
no derivative trace is built; in ``rt.grad`` it records, so the gradient it returns is
itself a traced result and can be differentiated again.
"""

from __future__ import annotations

import heapq
from typing import TYPE_CHECKING, Any

import numpy as np

from .eager import EagerTensor
from .errors import DTypeError, NotDifferentiable, RuleError, ShapeMismatch
from .graph import Vertex, reachable
from .registry import ErrorInput, OpSpec
from .tensor import describe
from .trace import Node

if TYPE_CHECKING:
    from .session import EagerSession


def _add_any_sample() -> Any:
    from tenferro.testing.strategies import same_shape_arrays

    return same_shape_arrays(2)


def _add_any(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.shape != b.shape:
        raise ShapeMismatch(
            f"add_any: cotangents of shapes {list(a.shape)} (a) and {list(b.shape)} (b) cannot be "
            f"accumulated; add_any does not broadcast"
        )
    return np.add(a, b)


def _add_any_errors() -> list[ErrorInput]:
    return [
        ErrorInput((np.zeros(2), np.zeros((3, 2))), {}, ShapeMismatch, "does not broadcast"),
        ErrorInput((np.zeros(2), np.zeros(2, np.int64)), {}, DTypeError, "argument 'b' has dtype i64"),
    ]


#: The core's only primitive: adds two cotangents that reach the same tensor. It is an op
#: (not a bare ``+``) so that accumulation inside ``rt.grad`` is recorded and differentiable.
ADD_ANY = OpSpec(
    name="add_any",
    inputs=("a", "b"),
    internal=True,
    forward=_add_any,
    vjp=lambda s, g, inputs, out: (g, g),
    accepts="f",
    residuals=(),
    sample=_add_any_sample,
    reference=lambda a, b: a + b,
    error_inputs=_add_any_errors,
    doc="a + b for two cotangents of one shape and dtype; how the reverse sweep accumulates.",
)


def _reject_cotangent(spec: OpSpec, index: int, arg: EagerTensor, ct: Any, rt: Any) -> None:
    """Raise the RuleError that says what is wrong with cotangent ``ct`` of input ``index``."""
    if type(ct) is not EagerTensor or ct._rt is not rt:
        raise RuleError(
            f"the VJP of {spec.name} (plugin {spec.plugin!r}) returned {type(ct).__name__} for input "
            f"{index} ({spec.inputs[index]!r}); a cotangent must be None or an EagerTensor made "
            f"with the session's ops"
        )
    value = ct._value
    raise RuleError(
        f"the VJP of {spec.name} (plugin {spec.plugin!r}) returned a cotangent of type "
        f"{describe(value.shape, value.dtype)} for input {index} ({spec.inputs[index]!r}) of type "
        f"{describe(arg.shape, arg.dtype)}; a cotangent must have its input's shape and dtype "
        f"(sum broadcast axes back, cast mixed precision back)"
    )


def reverse_sweep(session: EagerSession, root: Vertex, seed: EagerTensor) -> dict[int, tuple[EagerTensor, Any]]:
    """Cotangents of the variables ``root`` depends on, given the cotangent ``seed`` of
    ``root``: ``{id(variable): (variable, cotangent)}``, where a cotangent of ``None`` means
    the derivative is zero along every path (the variable is reached, but nothing flows).

    Nodes are taken in decreasing creation order from a heap, starting at ``root``: every
    consumer of a node was created after it, so a node runs only once all of its cotangent
    has arrived, and no separate topological sort is needed. Only inputs for which
    ``session.needs_grad`` holds receive cotangents; each cotangent is dropped as soon as
    the node that consumes it has run.
    """
    if type(root) is not Node:
        return {id(root): (root, seed)}
    rt = session._rt
    needed = session._needed
    pending: dict[int, EagerTensor] = {id(root): seed}
    heap = [(-root.seq, root)]
    leaves: dict[int, tuple[EagerTensor, Any]] = {}
    pop, push = heapq.heappop, heapq.heappush
    while heap:
        node = pop(heap)[1]
        g = pending.pop(id(node))
        spec = node.spec
        inputs = node.inputs
        if spec.vjp is None:
            raise NotDifferentiable(
                f"op {spec.name} (plugin {spec.plugin!r}) has no VJP rule, so derivatives cannot "
                f"flow through it; compute it from constants or under rt.no_grad()"
            )
        out = node if node.value is None else EagerTensor(node.value, rt, node)
        params = node.params
        try:
            cotangents = spec.vjp(session, g, inputs, out, **params) if params else spec.vjp(session, g, inputs, out)
        except Exception as exc:  # the inputs were checked when the op ran: this is the rule's bug
            raise RuleError(f"the VJP of {spec.name} (plugin {spec.plugin!r}) failed: {exc}") from exc
        del g, out  # free the output's cotangent before its inputs' cotangents pile up
        if len(cotangents) != len(inputs):
            raise RuleError(
                f"the VJP of {spec.name} (plugin {spec.plugin!r}) returned {len(cotangents)} "
                f"cotangents for {len(inputs)} inputs; return one per input (None for zero)"
            )
        for index, arg in enumerate(inputs):
            kind = type(arg)
            if kind is EagerTensor:
                target = arg._node
                if target is None and not arg._leaf:
                    continue
                like = arg._value
            elif kind is Node:
                target = like = arg
            else:
                continue
            key = id(target) if target is not None else id(arg)
            if needed is not None and key not in needed:
                continue
            ct = cotangents[index]
            if ct is None:
                if target is None:
                    leaves.setdefault(key, (arg, None))
                else:
                    _reach_leaves(target, leaves)
                continue
            if type(ct) is not EagerTensor or ct._rt is not rt:
                _reject_cotangent(spec, index, arg, ct, rt)
            value = ct._value
            if value.shape != like.shape or (value.dtype is not like.dtype and value.dtype != like.dtype):
                _reject_cotangent(spec, index, arg, ct, rt)
            if target is None:
                previous = leaves.get(key)
                if previous is not None and previous[1] is not None:
                    ct = session.add_any(previous[1], ct)
                leaves[key] = (arg, ct)
            elif key in pending:
                pending[key] = session.add_any(pending[key], ct)
            else:
                pending[key] = ct
                push(heap, (-target.seq, target))
    return leaves


def _reach_leaves(start: Node, leaves: dict[int, tuple[EagerTensor, Any]]) -> None:
    """Record every variable below ``start`` as reached (with a zero cotangent unless one
    arrives): a branch whose cotangent is zero still depends on its variables, and
    ``backward`` gives them zeros, as PyTorch and JAX do. Only zero branches pay for this
    walk."""
    for vertex in reachable(start).values():
        if type(vertex) is not Node:
            leaves.setdefault(id(vertex), (vertex, None))
