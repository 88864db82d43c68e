"""The singular value decomposition: ``svd`` and ``svdvals``, batched over leading axes as
NumPy's linalg. Real and complex floating inputs (singular values are real). The rule is
Townsend (2016) / PyTorch's ``svd_backward`` (its complex case with the imaginary-diagonal
term), written with session ops, so second order works. Conventions
(docs/linalg-decompositions.md, docs/complex.md):

- **Gauge.** Each left singular vector has its largest-magnitude entry real and positive
  (its right one follows: u·e^{iθ} goes with v·e^{iθ}), so the results are smooth functions
  of the input wherever that entry is unique. The rule differentiates that gauge: for a loss
  invariant under (u, v) → (u·e^{iθ}, v·e^{iθ}) (PyTorch's condition) the gradient is
  PyTorch's, for any other the derivative of what tenferro returns.
- **Degenerate spectra.** Differentiating singular vectors needs 1/(s[j]² - s[i]²); where
  two singular values whose vectors carry a cotangent are within sqrt(eps)·max(s) of each
  other, the rule raises NotDifferentiable naming them, where PyTorch returns inf/nan
  silently; forward mode refuses the same way where the vectors' tangents are read
  (``s.wants_tangent``), and computes only the singular values' tangent where they are
  not. Singular values alone (svdvals) are always differentiable (a subgradient at ties);
  their gradient U diag(g) Vᴴ is the op ``svd_weighted`` (:mod:`.spectral`) where values
  repeat, so it differentiates again there (divided differences).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tenferro.extend import NotDifferentiable, OpSpec
from tenferro.extend import batching as vmap_rules

from .batching import check_matrix, diag_embed, explain_nonfinite, lazy, mH, scale_columns, scale_rows
from .decomp_common import (
    adjoint,
    column_phases,
    diagonal_of_product,
    inverse_gaps,
    is_complex,
    matrix_errors,
    phase_gauge_cotangent,
    phase_gauge_tangent,
    real_pivots,
    refuse_degenerate,
    used_columns,
    values,
)
from .eig import eigh_reference
from .spectral import singular_value_cotangent


def _svd(a: Any, full_matrices: bool = False) -> tuple[Any, Any, Any]:
    m, n = check_matrix("svd", "a", a)
    u, sv, vh = np.linalg.svd(a, full_matrices=bool(full_matrices))
    k = min(m, n)
    if k == 0:
        return u, sv, vh
    phases = column_phases(u[..., :k] if full_matrices else u)  # (..., 1, k): u·p with vh's rows·conj(p)
    conjugate = np.swapaxes(np.conj(phases) if phases.dtype.kind == "c" else phases, -1, -2)
    if full_matrices:
        phases_u = np.concatenate([phases, np.ones_like(u[..., :1, k:])], axis=-1)
        phases_v = np.concatenate([conjugate, np.ones_like(vh[..., k:, :1])], axis=-2)
    else:
        phases_u, phases_v = phases, conjugate
    u = np.multiply(u, phases_u)
    if u.dtype.kind == "c":
        real_pivots(u[..., :k])
    return u, sv, np.multiply(vh, phases_v)


def _svd_rule(s: Any, g: Any, out: Any, a: Any, full_matrices: bool) -> Any:
    (gu, gs, gvh), (u, sv, vh) = g, out
    m, n = a.shape[-2:]
    k = min(m, n)
    if full_matrices and m != n:
        if gu is not None or gvh is not None:
            _refuse_full(m, n)
        u, vh = s.slice(u, (Ellipsis, slice(None), slice(0, k))), s.slice(vh, (Ellipsis, slice(0, k), slice(None)))
    if gu is None and gvh is None:  # U diag(gs) Vh, with a derivative at repeated values too (spectral.py)
        return singular_value_cotangent(s, a, u, sv, vh, gs)
    vectors = _svd_vectors_rule(s, gu, gvh, u, sv, vh, m, n)
    return vectors if gs is None else s.add(s.matmul(scale_columns(s, u, gs), vh), vectors)  # + U diag(gs) Vh


def _refuse_full(m: int, n: int) -> None:
    raise NotDifferentiable(
        "svd: with full_matrices=True the extra singular vectors (beyond min(m, n)) are not "
        "unique, so u and vh have no derivative; use full_matrices=False"
    )


def _refuse_vectors(sv: Any, used: np.ndarray, m: int, n: int) -> None:
    """NotDifferentiable where the singular vectors of ``used`` singular values have no
    derivative: two of them (nearly) equal, or a (nearly) zero one of a non-square matrix."""
    refuse_degenerate(
        "svd",
        values(sv),
        used,
        "singular values",
        "differentiate a function of the singular values only (svdvals), or move them apart",
    )
    sv_values = np.abs(values(sv))
    largest = sv_values.max(axis=-1, keepdims=True, initial=0.0)  # per matrix: a batch may mix scales
    if m != n and np.any(sv_values <= np.sqrt(np.finfo(sv.dtype).eps) * largest):
        raise NotDifferentiable(
            "svd: a non-square matrix with a (nearly) zero singular value has singular vectors "
            "without a derivative (the rule divides by it); differentiate svdvals instead"
        )


def _svd_jvp(s: Any, tangents: Any, inputs: tuple[Any], out: Any, full_matrices: bool = False) -> Any:
    """JAX's svd_jvp_rule, then the phase gauge's turn. With dS = Uᴴ dA V and F[i, j] =
    1/(s_j² - s_i²): ds = Re diag(dS); dU = U (F ∘ (dS S + S dSᴴ) + i Im(diag dS) S⁻¹) +
    (I - UUᴴ) dA V S⁻¹; dV = V (F ∘ (S dS + dSᴴ S)) + (I - VVᴴ) dAᴴ U S⁻¹. The vectors'
    tangents are computed where forward mode reads either (``s.wants_tangent``), and refused
    where their VJP refuses (close singular values, full_matrices with a non-square a);
    where neither is read, only ds is computed, and nothing is refused."""
    (da,), (u, sv, vh) = tangents, out
    m, n = da.shape[-2:]
    if not (s.wants_tangent(u) or s.wants_tangent(vh)):
        return None, _singular_values_tangent(s, da, u, vh, full_matrices and m != n), None
    if full_matrices and m != n:
        _refuse_full(m, n)
    _refuse_vectors(sv, np.ones(sv.shape, bool), m, n)
    h = adjoint(u)
    v = h(s, vh)
    da_v = s.matmul(da, v)
    ds = s.matmul(h(s, u), da_v)  # Uᴴ dA V
    dsv = s.diagonal(ds, 0, -2, -1)
    dsv = s.real(dsv) if is_complex(dsv) else dsv
    f = inverse_gaps(s, s.square(sv))
    ds_s = scale_columns(s, ds, sv)
    s_ds = scale_rows(s, sv, ds)
    inner_u = s.mul(f, s.add(ds_s, h(s, ds_s)))
    inner_v = s.mul(f, s.add(s_ds, h(s, s_ds)))
    inverse_s = s.div(1.0, sv)
    if is_complex(ds):
        imaginary = s.mul(s.astype(s.mul(s.imag(s.diagonal(ds, 0, -2, -1)), inverse_s), u.dtype), 1j)
        inner_u = s.add(inner_u, diag_embed(s, imaginary))
    du, dv = s.matmul(u, inner_u), s.matmul(v, inner_v)
    if m > n:
        du = s.add(du, scale_columns(s, s.sub(da_v, s.matmul(u, ds)), inverse_s))
    if n > m:
        projected = s.sub(s.matmul(h(s, da), u), s.matmul(v, h(s, ds)))  # (I - VVᴴ) dAᴴ U
        dv = s.add(dv, scale_columns(s, projected, inverse_s))
    du, dv = phase_gauge_tangent(s, du, u, (v, dv))
    return du, dsv, h(s, dv)


def _singular_values_tangent(s: Any, da: Any, u: Any, vh: Any, full: bool) -> Any:
    """ds = Re diag(Uᴴ dA V), the first min(m, n) columns of u (rows of vh) when ``full``."""
    if full:
        k = min(da.shape[-2:])
        u, vh = s.slice(u, (Ellipsis, slice(None), slice(0, k))), s.slice(vh, (Ellipsis, slice(0, k), slice(None)))
    ds = diagonal_of_product(s, u, s.matmul(da, adjoint(vh)(s, vh)))
    return s.real(ds) if is_complex(ds) else ds


def _svd_vectors_rule(s: Any, gu: Any, gvh: Any, u: Any, sv: Any, vh: Any, m: int, n: int) -> Any:
    """Townsend's terms of the singular vectors' cotangents, F = 1/(s_j² - s_i²):
    U [(F ∘ skew(UᴴgU)) S + S (F ∘ skew(VᴴgV)) + i Im(diag(UᴴgU)) S⁻¹] Vh
    + (I - UUᴴ) gU S⁻¹ Vh + U S⁻¹ gVh (I - VVᴴ), skew(X) = X - Xᴴ, gU the cotangent before the
    phase gauge (the imaginary diagonal term is PyTorch's complex case; 0 for real)."""
    k = min(m, n)
    used = np.zeros(values(sv).shape, bool)
    if gu is not None:
        used |= used_columns(gu)
    if gvh is not None:
        used |= np.any(values(gvh) != 0, axis=-1)
    _refuse_vectors(sv, used, m, n)
    if is_complex(u):
        if gu is None:  # the phase gauge moves u: gU is nonzero after it
            gu = s.mul(u, 0.0)
        gu = phase_gauge_cotangent(s, gu, u, None if gvh is None else (mH(s, vh), mH(s, gvh)))
    h = adjoint(u)
    inverse_s = s.div(1.0, sv)
    f = inverse_gaps(s, s.square(sv))
    inner, extra = [], []
    if gu is not None:
        utgu = s.matmul(h(s, u), gu)
        inner.append(scale_columns(s, s.mul(f, s.sub(utgu, h(s, utgu))), sv))  # (F ∘ skew(UᴴgU)) S
        if is_complex(utgu):  # i Im(diag(UᴴgU)) S⁻¹
            diagonal = s.reduce_sum(s.mul(s.conj(u), gu), -2)
            inner.append(diag_embed(s, s.mul(s.astype(s.mul(s.imag(diagonal), inverse_s), u.dtype), 1j)))
        if m > k:  # (I - UUᴴ) gU S⁻¹ Vh
            extra.append(s.matmul(scale_columns(s, s.sub(gu, s.matmul(u, utgu)), inverse_s), vh))
    if gvh is not None:
        vtgv = s.matmul(vh, h(s, gvh))  # Vᴴ gV with gV = gVhᴴ
        inner.append(scale_rows(s, sv, s.mul(f, s.sub(vtgv, h(s, vtgv)))))  # S (F ∘ skew(VᴴgV))
        if n > k:  # U S⁻¹ gVh (I - VVᴴ)
            projected = s.sub(gvh, s.matmul(s.matmul(gvh, h(s, vh)), vh))
            extra.append(s.matmul(u, scale_rows(s, inverse_s, projected)))
    middle = inner[0]
    for term in inner[1:]:
        middle = s.add(middle, term)
    result = s.matmul(u, s.matmul(middle, vh))
    for term in extra:
        result = s.add(result, term)
    return result


def svd_reference(a: Any, full_matrices: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    a = np.asarray(a)
    m, n = a.shape[-2:]
    k = min(m, n)
    ah = np.conj(np.swapaxes(a, -1, -2))
    # from the eigendecomposition of AᴴA or AAᴴ (the smaller), a different route than LAPACK's gesdd
    if m >= n:
        w, v = eigh_reference(ah @ a)
        v = v[..., ::-1]
        sv = np.sqrt(np.maximum(w[..., ::-1], 0.0))
        u = a @ v / sv[..., None, :]
    else:
        w, u = eigh_reference(a @ ah)
        u = u[..., ::-1]
        sv = np.sqrt(np.maximum(w[..., ::-1], 0.0))
        v = ah @ u / sv[..., None, :]
    pivot = np.take_along_axis(u, np.argmax(np.abs(u), axis=-2)[..., None, :], -2)
    phase = np.conj(pivot) / np.abs(pivot) if np.iscomplexobj(u) else np.where(pivot < 0, -1.0, 1.0)
    u, v = u * phase, v * phase
    assert not full_matrices or m == n, "the reference gives the reduced svd"
    return u[..., :k], sv, np.conj(np.swapaxes(v, -1, -2))


SVD = OpSpec(
    name="svd",
    explain=explain_nonfinite("svd"),
    inputs=("a",),
    params={"full_matrices": False},
    forward=_svd,
    vjps=(_svd_rule,),
    jvp=_svd_jvp,
    multiple_results=True,
    batch=vmap_rules.leading,
    residuals=("a", "out"),  # a: svd_weighted at repeated singular values
    accepts="fc",
    sample=lazy("separated_svd"),
    complex_sample=lazy("separated_svd", complex_=True),
    reference=svd_reference,
    error_inputs=lambda: [*matrix_errors("svd", square=False)],
    doc="(u, s, vh) with a = u diag(s) vh, s descending and real, as NumPy's svd (reduced by "
    "default). Gauge: each column of u has its largest-magnitude entry real and positive (vh's "
    "rows follow). "
    "Differentiating u or vh where two used singular values are within "
    "sqrt(eps)·max(s), or with full_matrices=True and a non-square a, raises NotDifferentiable.",
)


def _svdvals(a: Any) -> Any:
    check_matrix("svdvals", "a", a)
    return np.linalg.svd(a, compute_uv=False)


def _svdvals_rule(s: Any, g: Any, out: Any, a: Any) -> Any:
    u, sv, vh = s.svd(a)
    return singular_value_cotangent(s, a, u, sv, vh, g)


def _svdvals_jvp(s: Any, tangents: Any, inputs: tuple[Any], out: Any) -> Any:
    u, _, vh = s.svd(inputs[0])
    return _singular_values_tangent(s, tangents[0], u, vh, False)


SVDVALS = OpSpec(
    name="svdvals",
    batch=vmap_rules.leading,
    explain=explain_nonfinite("svdvals"),
    inputs=("a",),
    forward=_svdvals,
    vjps=(_svdvals_rule,),
    jvp=_svdvals_jvp,
    residuals=("a",),
    accepts="fc",
    sample=lazy("separated_svd", full=False),
    complex_sample=lazy("separated_svd", full=False, complex_=True),
    reference=lambda a: svd_reference(a)[1],
    error_inputs=lambda: matrix_errors("svdvals", square=False),
    doc="The singular values of a, descending and real (the array API's svdvals). Its gradient "
    "U diag(g) Vh "
    "is defined at repeated singular values too (the rule recomputes svd).",
)


SPECS = [SVD, SVDVALS]
