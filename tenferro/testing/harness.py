"""What every conformance check shares: the failure it raises, the tally of samples it
drew and rejected, and how it draws a sample and calls the op and its VJP."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass, field, replace
from typing import Any, NoReturn

import numpy as np
from hypothesis import reject
from hypothesis import strategies as st

from tenferro.core.eager import EagerTensor, vertex
from tenferro.core.engine import CpuEngine
from tenferro.core.forward import node_tangent
from tenferro.core.runtime import EagerRuntime
from tenferro.core.spec import REQUIRED, OpSpec, SampleInput
from tenferro.core.tensor import Tensor
from tenferro.core.trace import CALL

from .oracle import differentiable_positions, picked


class CheckFailed(AssertionError):
    """A conformance check found the op wrong; the message says how."""


#: Why a sample was rejected (no verdict on it): keys of ``Tally.rejected``.
NOTHING_TO_DIFFERENTIATE = "nothing to differentiate"
NOT_SCALABLE = "not scalable"


@dataclass
class Tally:
    """How many samples a check drew, and how many it rejected for each reason (finite
    differences that met non-finite values or did not converge, or nothing to differentiate):
    too many rejections mean the op's sample strategy leaves its domain or meets kinks."""

    drawn: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    #: What the current example drew, (label, value) in order: shown when it fails.
    draws: list[tuple[str, Any]] = field(default_factory=list)

    def reject(self, why: str) -> NoReturn:
        """Count the current sample as rejected for ``why`` and tell hypothesis so."""
        self.rejected[why] += 1
        reject()


def draw(spec: OpSpec, data: Any, tally: Tally, differentiable: bool = False) -> SampleInput:
    """One sample from the op's strategy; with ``differentiable``, one that has an input to
    differentiate (else the sample is rejected)."""
    sample = data.draw(spec.sample(), label="sample")
    if spec.multiple_results:  # the checks look at one result, drawn with the sample
        count = len(spec.forward(*spec.pack(sample.args), **sample.params))
        sample = replace(sample, result=data.draw(st.integers(0, max(count - 1, 0)), label="result"))
    tally.drawn += 1
    tally.draws.append(("sample", sample))
    if differentiable and not differentiable_positions(spec, sample):
        tally.reject(NOTHING_TO_DIFFERENTIATE)  # all constants
    return sample


def const(rt: EagerRuntime, arg: Any) -> Any:
    """An array argument as a constant tensor; a Python scalar as it is."""
    return rt.constant_from(Tensor.from_numpy(arg)) if isinstance(arg, np.ndarray) else arg


def call(rt: EagerRuntime, spec: OpSpec, args: list[Any], params: Any, result: int = 0) -> EagerTensor:
    return rt.with_eager_session(lambda s: picked(spec, getattr(s, spec.name)(*spec.pack(args), **params), result))


def forward(rt: EagerRuntime, spec: OpSpec, sample: SampleInput) -> np.ndarray:
    """The op's value on a sample of constants."""
    return np.asarray(call(rt, spec, [const(rt, a) for a in sample.args], sample.params, sample.result))


def is_differentiable(spec: OpSpec) -> bool:
    """The op has a VJP and an input it differentiates: the derivative checks apply."""
    return spec.has_rules and any(spec.differentiable)


def draw_seed(data: Any, tally: Tally) -> int:
    """A seed of the random cotangents and directions the oracle draws."""
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    tally.draws.append(("seed", seed))
    return seed


def recorded(
    rt: EagerRuntime, spec: OpSpec, sample: SampleInput, through: int | Collection[int] | None = None
) -> tuple[list[Any], EagerTensor]:
    """The op called on variables (at differentiable positions) and constants. With
    ``through`` (a position or several), that input reaches the op as an intermediate result
    (``-(-variable)``, exact to the sign of every zero both ways), whose value the trace
    keeps only if the spec lists it in ``residuals``."""
    positions = differentiable_positions(spec, sample)
    args = [
        rt.variable_from(Tensor.from_numpy(a)) if i in positions else const(rt, a) for i, a in enumerate(sample.args)
    ]
    passed = () if through is None else (through,) if isinstance(through, int) else tuple(through)

    def body(s: Any) -> EagerTensor:
        called = [s.neg(s.neg(a)) if i in passed else a for i, a in enumerate(args)]
        return picked(spec, getattr(s, spec.name)(*spec.pack(called), **sample.params), sample.result)

    return args, rt.with_eager_session(body)


def run_vjp(rt: EagerRuntime, out: EagerTensor, g: np.ndarray) -> tuple[Any, ...]:
    """The cotangents ``out``'s node sends to its inputs for cotangent ``g``, unrecorded,
    computed exactly as the reverse sweep computes them (rules, unbroadcast, checks)."""
    node = vertex(out)
    with rt.no_grad(), CpuEngine.serial().lend("the conformance suite"), rt.rule_session() as session:
        return tuple(node.op.vjp(session, node, rt.constant_from(Tensor(g))))


def run_jvp(rt: EagerRuntime, spec: OpSpec, sample: SampleInput, tangents: dict[int, np.ndarray]) -> Any:
    """The op's forward-mode rule at a sample of constants, on ``tangents`` by input position
    (None elsewhere), unrecorded: the result's tangent as an array, or None for zero. The
    rule gets every param, defaults filled in, as a recorded node gives them."""
    params = {**{name: d for name, d in spec.params.items() if d is not REQUIRED}, **sample.params}
    with rt.no_grad():

        def jvp(s: Any) -> Any:
            args = [const(rt, a) for a in sample.args]
            out = getattr(s, spec.name)(*spec.pack(args), **sample.params)
            given = [const(rt, tangents[i]) if i in tangents else None for i in range(len(args))]
            return picked(spec, spec.jvp(s, given, tuple(args), out, **params), sample.result)

        tangent = rt.with_eager_session(jvp)
    return None if tangent is None else np.asarray(tangent)


def run_node_jvp(
    rt: EagerRuntime, spec: OpSpec, sample: SampleInput, tangents: dict[int, np.ndarray], hollow: bool = True
) -> Any:
    """The tangent forward mode computes at a recorded node, as ``tf.jvp`` computes it: the op
    called on intermediate results at every differentiable position (so its node keeps only
    the values the spec lists in ``residuals``; on variables, which it always keeps, without
    ``hollow``), then ``node_tangent`` (the op's jvp rule, or its VJP transposed) on
    ``tangents`` by input position (None elsewhere): the drawn result's tangent as an array,
    or None for zero."""
    through = differentiable_positions(spec, sample) if hollow else None
    _, out = recorded(rt, spec, sample, through=through)
    node, result = vertex(out), None
    if node.output is not None and node.output != CALL:  # one result of a call: the call's tangents
        node, result = node.parents[0], node.output
    if len(node.parents) != len(sample.args):
        raise CheckFailed(f"the op's node has {len(node.parents)} inputs for the sample's {len(sample.args)} arguments")
    given = [const(rt, tangents[i]) if i in tangents else None for i in range(len(sample.args))]
    with CpuEngine.serial().lend("the conformance suite"), rt.rule_session() as session:
        tangent = node_tangent(session, node, given)
    if result is not None:
        tangent = tangent[result]
    return None if tangent is None else np.asarray(tangent)
