"""What the decompositions share beyond :mod:`.batching`: the internal op
``decomp_triu_inv`` (the inverse of an upper-triangular matrix, qr's rule, with its own VJP
so second order works); the gauges of the kernels (a sign for real vectors, a phase for complex
ones) and the cotangent term that differentiates the phase gauge; the shape errors of a
matrix argument; and the check that refuses to differentiate eigenvectors (singular
vectors) at a (nearly) degenerate spectrum.

Complex matrices: every rule is written once, for real and complex inputs, with
:func:`.batching.mH` (the conjugate transpose, the plain transpose of a real matrix with no conj
recorded) and ``tenferro.extend.conj``; cotangents live in the real inner product
Re(conj(a)·b), PyTorch's convention.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tenferro.extend import ErrorInput, NotDifferentiable, OpSpec, ShapeMismatch, conj
from tenferro.extend import batching as vmap_rules

from .batching import check_matrix, constant, eye, lazy, mH, mT


def inverse_gaps(s: Any, w: Any) -> Any:
    """F with F[i, j] = 1 / (w[j] - w[i]) off the diagonal and 0 on it, from session ops (so it
    is differentiable in w). Callers check first that no used gap is (nearly) zero."""
    n = w.shape[-1]
    one = eye(s, n, w.dtype)
    gaps = s.add(s.sub(s.expand_dims(w, -2), s.expand_dims(w, -1)), one)  # 1 on the diagonal
    return s.mul(s.div(1.0, gaps), constant(s, 1.0 - np.eye(n, dtype=w.dtype)))


def is_complex(t: Any) -> bool:
    return t.dtype.kind == "c"


def adjoint(t: Any) -> Any:
    """:func:`.batching.mH` for a complex ``t``, :func:`.batching.mT` for a real one: a rule
    picks its transpose once, and the real path makes no extra calls."""
    return mH if t.dtype.kind == "c" else mT


def hermitian_part(s: Any, x: Any) -> Any:
    """(x + xᴴ)/2, the matrix eigh and eigvalsh read (and cholesky), so also the map from a's
    tangent to its tangent and, being self-adjoint in Re(conj(a)·b), from its cotangent to
    a's: the gradient of every op of a symmetric (Hermitian) input is symmetric (Hermitian)."""
    return s.mul(s.add(x, adjoint(x)(s, x)), 0.5)


def hermitian_values(a: Any) -> Any:
    """(a + aᴴ)/2 of a kernel's array (bitwise a itself for an exactly Hermitian a; a real
    diagonal), made with NumPy's functions so other engines' arrays stay their own."""
    adjoint_ = np.swapaxes(a, -1, -2)
    return np.multiply(np.add(a, np.conjugate(adjoint_) if np.iscomplexobj(a) else adjoint_), 0.5)


def diagonal_of_product(s: Any, v: Any, x: Any) -> Any:
    """diag(Vᴴ X) (..., K) without the off-diagonal products: Σᵢ conj(V[i, k]) X[i, k]."""
    return s.reduce_sum(s.mul(conj(s, v), x), -2)


def values(t: Any) -> np.ndarray:
    """The values of a tensor a rule got (read to decide a convention, not differentiated)."""
    return np.asarray(t)


# -- conventions -----------------------------------------------------------------------------
def gap_tolerance(w: np.ndarray) -> np.ndarray:
    """How close two eigenvalues (singular values) of one matrix may come before the derivative
    of their vectors counts as undefined: sqrt(eps) times the matrix's largest |value|, per
    matrix (shape ``w.shape[:-1] + (1, 1)``)."""
    eps = np.finfo(w.dtype).eps
    scale = np.max(np.abs(w), axis=-1, initial=0.0)
    return (np.sqrt(eps) * scale)[..., None, None]


def refuse_degenerate(op: str, w: np.ndarray, used: np.ndarray, what: str, alternative: str) -> None:
    """Raise NotDifferentiable when two values of ``w`` (per matrix, last axis) whose vectors
    carry a cotangent (``used``, same shape) are closer than :func:`gap_tolerance`: the
    derivative of those vectors has a 1/(w[j] - w[i]) that is infinite there (PyTorch returns
    inf/nan silently; tenferro refuses, naming the values)."""
    if w.shape[-1] < 2:
        return
    close = np.abs(w[..., None, :] - w[..., :, None]) <= gap_tolerance(w)
    close &= ~np.eye(w.shape[-1], dtype=bool)
    close &= used[..., None, :] | used[..., :, None]
    if not close.any():
        return
    where = np.argwhere(close)[0]
    batch, i, j = tuple(int(k) for k in where[:-2]), int(where[-2]), int(where[-1])
    at = f" of the matrix at batch index {batch}" if batch else ""
    number = complex if np.iscomplexobj(w) else float
    wi, wj = number(w[(*batch, i)]), number(w[(*batch, j)])
    raise NotDifferentiable(
        f"{op}: {what} {i} and {j}{at} are (nearly) equal ({wi!r} and {wj!r}), so "
        f"the derivative of their vectors is not defined (its 1/(w[j] - w[i]) terms are infinite); "
        f"{alternative}"
    )


def used_columns(g: Any) -> np.ndarray:
    """Which columns (last axis) of a cotangent have a nonzero entry."""
    return np.any(values(g) != 0, axis=-2)


def column_phases(v: Any) -> Any:
    """Per column of v (last axis; shape (..., 1, K)), the unit factor that makes its
    largest-magnitude entry (the first such where two tie) real and positive: +1 or -1 for a
    real v, conj(p)/|p| for a complex v with that entry p (zgeev's normalisation, LAPACK's
    for complex eigenvectors). The gauge of eigh's and eig's eigenvectors and svd's left
    singular vectors."""
    pivot = np.take_along_axis(v, np.argmax(np.abs(v), axis=-2, keepdims=True), axis=-2)
    if v.dtype.kind == "c":
        size = np.abs(pivot)
        return np.divide(np.conj(pivot), np.where(size == 0, np.ones_like(size), size))  # 0 only for 0 columns
    one = np.ones_like(pivot)  # of v's dtype (and array type): float32 stays float32
    return np.where(np.less(pivot, 0), np.negative(one), one)


def real_pivots(v: Any) -> Any:
    """``v`` (a fresh complex array, its columns gauge-fixed by :func:`column_phases`) with its
    pivots' imaginary parts, rounding errors, set to exactly 0 (as zgeev does), in place."""
    rows = np.argmax(np.abs(v), axis=-2, keepdims=True)
    np.put_along_axis(v, rows, np.real(np.take_along_axis(v, rows, axis=-2)), axis=-2)
    return v


def pivot_mask(v: Any) -> np.ndarray:
    """Where each column of a complex ``v`` has the entry the phase gauge made real and
    positive (the first of largest magnitude): a 0/1 array of v's shape and dtype."""
    value = values(v)
    rows = np.argmax(np.abs(value), axis=-2, keepdims=True)
    mask = np.zeros(value.shape, value.dtype)
    np.put_along_axis(mask, rows, 1, axis=-2)
    return mask


def phase_gauge_cotangent(s: Any, gv: Any, v: Any, other: Any = None) -> Any:
    """The cotangent of the eigenvectors (left singular vectors) ``v`` before their phase
    gauge, from the cotangent ``gv`` of the gauge-fixed ``v`` (the kernel's result); for a
    complex v only (a real v's sign gauge is locally constant: gv itself).

    The gauge multiplies column k by a phase that keeps its pivot p (the entry
    :func:`pivot_mask` marks) real and positive; differentiating that phase gives
    gv - i·Im(dₖ)/v[p, k] at the pivot, with dₖ = (vᴴ gv)ₖₖ, plus (vᴴ gw)ₖₖ of the vectors
    ``other`` = (w, gw) the gauge moves along with v (svd's right singular vectors). After
    it, Im(dₖ) (+ Im of other's term) is 0: the loss seen through the gauge is invariant
    under v → v·e^{iθ}, the condition PyTorch's rules (linalg_eig_backward, svd_backward)
    check, so their formulas apply to it."""
    if not is_complex(v):
        return gv
    d = s.reduce_sum(s.mul(conj(s, v), gv), -2)  # diag(vᴴ gv)
    if other is not None:
        w, gw = other
        d = s.add(d, s.reduce_sum(s.mul(conj(s, w), gw), -2))
    mask = constant(s, pivot_mask(v))
    pivot = s.reduce_sum(s.mul(v, mask), -2)
    term = s.div(s.mul(s.astype(s.imag(d), v.dtype), 1j), pivot)
    return s.sub(gv, s.mul(mask, s.expand_dims(term, -2)))


def phase_gauge_tangent(s: Any, dv: Any, v: Any, other: Any = None) -> Any:
    """The tangent of the gauge-fixed eigenvectors (left singular vectors) ``v`` from the
    tangent ``dv`` of any smooth choice of them; the transpose of
    :func:`phase_gauge_cotangent`, for a complex v only (a real v's sign gauge is locally
    constant: dv itself). Column k turns by the phase e^{iθₖ} that keeps its pivot p real:
    dθₖ = -Im(dv[p, k] / v[p, k]), so dv + i·v·diag(dθ); ``other`` = (w, dw), vectors the
    gauge turns along with v (svd's right singular vectors), gets the same turn. Returns
    dv, or (dv, dw) with ``other``."""
    if not is_complex(v):
        return dv if other is None else (dv, other[1])
    mask = constant(s, pivot_mask(v))
    ratio = s.div(s.reduce_sum(s.mul(dv, mask), -2), s.reduce_sum(s.mul(v, mask), -2))
    turn = s.expand_dims(s.mul(s.astype(s.neg(s.imag(ratio)), v.dtype), 1j), -2)  # i·dθ (..., 1, K)
    dv = s.add(dv, s.mul(v, turn))
    if other is None:
        return dv
    w, dw = other
    return dv, s.add(dw, s.mul(w, turn))


# -- decomp_triu_inv -------------------------------------------------------------------------
def matrix_errors(op: str, square: bool = True) -> list[ErrorInput]:
    """The shape errors of a decomposition's matrix argument."""
    errors = [ErrorInput((np.zeros(3),), {}, ShapeMismatch, "at least 2-D")]
    if square:
        errors.append(ErrorInput((np.zeros((2, 3)),), {}, ShapeMismatch, "must be square"))
    return errors


def _triu_inv(r: Any) -> Any:
    check_matrix("decomp_triu_inv", "r", r, square=True)
    return np.triu(np.linalg.inv(np.triu(r)))


def _triu_inv_jvp(s: Any, tangents: Any, inputs: tuple[Any], out: Any) -> Any:
    # X = R⁻¹: dX = -X triu(dR) X (upper triangular, as X is)
    return s.neg(s.matmul(out, s.matmul(s.triu(tangents[0]), out)))


def _triu_inv_rule(s: Any, g: Any, out: Any, r: Any) -> Any:
    # X = R⁻¹: dX = -X dR X, so R's cotangent is -Xᴴ g Xᴴ, on the triangle that is read
    h = adjoint(out)
    return s.neg(s.triu(s.matmul(h(s, out), s.matmul(g, h(s, out)))))


DECOMP_TRIU_INV = OpSpec(
    name="decomp_triu_inv",
    inputs=("r",),
    forward=_triu_inv,
    vjps=(_triu_inv_rule,),
    jvp=_triu_inv_jvp,
    residuals=("out",),
    batch=vmap_rules.leading,
    accepts="fc",
    sample=lazy("upper_triangular"),
    complex_sample=lazy("upper_triangular", complex_=True),
    reference=lambda r: np.linalg.solve(np.triu(r), np.broadcast_to(np.eye(np.shape(r)[-1]), np.shape(r))),
    error_inputs=lambda: [ErrorInput((np.zeros((2, 3)),), {}, ShapeMismatch, "must be square")],
    internal=True,
    doc="The inverse of the upper triangle of r (the strict lower part is not read); qr's rule.",
)


SPECS = [DECOMP_TRIU_INV]
