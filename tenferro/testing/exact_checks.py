"""Derivative checks that need no finite differences, because the spec states something
exact: the linearity it declares (``linear``, ``multilinear``) and a forward-mode ``jvp``
rule, which must be the transpose of the VJP. Both sides of each identity are computed,
so they agree up to rounding: the linearity checks allow a few ulps of the values summed
(catching what finite differences could not resolve), the jvp check vjp_fd's relative
tolerance (a jvp rule may compute in another order than the VJP)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from tenferro.core.runtime import EagerRuntime
from tenferro.core.spec import OpSpec, SampleInput

from .harness import NOT_SCALABLE, CheckFailed, Tally, draw, draw_seed, forward, recorded, run_jvp, run_vjp
from .oracle import RTOL, differentiable_positions, inner_terms, random_array, vdot

#: Rounding the linearity check allows: this many times n x (eps x the magnitude involved +
#: the smallest normal number, below which rounding is absolute), n the number of elements
#: summed (a bound on the terms of any output element, or of an inner product).
ULPS = 4


def check_linear(rt: EagerRuntime, spec: OpSpec, data: Any, tally: Tally) -> None:
    """For ``linear=True``: f(αx + βy) = αf(x) + βf(y) and ⟨u, f(v)⟩ = ⟨VJP(u), v⟩ in the
    differentiable inputs together, to a few ulps (no finite differences)."""
    _check_linearity(rt, spec, data, tally)


def check_multilinear(rt: EagerRuntime, spec: OpSpec, data: Any, tally: Tally) -> None:
    """For ``multilinear=True``: the same in each differentiable input, the others fixed."""
    _check_linearity(rt, spec, data, tally)


def _check_linearity(rt: EagerRuntime, spec: OpSpec, data: Any, tally: Tally) -> None:
    sample = draw(spec, data, tally)
    rng = np.random.default_rng(draw_seed(data, tally))
    slots = [i for i in range(len(sample.args)) if spec.differentiable[spec.slot(i)]]
    if not all(_scalable(sample.args[i]) for i in slots):
        tally.reject(NOT_SCALABLE)
    for group in [slots] if spec.linear else [[i] for i in slots]:
        declared = _declaration(spec, group)
        _check_additive(rt, spec, sample, group, rng, declared)
        _check_adjoint(rt, spec, sample, group, rng, declared)


def _scalable(arg: Any) -> bool:
    """A float or complex array or scalar: α·x + β·y (α, β real) keeps its type."""
    return isinstance(arg, (float, complex, np.inexact)) or (isinstance(arg, np.ndarray) and arg.dtype.kind in "fc")


def _declaration(spec: OpSpec, group: Sequence[int]) -> str:
    names = ", ".join(spec.input_name(i) for i in group)
    if spec.linear:
        return f"declares linear=True (linear in {names} together)"
    return f"declares multilinear=True (linear in {names} with the other inputs fixed)"


def _random_like(arg: Any, rng: np.random.Generator) -> Any:
    if isinstance(arg, np.ndarray):
        return random_array(rng, arg.shape, arg.dtype)
    return type(arg)(random_array(rng, (), np.result_type(arg))[()])


def _combination(alpha: float, x: Any, beta: float, y: Any) -> Any:
    """α·x + β·y, an array if x is one (NumPy makes a 0-d result a scalar)."""
    result = alpha * x + beta * y
    return np.asarray(result) if isinstance(x, np.ndarray) else result


def _replaced(sample: SampleInput, values: dict[int, Any]) -> SampleInput:
    return replace(sample, args=tuple(values.get(i, a) for i, a in enumerate(sample.args)))


def _largest(value: Any) -> float:
    return float(np.max(np.abs(value), initial=0.0))


def _rounding(dtype: np.dtype, terms: int, magnitude: float) -> float:
    """What ``terms`` rounded terms of size ``magnitude`` in ``dtype`` may be off by."""
    info = np.finfo(dtype if dtype.kind in "fc" else np.float64)
    return ULPS * terms * (float(info.eps) * magnitude + float(info.smallest_normal))


def _check_additive(
    rt: EagerRuntime, spec: OpSpec, sample: SampleInput, group: list[int], rng: np.random.Generator, declared: str
) -> None:
    # α, β away from 0 and 1, where x*x or x + c would pass; Python floats keep float32 float32
    alpha, beta = (float(sign * size) for sign, size in zip(rng.choice([-1, 1], 2), rng.uniform(1.25, 2.0, 2)))
    x = {i: sample.args[i] for i in group}
    y = {i: _random_like(x[i], rng) for i in group}
    fx, fy = forward(rt, spec, sample), forward(rt, spec, _replaced(sample, y))
    combined = forward(rt, spec, _replaced(sample, {i: _combination(alpha, x[i], beta, y[i]) for i in group}))
    expected = alpha * fx + beta * fy
    if combined.shape != expected.shape:
        raise CheckFailed(f"{declared}, but f(αx + βy) has shape {list(combined.shape)}, f(x) {list(fx.shape)}")
    magnitudes = [abs(alpha) * _largest(x[i]) + abs(beta) * _largest(y[i]) for i in group]
    magnitudes += [abs(alpha) * _largest(fx), abs(beta) * _largest(fy)]
    terms = max(1, sum(np.size(x[i]) for i in group))
    tolerance = _rounding(combined.dtype, terms, max(magnitudes))
    error = _largest(combined - expected)
    if not error <= tolerance:
        raise CheckFailed(
            f"{declared}, but f(αx + βy) differs from αf(x) + βf(y) by {error:.3g} > tolerance {tolerance:.3g} "
            f"(α = {alpha:.17g}, β = {beta:.17g}, y random)"
        )


def _check_adjoint(
    rt: EagerRuntime, spec: OpSpec, sample: SampleInput, group: list[int], rng: np.random.Generator, declared: str
) -> None:
    """⟨u, f(v)⟩ = Σ ⟨VJP_i(u), v_i⟩ at a random v (scalars of the group at 0, so that f(v)
    is linear in the tensors alone): the VJP is the op's transpose."""
    v = {
        i: _random_like(sample.args[i], rng) if isinstance(sample.args[i], np.ndarray) else type(sample.args[i])(0)
        for i in group
    }
    tensors = [i for i in group if isinstance(v[i], np.ndarray)]
    if not tensors:
        return
    _, out = recorded(rt, spec, _replaced(sample, v))
    u = random_array(rng, out.shape, out.dtype)
    cotangents = run_vjp(rt, out, u)
    forward_terms = inner_terms(u, np.asarray(out))
    vjp_terms = [inner_terms(cotangents[i], v[i]) for i in tensors if cotangents[i] is not None]
    lhs, rhs = float(np.sum(forward_terms)), float(sum(np.sum(t) for t in vjp_terms))
    magnitude = float(np.sum(np.abs(forward_terms)) + sum(np.sum(np.abs(t)) for t in vjp_terms))
    # f(v) rounds at the size of its inputs, however much of it cancels (lerp near w = 1):
    # as the additive check, count ⟨|u|, the inputs' size⟩ too
    magnitude += float(np.sum(np.abs(u))) * max(_largest(v[i]) for i in tensors)
    terms = np.size(out) + sum(v[i].size for i in tensors)
    tolerance = _rounding(out.dtype, terms, magnitude)
    if not abs(lhs - rhs) <= tolerance:
        names = ", ".join(spec.input_name(i) for i in tensors)
        raise CheckFailed(
            f"{declared}, but its VJP is not its transpose in {names}: ⟨u, f(v)⟩ = {lhs:.17g} and ⟨VJP(u), v⟩ = "
            f"{rhs:.17g} differ by {abs(lhs - rhs):.3g} > tolerance {tolerance:.3g}"
        )


def check_jvp(rt: EagerRuntime, spec: OpSpec, data: Any, tally: Tally) -> None:
    """The forward-mode rule is the transpose of the VJP: ⟨u, JVP(v)⟩ = ⟨VJP(u), v⟩ input by
    input, both computed (no finite differences), to vjp_fd's relative tolerance."""
    sample = draw(spec, data, tally, differentiable=True)
    rng = np.random.default_rng(draw_seed(data, tally))
    _, out = recorded(rt, spec, sample)
    u = random_array(rng, out.shape, out.dtype)
    cotangents = run_vjp(rt, out, u)
    for index in differentiable_positions(spec, sample):
        name = spec.input_name(index)
        arg = sample.args[index]
        v = random_array(rng, arg.shape, arg.dtype, uniform=True)
        tangent = run_jvp(rt, spec, sample, {index: v})
        if tangent is not None and tangent.shape != out.shape:
            raise CheckFailed(
                f"the JVP along input {index} ({name!r}) has shape {list(tangent.shape)}; the result's is "
                f"{list(out.shape)}"
            )
        lhs = 0.0 if tangent is None else vdot(u, tangent)
        rhs = 0.0 if cotangents[index] is None else vdot(cotangents[index], v)
        tolerance = RTOL * max(1.0, abs(lhs), abs(rhs))
        if not abs(lhs - rhs) <= tolerance:
            raise CheckFailed(
                f"along input {index} ({name!r}): ⟨u, JVP(v)⟩ = {lhs:.17g} but ⟨VJP(u), v⟩ = {rhs:.17g}, off by "
                f"{abs(lhs - rhs):.3g} > tolerance {tolerance:.3g}: the jvp rule or the VJP is wrong (vjp_fd checks "
                f"the VJP)"
            )
