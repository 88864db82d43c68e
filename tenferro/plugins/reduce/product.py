"""``reduce_prod`` and the two ops that make its derivatives exact where elements are zero.

The gradient of a product is, per element, the product of all *other* elements. The usual
``out / x`` is 0/0 at zeros, so ``prod_except`` computes the leave-one-out products
directly from exclusive cumulative products (exact with any number of zeros). Its own VJP,
``prod_except_vjp``, is a kernel built from two scans (no division); it has no VJP
of its own, so ``reduce_prod`` is exact to second order and a third derivative raises
``NotDifferentiable`` rather than returning a wrong number.

On complex inputs the product is holomorphic: each rule is g·conj(∂), and since both
kernels are polynomials with real coefficients, conj(∂) is the same kernel of conj(x).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tenferro.extend import (
    AxisError,
    ErrorInput,
    OpSpec,
    SampleInput,
    ShapeMismatch,
    conj,
    copied,
    is_chunked,
    normalize_axes,
)

from .reductions import reduction, reduction_errors, sequential_reference, spread, ufunc_reduce_for_floats


def _rows(x: np.ndarray, axes: tuple[int, ...]) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
    """``x`` with the reduced axes moved last and flattened to shape (rows, n), and the
    function that puts an array of that shape back into ``x``'s layout."""
    rest = [i for i in range(x.ndim) if i not in axes]
    perm = rest + list(axes)
    moved = np.transpose(x, perm)
    n = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    rows = np.reshape(moved, (int(np.prod([x.shape[a] for a in rest], dtype=np.int64)), n))
    inverse = sorted(range(x.ndim), key=perm.__getitem__)
    return rows, lambda y: np.transpose(np.reshape(y, moved.shape), inverse)


def _exclusive_products(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row and element, the product of the elements left of it and right of it."""
    ones = np.ones_like(rows[:, :1])
    left = np.cumprod(np.concatenate([ones, rows[:, :-1]], axis=1), axis=1)
    right = np.cumprod(np.concatenate([ones, rows[:, :0:-1]], axis=1), axis=1)[:, ::-1]
    return left, right


def _prod_except(x: np.ndarray, axes: Any = None) -> np.ndarray:
    rows, restore = _rows(x, normalize_axes(axes, x.ndim, "prod_except"))
    if rows.shape[1] == 0:
        return restore(copied(rows))
    left, right = _exclusive_products(rows)
    return restore(left * right)


def _affine_scan(scale: np.ndarray, shift: np.ndarray) -> np.ndarray:
    """Per row, y_k = scale_k · y_(k-1) + shift_k with y_(-1) = 0, for every k at once:
    a Hillis-Steele scan over the composition of affine maps (log2(n) passes, no division)."""
    if is_chunked(scale, shift):  # no writes into an engine's chunked array: each pass joined anew
        y, factor, step = shift, scale, 1
        while step < y.shape[1]:
            y = np.concatenate([y[:, :step], factor[:, step:] * y[:, :-step] + y[:, step:]], axis=1)
            factor = np.concatenate([factor[:, :step], factor[:, step:] * factor[:, :-step]], axis=1)
            step *= 2
        return y
    y, factor = np.copy(shift), np.copy(scale)
    step = 1
    while step < y.shape[1]:
        y[:, step:] = factor[:, step:] * y[:, :-step] + y[:, step:]
        factor[:, step:] = factor[:, step:] * factor[:, :-step]
        step *= 2
    return y


def _exclusive_shift(y: np.ndarray) -> np.ndarray:
    """y shifted one place right along each row, with 0 first."""
    return np.concatenate([np.zeros_like(y[:, :1]), y[:, :-1]], axis=1)


def _prod_except_vjp(x: np.ndarray, g: np.ndarray, axes: Any = None) -> np.ndarray:
    """ct_k = sum over i != k of g_i · prod(x_j for j not in {i, k}), per row of the reduced
    axes. With L_k, R_k the products of the elements left and right of k, the part with
    i < k is A_k·R_k where A_(k+1) = x_k·A_k + g_k·L_k (a scan), and symmetrically on the
    right; only products and sums, so zeros need no special case."""
    axes = normalize_axes(axes, x.ndim, "prod_except_vjp")
    if g.shape != x.shape:
        raise ShapeMismatch(f"prod_except_vjp: g has shape {list(g.shape)}; it must have x's shape {list(x.shape)}")
    rows, restore = _rows(x, axes)
    if rows.shape[1] == 0:
        return restore(copied(rows))
    g_rows, _ = _rows(g, axes)
    left, right = _exclusive_products(rows)
    from_left = _exclusive_shift(_affine_scan(rows, g_rows * left))
    from_right = _exclusive_shift(_affine_scan(rows[:, ::-1], (g_rows * right)[:, ::-1]))[:, ::-1]
    return restore(from_left * right + from_right * left)


def _prod_rule(s: Any, g: Any, out: Any, x: Any, axes: Any, keepdims: bool) -> Any:
    axes = normalize_axes(axes, x.ndim, "reduce_prod")
    return s.mul(spread(s, g, x, axes, keepdims), conj(s, s.prod_except(x, axes)))


def _prod_except_rule(s: Any, g: Any, out: Any, x: Any, axes: Any) -> Any:
    return s.prod_except_vjp(conj(s, x), g, axes)  # linear in g: g·conj(∂) is the kernel at conj(x)


def _prod_jvp(s: Any, tangents: Any, inputs: Any, out: Any, axes: Any, keepdims: bool) -> Any:
    """sum(t·prod_except(x)) over the axes."""
    (t,), (x,) = tangents, inputs
    if t is None:
        return None
    axes = normalize_axes(axes, x.ndim, "reduce_prod")
    return s.reduce_sum(s.mul(t, s.prod_except(x, axes)), axes, keepdims)


def _prod_except_jvp(s: Any, tangents: Any, inputs: Any, out: Any, axes: Any) -> Any:
    """prod_except's Jacobian (the products of all elements but two) is symmetric, so its
    JVP is the VJP kernel at x (not conj(x)) on the tangent; a transposed VJP would need
    prod_except_vjp's derivative, which it does not have."""
    t = tangents[0]
    return None if t is None else s.prod_except_vjp(inputs[0], t, axes)


# -- references: brute force over each row -----------------------------------------------
def _brute_prod_except(x: np.ndarray, axes: Any = None) -> np.ndarray:
    rows, restore = _rows(np.asarray(x), normalize_axes(axes, np.ndim(x), "reference"))
    n = rows.shape[1]
    out = np.array([[np.prod(np.delete(row, k)) for k in range(n)] for row in rows]).reshape(rows.shape)
    return restore(out)


def _brute_prod_except_vjp(x: np.ndarray, g: np.ndarray, axes: Any = None) -> np.ndarray:
    axes = normalize_axes(axes, np.ndim(x), "reference")
    rows, restore = _rows(np.asarray(x), axes)
    g_rows, _ = _rows(np.asarray(g), axes)
    out = np.zeros(rows.shape, np.result_type(rows, g_rows))
    for r, (row, g_row) in enumerate(zip(rows, g_rows)):
        for k in range(rows.shape[1]):
            out[r, k] = sum(g_row[i] * np.prod(np.delete(row, [i, k])) for i in range(rows.shape[1]) if i != k)
    return restore(out)


def _with_zeros_sample(cotangent: bool, keepdims: bool = False, complex_: bool = False) -> Callable[[], Any]:
    """Samples of (x[, g], axes) where x often holds exact zeros: products are polynomials,
    smooth at zeros, so finite differences check the zero cases too. With ``complex_``,
    x (and g) are complex128, the zeros exact 0j."""

    def make() -> Any:
        from hypothesis import strategies as st
        from hypothesis.extra import numpy as hnp

        from tenferro.testing.strategies import SHAPES, axes_for, floats_array

        @st.composite
        def sample(draw: Any) -> SampleInput:
            shape = draw(SHAPES)
            x = draw(floats_array(shape, -2.0, 2.0))
            if complex_:
                x = x + 1j * draw(floats_array(shape, -1.0, 1.0))
            x = np.where(draw(hnp.arrays(np.bool_, shape)), 0.0, x)
            g = draw(floats_array(shape))
            if complex_:
                g = np.asarray(g + 1j * draw(floats_array(shape)))
            args = (x, g) if cotangent else (x,)
            params = {"axes": draw(axes_for(len(shape)))}
            if keepdims:
                params["keepdims"] = draw(st.booleans())
            return SampleInput(args, params)

        return sample()

    return make


SPECS = [
    reduction(
        "reduce_prod",
        ufunc_reduce_for_floats(np.multiply, np.prod),
        _prod_rule,
        sequential_reference(lambda x, a: np.multiply.reduce(x, axis=a)),
        "Product over `axes`. Its gradient is exact where elements are zero (to second order); "
        "holomorphic on complex inputs.",
        sample=_with_zeros_sample(cotangent=False, keepdims=True),
        complex_sample=_with_zeros_sample(cotangent=False, keepdims=True, complex_=True),
        residuals=("x",),
        accepts="fiuc",
        jvp=_prod_jvp,
    ),
    OpSpec(
        name="prod_except",
        internal=True,
        inputs=("x",),
        params={"axes": None},
        forward=_prod_except,
        vjps=(_prod_except_rule,),
        jvp=_prod_except_jvp,
        accepts="fc",
        residuals=("x",),
        sample=_with_zeros_sample(cotangent=False),
        complex_sample=_with_zeros_sample(cotangent=False, complex_=True),
        reference=_brute_prod_except,
        error_inputs=reduction_errors("prod_except", keepdims=False),
        second_order=False,
        doc="For each element, the product of the other elements along `axes` (same shape as x); reduce_prod's VJP.",
    ),
    OpSpec(
        name="prod_except_vjp",
        internal=True,
        inputs=("x", "g"),
        params={"axes": None},
        forward=_prod_except_vjp,
        accepts="fc",
        sample=_with_zeros_sample(cotangent=True),
        complex_sample=_with_zeros_sample(cotangent=True, complex_=True),
        reference=_brute_prod_except_vjp,
        error_inputs=lambda: [
            ErrorInput((np.zeros(2), np.zeros(3)), {"axes": None}, ShapeMismatch, "must have x's shape"),
            ErrorInput((np.zeros(2), np.zeros(2)), {"axes": 1}, AxisError, "out of range"),
        ],
        doc="The VJP of prod_except with cotangent g; exact with zeros, not differentiable itself.",
    ),
]
