"""Checks of an op's derivatives: its VJP and its forward mode against finite differences
(the VJP to first and second order), the cotangents' shapes, a zero cotangent, the values the VJP reads, and the
conventions the spec declares at its kinks."""

from __future__ import annotations

from typing import Any

import numpy as np

from tenferro.core.eager import EagerTensor
from tenferro.core.errors import NotDifferentiable, RuleError
from tenferro.core.runtime import EagerRuntime
from tenferro.core.spec import OpSpec, SampleInput
from tenferro.core.tensor import Tensor

from .harness import CheckFailed, Tally, draw, draw_seed, recorded, run_node_jvp, run_vjp
from .oracle import (
    COTANGENT,
    Comparison,
    OpHarness,
    check_first_order,
    check_second_order,
    compare,
    differentiable_positions,
    inner_terms,
    random_array,
    vdot,
)


def _mismatch(what: str, result: Comparison) -> CheckFailed:
    return CheckFailed(f"{what}: {result} (or the sample sits on a kink the strategy should avoid)")


def _verdict(results: list[tuple[str, Comparison]], tally: Tally) -> None:
    """Fail on the first comparison that proves AD wrong (its finite differences converged
    and disagree); only when none does, reject the sample if some did not converge."""
    for what, result in results:
        if result.proven_wrong:
            raise _mismatch(what, result)
    for _, result in results:
        if not result.fd.converged:
            tally.reject(result.fd.outcome)  # no verdict on this sample


def _along(spec: OpSpec, only: int) -> str:
    return "the cotangent u" if only == COTANGENT else f"input {only} ({spec.input_name(only)!r})"


def check_vjp_fd(rt: EagerRuntime, spec: OpSpec, data: Any, tally: Tally) -> None:
    """⟨VJP(u), v⟩ matches scipy.differentiate's d/dt ⟨u, f(x + t v)⟩, input by input."""
    sample = draw(spec, data, tally, differentiable=True)
    seed = draw_seed(data, tally)
    results = [
        (_along(spec, index), check_first_order(rt, spec, sample, seed, only=index))
        for index in differentiable_positions(spec, sample)
    ]
    _verdict(results, tally)


def check_jvp_fd(rt: EagerRuntime, spec: OpSpec, data: Any, tally: Tally) -> None:
    """The tangent forward mode computes at a recorded node (the op's jvp rule, or its VJP
    transposed, on inputs that are intermediate results, as in tf.jvp) matches
    scipy.differentiate's d/dt ⟨u, f(x + t v)⟩, input by input (a complex input along a v
    with random real and imaginary parts, as vjp_fd's)."""
    sample = draw(spec, data, tally, differentiable=True)
    rng = np.random.default_rng(draw_seed(data, tally))
    harness = OpHarness(rt, spec, sample)
    out = harness.value({})
    u = random_array(rng, out.shape, out.dtype)
    results = []
    for index in harness.positions:
        arg = sample.args[index]
        v = random_array(rng, arg.shape, arg.dtype, uniform=True)
        try:
            tangent = run_node_jvp(rt, spec, sample, {index: v})
        except RuleError as exc:
            raise CheckFailed(f"{_along(spec, index)}: {exc}{_dropped(rt, spec, sample, index, v)}") from None
        if tangent is not None and tangent.shape != out.shape:
            raise CheckFailed(
                f"{_along(spec, index)}: the tangent has shape {list(tangent.shape)}; the result's is {list(out.shape)}"
            )
        ad = 0.0 if tangent is None else vdot(u, tangent)
        fd = compare(ad, lambda t, i=index, d=v: inner_terms(u, harness.value(harness.shifted(t, {i: d}))))
        results.append((f"forward mode along {_along(spec, index)}", fd))
    _verdict(results, tally)


def _dropped(rt: EagerRuntime, spec: OpSpec, sample: SampleInput, index: int, v: np.ndarray) -> str:
    """Why forward mode failed at a node that kept only its residuals, if it works where
    every input is kept (a variable): the rule read a value the spec does not keep."""
    try:
        run_node_jvp(rt, spec, sample, {index: v}, hollow=False)
    except RuleError:
        return ""
    return (
        f"\nit works where every input is a variable: at a node that keeps only residuals={spec.residuals!r} "
        f"the rule read another value (a jvp rule reads what the VJP reads)"
    )


def check_vjp2_fd(rt: EagerRuntime, spec: OpSpec, data: Any, tally: Tally) -> None:
    """The VJP is differentiable: the gradient of ⟨VJP(u), w⟩ (from rt.grad of the recorded
    VJP) matches finite differences. For a spec that declares no second order, asking for
    one raises NotDifferentiable instead."""
    sample = draw(spec, data, tally, differentiable=True)
    seed = draw_seed(data, tally)
    if not spec.second_order:
        try:
            check_second_order(rt, spec, sample, seed)
        except NotDifferentiable:
            return
        raise CheckFailed("declares second_order=False, but a second derivative did not raise NotDifferentiable")
    result = check_second_order(rt, spec, sample, seed)
    if result.proven_wrong:  # say along which input, if moving one at a time shows it
        for only in [*differentiable_positions(spec, sample), COTANGENT]:
            single = check_second_order(rt, spec, sample, seed, only=only)
            if single.proven_wrong:
                raise _mismatch(f"second order along {_along(spec, only)}", single)
        raise _mismatch("second order (moving every input and the cotangent together)", result)
    _verdict([("second order", result)], tally)


def check_vjp_shapes(rt: EagerRuntime, spec: OpSpec, data: Any, tally: Tally) -> None:
    """The VJP returns one cotangent per input, each None or of its input's shape and dtype
    (broadcast axes summed back, mixed precision cast back)."""
    sample = draw(spec, data, tally, differentiable=True)
    args, out = recorded(rt, spec, sample)
    cotangents = run_vjp(rt, out, np.ones(out.shape, out.dtype))
    if len(cotangents) != len(args):
        raise CheckFailed(f"the VJP returned {len(cotangents)} cotangents for {len(args)} inputs")
    for index in differentiable_positions(spec, sample):
        ct = cotangents[index]
        if ct is None:
            continue
        if not isinstance(ct, EagerTensor):
            raise CheckFailed(f"input {index} ({spec.input_name(index)!r}): the cotangent is a {type(ct).__name__}")
        if ct.shape != args[index].shape or ct.dtype != args[index].dtype:
            raise CheckFailed(
                f"input {index} ({spec.input_name(index)!r}) is {args[index].dtype}{list(args[index].shape)} but its "
                f"cotangent is {ct.dtype}{list(ct.shape)} (missing unbroadcast or cast?)"
            )


def check_zero_cotangent(rt: EagerRuntime, spec: OpSpec, data: Any, tally: Tally) -> None:
    """A zero cotangent gives zero (or None) cotangents: the VJP is linear in it."""
    sample = draw(spec, data, tally, differentiable=True)
    _, out = recorded(rt, spec, sample)
    for index, ct in enumerate(run_vjp(rt, out, np.zeros(out.shape, out.dtype))):
        if isinstance(ct, EagerTensor) and np.any(np.asarray(ct) != 0):
            raise CheckFailed(f"input {index} ({spec.input_name(index)!r}): a zero cotangent gave a non-zero one")


def check_residuals(rt: EagerRuntime, spec: OpSpec, data: Any, tally: Tally) -> None:
    """The VJP reads only the input values the spec lists in ``residuals``: each input passed
    as an intermediate result (whose unlisted value the trace drops), not as a variable
    (always kept), gives the same gradients."""
    sample = draw(spec, data, tally, differentiable=True)
    expected = _gradients(rt, spec, sample)
    for index in differentiable_positions(spec, sample):
        name = spec.input_name(index)
        try:
            got = _gradients(rt, spec, sample, through=index)
        except RuleError as exc:
            raise CheckFailed(
                f"input {index} ({name!r}) as an intermediate result: {exc}\nthe VJP reads the value of {name!r}, "
                f"but residuals={spec.residuals!r} does not list it, so backward fails whenever {name!r} is not a "
                f"variable"
            ) from None
        if got != expected:
            raise CheckFailed(
                f"input {index} ({name!r}) as an intermediate result gives other gradients than as a variable"
            )


def _gradients(rt: EagerRuntime, spec: OpSpec, sample: SampleInput, through: int | None = None) -> list[Any]:
    """The bytes of each variable's gradient after ``backward_with(ones)`` through the op."""
    args, out = recorded(rt, spec, sample, through)
    out.backward_with(rt.constant_from(Tensor.from_numpy(np.ones(out.shape, out.dtype))))
    grads = [args[i].grad() for i in differentiable_positions(spec, sample)]
    return [None if g is None else g.to_numpy().tobytes() for g in grads]


def check_kinks(rt: EagerRuntime, spec: OpSpec, data: Any, tally: Tally) -> None:
    """At each point the spec declares in ``kinks``, the VJP gives the declared cotangents:
    the op's documented convention where it is not differentiable (samples avoid kinks, so
    nothing else checks it)."""
    for kink in spec.kinks:
        _, out = recorded(rt, spec, SampleInput(tuple(kink.args), kink.params))
        g = np.broadcast_to(np.asarray(kink.g, out.dtype), out.shape).copy()
        for index, (got, expected) in enumerate(zip(run_vjp(rt, out, g), kink.cotangents)):
            if not _same_cotangent(got, expected):
                shown = None if got is None else np.asarray(got).tolist()
                where = kink.describe(spec.name, [spec.input_name(i) for i in range(len(kink.args))])
                raise CheckFailed(f"at the kink {where}: input {index} ({spec.input_name(index)!r}) got {shown}")


def _same_cotangent(got: Any, expected: Any) -> bool:
    """Equal to within rounding, nan matching nan; None means zero on either side."""
    if got is None or expected is None:
        other = expected if got is None else got
        return other is None or not np.any(np.asarray(other))
    got = np.asarray(got)
    return got.shape == np.shape(expected) and bool(np.allclose(got, expected, rtol=1e-12, atol=0.0, equal_nan=True))
