"""The finite-difference oracle: VJPs checked against ``scipy.differentiate.derivative``.

For an op F, inputs x, a random cotangent u and random directions v, the AD side is
⟨VJP(u), v⟩ and the numeric side is d/dt ⟨u, F(x + t v)⟩ at t = 0. At second order the
function is G(x, u) = ⟨VJP_x(u), w⟩ for a random w: its gradient comes from ``rt.grad``
of the recorded first derivative, and its directional derivative from finite differences
of first-order gradients. The tolerance is widened by scipy's own error estimate.

Complex values are pairs of reals: ⟨a, b⟩ = Re(conj(a)·b), the inner product in which
tenferro's cotangents live (PyTorch's convention), and the directions v and w, the
cotangent u have random real and imaginary parts, so every derivative is checked along
both the real and the imaginary direction.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.differentiate

from tenferro.core.eager import EagerTensor
from tenferro.core.errors import GradInactive
from tenferro.core.runtime import EagerRuntime
from tenferro.core.spec import OpSpec, SampleInput
from tenferro.core.tensor import Tensor

from .strategies import FD_STEP

#: Relative tolerance of the AD-vs-FD comparison (before adding scipy's error estimate).
RTOL = 1e-6
#: Rounding the oracle allows in a function's value, in units of eps x the summed magnitude
#: of its terms. Divided by the step, it is the absolute tolerance at which two estimates of
#: the derivative agree: without it, a derivative of exactly zero never converges wherever
#: the function's values carry rounding noise (scipy's default floor is ~1e-308).
NOISE = 1024

#: Outcomes of a finite difference (scipy's status 0, -3, anything else).
CONVERGED, NON_FINITE, NOT_CONVERGED = "converged", "non-finite", "not converged"


@dataclass(frozen=True)
class FiniteDifference:
    """scipy.differentiate's estimate of one derivative, its error estimate and how it
    ended: ``CONVERGED``, ``NON_FINITE`` (a value near the point was nan or infinite: the
    function left its domain) or ``NOT_CONVERGED`` (estimates kept changing: a kink, a
    pole or noise within the step)."""

    df: float
    error: float
    outcome: str

    @property
    def converged(self) -> bool:
        return self.outcome == CONVERGED


@dataclass(frozen=True)
class Comparison:
    """One AD-versus-finite-difference comparison."""

    ad: float
    fd: FiniteDifference
    tolerance: float

    @property
    def error(self) -> float:
        return abs(self.ad - self.fd.df)

    @property
    def ok(self) -> bool:
        return self.error <= self.tolerance

    @property
    def proven_wrong(self) -> bool:
        """Finite differences converged and disagree: AD is wrong here, whatever else fails."""
        return self.fd.converged and not self.ok

    def __str__(self) -> str:
        relation = "<=" if self.ok else ">"
        return (
            f"AD {self.ad:.17g} vs finite differences {self.fd.df:.17g}: error {self.error:.3g} "
            f"{relation} tolerance {self.tolerance:.3g} (scipy error estimate {self.fd.error:.3g})"
        )


def fd_directional(terms: Callable[[float], Any], step: float = FD_STEP) -> FiniteDifference:
    """d/dt Σ terms(t) at t = 0 with scipy.differentiate (central, order 8, steps <= ``step``).

    ``terms`` returns a number or an array of terms (such as u_i · F_i(x + t v)). Their sum
    is only known to within about eps · Σ|terms| (taken at t = 0 and ±step), so estimates of
    the derivative that agree to within ``NOISE`` times that, divided by the step, count as
    converged: a function constant along the direction then gives a converged 0."""
    values: dict[float, np.ndarray] = {}

    def at(t: float) -> np.ndarray:
        if t not in values:  # scipy asks for 0 and ±step again: evaluate each point once
            values[t] = np.asarray(terms(t), dtype=np.float64)
        return values[t]

    def total(t: np.ndarray) -> np.ndarray:
        return np.array([np.sum(at(float(ti)) - centre) for ti in np.ravel(t)], dtype=np.float64).reshape(np.shape(t))

    with np.errstate(all="ignore"):  # a function that leaves its domain shows up in the status
        # Differences from the terms at t = 0: the same derivative, and a term constant along
        # the direction adds an exact 0 (scipy 1.17's weights do not cancel a constant
        # exactly: a constant 3.0 had the derivative 5.7e-14).
        centre = np.where(np.isfinite(at(0.0)), at(0.0), 0.0)
        magnitude = max(float(np.sum(np.abs(v), where=np.isfinite(v))) for v in map(at, (-step, 0.0, step)))
        atol = max(NOISE * np.finfo(np.float64).eps * magnitude / step, np.finfo(np.float64).smallest_normal)
        result = scipy.differentiate.derivative(total, 0.0, initial_step=step, tolerances={"rtol": 1e-10, "atol": atol})
    status = int(result.status)
    outcome = CONVERGED if status == 0 else NON_FINITE if status == -3 else NOT_CONVERGED
    return FiniteDifference(float(result.df), float(result.error), outcome)


def compare(ad: float, terms: Callable[[float], Any], rtol: float = RTOL) -> Comparison:
    fd = fd_directional(terms)
    return Comparison(ad, fd, rtol * max(1.0, abs(fd.df), abs(ad)) + 4.0 * fd.error)


def differentiable_positions(spec: OpSpec, sample: SampleInput) -> list[int]:
    """Inputs of ``sample`` that receive gradients: float or complex arrays at differentiable slots."""
    return [
        i
        for i, arg in enumerate(sample.args)
        if spec.differentiable[spec.slot(i)] and isinstance(arg, np.ndarray) and arg.dtype.kind in "fc"
    ]


def picked(spec: OpSpec, out: Any, result: int) -> Any:
    """The result the checks look at: ``out`` itself, or one of a multiple-results op's."""
    return out[result] if spec.multiple_results else out


def vdot(a: Any, b: Any) -> float:
    """⟨a, b⟩ = Re Σ conj(a)·b, in float64."""
    return float(np.sum(inner_terms(a, b)))


def inner_terms(a: Any, b: Any) -> np.ndarray:
    """The terms of ⟨a, b⟩ in float64: products of the real parts, then (when either is
    complex) of the imaginary parts."""
    a, b = np.asarray(a), np.asarray(b)
    real = np.real(a).astype(np.float64) * np.real(b).astype(np.float64)
    if a.dtype.kind != "c" and b.dtype.kind != "c":
        return real
    return np.stack([real, np.imag(a).astype(np.float64) * np.imag(b).astype(np.float64)])


def random_array(rng: np.random.Generator, shape: tuple[int, ...], dtype: Any, uniform: bool = False) -> np.ndarray:
    """Standard normal (or, with ``uniform``, uniform in [-1, 1]) values of ``dtype``; a
    complex dtype gets independent real and imaginary parts."""
    draw = (lambda: rng.uniform(-1.0, 1.0, shape)) if uniform else (lambda: rng.standard_normal(shape))
    value = draw() + 1j * draw() if np.dtype(dtype).kind == "c" else draw()
    return np.asarray(value).astype(dtype)


def inner(s: Any, a: Any, b: Any) -> Any:
    """⟨a, b⟩ recorded with session ops (``reduce_sum``, ``mul``; ``conj`` and ``real`` for
    complex), so it can be differentiated."""
    if a.dtype.kind != "c" and b.dtype.kind != "c":
        return s.reduce_sum(s.mul(a, b), None)
    return s.real(s.reduce_sum(s.mul(s.conj(a), b), None))


class OpHarness:
    """Calls one op of a runtime on sample arguments, some of them as variables."""

    def __init__(self, rt: EagerRuntime, spec: OpSpec, sample: SampleInput):
        self.rt = rt
        self.spec = spec
        self.sample = sample
        self.positions = differentiable_positions(spec, sample)

    def tensors(self, shifted: dict[int, np.ndarray], variables: bool) -> list[Any]:
        """The op's arguments: arrays as constants (or variables at differentiable positions
        when ``variables``), scalars as they are; ``shifted`` replaces some arrays."""
        args = []
        for i, arg in enumerate(self.sample.args):
            value = shifted.get(i, arg)
            if not isinstance(value, np.ndarray):
                args.append(value)
            elif variables and i in self.positions:
                args.append(self.rt.variable_from(Tensor.from_numpy(value)))
            else:
                args.append(self.rt.constant_from(Tensor.from_numpy(value)))
        return args

    def call(self, s: Any, args: Sequence[Any]) -> EagerTensor:
        return picked(
            self.spec, getattr(s, self.spec.name)(*self.spec.pack(args), **self.sample.params), self.sample.result
        )

    def value(self, shifted: dict[int, np.ndarray]) -> np.ndarray:
        with self.rt.no_grad():
            out = self.rt.with_eager_session(lambda s: self.call(s, self.tensors(shifted, False)))
        return np.asarray(out)

    def shifted(self, t: float, directions: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
        return {i: np.asarray(self.sample.args[i] + t * d) for i, d in directions.items()}


def _directions(rng: np.random.Generator, harness: OpHarness, only: int | None) -> dict[int, np.ndarray]:
    """Random directions of max-norm 1 in each part (so FD steps stay within FD_STEP of the
    sample), complex for complex inputs; with ``only``, zero for every input but that one."""
    args = harness.sample.args
    return {
        i: random_array(rng, args[i].shape, _wide(args[i].dtype), uniform=True) * (only is None or only == i)
        for i in harness.positions
    }


def _wide(dtype: np.dtype) -> np.dtype:
    """float64 or complex128: the precision of directions and weights."""
    return np.dtype(np.complex128 if dtype.kind == "c" else np.float64)


def check_first_order(
    rt: EagerRuntime, spec: OpSpec, sample: SampleInput, seed: int, only: int | None = None
) -> Comparison:
    """⟨VJP(u), v⟩ versus d/dt ⟨u, F(x + t v)⟩; ``only`` moves just that input.

    ``rt`` must have a default engine."""
    rng = np.random.default_rng(seed)
    harness = OpHarness(rt, spec, sample)
    out0 = harness.value({})
    u = random_array(rng, out0.shape, out0.dtype)
    v = _directions(rng, harness, only)
    args = harness.tensors({}, variables=True)
    out = rt.with_eager_session(lambda s: harness.call(s, args))
    out.backward_with(rt.constant_from(Tensor.from_numpy(u)))
    ad = sum(vdot(args[i].grad().to_numpy(), v[i]) for i in harness.positions)
    return compare(ad, lambda t: inner_terms(u, harness.value(harness.shifted(t, v))))


def _first_derivatives(rt: EagerRuntime, harness: OpHarness, args: list[Any], u: EagerTensor) -> list[EagerTensor]:
    """Recorded gradients of ⟨u, F(args)⟩ with respect to each differentiable input."""
    loss = rt.with_eager_session(lambda s: inner(s, u, harness.call(s, args)))
    return rt.grad(loss, [args[i] for i in harness.positions])


#: ``only`` value of :func:`check_second_order` that moves just the cotangent u.
COTANGENT = -1


def check_second_order(
    rt: EagerRuntime, spec: OpSpec, sample: SampleInput, seed: int, only: int | None = None
) -> Comparison:
    """Gradient of G(x, u) = Σ_i ⟨∂⟨u, F(x)⟩/∂x_i, w_i⟩ along (v_x, v_u) versus finite
    differences of G, where the gradient comes from differentiating the recorded VJP.
    ``only`` moves just that input (or the cotangent, for ``COTANGENT``)."""
    rng = np.random.default_rng(seed)
    harness = OpHarness(rt, spec, sample)
    out0 = harness.value({})
    u0 = random_array(rng, out0.shape, _wide(out0.dtype))
    v = _directions(rng, harness, only)
    v_u = random_array(rng, out0.shape, _wide(out0.dtype), uniform=True) * (only is None or only == COTANGENT)
    w = {i: random_array(rng, sample.args[i].shape, _wide(sample.args[i].dtype)) for i in harness.positions}

    def gradients(shifted: dict[int, np.ndarray], u_value: np.ndarray, variable: bool) -> tuple[Any, Any, Any]:
        args = harness.tensors(shifted, variables=True)
        u = (rt.variable_from if variable else rt.constant_from)(Tensor.from_numpy(u_value.astype(out0.dtype)))
        return args, u, _first_derivatives(rt, harness, args, u)

    args, u, grads = gradients({}, u0, variable=True)
    weights = [rt.constant_from(Tensor.from_numpy(w[i])) for i in harness.positions]
    total = rt.with_eager_session(lambda s: _sum_all(s, [inner(s, g, wi) for g, wi in zip(grads, weights)]))
    ad = 0.0
    for tensor, direction in [(args[i], v[i]) for i in harness.positions] + [(u, v_u)]:
        try:
            ad += vdot(np.asarray(rt.grad(total, tensor)), direction)
        except GradInactive:
            pass  # G does not depend on this input: its part of the derivative is 0

    def terms(t: float) -> np.ndarray:
        _, _, shifted = gradients(harness.shifted(t, v), u0 + t * v_u, variable=False)
        return np.concatenate([np.ravel(inner_terms(g, w[i])) for g, i in zip(shifted, harness.positions)])

    return compare(ad, terms)


def _sum_all(s: Any, terms: list[Any]) -> Any:
    total = terms[0]
    for term in terms[1:]:
        total = s.add(total, term)
    return total
