"""tenferro-mathx: five ops as a third-party tenferro plugin.

Each op is an ``OpSpec``: a NumPy forward kernel, a VJP written with session ops (so second
derivatives come for free), a hypothesis sample strategy inside the op's domain, a NumPy
reference and inputs that must fail. ``tenferro_register_ops`` adds them; the entry point
in pyproject.toml makes tenferro find it.
"""

from typing import Any

import numpy as np
import scipy.special

from tenferro import AxisError, DTypeError, EagerTensor, ErrorInput, OpSpec, ShapeMismatch, hookimpl
from tenferro.core.registry import SampleInput
from tenferro.extend import explain_broadcast, unbroadcast

_BOOLS = np.array([True, False])


# -- samples: hypothesis is imported only when a sample is asked for ------------------------
def _anywhere() -> Any:
    from tenferro.testing.strategies import unary

    return unary(-8.0, 8.0)


def _pairs(**ranges: Any) -> Any:
    def sample() -> Any:
        from tenferro.testing.strategies import broadcast_pair

        return broadcast_pair(**ranges)

    return sample


def _rows() -> Any:
    from hypothesis import strategies as st
    from hypothesis.extra import numpy as hnp

    from tenferro.testing.strategies import floats_array

    @st.composite
    def sample(draw: Any) -> SampleInput:
        shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, max_side=4))
        axis = draw(st.integers(-len(shape), len(shape) - 1))
        return SampleInput((draw(floats_array(shape, -5.0, 5.0)),), {"axis": axis})

    return sample()


def _binary_errors(second: str) -> Any:
    return lambda: [
        ErrorInput((np.zeros(2), np.zeros(3)), {}, ShapeMismatch, "do not broadcast"),
        ErrorInput((np.zeros(2), _BOOLS), {}, DTypeError, f"argument {second!r} has dtype bool"),
    ]


# -- VJP rules: session ops only ------------------------------------------------------------
def _softplus_vjp(s: Any, g: Any, inputs: Any, out: Any) -> Any:
    (x,) = inputs
    return (s.mul(g, s.sigmoid(x)),)


def _logaddexp_vjp(s: Any, g: Any, inputs: Any, out: Any) -> Any:
    a, b = inputs
    return (
        unbroadcast(s, s.mul(g, s.exp(s.sub(a, out))), a) if s.needs_grad(a) else None,
        unbroadcast(s, s.mul(g, s.exp(s.sub(b, out))), b) if s.needs_grad(b) else None,
    )


def _hypot_vjp(s: Any, g: Any, inputs: Any, out: Any) -> Any:
    a, b = inputs
    g_over_r = s.div(g, out)
    return (
        unbroadcast(s, s.mul(g_over_r, a), a) if s.needs_grad(a) else None,
        unbroadcast(s, s.mul(g_over_r, b), b) if s.needs_grad(b) else None,
    )


def _xlogy(x: Any, y: Any) -> np.ndarray:
    # np.log of a Python float is a (strong) float64 scalar: keep the inputs' dtype explicitly
    dtype = np.result_type(x, y)
    return np.where(np.equal(x, 0), dtype.type(0), np.multiply(x, np.log(y), dtype=dtype))


def _xlogy_vjp(s: Any, g: Any, inputs: Any, out: Any) -> Any:
    x, y = inputs
    log_y = s.log(y) if isinstance(y, EagerTensor) else float(np.log(y))  # y may be a Python number
    return (
        unbroadcast(s, s.mul(g, log_y), x) if s.needs_grad(x) else None,
        unbroadcast(s, s.mul(g, s.div(x, y)), y) if s.needs_grad(y) else None,
    )


def _log_softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool) or not -x.ndim <= axis < x.ndim:
        raise AxisError(f"log_softmax: axis {axis!r} is out of range for a tensor with {x.ndim} dims")
    shifted = x - np.max(x, axis=axis, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


def _log_softmax_vjp(s: Any, g: Any, inputs: Any, out: Any, axis: int) -> Any:
    # d(log_softmax)ᵀ g = g - softmax · Σ g  (softmax = exp(out))
    axis = axis % len(out.shape)
    total = s.expand_to(s.reduce_sum(g, axis), out.shape, (axis,))
    return (s.sub(g, s.mul(s.exp(out), total)),)


SPECS = [
    OpSpec(
        name="softplus",
        inputs=("x",),
        forward=lambda x: np.logaddexp(0.0, x),
        vjp=_softplus_vjp,
        accepts="f",
        residuals=("x",),
        sample=_anywhere,
        reference=lambda x: np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0.0),
        error_inputs=lambda: [ErrorInput((_BOOLS,), {}, DTypeError, "softplus accepts float")],
        doc="log(1 + e**x) without overflow; its derivative is sigmoid(x).",
    ),
    OpSpec(
        name="logaddexp",
        inputs=("a", "b"),
        forward=np.logaddexp,
        vjp=_logaddexp_vjp,
        accepts="f",
        explain=explain_broadcast("logaddexp", ("a", "b")),
        residuals=("a", "b", "out"),
        sample=_pairs(a_range=(-6.0, 6.0), b_range=(-6.0, 6.0)),
        reference=lambda a, b: np.log(np.exp(a) + np.exp(b)),
        error_inputs=_binary_errors("b"),
        doc="log(e**a + e**b) without overflow, broadcasting.",
    ),
    OpSpec(
        name="hypot",
        inputs=("a", "b"),
        forward=np.hypot,
        vjp=_hypot_vjp,
        accepts="f",
        explain=explain_broadcast("hypot", ("a", "b")),
        residuals=("a", "b", "out"),
        sample=_pairs(a_range=(0.5, 3.0), b_range=(-3.0, 3.0)),
        reference=lambda a, b: np.sqrt(np.square(a) + np.square(b)),
        error_inputs=_binary_errors("b"),
        doc="sqrt(a**2 + b**2), broadcasting; the gradient at a = b = 0 is nan (0/0).",
    ),
    OpSpec(
        name="xlogy",
        inputs=("x", "y"),
        forward=_xlogy,
        vjp=_xlogy_vjp,
        accepts="f",
        explain=explain_broadcast("xlogy", ("x", "y")),
        residuals=("x", "y"),
        sample=_pairs(a_range=(-3.0, 3.0), b_range=(0.25, 4.0)),
        reference=scipy.special.xlogy,
        error_inputs=_binary_errors("y"),
        doc="x * log(y), 0 where x == 0 (scipy's xlogy); d/dx = log(y), d/dy = x / y.",
    ),
    OpSpec(
        name="log_softmax",
        inputs=("x",),
        params={"axis": -1},
        forward=_log_softmax,
        vjp=_log_softmax_vjp,
        accepts="f",
        residuals=("out",),
        sample=_rows,
        reference=lambda x, axis=-1: x - scipy.special.logsumexp(x, axis=axis, keepdims=True),
        error_inputs=lambda: [
            ErrorInput((np.zeros((2, 3)),), {"axis": 2}, AxisError, "out of range"),
            ErrorInput((np.zeros(3),), {"axis": 1.5}, AxisError, "out of range"),
        ],
        doc="x - logsumexp(x) along `axis`, stable for large values.",
    ),
]


@hookimpl
def tenferro_register_ops(registry: Any) -> None:
    for spec in SPECS:
        registry.add(spec)
