"""Activations: relu, gelu (exact and tanh), silu, softplus (beta, threshold), as PyTorch's
``torch.nn.functional`` defines them. Real and elementwise: each VJP is g times the
derivative, and the JVP the same rule on the tangent (:mod:`.self_adjoint`)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.special

from tenferro.extend import ArgumentError, DTypeError, ErrorInput, Kink, OpSpec, SampleInput

from .self_adjoint import self_adjoint

_SQRT1_2 = math.sqrt(0.5)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_KAPPA = 0.044715


def _domain(avoid: tuple[float, ...] = ()) -> Callable[[], Any]:
    def sample() -> Any:
        from tenferro.testing.strategies import unary

        return unary(-4.0, 4.0, avoid)

    return sample


_BOOL = [ErrorInput((np.array([True, False]),), {}, DTypeError, "accepts float")]


# -- relu ----------------------------------------------------------------------------------------
def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0)  # nan stays nan


def _relu_rule(s: Any, g: Any, out: Any, x: Any) -> Any:
    return s.where_select(s.compare(out, 0, "gt"), g, 0.0)


RELU = OpSpec(
    name="relu",
    batch="elementwise",
    inputs=("x",),
    forward=_relu,
    vjps=(_relu_rule,),
    jvp=self_adjoint(_relu_rule),
    accepts="fiu",
    residuals=("out",),
    sample=_domain(avoid=(0.0,)),
    reference=lambda x: np.where(np.asarray(x) > 0, x, 0.0),
    error_inputs=lambda: _BOOL,
    kinks=(Kink((np.array([0.0, -0.0]),), (np.zeros(2),)),),
    doc="max(x, 0). Convention: relu'(0) = 0 (PyTorch's).",
)


# -- gelu ----------------------------------------------------------------------------------------
def _check_approximate(approximate: Any) -> str:
    if approximate not in ("none", "tanh"):
        raise ArgumentError(f"gelu: approximate must be 'none' (the exact erf form) or 'tanh', got {approximate!r}")
    return approximate


def _gelu(x: np.ndarray, approximate: str = "none") -> np.ndarray:
    if _check_approximate(approximate) == "tanh":
        inner = np.multiply(np.add(x, np.multiply(np.multiply(np.multiply(x, x), x), _KAPPA)), _SQRT_2_OVER_PI)
        return np.multiply(np.multiply(x, 0.5), np.add(np.tanh(inner), 1.0))
    return np.multiply(np.multiply(x, 0.5), np.add(scipy.special.erf(np.multiply(x, _SQRT1_2)), 1.0))


def _gelu_rule(s: Any, g: Any, out: Any, x: Any, approximate: str) -> Any:
    if approximate == "tanh":
        x2 = s.mul(x, x)
        t = s.tanh(s.mul(s.mul(x, s.add(s.mul(x2, _KAPPA), 1.0)), _SQRT_2_OVER_PI))
        inner_prime = s.mul(s.add(s.mul(x2, 3.0 * _KAPPA), 1.0), _SQRT_2_OVER_PI)
        slope = s.mul(s.add(s.add(t, 1.0), s.mul(s.mul(x, s.sub(1.0, s.mul(t, t))), inner_prime)), 0.5)
        return s.mul(g, slope)
    cdf = s.mul(s.add(s.erf(s.mul(x, _SQRT1_2)), 1.0), 0.5)
    pdf = s.mul(s.exp(s.mul(s.mul(x, x), -0.5)), _INV_SQRT_2PI)
    return s.mul(g, s.add(cdf, s.mul(x, pdf)))


def _gelu_reference(x: np.ndarray, approximate: str = "none") -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    if approximate == "tanh":
        return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))
    return x * np.vectorize(lambda v: 0.5 * math.erfc(-v / math.sqrt(2.0)), otypes=[np.float64])(x)


def _gelu_sample() -> Any:
    from hypothesis import strategies as st

    from tenferro.testing.strategies import unary

    return st.tuples(unary(-4.0, 4.0), st.sampled_from(["none", "tanh"])).map(
        lambda pair: SampleInput(pair[0].args, {"approximate": pair[1]})
    )


GELU = OpSpec(
    name="gelu",
    batch="elementwise",
    inputs=("x",),
    params={"approximate": "none"},
    forward=_gelu,
    vjps=(_gelu_rule,),
    jvp=self_adjoint(_gelu_rule),
    accepts="f",
    residuals=("x",),
    sample=_gelu_sample,
    reference=_gelu_reference,
    error_inputs=lambda: [
        *_BOOL,
        ErrorInput((np.zeros(2),), {"approximate": "fast"}, ArgumentError, "approximate must be 'none'"),
    ],
    doc="x·Φ(x) (approximate='none', the erf form) or PyTorch's tanh approximation (approximate='tanh').",
)


# -- silu ----------------------------------------------------------------------------------------
def _silu_rule(s: Any, g: Any, out: Any, x: Any) -> Any:
    sig = s.sigmoid(x)
    return s.mul(g, s.mul(sig, s.add(s.mul(x, s.sub(1.0, sig)), 1.0)))


SILU = OpSpec(
    name="silu",
    batch="elementwise",
    inputs=("x",),
    forward=lambda x: np.multiply(x, scipy.special.expit(x)),
    vjps=(_silu_rule,),
    jvp=self_adjoint(_silu_rule),
    accepts="f",
    residuals=("x",),
    sample=_domain(),
    reference=lambda x: np.asarray(x) / (1.0 + np.exp(-np.asarray(x))),
    error_inputs=lambda: _BOOL,
    doc="x·sigmoid(x) (swish).",
)


# -- softplus --------------------------------------------------------------------------------------
def _softplus(x: np.ndarray, beta: Any = 1.0, threshold: Any = 20.0) -> np.ndarray:
    if not beta > 0:
        raise ArgumentError(f"softplus: beta must be a positive number, got {beta!r}")
    z = np.multiply(x, beta)
    return np.where(np.greater(z, threshold), x, np.divide(np.logaddexp(0.0, z), beta))


def _softplus_rule(s: Any, g: Any, out: Any, x: Any, beta: Any, threshold: Any) -> Any:
    z = s.mul(x, beta)
    return s.where_select(s.compare(z, threshold, "gt"), g, s.mul(g, s.sigmoid(z)))


def _softplus_sample() -> Any:
    from hypothesis import strategies as st

    from tenferro.testing.strategies import floats_array

    @st.composite
    def sample(draw: Any) -> SampleInput:
        beta, threshold = draw(st.sampled_from([1.0, 2.0, 0.5])), draw(st.sampled_from([20.0, 1.0]))
        x = draw(floats_array(avoid=(threshold / beta,), low=-4.0, high=4.0))
        return SampleInput((x,), {"beta": beta, "threshold": threshold})

    return sample()


SOFTPLUS = OpSpec(
    name="softplus",
    batch="elementwise",
    inputs=("x",),
    params={"beta": 1.0, "threshold": 20.0},
    forward=_softplus,
    vjps=(_softplus_rule,),
    jvp=self_adjoint(_softplus_rule),
    accepts="f",
    residuals=("x",),
    sample=_softplus_sample,
    reference=lambda x, beta=1.0, threshold=20.0: np.where(
        np.asarray(x) * beta > threshold, x, np.log1p(np.exp(np.asarray(x) * beta)) / beta
    ),
    error_inputs=lambda: [*_BOOL, ErrorInput((np.zeros(2),), {"beta": 0.0}, ArgumentError, "beta must be a positive")],
    doc="log(1 + exp(beta·x))/beta, and x itself where beta·x > threshold (PyTorch's); "
    "its derivative is sigmoid(beta·x), 1 above the threshold.",
)

SPECS = [RELU, GELU, SILU, SOFTPLUS]
