"""The reverse sweep: walk a trace from its output back to the variables, calling each
op's VJP rule and adding up cotangents.

The sweep runs the rules on a session. In ``backward`` that session records nothing, so
no derivative trace is built; in ``rt.grad`` it records, so the gradient it returns is
itself a traced result and can be differentiated again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from .eager import EagerTensor
from .errors import DTypeError, NotDifferentiable, RuleError, ShapeMismatch
from .graph import Vertex
from .registry import ErrorInput, OpSpec
from .tensor import describe
from .trace import Node

if TYPE_CHECKING:
    from .session import EagerSession


def _add_any_sample() -> Any:
    from tenferro.testing.strategies import same_shape_arrays

    return same_shape_arrays(2)


#: The core's only primitive: adds two cotangents that reach the same tensor. It is an op
#: (not a bare ``+``) so that accumulation inside ``rt.grad`` is recorded and differentiable.
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


ADD_ANY = OpSpec(
    name="add_any",
    inputs=("a", "b"),
    forward=_add_any,
    vjp=lambda s, g, inputs, out: (g, g),
    accepts="f",
    residuals=(),
    sample=_add_any_sample,
    reference=lambda a, b: a + b,
    error_inputs=_add_any_errors,
    doc="a + b for two cotangents of one shape and dtype; how the reverse sweep accumulates.",
)


def _check_cotangent(spec: OpSpec, index: int, arg: EagerTensor, ct: Any, rt: Any) -> None:
    if type(ct) is not EagerTensor or ct._rt is not rt:
        raise RuleError(
            f"the VJP of {spec.name} (plugin {spec.plugin!r}) returned {type(ct).__name__} for input "
            f"{index} ({spec.inputs[index]!r}); a cotangent must be None or an EagerTensor made "
            f"with the session's ops"
        )
    value = ct._value
    if value.shape != arg._value.shape or value.dtype != arg._value.dtype:
        raise RuleError(
            f"the VJP of {spec.name} (plugin {spec.plugin!r}) returned a cotangent of type "
            f"{describe(value.shape, value.dtype)} for input {index} ({spec.inputs[index]!r}) of type "
            f"{describe(arg.shape, arg.dtype)}; a cotangent must have its input's shape and dtype "
            f"(sum broadcast axes back, cast mixed precision back)"
        )


def reverse_sweep(
    session: EagerSession, seed: EagerTensor, order: list[Vertex]
) -> dict[int, tuple[EagerTensor, EagerTensor | None]]:
    """Cotangents of the variables in ``order`` (a topological order of vertices ending in
    the output's), given the output's cotangent ``seed``: ``{id(variable): (variable,
    cotangent)}``, where ``None`` means the derivative is identically zero.

    Only inputs for which ``session.needs_grad`` is true receive cotangents, and each
    cotangent is dropped as soon as the node that consumes it has run.
    """
    rt = session._rt
    add_any = rt.registry["add_any"]
    needed = session._needed
    pending: dict[int, EagerTensor] = {id(order[-1]): seed}
    leaves: dict[int, tuple[EagerTensor, EagerTensor | None]] = {}
    for vertex in reversed(order):
        g = pending.pop(id(vertex), None)
        if type(vertex) is not Node:
            leaves[id(vertex)] = (vertex, g)
            continue
        if g is None:
            continue
        spec = vertex.spec
        inputs = vertex.inputs
        if spec.vjp is None:
            raise NotDifferentiable(
                f"op {spec.name} (plugin {spec.plugin!r}) has no VJP rule, so derivatives cannot "
                f"flow through it; compute it from constants or under rt.no_grad()"
            )
        cotangents = spec.vjp(session, g, inputs, EagerTensor(vertex.result(), rt, vertex), **vertex.params)
        del g  # free the output's cotangent before its inputs' cotangents pile up
        if len(cotangents) != len(inputs):
            raise RuleError(
                f"the VJP of {spec.name} (plugin {spec.plugin!r}) returned {len(cotangents)} "
                f"cotangents for {len(inputs)} inputs; return one per input (None for zero)"
            )
        for index, arg in enumerate(inputs):
            ct = cotangents[index]
            if ct is None or type(arg) is not EagerTensor:
                continue
            target = arg._node if arg._node is not None else arg if arg._leaf else None
            if target is None or (needed is not None and id(target) not in needed):
                continue
            _check_cotangent(spec, index, arg, ct, rt)
            previous = pending.get(id(target))
            pending[id(target)] = ct if previous is None else session._apply(add_any, (previous, ct), {})
    return leaves
