"""softmax, log_softmax and masked_softmax over ``axis`` (an int, or a tuple of ints).

Each is shifted by the slice's max, so nothing overflows. A slice that is all -inf (or, in
masked_softmax, fully masked) has no probability to share: softmax gives zeros there with a
zero gradient, log_softmax -inf with the gradient g itself (its softmax term is 0, so
g - exp(y)·sum(g) = g: what PyTorch's formula gives the -inf elements of a slice that has a
finite one). PyTorch gives nan for such a slice, value and gradient; tenferro never nan.
The VJPs are the compact ones, written with the result: y·(g - sum(g·y)) and
g - exp(y)·sum(g). softmax's Jacobian is symmetric, so its JVP is its VJP on the tangent;
log_softmax's JVP is the transpose, t - sum(t·exp(y)).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tenferro.extend import (
    AxisError,
    DTypeError,
    ErrorInput,
    Kink,
    OpSpec,
    SampleInput,
    ShapeMismatch,
    batching,
    explain_broadcast,
    normalize_axes,
    reduced,
    unbroadcast,
)

from .self_adjoint import self_adjoint


def _axes(x: Any, axis: Any, op: str) -> tuple[int, ...]:
    if np.ndim(x) == 0:
        raise AxisError(f"{op}: needs a tensor with at least one dim (the axis to normalise over), got a 0-d tensor")
    return normalize_axes(axis, np.ndim(x), op)


def _replaced(x: Any, where: Any, value: float) -> Any:
    """``np.where(where, value, x)``: for a NumPy ``x`` only if some entry is replaced (the
    common case costs the test alone); for an engine's array (dask's) always, as reading
    ``where`` there would gather it."""
    if type(x) is np.ndarray and not where.any():
        return x
    return np.where(where, value, x)


def _top(x: Any, axes: tuple[int, ...]) -> Any:
    """The max per slice, that of an all -inf slice taken as 0 (so x - top is not nan)."""
    top = reduced(np.maximum, x, axis=axes, keepdims=True)
    return _replaced(top, ~np.isfinite(top), 0.0)


def _shifted_exp(x: np.ndarray, axes: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """(x - max, exp(x - max)) per slice; the max of an all -inf slice taken as 0."""
    shifted = np.subtract(x, _top(x, axes))
    return shifted, np.exp(shifted)


def _normalized(e: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    total = reduced(np.add, e, axis=axes, keepdims=True)
    # an empty slice (all -inf or masked): 0/1 = 0 there, not 0/0
    return np.divide(e, _replaced(total, total == 0, 1.0))


def _softmax(x: np.ndarray, axis: Any = -1) -> np.ndarray:
    axes = _axes(x, axis, "softmax")
    if 0 in np.shape(x):  # no slice to take a max of: the empty result (PyTorch's)
        return np.copy(x)
    return _normalized(_shifted_exp(x, axes)[1], axes)


def _log_softmax(x: np.ndarray, axis: Any = -1) -> np.ndarray:
    axes = _axes(x, axis, "log_softmax")
    if 0 in np.shape(x):
        return np.copy(x)
    top = _top(x, axes)
    e = np.subtract(x, top)
    numpy = type(e) is np.ndarray  # (an engine's array, dask's, takes no out=)
    e = np.exp(e, out=e) if numpy else np.exp(e)  # in place: the exponentials are only summed
    log_total = np.log(reduced(np.add, e, axis=axes, keepdims=True))
    log_total = _replaced(log_total, np.isneginf(log_total), 0.0)  # an all -inf slice: -inf - 0, not -inf - -inf
    # x - (max + log(sum)), as PyTorch's kernel, written into the same buffer
    return np.subtract(x, np.add(top, log_total), out=e) if numpy else np.subtract(x, np.add(top, log_total))


def _masked_softmax(x: np.ndarray, mask: np.ndarray, axis: Any = -1) -> np.ndarray:
    x, mask = np.broadcast_arrays(x, mask)
    axes = _axes(x, axis, "masked_softmax")
    if 0 in np.shape(x):
        return np.copy(x)
    return _normalized(_shifted_exp(np.where(mask, x, -np.inf), axes)[1], axes)


def _softmax_rule(s: Any, g: Any, out: Any, x: Any, axis: Any) -> Any:
    axes = normalize_axes(axis, len(out.shape), "softmax")
    return s.mul(out, s.sub(g, s.reduce_sum(s.mul(g, out), axes, True)))


def _masked_softmax_rule(s: Any, g: Any, out: Any, x: Any, mask: Any, axis: Any) -> Any:
    return _softmax_rule(s, g, out, x, axis)


def _log_softmax_rule(s: Any, g: Any, out: Any, x: Any, axis: Any) -> Any:
    axes = normalize_axes(axis, x.ndim, "log_softmax")
    return s.sub(g, s.mul(s.exp(out), s.reduce_sum(g, axes, True)))


def _log_softmax_jvp(s: Any, tangents: Any, inputs: Any, out: Any, axis: Any) -> Any:
    t = tangents[0]
    if t is None:
        return None
    return s.sub(t, s.reduce_sum(s.mul(t, s.exp(out)), normalize_axes(axis, out.ndim, "log_softmax"), True))


def _masked_softmax_jvp(s: Any, tangents: Any, inputs: Any, out: Any, axis: Any) -> Any:
    """softmax's JVP on x's tangent (broadcast with the mask by the product with y)."""
    t = tangents[0]
    return None if t is None else _softmax_rule(s, t, out, inputs[0], axis)


# -- samples and references -------------------------------------------------------------------
def _samples(masked: bool = False, low: float = -4.0, high: float = 4.0) -> Callable[[], Any]:
    def make() -> Any:
        from hypothesis import strategies as st
        from hypothesis.extra import numpy as hnp

        from tenferro.testing.strategies import floats_array

        @st.composite
        def sample(draw: Any) -> SampleInput:
            shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
            x = draw(floats_array(shape, low, high))
            axis = draw(
                st.one_of(
                    st.integers(-len(shape), len(shape) - 1),
                    st.lists(st.integers(0, len(shape) - 1), min_size=1, unique=True, max_size=len(shape)).map(tuple),
                )
            )
            if not masked:
                return SampleInput((x,), {"axis": axis})
            mask_shape = draw(st.sampled_from([shape, shape[1:], shape[-1:]]))  # broadcasts to x
            return SampleInput((x, draw(hnp.arrays(np.bool_, mask_shape))), {"axis": axis})

        return sample()

    return make


def _reference_softmax(x: np.ndarray, axis: Any = -1, mask: Any = True) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    x, mask = np.broadcast_arrays(x, np.asarray(mask))
    axes = normalize_axes(axis, x.ndim, "reference")
    e = np.exp(x) * mask
    total = e.sum(axis=axes, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)


def _reference_log_softmax(x: np.ndarray, axis: Any = -1) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    return x - np.log(np.exp(x).sum(axis=normalize_axes(axis, x.ndim, "reference"), keepdims=True))


def _errors(name: str) -> Callable[[], list[ErrorInput]]:
    def errors() -> list[ErrorInput]:
        cases = [
            ErrorInput((np.zeros(()),), {}, AxisError, "at least one dim"),
            ErrorInput((np.zeros((2, 3)),), {"axis": 2}, AxisError, "out of range"),
            ErrorInput((np.zeros(2, bool),), {}, DTypeError, "argument 'x' has dtype bool"),
        ]
        if name == "masked_softmax":
            cases = [
                ErrorInput((c.args[0], np.ones(np.shape(c.args[0]), bool)), c.params, c.error, c.match) for c in cases
            ]
            cases.append(ErrorInput((np.zeros(3), np.ones(2, bool)), {}, ShapeMismatch, "do not broadcast"))
            cases.append(ErrorInput((np.zeros(3), np.ones(3)), {}, DTypeError, "argument 'mask' has dtype f64"))
        return cases

    return errors


SPECS = [
    OpSpec(
        name="softmax",
        batch=batching.over_axes("axis"),
        inputs=("x",),
        params={"axis": -1},
        forward=_softmax,
        vjps=(_softmax_rule,),
        jvp=self_adjoint(_softmax_rule),
        accepts="f",
        residuals=("out",),
        sample=_samples(),
        reference=_reference_softmax,
        error_inputs=_errors("softmax"),
        doc="exp(x)/sum(exp(x)) over `axis` (default the last), without overflow; an all -inf "
        "slice gives zeros with a zero gradient (PyTorch: nan).",
        kinks=(Kink((np.full((1, 2), -np.inf),), (np.zeros((1, 2)),), g=np.array([[1.0, 2.0]])),),
    ),
    OpSpec(
        name="log_softmax",
        batch=batching.over_axes("axis"),
        inputs=("x",),
        params={"axis": -1},
        forward=_log_softmax,
        vjps=(_log_softmax_rule,),
        jvp=_log_softmax_jvp,
        accepts="f",
        residuals=("out",),
        sample=_samples(),
        reference=_reference_log_softmax,
        error_inputs=_errors("log_softmax"),
        doc="x - logsumexp(x) over `axis` (default the last), without overflow; an all -inf "
        "slice gives -inf, and passes the cotangent through unchanged (PyTorch: nan).",
        kinks=(Kink((np.full((1, 2), -np.inf),), (np.array([[1.0, 2.0]]),), g=np.array([[1.0, 2.0]])),),
    ),
    OpSpec(
        name="masked_softmax",
        inputs=("x", "mask"),
        params={"axis": -1},
        forward=_masked_softmax,
        vjps=(_masked_softmax_rule, None),
        jvp=_masked_softmax_jvp,
        unbroadcast=unbroadcast,
        accepts=("f", "b"),
        residuals=("out",),
        explain=explain_broadcast("masked_softmax", ("x", "mask")),
        sample=_samples(masked=True),
        reference=lambda x, mask, axis=-1: _reference_softmax(x, axis, mask),
        error_inputs=_errors("masked_softmax"),
        doc="softmax of x over `axis` among the positions where the bool `mask` (broadcast with x) "
        "is true; masked positions get 0, and a fully masked slice gives zeros with a zero gradient.",
    ),
]
