"""``lu``: a = p l u with partial pivoting (scipy.linalg.lu's kernel and values, batched over
leading axes), p a permutation matrix, l (M, K) unit lower triangular, u (K, N) upper
triangular, K = min(M, N).

p is piecewise constant in a (it changes only where a pivot ties): its derivative is zero,
and its cotangent is ignored. The rules are JAX's ``_lu_jvp_rule`` and its transpose, for
any shape: with l and u completed to square ones (l_ of (M, M), identity columns appended;
u_ of (N, N), identity rows appended), f = l_⁻¹ pᵀ da u_⁻¹, dl = (l_ tril(f, -1))[:, :K] and
du = (triu(f) u_)[:K]; the VJP maps (gl, gu) to p l_⁻ᴴ (tril(l_ᴴ gl, -1) + triu(gu u_ᴴ))
u_⁻ᴴ (zero-padded to (M, N)). They are written with triangular_solve, matmul, tril/triu and
pad, so every order differentiates. A singular leading block (a zero pivot in u) has no
derivative: NotDifferentiable naming lu and the batch index.

The kernel is SciPy's (NumPy has no LU), so it takes NumPy arrays only, as
:mod:`.sylvester`'s.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tenferro.extend import DTypeError, ErrorInput, NotDifferentiable, OpSpec, ShapeMismatch, check_values
from tenferro.extend import batching as vmap_rules

from .batching import batch_where, check_matrix, constant, explain_nonfinite, lazy, mH, mT


def _lu(a: Any) -> tuple[Any, Any, Any]:
    import scipy.linalg

    check_matrix("lu", "a", a, square=False)
    a = np.asarray(a)
    if a.size == 0:
        m, n = a.shape[-2:]
        k = min(m, n)
        batch = a.shape[:-2]
        real = np.finfo(a.dtype).dtype
        return (
            np.broadcast_to(np.eye(m, dtype=real), batch + (m, m)).copy(),
            np.zeros(batch + (m, k), a.dtype),
            np.zeros(batch + (k, n), a.dtype),
        )
    return tuple(scipy.linalg.lu(a, check_finite=False))


def _completed(s: Any, l: Any, u: Any) -> tuple[Any, Any]:  # noqa: E741 (l, u: the factors' names)
    """l (M, K) and u (K, N) completed to square factors: l_ (M, M) with identity columns
    appended, u_ (N, N) with identity rows appended (JAX's padding)."""
    m, k = l.shape[-2:]
    n = u.shape[-1]
    batch = l.shape[:-2]
    if m > k:
        block = s.broadcast_to(constant(s, np.eye(m, dtype=l.dtype)[:, k:]), (*batch, m, m - k))
        l = s.concat([l, block], axis=-1)  # noqa: E741
    if n > k:
        block = s.broadcast_to(constant(s, np.eye(n, dtype=u.dtype)[k:, :]), (*batch, n - k, n))
        u = s.concat([u, block], axis=-2)
    return l, u


def _singular(u: np.ndarray) -> None:
    """NotDifferentiable where a pivot of u (its leading K×K diagonal) is exactly zero (a
    check_values check)."""
    diagonal = np.diagonal(u, axis1=-2, axis2=-1)
    bad = np.any(diagonal == 0, axis=-1)
    if np.any(bad):
        where = batch_where("lu", "a", bad, u.shape[:-2])
        raise NotDifferentiable(
            f"{where} has a zero pivot (its leading min(M, N) columns are linearly dependent): the LU factors have "
            f"no derivative there"
        )


def _pad_to(s: Any, x: Any, rows: int, cols: int) -> Any:
    """x (..., r, c) padded with zeros below and to the right to (..., rows, cols)."""
    r, c = x.shape[-2:]
    if (r, c) == (rows, cols):
        return x
    return s.pad(x, ((0, 0),) * (x.ndim - 2) + ((0, rows - r), (0, cols - c)))


def _right_solve(s: Any, x: Any, u: Any, adjoint: bool) -> Any:
    """x u⁻¹ (x u⁻ᴴ with ``adjoint``) for an upper triangular u: (u⁻ᵀ xᵀ)ᵀ ((u⁻¹ xᴴ)ᴴ)."""
    if adjoint:
        return mH(s, s.triangular_solve(u, mH(s, x), lower=False))
    return mT(s, s.triangular_solve(u, mT(s, x), lower=False, trans=1))


def _lu_vjp(s: Any, g: Any, inputs: tuple[Any], out: Any) -> tuple[Any]:
    (_, gl, gu), (p, l, u) = g, out  # noqa: E741
    if gl is None and gu is None:
        return (None,)
    check_values(u, _singular)
    m, k = l.shape[-2:]
    n = u.shape[-1]
    lf, uf = _completed(s, l, u)
    terms = []
    if gl is not None:
        terms.append(_pad_to(s, s.tril(s.matmul(mH(s, lf), gl), -1), m, n))
    if gu is not None:
        terms.append(_pad_to(s, s.triu(s.matmul(gu, mH(s, uf))), m, n))
    fbar = terms[0] if len(terms) == 1 else s.add(*terms)
    trans = 2 if fbar.dtype.kind == "c" else 1
    y = s.triangular_solve(lf, fbar, lower=True, trans=trans, unit_diagonal=True)  # l_⁻ᴴ f̄
    xbar = _right_solve(s, y, uf, adjoint=True)  # l_⁻ᴴ f̄ u_⁻ᴴ
    return (s.matmul(p, xbar),)


def _lu_jvp(s: Any, tangents: Any, inputs: tuple[Any], out: Any) -> Any:
    (da,), (p, l, u) = tangents, out  # noqa: E741
    check_values(u, _singular)
    k = l.shape[-1]
    lf, uf = _completed(s, l, u)
    x = s.matmul(mT(s, p), da)  # pᵀ da
    f = _right_solve(s, s.triangular_solve(lf, x, lower=True, unit_diagonal=True), uf, adjoint=False)
    dl = s.slice(s.matmul(lf, s.tril(f, -1)), (Ellipsis, slice(None), slice(0, k)))
    du = s.slice(s.matmul(s.triu(f), uf), (Ellipsis, slice(0, k), slice(None)))
    return None, dl, du


def _lu_reference(a: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The same factors from the factorisation of each matrix alone, by Doolittle's
    elimination with scipy's pivots read from its p (another code path for l and u)."""
    import scipy.linalg

    a = np.asarray(a)
    p, _, _ = scipy.linalg.lu(a)
    pa = np.swapaxes(p, -1, -2) @ a
    m, n = a.shape[-2:]
    k = min(m, n)
    lower = np.zeros(a.shape[:-2] + (m, k), a.dtype)
    upper = np.zeros(a.shape[:-2] + (k, n), a.dtype)
    work = pa.astype(a.dtype, copy=True)
    for j in range(k):
        upper[..., j, :] = work[..., j, :]
        lower[..., :, j] = work[..., :, j] / work[..., j : j + 1, j]
        work = work - lower[..., :, j : j + 1] * work[..., j : j + 1, :]
    return p, lower, upper


LU = OpSpec(
    name="lu",
    inputs=("a",),
    forward=_lu,
    vjp=_lu_vjp,
    jvp=_lu_jvp,
    multiple_results=True,
    batch=vmap_rules.leading,
    residuals=("out",),
    accepts="fc",
    explain=explain_nonfinite("lu"),
    sample=lazy("lu"),
    complex_sample=lazy("lu", complex_=True),
    reference=_lu_reference,
    error_inputs=lambda: [
        ErrorInput((np.zeros(3),), {}, ShapeMismatch, "lu: a has shape [3]; it must be a matrix"),
        ErrorInput((np.eye(2, dtype=int),), {}, DTypeError, "argument 'a' has dtype i64"),
    ],
    doc="(p, l, u) with a = p l u, partial pivoting (scipy.linalg.lu's values), a (..., M, N): p (M, M) a "
    "permutation matrix (real), l (M, K) unit lower triangular, u (K, N) upper triangular, K = min(M, N). p "
    "has no derivative (piecewise constant); l and u differentiate (JAX's lu JVP and its transpose) where "
    "u's pivots are nonzero, else NotDifferentiable.",
)

SPECS = [LU]
