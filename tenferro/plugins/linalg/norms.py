"""Norms and the cross product: ``matrix_norm``, ``vector_norm``, ``cross``, as NumPy's (the
array API's), batched over leading axes. Conventions at kinks are PyTorch's
(docs/linalg-decompositions.md): subgradient 0 at x = 0, sign(0) = 0, ties among the
extreme values split the cotangent evenly; the spectral norms differentiate through
``svd``.

Complex inputs: a norm of a complex tensor is real (float64 for complex128, float32 for
complex64), and its gradient is PyTorch's, the real one with sign(x) the phase x/|x|
(0 at 0): g·x/‖x‖ for ord 2 and fro, g·sgn(x) for ord 1. ``cross`` of complex vectors is
NumPy's (no conjugation); its VJPs conjugate the other operand.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from tenferro.extend import (
    ArgumentError,
    AxisError,
    ErrorInput,
    Kink,
    OpSpec,
    ShapeMismatch,
    cast,
    conj,
    explain_broadcast,
    normalize_axes,
    reduced,
    unbroadcast,
)
from tenferro.extend import batching as vmap_rules

from .batching import SQUARE, check_matrix, constant, explain_nonfinite, lazy, scale_columns
from .decomp_common import values
from .svd import svd_reference

_ORDS = ("fro", "nuc", 2, -2, 1, -1, math.inf, -math.inf)


def _check_matrix_ord(ord: Any) -> Any:  # noqa: A002 (NumPy's name)
    for known in _ORDS:
        if type(ord) is not bool and ord == known and (isinstance(known, str) == isinstance(ord, str)):
            return known
    raise ArgumentError(f"matrix_norm: ord must be one of 'fro', 'nuc', 2, -2, 1, -1, inf, -inf; got {ord!r}")


def _matrix_norm(x: Any, ord: Any = "fro", keepdims: bool = False) -> Any:  # noqa: A002
    ord = _check_matrix_ord(ord)  # noqa: A001
    check_matrix("matrix_norm", "x", x)
    if type(x) is np.ndarray or ord in ("nuc", 2, -2):  # (the spectral ones need an svd: NumPy's)
        return np.linalg.matrix_norm(x, ord=ord, keepdims=bool(keepdims))
    return _engine_matrix_norm(x, ord, bool(keepdims))


def _ties(s: Any, x: Any, largest: bool, axis: int = -1) -> Any:
    """1/count where x is at its max (min) along ``axis``, else 0: the even split among tied
    extremes (reduce_max's convention), as a constant. The extreme is x's own, not the
    forward's result, which another LAPACK routine may have rounded differently."""
    x = values(x)
    hit = x == (np.max if largest else np.min)(x, axis=axis, keepdims=True)
    return constant(s, (hit / np.sum(hit, axis=axis, keepdims=True)).astype(x.dtype))


def _norm_ratio(s: Any, x: Any, out: Any) -> Any:
    """x / out, with 0 where out is 0 (the subgradient 0 PyTorch takes at the origin)."""
    safe = s.where_select(s.compare(out, 0.0, "eq"), 1.0, out)
    return s.div(x, safe)


def _matrix_norm_rule(s: Any, g: Any, out: Any, x: Any, ord: Any, keepdims: bool) -> Any:  # noqa: A002
    ord = _check_matrix_ord(ord)  # noqa: A001
    if not keepdims:
        g, out = s.expand_dims(g, (-2, -1)), s.expand_dims(out, (-2, -1))
    if ord == "fro":
        return s.mul(g, _norm_ratio(s, x, out))
    if ord in ("nuc", 2, -2):
        u, sv, vh = s.svd(x)
        if ord == "nuc":
            return s.mul(g, s.matmul(u, vh))
        weights = _ties(s, sv, ord == 2)
        return s.matmul(scale_columns(s, u, s.mul(s.squeeze(g, -1), weights)), vh)
    # 1: the extreme column sum of |x| (its columns share the cotangent); inf: the extreme row sum
    along = -2 if ord in (1, -1) else -1
    sums = s.reduce_sum(s.abs(x), along, keepdims=True)
    return s.mul(s.mul(g, s.sign(x)), _ties(s, sums, ord > 0, -1 if along == -2 else -2))


def _norm_jvp(rule: Any, defaults: dict[str, Any], reduced: Any) -> Any:
    """The forward-mode rule of a real norm from its VJP rule: the norm's gradient K (the
    rule on a cotangent of ones) paired with the tangent, Re Σ conj(K)·dx over the axes
    ``reduced(x, params)`` normalises (the transpose of g ↦ g·K, exactly)."""

    def jvp(s: Any, tangents: Any, inputs: tuple[Any], out: Any, **given: Any) -> Any:
        params = {**defaults, **given}
        x, dx = inputs[0], tangents[0]
        gradient = rule(s, constant(s, np.ones(out.shape, out.dtype)), out, x, **params)
        if gradient is None:
            return None
        paired = s.mul(conj(s, gradient), dx)
        paired = s.real(paired) if paired.dtype.kind == "c" else paired
        axes = reduced(x, params)
        return s.reduce_sum(paired, axes, keepdims=bool(params["keepdims"])) if axes else paired

    return jvp


def _matrix_norm_reference(x: Any, ord: Any = "fro", keepdims: bool = False) -> np.ndarray:  # noqa: A002
    x = np.asarray(x)
    if ord == "fro":
        r = np.sqrt(np.sum(np.abs(x) ** 2, axis=(-2, -1)))
    elif ord in ("nuc", 2, -2):
        sv = svd_reference(x)[1]
        r = {"nuc": np.sum, 2: np.max, -2: np.min}[ord](sv, axis=-1)
    else:
        sums = np.sum(np.abs(x), axis=-2 if ord in (1, -1) else -1)
        r = np.max(sums, axis=-1) if ord > 0 else np.min(sums, axis=-1)
    return r[..., None, None] if keepdims else r


MATRIX_NORM = OpSpec(
    name="matrix_norm",
    explain=explain_nonfinite("matrix_norm", "x"),
    inputs=("x",),
    params={"ord": "fro", "keepdims": False},
    forward=_matrix_norm,
    batch=vmap_rules.leading,
    vjps=(_matrix_norm_rule,),
    jvp=_norm_jvp(_matrix_norm_rule, {"ord": "fro", "keepdims": False}, lambda x, params: (-2, -1)),
    residuals=("x", "out"),
    accepts="fc",
    sample=lazy("matrix_norm"),
    complex_sample=lazy("matrix_norm", "complex_solve_samples"),
    reference=_matrix_norm_reference,
    error_inputs=lambda: [
        ErrorInput((np.zeros(3),), {}, ShapeMismatch, "at least 2-D"),
        ErrorInput((SQUARE,), {"ord": 3}, ArgumentError, "ord must be one of"),
        ErrorInput((SQUARE,), {"ord": "f"}, ArgumentError, "ord must be one of"),
    ],
    kinks=(
        Kink((np.zeros((2, 2)),), (np.zeros((2, 2)),)),  # fro at 0: subgradient 0
        Kink((np.array([[1.0, -2.0], [1.0, 0.0]]),), (np.array([[0.5, -0.5], [0.5, 0.0]]),), {"ord": 1}),
        Kink((np.array([[1.0, -1.0], [2.0, 0.0]]),), (np.array([[0.5, -0.5], [0.5, 0.0]]),), {"ord": math.inf}),
        Kink((np.eye(2),), (np.eye(2) / 2,), {"ord": 2}),
    ),
    doc="The norm `ord` of the matrices in x's last two axes (fro, nuc, 2, -2, 1, -1, inf, -inf), as "
    "NumPy's matrix_norm; real for a complex x. Conventions (PyTorch's): subgradient 0 at x = 0 for fro, ties "
    "among the extreme singular values or column/row sums split the cotangent evenly, sign(0) = 0 (for complex "
    "x, sign is the phase x/|x|).",
)


def _check_vector_ord(ord: Any) -> float:  # noqa: A002
    if isinstance(ord, (bool, str)) or not isinstance(ord, (int, float, np.integer, np.floating)):
        raise ArgumentError(f"vector_norm: ord must be a number (>= 1, 0, inf or -inf), got {ord!r}")
    if not (ord >= 1 or ord == 0 or ord == -math.inf):
        raise ArgumentError(f"vector_norm: ord must be >= 1, 0, inf or -inf (as a norm), got {ord!r}")
    return float(ord)


def _vector_norm(x: Any, axis: Any = None, keepdims: bool = False, ord: Any = 2) -> Any:  # noqa: A002
    p = _check_vector_ord(ord)
    axes = normalize_axes(axis, np.ndim(x), "vector_norm")
    # (NumPy raises a 0-d sum to 1/p with Python's scalar pow, which an engine's array has
    # not: the ufunc's last bit can differ, so orders other than 0, 1, 2, ±inf take the
    # ufunc on NumPy's arrays too, and CpuEngine's and every engine's numbers agree)
    if type(x) is np.ndarray and (p in (0, 1, 2) or math.isinf(p)):
        return np.linalg.vector_norm(x, axis=axes, keepdims=bool(keepdims), ord=p)
    return _engine_vector_norm(x, axes, bool(keepdims), p)


def _engine_vector_norm(x: Any, axes: tuple[int, ...], keepdims: bool, p: float) -> Any:
    """NumPy's vector_norm of an engine's array, which has no np.linalg (dask's): its steps
    (numpy.linalg's norm along one axis, the reduced axes moved to the front as one),
    written with the ufuncs the engine has, so the numbers are NumPy's bitwise."""
    shape = x.shape
    rest = tuple(i for i in range(x.ndim) if i not in axes)
    x = np.reshape(np.transpose(x, axes + rest), (math.prod(shape[i] for i in axes), *(shape[i] for i in rest)))
    if x.dtype.kind not in "fc":
        x = cast(x, np.float64)
    if p == 2:
        result = _root_sum_squares(x, 0)
    elif p == 0:
        result = reduced(np.add, cast(np.not_equal(x, 0), np.real(x).dtype), axis=0)
    elif p == 1:
        result = reduced(np.add, np.abs(x), axis=0)
    elif math.isinf(p):
        result = reduced(_extreme(p), np.abs(x), axis=0)
    else:
        total = reduced(np.add, np.power(np.abs(x), p), axis=0)
        result = np.power(total, np.reciprocal(p, dtype=total.dtype))  # (numpy.linalg's: in the sum's dtype)
    if keepdims:
        result = np.reshape(result, tuple(1 if i in axes else n for i, n in enumerate(shape)))
    return result


def _engine_matrix_norm(x: Any, ord: Any, keepdims: bool) -> Any:  # noqa: A002
    """NumPy's matrix_norm of an engine's array, for the orders reductions give (the
    spectral ones need an svd): numpy.linalg's steps with the engine's ufuncs."""
    row, col = x.ndim - 2, x.ndim - 1
    if ord == "fro":
        result = _root_sum_squares(x, (row, col))
    else:  # ±1: the extreme column sum of |x|; ±inf: the extreme row sum
        summed, then = (row, col - 1) if ord in (1, -1) else (col, row)
        result = reduced(_extreme(ord), reduced(np.add, np.abs(x), axis=summed), axis=then)
    return np.reshape(result, (*x.shape[:-2], 1, 1)) if keepdims else result


def _root_sum_squares(x: Any, axis: Any) -> Any:
    """numpy.linalg's 2-norm and Frobenius norm: sqrt of the sum of (conj(x)·x).real."""
    return np.sqrt(reduced(np.add, np.real(np.multiply(np.conj(x), x)), axis=axis))


def _extreme(order: Any) -> np.ufunc:
    """The reduction of a norm of positive (max) or negative (min) order."""
    return np.maximum if order > 0 else np.minimum


def _vector_norm_rule(s: Any, g: Any, out: Any, x: Any, axis: Any, keepdims: bool, ord: Any) -> Any:  # noqa: A002
    p = _check_vector_ord(ord)
    axes = normalize_axes(axis, x.ndim, "vector_norm")
    if p == 0:  # counts nonzeros: piecewise constant
        return None
    if not keepdims and axes:
        g, out = s.expand_dims(g, axes), s.expand_dims(out, axes)
    if p == 2:
        return s.mul(g, _norm_ratio(s, x, out))
    if p == 1:
        return s.mul(g, s.sign(x))
    if math.isinf(p):  # the tied extremes of |x| share the cotangent
        hit = np.abs(values(x)) == values(out)
        share = hit / np.sum(hit, axis=axes, keepdims=True)
        return s.mul(s.mul(g, s.sign(x)), constant(s, share.astype(values(out).dtype)))
    # d/dx (Σ|x|^p)^(1/p) = sign(x) |x|^(p-1) / out^(p-1), 0 where out is 0
    safe = s.where_select(s.compare(out, 0.0, "eq"), 1.0, out)
    return s.mul(g, s.mul(s.sign(x), s.pow(s.div(s.abs(x), safe), p - 1.0)))


def _vector_norm_reference(x: Any, axis: Any = None, keepdims: bool = False, ord: Any = 2) -> np.ndarray:  # noqa: A002
    x = np.abs(np.asarray(x, dtype=np.result_type(x, float)))
    axes = tuple(range(x.ndim)) if axis is None else axis
    if ord == math.inf:
        r = np.max(x, axis=axes, keepdims=keepdims)
    elif ord == -math.inf:
        r = np.min(x, axis=axes, keepdims=keepdims)
    elif ord == 0:
        r = np.sum(x != 0, axis=axes, keepdims=keepdims).astype(float)
    else:
        r = np.sum(x**ord, axis=axes, keepdims=keepdims) ** (1.0 / ord)
    return np.asarray(r)


VECTOR_NORM = OpSpec(
    name="vector_norm",
    inputs=("x",),
    params={"axis": None, "keepdims": False, "ord": 2},
    forward=_vector_norm,
    vjps=(_vector_norm_rule,),
    jvp=_norm_jvp(
        _vector_norm_rule,
        {"axis": None, "keepdims": False, "ord": 2},
        lambda x, params: normalize_axes(params["axis"], x.ndim, "vector_norm"),
    ),
    residuals=("x", "out"),
    accepts="fc",
    sample=lazy("vector_norm"),
    complex_sample=lazy("vector_norm", "complex_solve_samples"),
    reference=_vector_norm_reference,
    error_inputs=lambda: [
        ErrorInput((np.zeros(3),), {"ord": 0.5}, ArgumentError, "ord must be >= 1"),
        ErrorInput((np.zeros(3),), {"ord": "fro"}, ArgumentError, "ord must be a number"),
        ErrorInput((np.zeros(3),), {"axis": 1}, AxisError, "out of range"),
    ],
    kinks=(
        Kink((np.zeros(3),), (np.zeros(3),)),  # ord 2 at 0: subgradient 0 (PyTorch's)
        Kink((np.array([0.0, -2.0]),), (np.array([0.0, -1.0]),), {"ord": 1}),  # sign(0) = 0
        Kink((np.array([2.0, -2.0, 1.0]),), (np.array([0.5, -0.5, 0.0]),), {"ord": math.inf}),
    ),
    doc="The vector norm `ord` of x over `axis` (None: all; an int or tuple), the array API's: "
    "ord 2, 1, any p >= 1, inf, -inf, or 0 (the count of nonzeros, gradient 0); real for a complex x. "
    "Conventions (PyTorch's): subgradient 0 at x = 0, sign(0) = 0 (for complex x, sign is the phase x/|x|), "
    "ties for inf/-inf split evenly.",
)


# -- cross -----------------------------------------------------------------------------------
def _cross(a: Any, b: Any, axis: int = -1) -> Any:
    for name, t in (("a", a), ("b", b)):
        ndim = np.ndim(t)
        if not (isinstance(axis, (int, np.integer)) and not isinstance(axis, bool)) or not -ndim <= axis < ndim:
            raise AxisError(f"cross: axis {axis!r} is out of range for argument {name!r} of shape {list(np.shape(t))}")
    if np.shape(a)[axis] != 3 or np.shape(b)[axis] != 3:
        raise ShapeMismatch(
            f"cross: a has shape {list(np.shape(a))} and b {list(np.shape(b))}; both need size 3 along axis {axis} "
            f"(3-vectors)"
        )
    if type(a) is np.ndarray and type(b) is np.ndarray:
        return np.cross(a, b, axis=axis)
    # an engine's array (dask has no cross): NumPy's steps, each component a1·b2 - a2·b1 of
    # the operands cast to their common dtype first, so the numbers are NumPy's bitwise
    dtype = np.promote_types(a.dtype, b.dtype)
    u, w = (np.moveaxis(cast(t, dtype), axis, -1) for t in (a, b))
    parts = [u[..., i] * w[..., j] - u[..., j] * w[..., i] for i, j in ((1, 2), (2, 0), (0, 1))]
    return np.moveaxis(np.stack(parts, axis=-1), -1, axis)


def _cross_reference(a: Any, b: Any, axis: int = -1) -> np.ndarray:
    u, w = np.moveaxis(np.asarray(a), axis, -1), np.moveaxis(np.asarray(b), axis, -1)
    parts = [
        u[..., 1] * w[..., 2] - u[..., 2] * w[..., 1],
        u[..., 2] * w[..., 0] - u[..., 0] * w[..., 2],
        u[..., 0] * w[..., 1] - u[..., 1] * w[..., 0],
    ]
    return np.moveaxis(np.stack(parts, -1), -1, axis)


CROSS = OpSpec(
    name="cross",
    inputs=("a", "b"),
    params={"axis": -1},
    forward=_cross,
    vjps=(  # ⟨g, a × b⟩ = ⟨a, conj(b) × g⟩ = ⟨b, g × conj(a)⟩ (conj: no op for real vectors)
        lambda s, g, out, a, b, axis: s.cross(conj(s, b), g, axis),
        lambda s, g, out, a, b, axis: s.cross(g, conj(s, a), axis),
    ),
    unbroadcast=unbroadcast,
    multilinear=True,
    accepts="fc",
    explain=explain_broadcast("cross", ("a", "b")),
    sample=lazy("cross_pair"),
    complex_sample=lazy("cross_pair", "complex_solve_samples"),
    reference=_cross_reference,
    error_inputs=lambda: [
        ErrorInput((np.zeros(3), np.zeros(2)), {}, ShapeMismatch, "both need size 3"),
        ErrorInput((np.zeros((2, 3)), np.zeros((3, 3))), {}, ShapeMismatch, "do not broadcast"),
        ErrorInput((np.zeros(3), np.zeros(3)), {"axis": 1}, AxisError, "out of range"),
    ],
    doc="The cross product of the 3-vectors along `axis` of a and b (broadcasting), as NumPy's cross (complex "
    "vectors too, without conjugation).",
)

SPECS = [MATRIX_NORM, VECTOR_NORM, CROSS]
