"""``cholesky``, batched over leading axes as NumPy's linalg is, of the symmetrised input
(JAX's symmetrize_input). VJP: Murray 2016 / PyTorch's cholesky_backward, written with
session ops (two triangular_solves), so it differentiates again. A matrix that is not
positive definite is a :class:`~.batching.NotPositiveDefinite` error naming the batch index.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tenferro.extend import ErrorInput, OpSpec, ShapeMismatch

from .batching import NotPositiveDefinite, batch_where, batched_reference, check_matrix, explain_nonfinite, lazy, mT


def _cholesky(a: Any, upper: bool = False) -> Any:
    check_matrix("cholesky", "a", a, square=True)
    nonfinite = explain_nonfinite("cholesky")(a)  # LAPACK would return nan, silently
    if nonfinite is not None:
        raise nonfinite
    symmetric = np.multiply(np.add(a, np.swapaxes(a, -1, -2)), 0.5)  # JAX's symmetrize_input
    try:
        return np.linalg.cholesky(symmetric, upper=bool(upper))
    except np.linalg.LinAlgError:
        pass
    batch = np.shape(a)[:-2]
    bad = np.zeros(batch, dtype=bool)
    for index in np.ndindex(batch):
        try:
            np.linalg.cholesky(symmetric[index])
        except np.linalg.LinAlgError:
            bad[index] = True
            break
    where = batch_where("cholesky", "a", bad, batch)
    raise NotPositiveDefinite(f"{where} is not positive definite (cholesky needs a symmetric positive definite matrix)")


def _cholesky_rule(s: Any, g: Any, out: Any, a: Any, upper: bool) -> Any:
    """Murray 2016 / PyTorch's cholesky_backward: with P = tril(Lᵀ gL) and Φ = (P +
    tril(P, -1)ᵀ)/2 (P's lower triangle mirrored, half its diagonal), ga = L⁻ᵀ Φ L⁻¹,
    symmetric (the forward pass reads (a + aᵀ)/2)."""
    factor, gl = (mT(s, out), mT(s, g)) if upper else (out, g)
    p = s.tril(s.matmul(mT(s, factor), gl))
    phi = s.mul(s.add(p, mT(s, s.tril(p, -1))), 0.5)
    left = s.triangular_solve(factor, phi, lower=True, trans=1)  # L⁻ᵀ Φ
    return mT(s, s.triangular_solve(factor, mT(s, left), lower=True, trans=1))  # (L⁻ᵀ (L⁻ᵀΦ)ᵀ)ᵀ = L⁻ᵀ Φ L⁻¹


def _cholesky_reference(a: Any, upper: bool = False) -> np.ndarray:
    import scipy.linalg

    a = np.asarray(a, float)
    return batched_reference(lambda m: scipy.linalg.cholesky((m + m.T) / 2, lower=not upper), a)


CHOLESKY = OpSpec(
    name="cholesky",
    inputs=("a",),
    params={"upper": False},
    forward=_cholesky,
    vjps=(_cholesky_rule,),
    residuals=("out",),
    accepts="f",
    sample=lazy("cholesky"),
    reference=_cholesky_reference,
    error_inputs=lambda: [
        ErrorInput((np.stack([np.eye(2), -np.eye(2)]),), {}, NotPositiveDefinite, "cholesky: a at batch index 1"),
        ErrorInput((np.diag([1.0, -1.0]),), {}, NotPositiveDefinite, "cholesky: a is not positive definite"),
        ErrorInput((np.zeros((2, 3)),), {}, ShapeMismatch, "must be square"),
    ],
    doc="The Cholesky factor L (lower; Lᵀ with upper=True) of each symmetric positive definite matrix of a "
    "(..., M, M), with a L Lᵀ = (a + aᵀ)/2 (JAX's symmetrize_input: NumPy reads the lower triangle only). "
    "VJP: Murray 2016 (PyTorch's), a symmetric gradient. Not positive definite: NotPositiveDefinite.",
)

SPECS = [CHOLESKY]
