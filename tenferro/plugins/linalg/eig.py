"""The eigendecompositions: ``eigh`` and ``eigvalsh`` of symmetric (Hermitian) matrices,
``eig`` and ``eigvals`` of general square ones, batched over leading axes as NumPy's linalg.
Real and complex floating inputs. The rules are PyTorch's ``linalg_eig_backward`` (Giles
2008; its Hermitian case for eigh), written with session ops, so second order works.
Conventions (docs/linalg-decompositions.md, docs/complex.md):

- **Gauge.** Each eigenvector has its largest-magnitude entry real and positive (the first
  one where two tie; LAPACK's zgeev normalisation, a sign for real eigh), eig's vectors
  have unit norm, so the results are smooth functions of the input wherever that entry is
  unique. The rules differentiate that gauge (:func:`.decomp_common.phase_gauge_cotangent`):
  for a loss invariant under v → v·e^{iθ} (PyTorch's condition: Im(diag(Vᴴ gV)) = 0) the
  gradient is PyTorch's; for any other loss it is the derivative of the gauge-fixed vectors
  tenferro returns (PyTorch refuses those).
- **Degenerate spectra.** Differentiating eigenvectors needs 1/(w[j] - w[i]); where two
  eigenvalues whose vectors carry a cotangent are within sqrt(eps)·max|w| of each other,
  the rule raises NotDifferentiable naming them, where PyTorch returns inf/nan silently.
  Forward mode refuses the same way where the vectors' tangent is read (forward mode says
  which results lead to what is differentiated: ``s.wants_tangent``), and computes only the
  eigenvalues' tangent where it is not. The eigenvalues' gradient V diag(g) Vᴴ is the op
  ``eigh_weighted`` (:mod:`.spectral`) where eigenvalues repeat, so it differentiates
  again there (divided differences).
  Eigenvalues alone (eigvalsh) are always differentiable (a subgradient at ties).
- **Symmetric input.** eigh/eigvalsh read the Hermitian part (a + aᴴ)/2 of a (JAX's
  symmetrize_input, as cholesky does), so their gradient is symmetric (Hermitian), the
  exact derivative of what is computed; for a Hermitian a the results are NumPy's, and
  UPLO (NumPy's signature) changes nothing.
- **eig** returns complex results, also for a real matrix (as PyTorch's; NumPy's are real
  where every eigenvalue is), with the eigenvalues sorted by real part, then imaginary part
  (NumPy and PyTorch keep LAPACK's order, which jumps under tiny changes of the input), and
  gives a real matrix a real gradient (the real part of the complex one: the projection
  the real inner product asks for).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tenferro.extend import ArgumentError, ErrorInput, OpSpec, cast, conj
from tenferro.extend import batching as vmap_rules

from .batching import SQUARE, check_matrix, diag_embed, explain_nonfinite, lazy, mH, scale_columns
from .decomp_common import (
    adjoint,
    column_phases,
    diagonal_of_product,
    hermitian_part,
    hermitian_values,
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
from .spectral import eigenvalue_cotangent


def _check_uplo(op: str, UPLO: Any) -> bool:  # noqa: N803 (NumPy's name)
    """True for "U"; ArgumentError for anything but "L"/"U"."""
    if UPLO not in ("L", "U"):
        raise ArgumentError(f"{op}: UPLO must be 'L' or 'U', got {UPLO!r}")
    return UPLO == "U"


# -- eigh / eigvalsh -------------------------------------------------------------------------
def _eigh(a: Any, UPLO: str = "L") -> tuple[Any, Any]:  # noqa: N803
    _check_uplo("eigh", UPLO)
    check_matrix("eigh", "a", a, square=True)
    w, v = np.linalg.eigh(hermitian_values(a), UPLO=UPLO)
    if np.shape(v)[-1] == 0:
        return w, v
    v = np.multiply(v, column_phases(v))
    return w, real_pivots(v) if v.dtype.kind == "c" else v


def _eigh_rule(s: Any, g: Any, out: Any, a: Any, UPLO: str) -> Any:  # noqa: N803
    (gw, gv), (w, v) = g, out
    if gv is None:  # V diag(gw) Vᴴ, with a derivative at repeated eigenvalues too (spectral.py)
        return eigenvalue_cotangent(s, a, v, w, gw)
    refuse_degenerate(
        "eigh",
        values(w),
        used_columns(gv),
        "eigenvalues",
        "differentiate a function of the eigenvalues only (eigvalsh), or move the eigenvalues apart",
    )
    h = adjoint(v)
    gv = phase_gauge_cotangent(s, gv, v)
    inner = s.mul(inverse_gaps(s, w), s.matmul(h(s, v), gv))  # F ∘ (Vᴴ gV)
    if gw is not None:
        inner = s.add(inner, diag_embed(s, gw))
    return hermitian_part(s, s.matmul(v, s.matmul(inner, h(s, v))))


def _eigh_jvp(s: Any, tangents: Any, inputs: tuple[Any], out: tuple[Any, Any], UPLO: str = "L") -> Any:  # noqa: N803
    """With P = Vᴴ dA V (dA the tangent of the Hermitian part read): dw = Re diag(P),
    dV = V (F ∘ P), F[i, j] = 1/(w[j] - w[i]) (JAX's eigh_jvp_rule), then the phase gauge's
    turn. dV only where forward mode reads it (``s.wants_tangent``): eigenvalues closer than
    the VJP's tolerance then raise its NotDifferentiable, as the VJP does for vectors with a
    cotangent."""
    w, v = out
    wanted = s.wants_tangent(v)
    if wanted:
        refuse_degenerate(
            "eigh",
            values(w),
            np.ones(w.shape, bool),
            "eigenvalues",
            "differentiate a function of the eigenvalues only (eigvalsh), or move the eigenvalues apart",
        )
    h = adjoint(v)
    p = s.matmul(h(s, v), s.matmul(hermitian_part(s, tangents[0]), v))
    dw = s.real(s.diagonal(p, 0, -2, -1)) if is_complex(p) else s.diagonal(p, 0, -2, -1)
    if not wanted:
        return dw, None
    dv = phase_gauge_tangent(s, s.matmul(v, s.mul(inverse_gaps(s, w), p)), v)
    return dw, dv


def _gauged(v: np.ndarray) -> np.ndarray:
    """Unit columns with their largest-magnitude entry real and positive (the references' gauge)."""
    v = v / np.linalg.norm(v, axis=-2, keepdims=True)
    pivot = np.take_along_axis(v, np.argmax(np.abs(v), axis=-2)[..., None, :], -2)
    return v * (np.conj(pivot) / np.abs(pivot) if np.iscomplexobj(v) else np.where(pivot < 0, -1.0, 1.0))


def eigh_reference(a: Any, UPLO: str = "L") -> tuple[np.ndarray, np.ndarray]:  # noqa: N803
    a = np.asarray(a)
    sym = (a + np.conj(np.swapaxes(a, -1, -2))) / 2
    w, v = np.linalg.eig(sym)  # a different LAPACK routine: the general eigensolver
    order = np.argsort(w.real, axis=-1)
    w = np.take_along_axis(w.real, order, -1)
    v = np.take_along_axis(v if np.iscomplexobj(sym) else v.real, order[..., None, :], -1)
    return w, _gauged(v)


EIGH = OpSpec(
    name="eigh",
    explain=explain_nonfinite("eigh"),
    inputs=("a",),
    params={"UPLO": "L"},
    forward=_eigh,
    vjps=(_eigh_rule,),
    jvp=_eigh_jvp,
    multiple_results=True,
    batch=vmap_rules.leading,
    residuals=("a", "out"),  # a: eigh_weighted at repeated eigenvalues
    accepts="fc",
    sample=lazy("symmetric", uplo=True),
    complex_sample=lazy("symmetric", uplo=True, complex_=True),
    reference=eigh_reference,
    error_inputs=lambda: [
        *matrix_errors("eigh"),
        ErrorInput((SQUARE,), {"UPLO": "X"}, ArgumentError, "UPLO must be 'L' or 'U'"),
    ],
    doc="(eigenvalues ascending, eigenvectors as columns) of the Hermitian parts (a + aᴴ)/2 of a (JAX's "
    "symmetrize_input: NumPy's eigh for a Hermitian a; UPLO changes nothing), so the gradient is symmetric; "
    "the eigenvalues are real. Gauge: each "
    "eigenvector's largest-magnitude entry is real and positive. Differentiating eigenvectors "
    "whose eigenvalues are within "
    "sqrt(eps)·max|w| of another's raises NotDifferentiable (PyTorch gives inf/nan).",
)


def _eigvalsh(a: Any, UPLO: str = "L") -> Any:  # noqa: N803
    _check_uplo("eigvalsh", UPLO)
    check_matrix("eigvalsh", "a", a, square=True)
    return np.linalg.eigvalsh(hermitian_values(a), UPLO=UPLO)


def _eigvalsh_rule(s: Any, g: Any, out: Any, a: Any, UPLO: str) -> Any:  # noqa: N803
    w, v = s.eigh(a, UPLO)
    return eigenvalue_cotangent(s, a, v, w, g)  # V diag(g) Vᴴ, differentiable at repeated eigenvalues


def _eigvalsh_jvp(s: Any, tangents: Any, inputs: tuple[Any], out: Any, UPLO: str = "L") -> Any:  # noqa: N803
    """dw = Re diag(Vᴴ dA V), dA the tangent of the Hermitian part read (the rule recomputes
    eigh, as the VJP does)."""
    _, v = s.eigh(inputs[0], UPLO)
    dw = diagonal_of_product(s, v, s.matmul(hermitian_part(s, tangents[0]), v))
    return s.real(dw) if is_complex(dw) else dw


EIGVALSH = OpSpec(
    name="eigvalsh",
    batch=vmap_rules.leading,
    explain=explain_nonfinite("eigvalsh"),
    inputs=("a",),
    params={"UPLO": "L"},
    forward=_eigvalsh,
    vjps=(_eigvalsh_rule,),
    jvp=_eigvalsh_jvp,
    residuals=("a",),
    accepts="fc",
    sample=lazy("symmetric", uplo=True),
    complex_sample=lazy("symmetric", uplo=True, complex_=True),
    reference=lambda a, UPLO="L": eigh_reference(a, UPLO)[0],  # noqa: N803
    error_inputs=lambda: [
        *matrix_errors("eigvalsh"),
        ErrorInput((SQUARE,), {"UPLO": "l"}, ArgumentError, "UPLO must be 'L' or 'U'"),
    ],
    doc="The eigenvalues (ascending, real) of the Hermitian parts (a + aᴴ)/2 of a (as eigh). Its gradient "
    "V diag(g) Vᴴ is defined at repeated eigenvalues too (the rule recomputes eigh).",
)


# -- eig / eigvals ---------------------------------------------------------------------------
def _complex_of(a: Any) -> np.dtype:
    """complex64 for float32 and complex64 inputs, complex128 for the rest."""
    return np.result_type(a.dtype, np.complex64)


def _sorted(w: Any) -> Any:
    """The order that sorts complex eigenvalues by real part, then imaginary part (NumPy's
    order of complex numbers), with real parts within 64 ulps of the spectrum's scale taken
    as equal: LAPACK's own order jumps under tiny changes of a (near a diagonal matrix, the
    QR iteration starts reordering), and a conjugate pair comes as (x - iy, x + iy) whether
    a is real (dgeev gives the pair one real part) or a real-valued complex matrix (zgeev's
    real parts differ in the last bits). Sorted, the eigenvalues are smooth in a wherever
    their real parts are distinct."""
    real = np.real(w)
    by_real = np.argsort(real, axis=-1, kind="stable")
    ascending = np.take_along_axis(real, by_real, axis=-1)
    tolerance = 64 * np.finfo(real.dtype).eps * np.max(np.abs(w), axis=-1, keepdims=True)
    # a new real part starts where the next one is more than the tolerance above
    steps = np.greater(np.diff(ascending, axis=-1, prepend=ascending[..., :1]), tolerance)
    group = np.cumsum(steps, axis=-1)  # by sorted position
    group = np.take_along_axis(group, np.argsort(by_real, axis=-1), axis=-1)  # by eigenvalue
    return np.lexsort((np.imag(w), group), axis=-1)


def _eig(a: Any) -> tuple[Any, Any]:
    check_matrix("eig", "a", a, square=True)
    w, v = np.linalg.eig(a)  # real arrays when every eigenvalue of a real a is real: made complex
    dtype = _complex_of(a)
    w, v = cast(w, dtype), cast(v, dtype)
    if np.shape(v)[-1] == 0:
        return w, v
    order = _sorted(w)
    w, v = np.take_along_axis(w, order, axis=-1), np.take_along_axis(v, np.expand_dims(order, -2), axis=-1)
    return w, real_pivots(np.multiply(v, column_phases(v)))


def _eig_cotangent(s: Any, gw: Any, gv: Any, w: Any, v: Any, a: Any) -> Any:
    """PyTorch's linalg_eig_backward: V⁻ᴴ (diag(gw) + F̄ ∘ (Vᴴ gV - VᴴV diag(Re diag(Vᴴ gV)))) Vᴴ,
    F̄[i, j] = 1/conj(w[j] - w[i]); the middle term is the derivative of unit-norm columns,
    gV the cotangent before the phase gauge. A real a gets the real part."""
    if gv is None:
        inner = diag_embed(s, gw)
    else:
        gv = phase_gauge_cotangent(s, gv, v)
        vh = mH(s, v)
        re_diag = s.real(s.reduce_sum(s.mul(conj(s, v), gv), -2))  # Re diag(Vᴴ gV)
        projected = s.sub(s.matmul(vh, gv), scale_columns(s, s.matmul(vh, v), re_diag))
        inner = s.mul(inverse_gaps(s, s.conj(w)), projected)
        if gw is not None:
            inner = s.add(inner, diag_embed(s, gw))
    ga = s.matmul(mH(s, s.inv(v)), s.matmul(inner, mH(s, v)))
    return ga if is_complex(a) else s.real(ga)


def _eig_rule(s: Any, g: Any, out: Any, a: Any) -> Any:
    (gw, gv), (w, v) = g, out
    if gv is not None:
        refuse_degenerate(
            "eig",
            values(w),
            used_columns(gv),
            "eigenvalues",
            "differentiate a function of the eigenvalues only (eigvals), or move the eigenvalues apart",
        )
    return _eig_cotangent(s, gw, gv, w, v, a)


def _eig_tangent(s: Any, da: Any, v: Any) -> tuple[Any, Any]:
    """P = V⁻¹ dA V (a real dA made complex) and its diagonal, dw."""
    if not is_complex(da):
        da = s.astype(da, v.dtype)
    p = s.matmul(s.inv(v), s.matmul(da, v))
    return p, s.diagonal(p, 0, -2, -1)


def _eig_jvp(s: Any, tangents: Any, inputs: tuple[Any], out: tuple[Any, Any]) -> tuple[Any, Any]:
    """With P = V⁻¹ dA V: dw = diag(P), dV = V (F ∘ P), F[i, j] = 1/(w[j] - w[i]) (JAX's
    eig_jvp_rule), less V diag(Re diag(Vᴴ dV)) (unit columns), then the phase gauge's turn.
    As eigh's, dV only where forward mode reads it, and then close eigenvalues raise
    NotDifferentiable."""
    w, v = out
    wanted = s.wants_tangent(v)
    if wanted:
        refuse_degenerate(
            "eig",
            values(w),
            np.ones(w.shape, bool),
            "eigenvalues",
            "differentiate a function of the eigenvalues only (eigvals), or move the eigenvalues apart",
        )
    p, dw = _eig_tangent(s, tangents[0], v)
    if not wanted:
        return dw, None
    dv = s.matmul(v, s.mul(inverse_gaps(s, w), p))
    dv = s.sub(dv, scale_columns(s, v, s.astype(s.real(diagonal_of_product(s, v, dv)), v.dtype)))
    return dw, phase_gauge_tangent(s, dv, v)


def eig_reference(a: Any) -> tuple[np.ndarray, np.ndarray]:
    """Eigenvalues from LAPACK's eigenvalue-only path, each eigenvector the null vector of
    a - w·I from its svd (the last right singular vector), in the gauge."""
    a = np.asarray(a)
    w = np.sort(np.linalg.eigvals(a).astype(np.complex128), axis=-1)
    n = a.shape[-1]
    shifted = a[..., None, :, :] - w[..., :, None, None] * np.eye(n)  # (..., k, n, n)
    null = np.conj(np.linalg.svd(shifted)[2][..., -1, :])  # (..., k, n)
    return w, _gauged(np.swapaxes(null, -1, -2))


EIG = OpSpec(
    name="eig",
    explain=explain_nonfinite("eig"),
    inputs=("a",),
    forward=_eig,
    vjps=(_eig_rule,),
    jvp=_eig_jvp,
    multiple_results=True,
    batch=vmap_rules.leading,
    residuals=("out",),
    accepts="fc",
    sample=lazy("general_eig"),
    complex_sample=lazy("general_eig", complex_=True),
    reference=eig_reference,
    error_inputs=lambda: matrix_errors("eig"),
    doc="(eigenvalues, eigenvectors as columns) of general square matrices, as NumPy's eig but "
    "always complex, also for a real a (complex64 for float32), and sorted by real part, then "
    "imaginary part (LAPACK's order is not smooth in a). Gauge: unit eigenvectors, each with "
    "its largest-magnitude entry real and positive. A real a gets a real gradient. "
    "Differentiating eigenvectors whose eigenvalues are within sqrt(eps)·max|w| of another's "
    "raises NotDifferentiable (PyTorch gives inf/nan).",
)


def _eigvals(a: Any) -> Any:
    check_matrix("eigvals", "a", a, square=True)
    w = cast(np.linalg.eigvals(a), _complex_of(a))
    return np.take_along_axis(w, _sorted(w), axis=-1)


def _eigvals_rule(s: Any, g: Any, out: Any, a: Any) -> Any:
    _, v = s.eig(a)  # in the same (sorted) order
    return _eig_cotangent(s, g, None, out, v, a)


def _eigvals_jvp(s: Any, tangents: Any, inputs: tuple[Any], out: Any) -> Any:
    _, v = s.eig(inputs[0])  # in the same (sorted) order
    return _eig_tangent(s, tangents[0], v)[1]


EIGVALS = OpSpec(
    name="eigvals",
    explain=explain_nonfinite("eigvals"),
    inputs=("a",),
    forward=_eigvals,
    batch=vmap_rules.leading,
    vjps=(_eigvals_rule,),
    jvp=_eigvals_jvp,
    residuals=("a",),
    accepts="fc",
    sample=lazy("general_eig"),
    complex_sample=lazy("general_eig", complex_=True),
    reference=lambda a: np.sort(np.linalg.eig(np.asarray(a))[0].astype(np.complex128), axis=-1),  # with vectors
    error_inputs=lambda: matrix_errors("eigvals"),
    doc="The eigenvalues of general square matrices, as NumPy's eigvals but always complex and "
    "sorted as eig's (by real part, then imaginary part). Its "
    "gradient V⁻ᴴ diag(g) Vᴴ (the rule recomputes eig) needs the eigenvectors to be independent.",
)


SPECS = [EIGH, EIGVALSH, EIG, EIGVALS]
