"""tenferro-mathx: five ops as a third-party tenferro plugin, written against
``tenferro.extend`` alone.

Each op is an ``OpSpec``: a NumPy forward kernel, one VJP rule per input written with
session ops (so second derivatives come for free), a hypothesis sample strategy inside the
op's domain, a NumPy reference and inputs that must fail. ``tenferro_register_ops`` adds
them and declares the plugins whose ops the rules call; the entry point in pyproject.toml
makes tenferro find it.
"""

from typing import Any

import numpy as np
import scipy.special

from tenferro.extend import (
    AxisError,
    DTypeError,
    ErrorInput,
    Kink,
    OpSpec,
    PluginRegistrar,
    SampleInput,
    ShapeMismatch,
    explain_broadcast,
    hookimpl,
    normalize_axes,
    unbroadcast,
)

_BOOLS = np.array([True, False])


# -- samples: hypothesis is imported only when a sample is asked for ------------------------
def _anywhere() -> Any:
    from tenferro.extend import strategies

    return strategies.unary(-8.0, 8.0)


def _pairs(**ranges: Any) -> Any:
    def sample() -> Any:
        from tenferro.extend import strategies

        return strategies.broadcast_pair(**ranges)

    return sample


def _rows() -> Any:
    from hypothesis import strategies as st
    from hypothesis.extra import numpy as hnp

    from tenferro.extend import strategies

    @st.composite
    def sample(draw: Any) -> SampleInput:
        shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, max_side=4))
        axis = draw(st.integers(-len(shape), len(shape) - 1))
        return SampleInput((draw(strategies.floats_array(shape, -5.0, 5.0)),), {"axis": axis})

    return sample()


def _binary_errors(second: str) -> Any:
    return lambda: [
        ErrorInput((np.zeros(2), np.zeros(3)), {}, ShapeMismatch, "do not broadcast"),
        ErrorInput((np.zeros(2), _BOOLS), {}, DTypeError, f"argument {second!r} has dtype bool"),
    ]


# -- kernels: NumPy functions, not methods or operators, so other engines' arrays pass ------
def _xlogy(x: Any, y: Any) -> Any:
    # np.log of a Python float is a (strong) float64 scalar: keep the inputs' dtype explicitly
    dtype = np.result_type(x, y)
    return np.where(np.equal(x, 0), dtype.type(0), np.multiply(x, np.log(y), dtype=dtype))


def _one_axis(axis: Any, ndim: int) -> int:
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise AxisError(f"log_softmax: axis must be an int, got {axis!r}")
    return normalize_axes(axis, ndim, "log_softmax")[0]


def _log_softmax(x: Any, axis: int = -1) -> Any:
    axis = _one_axis(axis, np.ndim(x))
    shifted = np.subtract(x, np.max(x, axis=axis, keepdims=True))
    return np.subtract(shifted, np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True)))


# -- rules: rule(s, g, out, *inputs, **params) -> that input's cotangent --------------------
def _hypot_rule(s: Any, g: Any, out: Any, mine: Any) -> Any:
    # d hypot/da = a / hypot. At a = b = 0 (the only place out == 0) that is 0/0; divide by
    # 1 there instead, giving 0: a subgradient of this 1-Lipschitz function, and abs'(0) = 0
    # again for hypot(x, 0) = |x|.
    safe_out = s.where_select(s.compare(out, 0, "eq"), 1.0, out)
    return s.mul(g, s.div(mine, safe_out))


def _xlogy_x(s: Any, g: Any, out: Any, x: Any, y: Any) -> Any:
    log_y = s.log(y) if hasattr(y, "shape") else float(np.log(y))  # y may be a Python number
    return s.mul(g, log_y)


def _log_softmax_rule(s: Any, g: Any, out: Any, x: Any, axis: int) -> Any:
    # d(log_softmax)ᵀ g = g - softmax · Σ g  (softmax = exp(out))
    axis = _one_axis(axis, out.ndim)
    total = s.expand_to(s.reduce_sum(g, axis), out.shape, (axis,))
    return s.sub(g, s.mul(s.exp(out), total))


SPECS = [
    OpSpec(
        name="softplus",
        inputs=("x",),
        forward=lambda x: np.logaddexp(0.0, x),
        vjps=(lambda s, g, out, x: s.mul(g, s.sigmoid(x)),),
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
        vjps=(
            lambda s, g, out, a, b: s.mul(g, s.exp(s.sub(a, out))),
            lambda s, g, out, a, b: s.mul(g, s.exp(s.sub(b, out))),
        ),
        unbroadcast=unbroadcast,
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
        vjps=(
            lambda s, g, out, a, b: _hypot_rule(s, g, out, a),
            lambda s, g, out, a, b: _hypot_rule(s, g, out, b),
        ),
        unbroadcast=unbroadcast,
        accepts="f",
        explain=explain_broadcast("hypot", ("a", "b")),
        residuals=("a", "b", "out"),
        sample=_pairs(a_range=(0.5, 3.0), b_range=(-3.0, 3.0)),
        reference=lambda a, b: np.sqrt(np.square(a) + np.square(b)),
        error_inputs=_binary_errors("b"),
        kinks=(Kink((np.zeros(2), np.array(0.0)), (np.zeros(2), np.array(0.0))),),
        doc="sqrt(a**2 + b**2), broadcasting. Convention: the gradient at a = b = 0 is 0 "
        "(as abs'(0) = 0; PyTorch's hypot gives nan there).",
    ),
    OpSpec(
        name="xlogy",
        inputs=("x", "y"),
        forward=_xlogy,
        vjps=(_xlogy_x, lambda s, g, out, x, y: s.mul(g, s.div(x, y))),
        unbroadcast=unbroadcast,
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
        vjps=(_log_softmax_rule,),
        accepts="f",
        residuals=("out",),
        sample=_rows,
        reference=lambda x, axis=-1: x - scipy.special.logsumexp(x, axis=axis, keepdims=True),
        error_inputs=lambda: [
            ErrorInput((np.zeros((2, 3)),), {"axis": 2}, AxisError, "out of range"),
            ErrorInput((np.zeros(3),), {"axis": 1.5}, AxisError, "axis must be an int"),
        ],
        doc="x - logsumexp(x) along `axis`, stable for large values.",
    ),
]


@hookimpl
def tenferro_register_ops(registrar: PluginRegistrar) -> None:
    registrar.requires("elementwise")  # the rules call mul, exp, where_select, ...; unbroadcast sum_to, astype
    registrar.requires("reduce")  # log_softmax's rule calls reduce_sum and expand_to
    for spec in SPECS:
        registrar.add(spec)
