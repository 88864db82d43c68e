"""``tenferro.scipy.linalg``'s decompositions, inverse, determinant and norms: the ops and
``tnp.linalg``'s functions with scipy's signatures (``eigh`` with scipy's triangle and its
generalised problem through b's Cholesky factor). The arguments are checked first, under
scipy's names, so what tnp.linalg raises after is about values only."""

from __future__ import annotations

from typing import Any

from .. import numpy as tnp
from ..core.arguments import shown
from ..core.eager import EagerTensor
from ..core.errors import ArgumentError, ShapeMismatch
from . import _linalg_checks as check
from ._linalg_checks import public, session
from ._linalg_solves import factor


@public
def inv(a: Any, overwrite_a: bool = False, check_finite: bool = True) -> EagerTensor:
    """The inverse of each matrix of a; a singular one is a SingularMatrix."""
    (a,) = check.arrays("inv", a=a)
    check.matrix(a, "inv", "a")
    return check.about("a", session(a).inv, a)


@public
def det(a: Any, overwrite_a: bool = False, check_finite: bool = True) -> EagerTensor:
    """The determinant of each matrix of a, differentiable at singular matrices too."""
    (a,) = check.arrays("det", a=a)
    check.matrix(a, "det", "a")
    return session(a).det(a)


@public
def eigh(
    a: Any,
    b: Any = None,
    *,
    lower: bool = True,
    eigvals_only: bool = False,
    overwrite_a: bool = False,
    overwrite_b: bool = False,
    type: int = 1,  # noqa: A002 (scipy's name)
    check_finite: bool = True,
    subset_by_index: Any = None,
    subset_by_value: Any = None,
    driver: str | None = None,
) -> Any:
    """(w, v), eigenvalues ascending and eigenvectors as columns, of the Hermitian matrix of
    a's lower (``lower=False``: upper) triangle; with b (Hermitian positive definite, its
    same triangle read), of a v = w b v (type 1, through b's Cholesky factor). w alone with
    ``eigvals_only``; ``subset_by_index=(lo, hi)`` keeps eigenvalues lo .. hi. Each
    eigenvector's largest entry is real and positive (tenferro's gauge, not LAPACK's signs)."""
    a, b = check.arrays("eigh", a=a, b=b) if b is not None else (*check.arrays("eigh", a=a), None)
    lower = check.flag(lower, "eigh", "lower")
    eigvals_only = check.flag(eigvals_only, "eigh", "eigvals_only")
    if check.integer(type, "eigh", "type") != 1:
        message = f"type must be 1 (a v = w b v); types 2 and 3 are not supported, got {shown(type)}"
        raise check.error(ArgumentError, "eigh", "type", message)
    if subset_by_value is not None:
        message = "subset_by_value is not supported; use subset_by_index, or select from w"
        raise check.error(ArgumentError, "eigh", "subset_by_value", message)
    n = check.matrix(a, "eigh", "a")
    check.finite(a, "eigh", "a")
    if b is not None and check.matrix(b, "eigh", "b") != n:
        message = f"a has shape {list(a.shape)} and b has shape {list(b.shape)}; b must be ({n}, {n}) as a is"
        raise check.error(ShapeMismatch, "eigh", "b", message)
    h = check.hermitian_from(a, lower)
    chol = None
    if b is not None:
        chol = factor(b, lower, "eigh", "b")  # L, or U = Lᴴ
        chol = chol if lower else tnp.conj(tnp.matrix_transpose(chol))
        s = session(h)  # L⁻¹ a L⁻ᴴ, Hermitian
        left = s.triangular_solve(chol, h, True, 0)
        h = tnp.conj(tnp.matrix_transpose(s.triangular_solve(chol, tnp.conj(tnp.matrix_transpose(left)), True, 0)))
    w, v = tnp.linalg.eigh(h)
    if chol is not None:
        v = session(v).triangular_solve(chol, v, True, 2)  # L⁻ᴴ y
    if subset_by_index is not None:
        lo, hi = check.pair(subset_by_index, "eigh", "subset_by_index", "a pair (lo, hi) of eigenvalue indices")
        lo, hi = check.integer(lo, "eigh", "subset_by_index"), check.integer(hi, "eigh", "subset_by_index")
        if not 0 <= lo <= hi < w.shape[-1]:
            message = f"subset_by_index {(lo, hi)} is not within 0 .. {w.shape[-1] - 1}"
            raise check.error(ArgumentError, "eigh", "subset_by_index", message)
        w, v = w[..., lo : hi + 1], v[..., lo : hi + 1]
    return w if eigvals_only else (w, v)


@public
def eigvalsh(a: Any, b: Any = None, *, lower: bool = True, **kwargs: Any) -> EagerTensor:
    """The eigenvalues of :func:`eigh`, ascending."""
    return eigh(a, b, lower=lower, eigvals_only=True, **kwargs)


@public
def svd(
    a: Any,
    full_matrices: bool = True,
    compute_uv: bool = True,
    overwrite_a: bool = False,
    check_finite: bool = True,
    lapack_driver: str = "gesdd",
) -> Any:
    """(u, s, vh) with a = u diag(s) vh, s descending (s alone without ``compute_uv``); u and
    vh differentiate with ``full_matrices=False`` or a square a. Gauge: each column of u has
    its largest entry real and positive."""
    (a,) = check.arrays("svd", a=a)
    check.matrix(a, "svd", "a", square=False)
    check.finite(a, "svd", "a")
    check.choice(lapack_driver, ("gesdd", "gesvd"), "svd", "lapack_driver")
    full_matrices = check.flag(full_matrices, "svd", "full_matrices")
    if not check.flag(compute_uv, "svd", "compute_uv"):
        return tnp.linalg.svdvals(a)
    return tuple(tnp.linalg.svd(a, full_matrices=full_matrices))


@public
def svdvals(a: Any, overwrite_a: bool = False, check_finite: bool = True) -> EagerTensor:
    """The singular values of each matrix of a, descending."""
    (a,) = check.arrays("svdvals", a=a)
    check.matrix(a, "svdvals", "a", square=False)
    check.finite(a, "svdvals", "a")
    return tnp.linalg.svdvals(a)


@public
def qr(
    a: Any,
    overwrite_a: bool = False,
    lwork: int | None = None,
    mode: str = "full",
    pivoting: bool = False,
    check_finite: bool = True,
) -> Any:
    """(q, r) with a = q r: ``mode='full'`` (q (M, M), r (M, N)), ``'economic'`` (q (M, K),
    r (K, N)), ``'r'`` ((r,) with r (M, N)). r's diagonal is real and non-negative
    (tenferro's gauge; LAPACK's signs differ). No ``pivoting``, no ``'raw'``."""
    (a,) = check.arrays("qr", a=a)
    check.matrix(a, "qr", "a", square=False)
    if check.flag(pivoting, "qr", "pivoting"):
        message = "pivoting=True is not supported (the pivots are not differentiable); leave it False"
        raise check.error(ArgumentError, "qr", "pivoting", message)
    mode = check.choice(mode, ("full", "economic", "r"), "qr", "mode")  # no "raw"
    q, r = tnp.linalg.qr(a, mode="reduced" if mode == "economic" else "complete")
    return (r,) if mode == "r" else (q, r)


@public
def norm(a: Any, ord: Any = None, axis: Any = None, keepdims: bool = False, check_finite: bool = True) -> EagerTensor:  # noqa: A002 (scipy's name)
    """NumPy's (and scipy's) norm: a vector norm over one axis, a matrix norm over two
    (tnp.linalg.norm, whose ord, axis and keepdims are scipy's)."""
    (a,) = check.arrays("norm", a=a)
    return tnp.linalg.norm(a, ord, axis, keepdims)


@public
def pinv(
    a: Any, *, atol: Any = None, rtol: Any = None, return_rank: bool = False, check_finite: bool = True
) -> EagerTensor:
    """The pseudo-inverse (tnp.linalg.pinv). Its default cutoff is NumPy's (1e-15 times the
    largest singular value), not scipy's max(M, N)·eps; ``rtol`` sets it (through svd);
    ``atol`` and ``return_rank`` are not supported."""
    if atol is not None or return_rank is not False:
        raise check.error(
            ArgumentError, "pinv", "atol" if atol is not None else "return_rank",
            "atol and return_rank are not supported; pass rtol for the cutoff",
        )  # fmt: skip
    (a,) = check.arrays("pinv", a=a)
    check.matrix(a, "pinv", "a", square=False)
    check.finite(a, "pinv", "a")
    return tnp.linalg.pinv(a, rtol=rtol)
