"""layer_norm and rms_norm over the last ``normalized_shape`` dims (PyTorch's argument) or
over ``axes`` (default: the last axis).

``weight`` and ``bias`` are tensor inputs that broadcast against x (usually of the
normalised shape); an op's tensor inputs are positional and required, so "no affine" is
written with Python numbers: ``s.layer_norm(x, 1.0, 0.0)``, ``s.rms_norm(x, 1.0)`` (a
number is a constant: it takes no gradient and costs no pass over memory).

Each VJP is one rule for the whole op that recomputes the normalised x̂ once (the trace
keeps x and weight, not the statistics) and gives x the compact form
rstd·(dx̂ - mean(dx̂) - x̂·mean(dx̂·x̂)), dx̂ = g·weight, written with session ops so that
second derivatives follow.

Where layer_norm's variance overflows (values of about 1e154 and up in float64), the
result and the gradients are nan, as PyTorch's, never the 0 that 1/sqrt(inf) would give.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from tenferro.extend import (
    ArgumentError,
    AxisError,
    DTypeError,
    ErrorInput,
    OpSpec,
    SampleInput,
    ShapeMismatch,
    check_shape,
    explain_broadcast,
    is_chunked,
    normalize_axes,
    reduced,
    reshaped,
    tangent_sum,
    unbroadcast,
    whole,
)


def norm_axes(x: Any, normalized_shape: Any, axes: Any, op: str) -> tuple[int, ...]:
    """The normalised axes: the last len(normalized_shape) (which must match x's trailing
    shape), or ``axes``, or the last axis when neither is given."""
    ndim = np.ndim(x)
    if normalized_shape is not None and axes is not None:
        raise ArgumentError(f"{op}: give normalized_shape or axes, not both")
    if normalized_shape is None:
        if ndim == 0:
            raise AxisError(f"{op}: needs a tensor with at least one dim, got a 0-d tensor")
        return normalize_axes(-1 if axes is None else axes, ndim, op)
    trailing = check_shape((normalized_shape,) if isinstance(normalized_shape, int) else normalized_shape, op)
    k = len(trailing)
    if k == 0 or k > ndim or tuple(np.shape(x)[ndim - k :]) != trailing:
        raise ShapeMismatch(
            f"{op}: normalized_shape {list(trailing)} must be the trailing shape of x, "
            f"which has shape {list(np.shape(x))}"
        )
    return tuple(range(ndim - k, ndim))


def _is_one(value: Any) -> bool:
    return type(value) in (int, float) and value == 1


def _is_zero(value: Any) -> bool:
    return type(value) in (int, float) and value == 0


def _count(shape: tuple[int, ...], axes: tuple[int, ...]) -> int:
    return math.prod(shape[a] for a in axes)


# -- layer_norm ----------------------------------------------------------------------------------
def _row_sums_of_squares(y: np.ndarray, axis: tuple[int, ...]) -> np.ndarray:
    """sum(y²) over ``axis`` with keepdims. Over trailing axes (normalized_shape's) it is a
    row-wise dot product, which reads y once and makes no y² temporary; over other axes,
    y·y summed. (Chosen by the axes alone, so every engine's arrays get the same bits.)"""
    k = len(axis)
    if axis == tuple(range(y.ndim - k, y.ndim)):
        rows = whole(reshaped(y, (math.prod(y.shape[: y.ndim - k]), _count(y.shape, axis))), -1)
        return reshaped(np.vecdot(rows, rows), y.shape[: y.ndim - k] + (1,) * k)
    return reduced(np.add, np.multiply(y, y), axis=axis, keepdims=True)


def _in_place(ufunc: Any, y: np.ndarray, other: Any) -> np.ndarray:
    """ufunc(y, other), written into y (a buffer the kernel made) where the result has y's
    shape and dtype; a new array where ``other`` broadcasts it larger or promotes its dtype."""
    if type(other) in (int, float) or (
        np.shape(other) == np.broadcast_shapes(y.shape, np.shape(other)) == y.shape
        and np.result_type(y, other) == y.dtype
    ):
        return ufunc(y, other, out=y)
    return ufunc(y, other)


def _layer_norm(
    x: np.ndarray, weight: Any, bias: Any, normalized_shape: Any = None, eps: Any = 1e-5, axes: Any = None
) -> np.ndarray:
    axis = norm_axes(x, normalized_shape, axes, "layer_norm")
    n = _count(np.shape(x), axis)
    mean = np.divide(reduced(np.add, x, axis=axis, keepdims=True), n)
    y = np.subtract(x, mean)  # the one full-size buffer: centred, scaled, shifted in place
    var = np.divide(_row_sums_of_squares(y, axis), n)
    # overflowed (|x| ~ 1e154 and up): nan, as PyTorch, not 0 (always replaced on an engine's
    # chunked array, whose values are not read here)
    if is_chunked(var) or not np.all(np.isfinite(var)):
        var = np.where(np.isinf(var), np.nan, var)
    y = np.multiply(y, np.reciprocal(np.sqrt(np.add(var, eps))), out=y)
    if not _is_one(weight):
        y = _in_place(np.multiply, y, weight)
    if not _is_zero(bias):
        y = _in_place(np.add, y, bias)
    return y


def _layer_norm_vjp(
    s: Any, g: Any, inputs: tuple[Any, Any, Any], out: Any, normalized_shape: Any, eps: Any, axes: Any
) -> tuple[Any, Any, Any]:
    x, weight, bias = inputs
    axis = norm_axes(x, normalized_shape, axes, "layer_norm")
    g_bias = unbroadcast(s, g, bias) if s.needs_grad(bias) else None
    if not (s.needs_grad(x) or s.needs_grad(weight)):
        return None, None, g_bias
    centered = s.sub(x, s.reduce_mean(x, axis, True))
    var = s.reduce_mean(s.mul(centered, centered), axis, True)
    # where the variance overflows, 1/sqrt(inf) = 0 would make x̂ and every gradient a silent
    # 0: nan instead, as the forward (the where is over the reduced shape only)
    rstd = s.where_select(s.isinf(var), np.nan, s.rsqrt(s.add(var, eps)))
    xhat = s.mul(centered, rstd)
    g_weight = unbroadcast(s, s.mul(g, xhat), weight) if s.needs_grad(weight) else None
    g_x = None
    if s.needs_grad(x):
        dxhat = g if _is_one(weight) else s.mul(g, weight)
        inner = s.sub(
            s.sub(dxhat, s.reduce_mean(dxhat, axis, True)), s.mul(xhat, s.reduce_mean(s.mul(dxhat, xhat), axis, True))
        )
        g_x = unbroadcast(s, s.mul(inner, rstd), x)
    return g_x, g_weight, g_bias


def _layer_norm_jvp(
    s: Any, tangents: Any, inputs: tuple[Any, Any, Any], out: Any, normalized_shape: Any, eps: Any, axes: Any
) -> Any:
    """x̂'s tangent rstd·(t - mean(t) - x̂·mean(t·x̂)) (the VJP's map, which is symmetric)
    times weight, plus t_weight·x̂ and t_bias."""
    (t_x, t_w, t_b), (x, weight, _) = tangents, inputs
    terms = [] if t_b is None else [t_b]
    if t_x is None and t_w is None:
        return tangent_sum(s, terms, out)
    axis = norm_axes(x, normalized_shape, axes, "layer_norm")
    centered = s.sub(x, s.reduce_mean(x, axis, True))
    var = s.reduce_mean(s.mul(centered, centered), axis, True)
    rstd = s.where_select(s.isinf(var), np.nan, s.rsqrt(s.add(var, eps)))
    xhat = s.mul(centered, rstd)
    if t_w is not None:
        terms.append(s.mul(t_w, xhat))
    if t_x is not None:
        along = s.mul(xhat, s.reduce_mean(s.mul(t_x, xhat), axis, True))
        inner = s.sub(s.sub(t_x, s.reduce_mean(t_x, axis, True)), along)
        dxhat = s.mul(inner, rstd)
        terms.append(dxhat if _is_one(weight) else s.mul(dxhat, weight))
    return tangent_sum(s, terms, out)


# -- rms_norm ------------------------------------------------------------------------------------
def _eps(x: Any, eps: Any) -> Any:
    """PyTorch's default: the machine epsilon of x's dtype."""
    return float(np.finfo(np.result_type(x)).eps) if eps is None else eps


def _rms_norm(
    x: np.ndarray, weight: Any, normalized_shape: Any = None, eps: Any = None, axes: Any = None
) -> np.ndarray:
    axis = norm_axes(x, normalized_shape, axes, "rms_norm")
    n = _count(np.shape(x), axis)
    mean_square = np.divide(_row_sums_of_squares(x, axis), n)
    y = np.multiply(x, np.reciprocal(np.sqrt(np.add(mean_square, _eps(x, eps)))))
    return y if _is_one(weight) else _in_place(np.multiply, y, weight)


def _rms_norm_vjp(
    s: Any, g: Any, inputs: tuple[Any, Any], out: Any, normalized_shape: Any, eps: Any, axes: Any
) -> tuple[Any, Any]:
    x, weight = inputs
    if not (s.needs_grad(x) or s.needs_grad(weight)):
        return None, None
    axis = norm_axes(x, normalized_shape, axes, "rms_norm")
    rstd = s.rsqrt(s.add(s.reduce_mean(s.mul(x, x), axis, True), _eps(x, eps)))
    xhat = s.mul(x, rstd)
    g_weight = unbroadcast(s, s.mul(g, xhat), weight) if s.needs_grad(weight) else None
    g_x = None
    if s.needs_grad(x):
        dxhat = g if _is_one(weight) else s.mul(g, weight)
        inner = s.sub(dxhat, s.mul(xhat, s.reduce_mean(s.mul(dxhat, xhat), axis, True)))
        g_x = unbroadcast(s, s.mul(inner, rstd), x)
    return g_x, g_weight


def _rms_norm_jvp(
    s: Any, tangents: Any, inputs: tuple[Any, Any], out: Any, normalized_shape: Any, eps: Any, axes: Any
) -> Any:
    """x̂'s tangent rstd·(t - x̂·mean(t·x̂)) times weight, plus t_weight·x̂."""
    (t_x, t_w), (x, weight) = tangents, inputs
    if t_x is None and t_w is None:
        return None
    axis = norm_axes(x, normalized_shape, axes, "rms_norm")
    rstd = s.rsqrt(s.add(s.reduce_mean(s.mul(x, x), axis, True), _eps(x, eps)))
    xhat = s.mul(x, rstd)
    terms = [] if t_w is None else [s.mul(t_w, xhat)]
    if t_x is not None:
        dxhat = s.mul(s.sub(t_x, s.mul(xhat, s.reduce_mean(s.mul(t_x, xhat), axis, True))), rstd)
        terms.append(dxhat if _is_one(weight) else s.mul(dxhat, weight))
    return tangent_sum(s, terms, out)


# -- samples and references ------------------------------------------------------------------
def _samples(with_bias: bool) -> Callable[[], Any]:
    def make() -> Any:
        from hypothesis import strategies as st
        from hypothesis.extra import numpy as hnp

        from tenferro.testing.strategies import distinct_array, floats_array

        @st.composite
        def sample(draw: Any) -> SampleInput:
            shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=2, max_side=4))
            x = draw(distinct_array(shape, gap=0.5)) / max(1.0, 0.25 * int(np.prod(shape)))
            k = draw(st.integers(1, len(shape)))
            trailing = shape[len(shape) - k :]
            how = draw(st.sampled_from(["shape", "axes", "default"]))
            params: dict[str, Any] = {"eps": draw(st.sampled_from([1e-5, 0.1]))}
            if how == "shape":
                params["normalized_shape"] = trailing
            elif how == "axes":
                params["axes"] = tuple(range(len(shape) - k, len(shape)))
            else:
                trailing = shape[-1:]
            affine = (draw(floats_array(trailing, 0.5, 2.0)), draw(floats_array(trailing)))
            if draw(st.booleans()):
                affine = (1.0, 0.0)
            return SampleInput((x, *affine) if with_bias else (x, affine[0]), params)

        return sample()

    return make


def _reference(rms: bool) -> Callable[..., np.ndarray]:
    def reference(x: np.ndarray, weight: Any, *rest: Any, **params: Any) -> np.ndarray:
        bias = 0.0 if rms else rest[0]
        x = np.asarray(x, dtype=np.float64)
        axis = norm_axes(x, params.get("normalized_shape"), params.get("axes"), "reference")
        eps = params.get("eps", None if rms else 1e-5)
        if rms:
            eps = np.finfo(np.float64).eps if eps is None else eps
            return x / np.sqrt(np.mean(x**2, axis=axis, keepdims=True) + eps) * weight
        var = np.var(x, axis=axis, keepdims=True)
        return (x - x.mean(axis=axis, keepdims=True)) / np.sqrt(var + eps) * weight + bias

    return reference


def _errors(name: str) -> Callable[[], list[ErrorInput]]:
    def errors() -> list[ErrorInput]:
        affine = (1.0, 0.0) if name == "layer_norm" else (1.0,)
        x = np.zeros((2, 3))
        return [
            ErrorInput((x, *affine), {"normalized_shape": (2,)}, ShapeMismatch, "must be the trailing shape"),
            ErrorInput((x, *affine), {"axes": 2}, AxisError, "out of range"),
            ErrorInput((x, *affine), {"axes": 1, "normalized_shape": (3,)}, ArgumentError, "not both"),
            ErrorInput((x, np.ones(2), *affine[1:]), {}, ShapeMismatch, "do not broadcast"),
            ErrorInput((np.zeros(3, bool), *affine), {}, DTypeError, "argument 'x' has dtype bool"),
        ]

    return errors


SPECS = [
    OpSpec(
        name="layer_norm",
        inputs=("x", "weight", "bias"),
        params={"normalized_shape": None, "eps": 1e-5, "axes": None},
        forward=_layer_norm,
        vjp=_layer_norm_vjp,
        jvp=_layer_norm_jvp,
        accepts=("f", "fiu", "fiu"),
        residuals=("x", "weight"),
        explain=explain_broadcast("layer_norm", ("x", "weight", "bias")),
        sample=_samples(with_bias=True),
        reference=_reference(rms=False),
        error_inputs=_errors("layer_norm"),
        doc="(x - mean)/sqrt(var + eps)·weight + bias over the last `normalized_shape` dims, or "
        "`axes` (default the last axis); PyTorch's layer_norm. No affine: weight 1.0, bias 0.0. A "
        "variance that overflows gives nan (PyTorch's), not 0.",
    ),
    OpSpec(
        name="rms_norm",
        inputs=("x", "weight"),
        params={"normalized_shape": None, "eps": None, "axes": None},
        forward=_rms_norm,
        vjp=_rms_norm_vjp,
        jvp=_rms_norm_jvp,
        accepts=("f", "fiu"),
        residuals=("x", "weight"),
        explain=explain_broadcast("rms_norm", ("x", "weight")),
        sample=_samples(with_bias=False),
        reference=_reference(rms=True),
        error_inputs=_errors("rms_norm"),
        doc="x/sqrt(mean(x²) + eps)·weight over the last `normalized_shape` dims, or `axes` "
        "(default the last axis); eps=None is x's machine epsilon (PyTorch's). No weight: 1.0.",
    ),
]
