"""``var`` and ``std`` over ``axes``, with the array API's ``correction`` (NumPy's ``ddof``).

var = sum(|x - mean|²) / max(N - correction, 0); its VJP is 2(x - mean)/(N - correction) times
the spread cotangent, written with ``reduce_mean`` so that the second derivative (where the
mean's dependence on x no longer cancels) comes out right. On a complex x both are real
(NumPy's and PyTorch's definition), and the same rule gives the gradient in the real inner
product (PyTorch's var_backward).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tenferro.extend import ArgumentError, ErrorInput, Kink, OpSpec, SampleInput, cast, normalize_axes, reduced

from .axes import check_keepdims, kept_shape
from .reductions import count_of, reduction_errors, spread


def _correction(correction: Any, op: str) -> float:
    if isinstance(correction, (bool, np.bool_)) or not isinstance(correction, (int, float, np.integer, np.floating)):
        raise ArgumentError(
            f"{op}: correction must be a number (0 for the population, 1 for the sample), got {correction!r}"
        )
    return correction


def _var(x: np.ndarray, axes: Any = None, correction: Any = 0, keepdims: bool = False, op: str = "var") -> np.ndarray:
    axis = normalize_axes(axes, x.ndim, op)
    keep = check_keepdims(keepdims, op)
    correction = _correction(correction, op)
    if x.dtype.kind not in "fc":
        x = cast(x, np.float64)
    count = count_of(x.shape, axis)
    mean = np.divide(reduced(np.add, x, axis=axis, keepdims=True), count)
    centered = np.subtract(x, mean)
    if x.dtype.kind == "c":  # |c|² = re² + im², a real result
        real, imag = np.real(centered), np.imag(centered)
        squares = np.add(np.multiply(real, real), np.multiply(imag, imag))
    else:
        squares = np.multiply(centered, centered)
    total = reduced(np.add, squares, axis=axis, keepdims=keep)
    with np.errstate(divide="ignore", invalid="ignore"):  # N - correction <= 0: inf or nan, as NumPy
        return np.divide(total, squares.dtype.type(_dof(count, correction)))


def _dof(count: int, correction: Any) -> Any:
    """The divisor N - correction, never below 0 (NumPy's max(N - ddof, 0)): a correction
    above N gives inf (or nan for 0/0), not a negative variance."""
    return max(count - correction, 0)


def _std(x: np.ndarray, axes: Any = None, correction: Any = 0, keepdims: bool = False) -> np.ndarray:
    return np.sqrt(_var(x, axes, correction, keepdims, op="std"))


def _centered_scaled(s: Any, x: Any, axes: tuple[int, ...], correction: Any) -> Any:
    """(x - mean) / (N - correction), with the mean as a recorded op."""
    centered = s.sub(x, s.reduce_mean(x, axes, True))
    return s.div(centered, _dof(count_of(x.shape, axes), correction))


def _var_rule(s: Any, g: Any, out: Any, x: Any, axes: Any, correction: Any, keepdims: bool) -> Any:
    axes = normalize_axes(axes, x.ndim, "var")
    return s.mul(spread(s, s.mul(g, 2.0), x, axes, keepdims), _centered_scaled(s, x, axes, correction))


def _var_tangent(s: Any, t: Any, x: Any, axes: tuple[int, ...], correction: Any, keepdims: bool) -> Any:
    """sum(2·Re(conj(x - mean)·t)) / (N - correction): the transpose of var's VJP."""
    scaled = _centered_scaled(s, x, axes, correction)
    along = s.mul(scaled, t) if x.dtype.kind != "c" else s.real(s.mul(s.conj(scaled), t))
    return s.reduce_sum(s.mul(along, 2.0), axes, keepdims)


def _var_jvp(s: Any, tangents: Any, inputs: Any, out: Any, axes: Any, correction: Any, keepdims: bool) -> Any:
    (t,), (x,) = tangents, inputs
    return None if t is None else _var_tangent(s, t, x, normalize_axes(axes, x.ndim, "var"), correction, keepdims)


def _std_jvp(s: Any, tangents: Any, inputs: Any, out: Any, axes: Any, correction: Any, keepdims: bool) -> Any:
    """d var / (2 std), 0 where std = 0 (as the VJP)."""
    (t,), (x,) = tangents, inputs
    if t is None:
        return None
    d_var = _var_tangent(s, t, x, normalize_axes(axes, x.ndim, "std"), correction, keepdims)
    zero = s.compare(out, 0, "eq")
    return s.where_select(zero, 0.0, s.div(d_var, s.mul(s.where_select(zero, 1.0, out), 2.0)))


def _std_rule(s: Any, g: Any, out: Any, x: Any, axes: Any, correction: Any, keepdims: bool) -> Any:
    # d std = d var / (2 std), and 0 where std = 0 (also where it underflows to 0), as
    # PyTorch's std_backward masks it; the division is by a safe 1 there, so that no
    # inf or nan reaches a second derivative either.
    axes = normalize_axes(axes, x.ndim, "std")
    zero = s.compare(out, 0, "eq")
    share = s.where_select(zero, 0.0, s.div(g, s.where_select(zero, 1.0, out)))
    return s.mul(spread(s, share, x, axes, keepdims), _centered_scaled(s, x, axes, correction))


def _samples(spread_apart: bool) -> Callable[[], Any]:
    """An array, axes, keepdims and a correction of 0 or 1 that leaves N - correction > 0;
    for std, at least two distinct elements per reduced slice (std > 0, where it is smooth)."""

    def make() -> Any:
        from hypothesis import strategies as st

        from tenferro.testing.strategies import SHAPES, axes_for, distinct_array, floats_array

        @st.composite
        def sample(draw: Any) -> SampleInput:
            shape = draw(SHAPES)
            axes = draw(axes_for(len(shape)))
            count = count_of(shape, normalize_axes(axes, len(shape), "sample"))
            if spread_apart and count < 2:
                axes = None
                shape = shape if int(np.prod(shape)) >= 2 else (*shape, 2)
                count = 2
            x = draw(distinct_array(shape)) if spread_apart else draw(floats_array(shape))
            correction = draw(st.sampled_from([0, 1, 0.5])) if count > 1 else 0
            return SampleInput((x,), {"axes": axes, "correction": correction, "keepdims": draw(st.booleans())})

        return sample()

    return make


def _reference(root: bool) -> Callable[..., np.ndarray]:
    def reference(x: np.ndarray, axes: Any = None, correction: Any = 0, keepdims: bool = False) -> np.ndarray:
        axis = normalize_axes(axes, np.ndim(x), "reference")
        x = np.asarray(x)
        x = x if x.dtype.kind == "c" else cast(x, np.float64)
        out = np.var(x, axis=axis, ddof=correction, keepdims=keepdims)
        return np.sqrt(out) if root else out

    return reference


def _errors(name: str) -> Callable[[], list[ErrorInput]]:
    def errors() -> list[ErrorInput]:
        bad = ErrorInput((np.zeros(3),), {"correction": "1"}, ArgumentError, "correction must be a number")
        return [*reduction_errors(name)(), bad]

    return errors


def _statistic(name: str, forward: Callable[..., np.ndarray], rule: Any, jvp: Any, doc: str, **kw: Any) -> OpSpec:
    return OpSpec(
        name=name,
        inputs=("x",),
        params={"axes": None, "correction": 0, "keepdims": False},
        forward=forward,
        vjps=(rule,),
        jvp=jvp,
        accepts="fiuc",
        sample=_samples(spread_apart=name == "std"),
        reference=_reference(root=name == "std"),
        error_inputs=_errors(name),
        doc=doc,
        **kw,
    )


SPECS = [
    _statistic(
        "var",
        _var,
        _var_rule,
        _var_jvp,
        "Variance over `axes`: sum(|x - mean|**2) / (N - correction) (correction = NumPy's ddof; "
        "integers give float64, complex a real result; N - correction <= 0 gives inf or nan, as NumPy).",
        residuals=("x",),
    ),
    _statistic(
        "std",
        _std,
        _std_rule,
        _std_jvp,
        "Standard deviation over `axes`, sqrt(var(x, axes, correction)). Convention (PyTorch's): "
        "where std = 0 (all elements of a slice equal, or std underflows) the gradient is 0.",
        residuals=("x", "out"),
        kinks=(Kink((np.ones(3),), (np.zeros(3),)), Kink((np.array([1e-200, 2e-200, 3e-200]),), (np.zeros(3),))),
    ),
]

__all__ = ["SPECS", "kept_shape"]
