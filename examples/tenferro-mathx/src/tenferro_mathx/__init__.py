"""tenferro-mathx: four ops as a third-party tenferro plugin, written against
``tenferro.extend`` alone: a unary op (``logit``), a broadcasting binary op (``xlogy``),
a unary op with kinks and a param (``soft_threshold``) and a reduction along an axis
(``entropy``). Their names are none of tenferro's built-in ops.

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
    ArgumentError,
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
_THRESHOLDS = (0.5, 1.0, 2.0)


# -- samples: hypothesis is imported only when a sample is asked for ------------------------
def _inside(low: float, high: float) -> Any:
    def sample() -> Any:
        from tenferro.extend import strategies

        return strategies.unary(low, high)

    return sample


def _pairs(**ranges: Any) -> Any:
    def sample() -> Any:
        from tenferro.extend import strategies

        return strategies.broadcast_pair(**ranges)

    return sample


def _off_the_kinks() -> Any:
    from hypothesis import strategies as st

    from tenferro.extend import strategies

    # x at least strategies.MARGIN away from ±threshold, for each threshold it may get
    kinks = tuple(sign * t for t in _THRESHOLDS for sign in (-1.0, 1.0))
    return st.tuples(strategies.floats_array(avoid=kinks), st.sampled_from(_THRESHOLDS)).map(
        lambda x_t: SampleInput((x_t[0],), {"threshold": x_t[1]})
    )


def _rows() -> Any:
    from hypothesis import strategies as st
    from hypothesis.extra import numpy as hnp

    from tenferro.extend import strategies

    @st.composite
    def sample(draw: Any) -> SampleInput:
        shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, max_side=4))
        axis = draw(st.integers(-len(shape), len(shape) - 1))
        return SampleInput((draw(strategies.floats_array(shape, 0.1, 2.0)),), {"axis": axis})

    return sample()


# -- kernels: NumPy functions, not methods or operators, so other engines' arrays pass ------
def _xlogy(x: Any, y: Any) -> Any:
    # np.log of a Python float is a (strong) float64 scalar: keep the inputs' dtype explicitly
    dtype = np.result_type(x, y)
    return np.where(np.equal(x, 0), dtype.type(0), np.multiply(x, np.log(y), dtype=dtype))


def _soft_threshold(x: Any, threshold: float = 1.0) -> Any:
    if not threshold >= 0:  # a TenferroError from the kernel reaches the caller unchanged
        raise ArgumentError(f"soft_threshold: threshold must be >= 0, got {threshold!r}")
    return np.multiply(np.sign(x), np.maximum(np.subtract(np.abs(x), threshold), 0.0))


def _one_axis(axis: Any, ndim: int) -> int:
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise AxisError(f"entropy: axis must be an int, got {axis!r}")
    return normalize_axes(axis, ndim, "entropy")[0]


def _entropy(p: Any, axis: int = -1) -> Any:
    return np.sum(scipy.special.entr(p), axis=_one_axis(axis, np.ndim(p)))  # entr(p) = -p log p, 0 at 0


# -- rules: rule(s, g, out, *inputs, **params) -> that input's cotangent --------------------
def _xlogy_x(s: Any, g: Any, out: Any, x: Any, y: Any) -> Any:
    log_y = s.log(y) if hasattr(y, "shape") else float(np.log(y))  # y may be a Python number
    return s.mul(g, log_y)


def _soft_threshold_rule(s: Any, g: Any, out: Any, x: Any, threshold: float) -> Any:
    # 1 outside [-threshold, threshold], 0 inside and (by convention) on its ends
    return s.where_select(s.compare(s.abs(x), threshold, "gt"), g, 0.0)


def _entropy_rule(s: Any, g: Any, out: Any, p: Any, axis: int) -> Any:
    # d(-Σ p log p)/dp = -(log p + 1), times g spread back over the summed axis
    axis = _one_axis(axis, p.ndim)
    return s.mul(s.expand_to(g, p.shape, (axis,)), s.neg(s.add(s.log(p), 1.0)))


SPECS = [
    OpSpec(
        name="logit",
        inputs=("x",),
        forward=scipy.special.logit,
        vjps=(lambda s, g, out, x: s.div(g, s.mul(x, s.sub(1.0, x))),),
        accepts="f",
        residuals=("x",),
        sample=_inside(0.05, 0.95),
        reference=lambda x: np.log(x) - np.log1p(-x),
        error_inputs=lambda: [ErrorInput((_BOOLS,), {}, DTypeError, "logit accepts float")],
        doc="log(x / (1 - x)), the inverse of sigmoid; its derivative is 1 / (x (1 - x)).",
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
        error_inputs=lambda: [
            ErrorInput((np.zeros(2), np.zeros(3)), {}, ShapeMismatch, "do not broadcast"),
            ErrorInput((np.zeros(2), _BOOLS), {}, DTypeError, "argument 'y' has dtype bool"),
        ],
        doc="x * log(y), 0 where x == 0 (scipy's xlogy), broadcasting; d/dx = log(y), d/dy = x / y.",
    ),
    OpSpec(
        name="soft_threshold",
        inputs=("x",),
        params={"threshold": 1.0},
        forward=_soft_threshold,
        vjps=(_soft_threshold_rule,),
        accepts="f",
        residuals=("x",),
        sample=_off_the_kinks,
        reference=lambda x, threshold=1.0: np.where(
            np.abs(x) > threshold, x - threshold * np.sign(x), np.zeros_like(x)
        ),
        error_inputs=lambda: [
            ErrorInput((np.zeros(2),), {"threshold": -1.0}, ArgumentError, "threshold must be >= 0"),
            ErrorInput((_BOOLS,), {}, DTypeError, "soft_threshold accepts float"),
        ],
        kinks=(
            Kink((np.array([1.0, -1.0]),), (np.zeros(2),)),
            Kink((np.array([0.5, -0.5]),), (np.zeros(2),), {"threshold": 0.5}),
        ),
        doc="sign(x) max(|x| - threshold, 0), the proximal map of threshold·|x|. Convention: its "
        "derivative at |x| = threshold is 0 (PyTorch's softshrink).",
    ),
    OpSpec(
        name="entropy",
        inputs=("p",),
        params={"axis": -1},
        forward=_entropy,
        vjps=(_entropy_rule,),
        accepts="f",
        residuals=("p",),
        sample=_rows,
        reference=lambda p, axis=-1: -np.sum(p * np.log(p), axis=axis),
        error_inputs=lambda: [
            ErrorInput((np.ones((2, 3)),), {"axis": 2}, AxisError, "out of range"),
            ErrorInput((np.ones(3),), {"axis": 1.5}, AxisError, "axis must be an int"),
        ],
        doc="-sum(p log p) along `axis` (which is dropped), 0·log 0 taken as 0; d/dp = -(log p + 1).",
    ),
]


@hookimpl
def tenferro_register_ops(registrar: PluginRegistrar) -> None:
    registrar.requires("elementwise")  # the rules call mul, log, where_select, ...; unbroadcast sum_to, astype
    registrar.requires("reduce")  # entropy's rule calls expand_to
    for spec in SPECS:
        registrar.add(spec)
