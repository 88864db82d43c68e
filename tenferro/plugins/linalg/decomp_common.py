"""What the decompositions share beyond :mod:`.batching`: the internal op
``decomp_triu_inv`` (the inverse of an upper-triangular matrix, qr's rule, with its own VJP
so second order works), the sign gauges of the kernels, the shape errors of a matrix
argument, and the check that refuses to differentiate eigenvectors (singular vectors) at a
(nearly) degenerate spectrum.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tenferro.extend import ErrorInput, NotDifferentiable, OpSpec, ShapeMismatch

from .batching import check_matrix, constant, eye, lazy, mT


def inverse_gaps(s: Any, w: Any) -> Any:
    """F with F[i, j] = 1 / (w[j] - w[i]) off the diagonal and 0 on it, from session ops (so it
    is differentiable in w). Callers check first that no used gap is (nearly) zero."""
    n = w.shape[-1]
    one = eye(s, n, w.dtype)
    gaps = s.add(s.sub(s.expand_dims(w, -2), s.expand_dims(w, -1)), one)  # 1 on the diagonal
    return s.mul(s.div(1.0, gaps), constant(s, 1.0 - np.eye(n, dtype=w.dtype)))


def fold_triangle(s: Any, g: Any, upper: bool) -> Any:
    """The cotangent of a matrix of which only one triangle is read (eigh's UPLO), from the
    cotangent ``g`` of the symmetric matrix made of it: the read triangle gets g there plus
    g's transpose mirrored in (the diagonal once), the other triangle nothing."""
    if upper:
        return s.add(s.triu(g), mT(s, s.tril(g, -1)))
    return s.add(s.tril(g), mT(s, s.triu(g, 1)))


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
    wi, wj = float(w[(*batch, i)]), float(w[(*batch, j)])
    raise NotDifferentiable(
        f"{op}: {what} {i} and {j}{at} are (nearly) equal ({wi!r} and {wj!r}), so "
        f"the derivative of their vectors is not defined (its 1/(w[j] - w[i]) terms are infinite); "
        f"{alternative}"
    )


def used_columns(g: Any) -> np.ndarray:
    """Which columns (last axis) of a cotangent have a nonzero entry."""
    return np.any(values(g) != 0, axis=-2)


def column_signs(v: Any) -> Any:
    """Per column of v (last axis), +1 or -1: the sign of its largest-magnitude entry (the
    first such where two tie), so that v times it has that entry positive. The sign gauge of
    eigh's eigenvectors and svd's left singular vectors."""
    pivot = np.take_along_axis(v, np.argmax(np.abs(v), axis=-2, keepdims=True), axis=-2)
    one = np.ones_like(pivot)  # of v's dtype (and array type): float32 stays float32
    return np.where(np.less(pivot, 0), np.negative(one), one)


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


def _triu_inv_rule(s: Any, g: Any, out: Any, r: Any) -> Any:
    # X = R^-1: dX = -X dR X, so R's cotangent is -X^T g X^T, on the triangle that is read
    return s.neg(s.triu(s.matmul(mT(s, out), s.matmul(g, mT(s, out)))))


DECOMP_TRIU_INV = OpSpec(
    name="decomp_triu_inv",
    inputs=("r",),
    forward=_triu_inv,
    vjps=(_triu_inv_rule,),
    residuals=("out",),
    accepts="f",
    sample=lazy("upper_triangular"),
    reference=lambda r: np.linalg.solve(np.triu(r), np.broadcast_to(np.eye(np.shape(r)[-1]), np.shape(r))),
    error_inputs=lambda: [ErrorInput((np.zeros((2, 3)),), {}, ShapeMismatch, "must be square")],
    internal=True,
    doc="The inverse of the upper triangle of r (the strict lower part is not read); qr's rule.",
)

SPECS = [DECOMP_TRIU_INV]
