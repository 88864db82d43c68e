"""Decompositions and norms: qr, eigh, eigvalsh, svd, svdvals, matrix_norm, vector_norm,
cross; batched over leading axes as NumPy's linalg. Real floating inputs.

Rules (written with session ops, so second order works) from the published formulas:
eigh as PyTorch's ``linalg_eigh_backward`` (Giles 2008), svd as Townsend (2016) /
PyTorch's ``svd_backward``, qr as Walter & Lehmann (2018) / PyTorch's
``linalg_qr_backward``. Conventions (docs/linalg-decompositions.md):

- **Gauge.** Eigenvectors and singular vectors are defined up to sign. The kernels fix
  it: each eigenvector of eigh, and each left singular vector of svd (with its right
  one), has its largest-magnitude entry positive; qr's R has a non-negative diagonal. So
  the results are smooth functions of the input wherever that entry is unique.
- **Degenerate spectra.** Differentiating eigenvectors (singular vectors) needs
  1/(w[j] - w[i]); where two values whose vectors carry a cotangent are within
  sqrt(eps)·max|w| of each other, the rule raises NotDifferentiable naming them, where
  PyTorch returns inf/nan silently. Eigenvalues and singular values alone (eigvalsh,
  svdvals, norms) are always differentiable (a subgradient at ties).
- **Which triangle.** eigh/eigvalsh read only the triangle UPLO names, so the gradient
  lives on that triangle (the off-diagonal part is the symmetric gradient doubled).
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
    NotDifferentiable,
    OpSpec,
    ShapeMismatch,
    explain_broadcast,
    normalize_axes,
    unbroadcast,
)

from . import decomp_common
from .batching import check_matrix, constant, diag_embed, explain_nonfinite, lazy, mT, scale_columns, scale_rows
from .decomp_common import column_signs, fold_triangle, inverse_gaps, refuse_degenerate, used_columns, values

_SQUARE = np.array([[2.0, 1.0], [1.0, 3.0]])


def _check_uplo(op: str, UPLO: Any) -> bool:  # noqa: N803 (NumPy's name)
    """True for "U"; ArgumentError for anything but "L"/"U"."""
    if UPLO not in ("L", "U"):
        raise ArgumentError(f"{op}: UPLO must be 'L' or 'U', got {UPLO!r}")
    return UPLO == "U"


# -- eigh / eigvalsh -------------------------------------------------------------------------
def _eigh(a: Any, UPLO: str = "L") -> tuple[Any, Any]:  # noqa: N803
    _check_uplo("eigh", UPLO)
    check_matrix("eigh", "a", a, square=True)
    w, v = np.linalg.eigh(a, UPLO=UPLO)
    if np.shape(v)[-1] == 0:
        return w, v
    return w, np.multiply(v, column_signs(v))


def _eigh_rule(s: Any, g: Any, out: Any, a: Any, UPLO: str) -> Any:  # noqa: N803
    (gw, gv), (w, v) = g, out
    if gv is not None:
        refuse_degenerate(
            "eigh",
            values(w),
            used_columns(gv),
            "eigenvalues",
            "differentiate a function of the eigenvalues only (eigvalsh), or move the eigenvalues apart",
        )
        inner = s.mul(inverse_gaps(s, w), s.matmul(mT(s, v), gv))  # F ∘ (Vᵀ gV)
        if gw is not None:
            inner = s.add(inner, diag_embed(s, gw))
        full = s.matmul(v, s.matmul(inner, mT(s, v)))
    else:
        full = s.matmul(scale_columns(s, v, gw), mT(s, v))  # V diag(gw) Vᵀ
    return fold_triangle(s, full, UPLO == "U")


def _eigh_reference(a: Any, UPLO: str = "L") -> tuple[np.ndarray, np.ndarray]:  # noqa: N803
    a = np.asarray(a)
    lower = np.tril(a) if UPLO == "L" else np.swapaxes(np.triu(a), -1, -2)
    sym = lower + np.swapaxes(np.tril(lower, -1), -1, -2)
    w, v = np.linalg.eig(sym)  # a different LAPACK routine: the general eigensolver
    order = np.argsort(w.real, axis=-1)
    w = np.take_along_axis(w.real, order, -1)
    v = np.take_along_axis(v.real, order[..., None, :], -1)
    v = v / np.linalg.norm(v, axis=-2, keepdims=True)
    pivot = np.take_along_axis(v, np.argmax(np.abs(v), axis=-2)[..., None, :], -2)
    return w, v * np.where(pivot < 0, -1.0, 1.0)


def _matrix_errors(op: str, square: bool = True) -> list[ErrorInput]:
    errors = [ErrorInput((np.zeros(3),), {}, ShapeMismatch, "at least 2-D")]
    if square:
        errors.append(ErrorInput((np.zeros((2, 3)),), {}, ShapeMismatch, "must be square"))
    return errors


EIGH = OpSpec(
    name="eigh",
    explain=explain_nonfinite("eigh"),
    inputs=("a",),
    params={"UPLO": "L"},
    forward=_eigh,
    vjps=(_eigh_rule,),
    multiple_results=True,
    residuals=("out",),
    accepts="f",
    sample=lazy("symmetric", uplo=True),
    reference=_eigh_reference,
    error_inputs=lambda: [
        *_matrix_errors("eigh"),
        ErrorInput((_SQUARE,), {"UPLO": "X"}, ArgumentError, "UPLO must be 'L' or 'U'"),
    ],
    doc="(eigenvalues ascending, eigenvectors as columns) of the symmetric matrices whose UPLO "
    "triangle a holds, as NumPy's eigh. Gauge: each eigenvector's largest-magnitude entry is "
    "positive. Differentiating eigenvectors whose eigenvalues are within "
    "sqrt(eps)·max|w| of another's raises NotDifferentiable (PyTorch gives inf/nan).",
)


def _eigvalsh(a: Any, UPLO: str = "L") -> Any:  # noqa: N803
    _check_uplo("eigvalsh", UPLO)
    check_matrix("eigvalsh", "a", a, square=True)
    return np.linalg.eigvalsh(a, UPLO=UPLO)


def _eigvalsh_rule(s: Any, g: Any, out: Any, a: Any, UPLO: str) -> Any:  # noqa: N803
    _, v = s.eigh(a, UPLO)
    return fold_triangle(s, s.matmul(scale_columns(s, v, g), mT(s, v)), UPLO == "U")


EIGVALSH = OpSpec(
    name="eigvalsh",
    explain=explain_nonfinite("eigvalsh"),
    inputs=("a",),
    params={"UPLO": "L"},
    forward=_eigvalsh,
    vjps=(_eigvalsh_rule,),
    residuals=("a",),
    accepts="f",
    sample=lazy("symmetric", uplo=True),
    reference=lambda a, UPLO="L": _eigh_reference(a, UPLO)[0],  # noqa: N803
    error_inputs=lambda: [
        *_matrix_errors("eigvalsh"),
        ErrorInput((_SQUARE,), {"UPLO": "l"}, ArgumentError, "UPLO must be 'L' or 'U'"),
    ],
    doc="The eigenvalues (ascending) of the symmetric matrices whose UPLO triangle a holds. "
    "Its gradient V diag(g) Vᵀ is defined at repeated eigenvalues too (the rule recomputes eigh).",
)


# -- svd / svdvals ---------------------------------------------------------------------------
def _svd(a: Any, full_matrices: bool = False) -> tuple[Any, Any, Any]:
    m, n = check_matrix("svd", "a", a)
    u, sv, vh = np.linalg.svd(a, full_matrices=bool(full_matrices))
    k = min(m, n)
    if k == 0:
        return u, sv, vh
    signs = column_signs(u[..., :k] if full_matrices else u)  # (..., 1, k)
    if full_matrices:
        signs_u = np.concatenate([signs, np.ones_like(u[..., :1, k:])], axis=-1)
        signs_v = np.concatenate([np.swapaxes(signs, -1, -2), np.ones_like(vh[..., k:, :1])], axis=-2)
    else:
        signs_u, signs_v = signs, np.swapaxes(signs, -1, -2)
    return np.multiply(u, signs_u), sv, np.multiply(vh, signs_v)


def _svd_rule(s: Any, g: Any, out: Any, a: Any, full_matrices: bool) -> Any:
    (gu, gs, gvh), (u, sv, vh) = g, out
    m, n = a.shape[-2:]
    k = min(m, n)
    if full_matrices and m != n:
        if gu is not None or gvh is not None:
            raise NotDifferentiable(
                "svd: with full_matrices=True the extra singular vectors (beyond min(m, n)) are not "
                "unique, so u and vh have no derivative; use full_matrices=False"
            )
        u, vh = s.slice(u, (Ellipsis, slice(None), slice(0, k))), s.slice(vh, (Ellipsis, slice(0, k), slice(None)))
    terms = []
    if gs is not None:
        terms.append(s.matmul(scale_columns(s, u, gs), vh))  # U diag(gs) Vh
    if gu is not None or gvh is not None:
        terms.append(_svd_vectors_rule(s, gu, gvh, u, sv, vh, m, n))
    return terms[0] if len(terms) == 1 else s.add(*terms)


def _svd_vectors_rule(s: Any, gu: Any, gvh: Any, u: Any, sv: Any, vh: Any, m: int, n: int) -> Any:
    """Townsend's terms of the singular vectors' cotangents (real case, F = 1/(s_j² - s_i²)):
    U [(F ∘ skew(UᵀgU)) S + S (F ∘ skew(VᵀgV))] Vh + (I - UUᵀ) gU S⁻¹ Vh + U S⁻¹ gVh (I - VVᵀ)."""
    k = min(m, n)
    used = np.zeros(values(sv).shape, bool)
    if gu is not None:
        used |= used_columns(gu)
    if gvh is not None:
        used |= np.any(values(gvh) != 0, axis=-1)
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
    inverse_s = s.div(1.0, sv)
    f = inverse_gaps(s, s.square(sv))
    inner, extra = [], []
    if gu is not None:
        utgu = s.matmul(mT(s, u), gu)
        inner.append(scale_columns(s, s.mul(f, s.sub(utgu, mT(s, utgu))), sv))  # (F ∘ skew(UᵀgU)) S
        if m > k:  # (I - UUᵀ) gU S⁻¹ Vh
            extra.append(s.matmul(scale_columns(s, s.sub(gu, s.matmul(u, utgu)), inverse_s), vh))
    if gvh is not None:
        vtgv = s.matmul(vh, mT(s, gvh))  # Vᵀ gV with gV = gVhᵀ
        inner.append(scale_rows(s, sv, s.mul(f, s.sub(vtgv, mT(s, vtgv)))))  # S (F ∘ skew(VᵀgV))
        if n > k:  # U S⁻¹ gVh (I - VVᵀ)
            projected = s.sub(gvh, s.matmul(s.matmul(gvh, mT(s, vh)), vh))
            extra.append(s.matmul(u, scale_rows(s, inverse_s, projected)))
    middle = inner[0] if len(inner) == 1 else s.add(*inner)
    result = s.matmul(u, s.matmul(middle, vh))
    for term in extra:
        result = s.add(result, term)
    return result


def _svd_reference(a: Any, full_matrices: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    a = np.asarray(a)
    m, n = a.shape[-2:]
    k = min(m, n)
    # from the eigendecomposition of AᵀA or AAᵀ (the smaller), a different route than LAPACK's gesdd
    if m >= n:
        w, v = _eigh_reference(np.swapaxes(a, -1, -2) @ a)
        v = v[..., ::-1]
        sv = np.sqrt(np.maximum(w[..., ::-1], 0.0))
        u = a @ v / sv[..., None, :]
    else:
        w, u = _eigh_reference(a @ np.swapaxes(a, -1, -2))
        u = u[..., ::-1]
        sv = np.sqrt(np.maximum(w[..., ::-1], 0.0))
        v = np.swapaxes(a, -1, -2) @ u / sv[..., None, :]
    pivot = np.take_along_axis(u, np.argmax(np.abs(u), axis=-2)[..., None, :], -2)
    sign = np.where(pivot < 0, -1.0, 1.0)
    u, v = u * sign, v * sign
    assert not full_matrices or m == n, "the reference gives the reduced svd"
    return u[..., :k], sv, np.swapaxes(v, -1, -2)


SVD = OpSpec(
    name="svd",
    explain=explain_nonfinite("svd"),
    inputs=("a",),
    params={"full_matrices": False},
    forward=_svd,
    vjps=(_svd_rule,),
    multiple_results=True,
    residuals=("out",),
    accepts="f",
    sample=lazy("separated_svd"),
    reference=_svd_reference,
    error_inputs=lambda: [*_matrix_errors("svd", square=False)],
    doc="(u, s, vh) with a = u diag(s) vh, s descending, as NumPy's svd (reduced by default). "
    "Gauge: each column of u has its largest-magnitude entry positive (vh's rows follow). "
    "Differentiating u or vh where two used singular values are within "
    "sqrt(eps)·max(s), or with full_matrices=True and a non-square a, raises NotDifferentiable.",
)


def _svdvals(a: Any) -> Any:
    check_matrix("svdvals", "a", a)
    return np.linalg.svd(a, compute_uv=False)


def _svdvals_rule(s: Any, g: Any, out: Any, a: Any) -> Any:
    u, _, vh = s.svd(a)
    return s.matmul(scale_columns(s, u, g), vh)


SVDVALS = OpSpec(
    name="svdvals",
    explain=explain_nonfinite("svdvals"),
    inputs=("a",),
    forward=_svdvals,
    vjps=(_svdvals_rule,),
    residuals=("a",),
    accepts="f",
    sample=lazy("separated_svd", full=False),
    reference=lambda a: _svd_reference(a)[1],
    error_inputs=lambda: _matrix_errors("svdvals", square=False),
    doc="The singular values of a, descending (the array API's svdvals). Its gradient U diag(g) Vh "
    "is defined at repeated singular values too (the rule recomputes svd).",
)


# -- qr --------------------------------------------------------------------------------------
def _qr(a: Any) -> tuple[Any, Any]:
    m, n = check_matrix("qr", "a", a)
    q, r = np.linalg.qr(a, mode="reduced")
    k = min(m, n)
    if k == 0:
        return q, r
    diag = np.diagonal(r, axis1=-2, axis2=-1)
    one = np.ones_like(diag)
    signs = np.where(np.less(diag, 0), np.negative(one), one)  # (..., k)
    return np.multiply(q, np.expand_dims(signs, -2)), np.multiply(r, np.expand_dims(signs, -1))


def _qr_square_rule(s: Any, gq: Any, gr: Any, q: Any, r: Any) -> Any:
    """Ā = (gQ + Q N) R⁻ᵀ, N = triu(M) + triu(M, 1)ᵀ, M = gR Rᵀ - Qᵀ gQ (Q m×k, R k×k)."""
    terms = []
    if gr is not None:
        terms.append(s.matmul(gr, mT(s, r)))
    if gq is not None:
        terms.append(s.neg(s.matmul(mT(s, q), gq)))
    m = terms[0] if len(terms) == 1 else s.add(*terms)
    sym = s.add(s.triu(m), mT(s, s.triu(m, 1)))
    b = s.matmul(q, sym)
    if gq is not None:
        b = s.add(b, gq)
    return s.matmul(b, mT(s, s.decomp_triu_inv(r)))


def _qr_rule(s: Any, g: Any, out: Any, a: Any) -> Any:
    (gq, gr), (q, r) = g, out
    m, n = a.shape[-2:]
    diag = np.abs(np.diagonal(values(r), axis1=-2, axis2=-1))
    if np.any(diag <= np.sqrt(np.finfo(r.dtype).eps) * diag.max(axis=-1, keepdims=True, initial=0.0)):
        raise NotDifferentiable(
            "qr: the input is (nearly) rank deficient (R has a zero on its diagonal), where Q and R "
            "have no derivative; make the leading min(m, n) columns independent"
        )
    if m >= n:
        return _qr_square_rule(s, gq, gr, q, r)
    # wide: A = [X | Y] with X = Q U, R = [U | V], V = Qᵀ Y (Walter & Lehmann; PyTorch)
    left, right = (Ellipsis, slice(None), slice(0, m)), (Ellipsis, slice(None), slice(m, None))
    u = s.slice(r, left)
    gu = gv = None
    if gr is not None:
        gu, gv = s.slice(gr, left), s.slice(gr, right)
        y_gv = s.matmul(s.matmul(q, s.slice(r, right)), mT(s, gv))  # Y gVᵀ
        gq = y_gv if gq is None else s.add(gq, y_gv)
    gx = _qr_square_rule(s, gq, gu, q, u)
    gy = s.matmul(q, gv) if gv is not None else constant(s, np.zeros((*a.shape[:-1], n - m), a.dtype))
    return s.concat([gx, gy], -1)


def _qr_reference(a: Any) -> tuple[np.ndarray, np.ndarray]:
    # Gram-Schmidt on the leading columns (modified, twice): a different route than Householder
    a = np.asarray(a, dtype=np.float64)
    m, n = a.shape[-2:]
    k = min(m, n)
    q = np.zeros((*a.shape[:-1], k))
    for j in range(k):
        v = a[..., :, j].copy()
        for _ in range(2):
            for i in range(j):
                v -= np.sum(q[..., :, i] * v, axis=-1, keepdims=True) * q[..., :, i]
        q[..., :, j] = v / np.linalg.norm(v, axis=-1, keepdims=True)
    return q, np.triu(np.swapaxes(q, -1, -2) @ a)


QR = OpSpec(
    name="qr",
    inputs=("a",),
    forward=_qr,
    vjps=(_qr_rule,),
    multiple_results=True,
    residuals=("out",),
    accepts="f",
    sample=lazy("full_rank"),
    reference=_qr_reference,
    error_inputs=lambda: _matrix_errors("qr", square=False),
    doc="(q, r) with a = q r, q with orthonormal columns and r upper triangular (NumPy's reduced "
    "qr). Gauge: r's diagonal is non-negative, so q and r are unique for a of full rank; "
    "differentiating a (nearly) rank-deficient a raises NotDifferentiable.",
)


# -- norms -----------------------------------------------------------------------------------
_ORDS = ("fro", "nuc", 2, -2, 1, -1, math.inf, -math.inf)


def _check_matrix_ord(ord: Any) -> Any:  # noqa: A002 (NumPy's name)
    for known in _ORDS:
        if type(ord) is not bool and ord == known and (isinstance(known, str) == isinstance(ord, str)):
            return known
    raise ArgumentError(f"matrix_norm: ord must be one of 'fro', 'nuc', 2, -2, 1, -1, inf, -inf; got {ord!r}")


def _matrix_norm(x: Any, ord: Any = "fro", keepdims: bool = False) -> Any:  # noqa: A002
    ord = _check_matrix_ord(ord)  # noqa: A001
    check_matrix("matrix_norm", "x", x)
    return np.linalg.matrix_norm(x, ord=ord, keepdims=bool(keepdims))


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


def _matrix_norm_reference(x: Any, ord: Any = "fro", keepdims: bool = False) -> np.ndarray:  # noqa: A002
    x = np.asarray(x)
    if ord == "fro":
        r = np.sqrt(np.sum(x * x, axis=(-2, -1)))
    elif ord in ("nuc", 2, -2):
        sv = _svd_reference(x)[1]
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
    vjps=(_matrix_norm_rule,),
    residuals=("x", "out"),
    accepts="f",
    sample=lazy("matrix_norm"),
    reference=_matrix_norm_reference,
    error_inputs=lambda: [
        ErrorInput((np.zeros(3),), {}, ShapeMismatch, "at least 2-D"),
        ErrorInput((_SQUARE,), {"ord": 3}, ArgumentError, "ord must be one of"),
        ErrorInput((_SQUARE,), {"ord": "f"}, ArgumentError, "ord must be one of"),
    ],
    kinks=(
        Kink((np.zeros((2, 2)),), (np.zeros((2, 2)),)),  # fro at 0: subgradient 0
        Kink((np.array([[1.0, -2.0], [1.0, 0.0]]),), (np.array([[0.5, -0.5], [0.5, 0.0]]),), {"ord": 1}),
        Kink((np.array([[1.0, -1.0], [2.0, 0.0]]),), (np.array([[0.5, -0.5], [0.5, 0.0]]),), {"ord": math.inf}),
        Kink((np.eye(2),), (np.eye(2) / 2,), {"ord": 2}),
    ),
    doc="The norm `ord` of the matrices in x's last two axes (fro, nuc, 2, -2, 1, -1, inf, -inf), as "
    "NumPy's matrix_norm. Conventions (PyTorch's): subgradient 0 at x = 0 for fro, ties among the "
    "extreme singular values or column/row sums split the cotangent evenly, sign(0) = 0.",
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
    return np.linalg.vector_norm(x, axis=axes, keepdims=bool(keepdims), ord=p)


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
        hit = values(s.abs(x)) == values(out)
        share = hit / np.sum(hit, axis=axes, keepdims=True)
        return s.mul(s.mul(g, s.sign(x)), constant(s, share.astype(x.dtype)))
    # d/dx (Σ|x|^p)^(1/p) = sign(x) |x|^(p-1) / out^(p-1), 0 where out is 0
    safe = s.where_select(s.compare(out, 0.0, "eq"), 1.0, out)
    return s.mul(g, s.mul(s.sign(x), s.pow(s.div(s.abs(x), safe), p - 1.0)))


def _vector_norm_reference(x: Any, axis: Any = None, keepdims: bool = False, ord: Any = 2) -> np.ndarray:  # noqa: A002
    x = np.abs(np.asarray(x, dtype=float))
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
    residuals=("x", "out"),
    accepts="f",
    sample=lazy("vector_norm"),
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
    "ord 2, 1, any p >= 1, inf, -inf, or 0 (the count of nonzeros, gradient 0). Conventions "
    "(PyTorch's): subgradient 0 at x = 0, sign(0) = 0, ties for inf/-inf split evenly.",
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
    return np.cross(a, b, axis=axis)


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
    vjps=(
        lambda s, g, out, a, b, axis: s.cross(b, g, axis),  # ⟨g, a × b⟩ = ⟨a, b × g⟩
        lambda s, g, out, a, b, axis: s.cross(g, a, axis),
    ),
    unbroadcast=unbroadcast,
    multilinear=True,
    accepts="f",
    explain=explain_broadcast("cross", ("a", "b")),
    sample=lazy("cross_pair"),
    reference=_cross_reference,
    error_inputs=lambda: [
        ErrorInput((np.zeros(3), np.zeros(2)), {}, ShapeMismatch, "both need size 3"),
        ErrorInput((np.zeros((2, 3)), np.zeros((3, 3))), {}, ShapeMismatch, "do not broadcast"),
        ErrorInput((np.zeros(3), np.zeros(3)), {"axis": 1}, AxisError, "out of range"),
    ],
    doc="The cross product of the 3-vectors along `axis` of a and b (broadcasting), as NumPy's cross.",
)

SPECS = [*decomp_common.SPECS, QR, EIGH, EIGVALSH, SVD, SVDVALS, MATRIX_NORM, VECTOR_NORM, CROSS]
