"""``cholesky``, batched over leading axes as NumPy's linalg is, of the symmetrised input
(JAX's symmetrize_input; the Hermitian part (a + aᴴ)/2 of a complex a). VJP: Murray 2016 /
PyTorch's cholesky_backward, written with session ops (two triangular_solves), so it
differentiates again; for a complex a every transpose is a conjugate transpose and the
gradient is Hermitian. A matrix that is not positive definite is a
:class:`~.batching.NotPositiveDefinite` error naming the batch index.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tenferro.extend import ErrorInput, OpSpec, ShapeMismatch
from tenferro.extend import batching as vmap_rules

from .batching import (
    NotPositiveDefinite,
    batch_where,
    batched_reference,
    check_matrix,
    constant,
    explain_nonfinite,
    lazy,
    mH,
    mT,
)


def _cholesky(a: Any, upper: bool = False) -> Any:
    check_matrix("cholesky", "a", a, square=True)
    nonfinite = explain_nonfinite("cholesky")(a)  # LAPACK would return nan, silently
    if nonfinite is not None:
        raise nonfinite
    adjoint = np.swapaxes(a, -1, -2)
    symmetric = np.multiply(np.add(a, np.conjugate(adjoint) if np.iscomplexobj(a) else adjoint), 0.5)
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
    raise NotPositiveDefinite(
        f"{where} is not positive definite (cholesky needs a symmetric (Hermitian) positive definite matrix)"
    )


def _cholesky_rule(s: Any, g: Any, out: Any, a: Any, upper: bool) -> Any:
    """Murray 2016 / PyTorch's cholesky_backward: with P = tril(Lᵀ gL) and Φ = (P +
    tril(P, -1)ᵀ)/2 (P's lower triangle mirrored, half its diagonal), ga = L⁻ᵀ Φ L⁻¹,
    symmetric (the forward pass reads (a + aᵀ)/2). Complex: ᴴ for ᵀ, and Φ the Hermitian
    part of P with its diagonal halved (so the diagonal is real), ga Hermitian."""
    if out.dtype.kind != "c":
        factor, gl = (mT(s, out), mT(s, g)) if upper else (out, g)
        p = s.tril(s.matmul(mT(s, factor), gl))
        phi = s.mul(s.add(p, mT(s, s.tril(p, -1))), 0.5)
        adjoint = 1
    else:
        factor, gl = (mH(s, out), mH(s, g)) if upper else (out, g)
        n = out.shape[-1]
        real = np.finfo(out.dtype).dtype  # float32 for complex64
        halved = constant(s, (np.tril(np.ones((n, n))) - np.eye(n) / 2).astype(real))
        p = s.mul(s.matmul(mH(s, factor), gl), halved)
        phi = s.mul(s.add(p, mH(s, p)), 0.5)
        adjoint = 2
    left = s.triangular_solve(factor, phi, lower=True, trans=adjoint)  # L⁻ᴴ Φ
    # (L⁻ᴴ (L⁻ᴴΦ)ᴴ)ᴴ = L⁻ᴴ Φ L⁻¹, Φ Hermitian (ᴴ is ᵀ for a real L)
    return mH(s, s.triangular_solve(factor, mH(s, left), lower=True, trans=adjoint))


def _cholesky_jvp(s: Any, tangents: Any, inputs: tuple[Any], out: Any, upper: bool = False) -> Any:
    """L Lᴴ = S = (a + aᴴ)/2: dL = L Φ(L⁻¹ dS L⁻ᴴ), Φ the lower triangle with half the
    diagonal (Murray 2016; JAX's cholesky_jvp_rule); the upper factor's is dLᴴ."""
    factor = mH(s, out) if upper else out
    ds = s.mul(s.add(tangents[0], mH(s, tangents[0])), 0.5)
    left = s.triangular_solve(factor, ds, lower=True)  # L⁻¹ dS
    middle = mH(s, s.triangular_solve(factor, mH(s, left), lower=True))  # L⁻¹ dS L⁻ᴴ, Hermitian
    n = out.shape[-1]
    halved = constant(s, (np.tril(np.ones((n, n)), -1) + np.eye(n) / 2).astype(out.dtype))
    dl = s.matmul(factor, s.mul(middle, halved))
    return mH(s, dl) if upper else dl


def _cholesky_reference(a: Any, upper: bool = False) -> np.ndarray:
    import scipy.linalg

    return batched_reference(lambda m: scipy.linalg.cholesky((m + m.conj().T) / 2, lower=not upper), a)


CHOLESKY = OpSpec(
    name="cholesky",
    batch=vmap_rules.leading,
    inputs=("a",),
    params={"upper": False},
    forward=_cholesky,
    vjps=(_cholesky_rule,),
    jvp=_cholesky_jvp,
    residuals=("out",),
    accepts="fc",
    sample=lazy("cholesky"),
    complex_sample=lazy("cholesky", complex_=True),
    reference=_cholesky_reference,
    error_inputs=lambda: [
        ErrorInput((np.stack([np.eye(2), -np.eye(2)]),), {}, NotPositiveDefinite, "cholesky: a at batch index 1"),
        ErrorInput((np.diag([1.0, -1.0]),), {}, NotPositiveDefinite, "cholesky: a is not positive definite"),
        ErrorInput((np.zeros((2, 3)),), {}, ShapeMismatch, "must be square"),
    ],
    doc="The Cholesky factor L (lower; Lᴴ with upper=True) of each symmetric (Hermitian) positive definite "
    "matrix of a (..., M, M), with L Lᴴ = (a + aᴴ)/2 (JAX's symmetrize_input: NumPy reads the lower triangle "
    "only). VJP: Murray 2016 (PyTorch's), a symmetric (Hermitian) gradient. Not positive definite: "
    "NotPositiveDefinite.",
)

SPECS = [CHOLESKY]
