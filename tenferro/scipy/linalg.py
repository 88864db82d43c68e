"""``tenferro.scipy.linalg``: scipy.linalg's functions with scipy's names and signatures,
differentiable to every order, as ``jax.scipy.linalg`` offers them.

Three kinds (docs/scipy-linalg.md has the table): the ``linalg`` plugin's ops
(``solve_triangular`` is ``triangular_solve``; ``sqrtm``, ``solve_sylvester`` and ``lu``
are ops with SciPy's kernels); functions composed from ops (``expm`` by Padé scaling and
squaring as jax's, ``expm_frechet``, ``cho_factor``/``cho_solve``, ``lu_factor``/
``lu_solve``, the triangle-reading ``cholesky`` and ``eigh``); and ``tnp.linalg``'s
functions with scipy's signatures (``inv``, ``det``, ``solve``, ``svd``, ``qr``, ``norm``,
...). Every function takes stacks (..., M, N) where scipy's takes one matrix.

scipy's ``overwrite_*`` and ``check_finite`` arguments are accepted and change nothing
(values are immutable; a nan or inf matrix is refused where LAPACK would fail). Errors
name ``tenferro.scipy.linalg.<function>`` and the argument.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import numpy as tnp
from ..core.arguments import flag, integer, shown
from ..core.eager import EagerTensor, held
from ..core.errors import ArgumentError, TenferroError
from ..numpy._dispatch import array_arg, array_pair, as_array, renamed, runtime_of
from ..plugins.linalg.batching import NotPositiveDefinite, SingularMatrix
from . import _expm

_PREFIX = "tenferro.scipy.linalg."

__all__ = [
    "NotPositiveDefinite",
    "SingularMatrix",
    "cho_factor",
    "cho_solve",
    "cholesky",
    "det",
    "eigh",
    "eigvalsh",
    "expm",
    "expm_frechet",
    "inv",
    "lu",
    "lu_factor",
    "lu_solve",
    "norm",
    "pinv",
    "qr",
    "solve",
    "solve_sylvester",
    "solve_triangular",
    "sqrtm",
    "svd",
    "svdvals",
]


def _scipy_named(function: Callable[..., Any] | None = None, *, names: dict[str, str] | None = None) -> Any:
    """``function`` whose TenferroErrors (its own, an op's, a tnp function's) name
    ``tenferro.scipy.linalg.<function>`` and its arguments by scipy's names (``names``: the
    op's or tnp's -> scipy's)."""
    if function is None:
        return functools.partial(_scipy_named, names=names)
    public = _PREFIX + function.__name__

    @functools.wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except TenferroError as exc:
            raise renamed(exc, public, names) from None

    return wrapper


def _choice(value: Any, choices: tuple[Any, ...], name: str) -> Any:
    """``value`` if it is one of ``choices`` (strings, ints or None), else an ArgumentError
    listing them (an array or a list is refused, never compared)."""
    if isinstance(value, np.integer):
        value = int(value)
    if (value is None or type(value) in (str, int)) and value in choices:
        return value
    listed = ", ".join(repr(c) for c in choices)
    raise ArgumentError(f"{name} must be one of {listed}, got {shown(value)}")


def _session(x: EagerTensor) -> Any:
    return x.runtime.current_session()


def _inexact(x: EagerTensor) -> EagerTensor:
    """x, or x as float64 when it holds integers or bools (scipy computes in float64)."""
    return x if x.dtype.kind in "fc" else _session(x).astype(x, np.float64)


def _square(x: EagerTensor, name: str) -> None:
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ArgumentError(f"{name} has shape {list(x.shape)}; it must be a square matrix (..., M, M)")


def _finite(x: EagerTensor, name: str) -> np.ndarray:
    """x's values (read to decide, not differentiated); an ArgumentError if any is nan or inf."""
    values = np.asarray(held(x))
    if not np.all(np.isfinite(values)):
        raise ArgumentError(f"{name} has nan or inf entries; it needs a finite matrix")
    return values


def _hermitian_from(x: EagerTensor, lower: bool) -> EagerTensor:
    """The Hermitian matrix of x's lower (upper) triangle, which is all scipy reads: the
    other triangle takes no part, and gets no gradient."""
    s = _session(x)
    if lower:
        return s.add(s.tril(x), tnp.conj(tnp.matrix_transpose(s.tril(x, -1))))
    return s.add(s.triu(x), tnp.conj(tnp.matrix_transpose(s.triu(x, 1))))


# -- solves and factorisations ------------------------------------------------------------------
@_scipy_named
def solve_triangular(
    a: Any,
    b: Any,
    trans: int | str = 0,
    lower: bool = False,
    unit_diagonal: bool = False,
    overwrite_b: bool = False,
    check_finite: bool = True,
) -> EagerTensor:
    """x with op(T) x = b, T the upper (``lower=True``: lower) triangle of a (the other is not
    read and gets no gradient; ones on the diagonal with ``unit_diagonal``), op(T) = T
    (``trans`` 0 or 'N'), Tᵀ (1, 'T') or Tᴴ (2, 'C'). b is (M,) or (..., M, K)."""
    a, b = array_pair(a, b, "solve_triangular")
    lower = flag(lower, "solve_triangular", "lower")
    unit = flag(unit_diagonal, "solve_triangular", "unit_diagonal")
    return _session(a).triangular_solve(_inexact(a), _inexact(b), lower, trans, unit)


@_scipy_named
def cholesky(a: Any, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True) -> EagerTensor:
    """The Cholesky factor of the Hermitian positive definite matrix whose upper (``lower``:
    lower) triangle a holds, as scipy reads it: U with a = Uᴴ U (L with a = L Lᴴ). The
    other triangle is not read and gets no gradient."""
    a = _inexact(array_arg(a, "cholesky", "a"))
    lower = flag(lower, "cholesky", "lower")
    _square(a, "a")
    return _session(a).cholesky(_hermitian_from(a, lower), not lower)


@_scipy_named
def cho_factor(
    a: Any, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True
) -> tuple[EagerTensor, bool]:
    """(c, lower) for :func:`cho_solve`: c is :func:`cholesky`'s factor, with zeros in its
    other triangle (scipy leaves a's entries there; neither is read by cho_solve)."""
    return cholesky(a, lower), flag(lower, "cho_factor", "lower")


@_scipy_named
def cho_solve(
    c_and_lower: tuple[Any, bool], b: Any, overwrite_b: bool = False, check_finite: bool = True
) -> EagerTensor:
    """x with a x = b from ``cho_factor(a)``'s (c, lower): two triangular solves (L then Lᴴ,
    or Uᴴ then U), reading only c's triangle."""
    c, lower = _pair(c_and_lower, "c_and_lower", "(c, lower), as cho_factor returns")
    c, b = array_pair(c, b, "cho_solve")
    lower = flag(lower, "cho_solve", "lower")
    s, c, b = _session(c), _inexact(c), _inexact(b)
    if lower:  # L Lᴴ x = b
        return s.triangular_solve(c, s.triangular_solve(c, b, True, 0), True, 2)
    return s.triangular_solve(c, s.triangular_solve(c, b, False, 2), False, 0)  # Uᴴ U x = b


def _pair(value: Any, name: str, what: str) -> tuple[Any, Any]:
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise ArgumentError(f"argument {name!r} must be {what}, got {shown(value)}")
    return value[0], value[1]


@_scipy_named
def lu(
    a: Any, permute_l: bool = False, overwrite_a: bool = False, check_finite: bool = True, p_indices: bool = False
) -> tuple[EagerTensor, ...]:
    """(p, l, u) with a = p l u (the op ``lu``, scipy's values); ``permute_l=True`` gives
    (p l, u), ``p_indices=True`` p as row indices (a = l[p] u, an int constant). p carries
    no derivative; l and u do, where u's pivots are nonzero."""
    a = _inexact(array_arg(a, "lu", "a"))
    s = _session(a)
    p, lower, upper = s.lu(a)
    if flag(permute_l, "lu", "permute_l"):
        return s.matmul(p, lower), upper
    if flag(p_indices, "lu", "p_indices"):
        return a.runtime.constant_from(np.argmax(np.asarray(held(p)), axis=-1).astype(np.int32)), lower, upper
    return p, lower, upper


@_scipy_named
def lu_factor(a: Any, overwrite_a: bool = False, check_finite: bool = True) -> tuple[EagerTensor, EagerTensor]:
    """(lu, piv): l's part below the diagonal and u packed in one (M, N) matrix
    (differentiable), and LAPACK's pivots (0-based row interchanges, int32, a constant), as
    scipy's."""
    a = _inexact(array_arg(a, "lu_factor", "a"))
    s = _session(a)
    p, lower, upper = s.lu(a)
    m, n = a.shape[-2:]
    k = min(m, n)
    batch = ((0, 0),) * (a.ndim - 2)
    packed = s.add(s.pad(s.tril(lower, -1), (*batch, (0, 0), (0, n - k))), s.pad(upper, (*batch, (0, m - k), (0, 0))))
    return packed, a.runtime.constant_from(_interchanges(np.argmax(np.asarray(held(p)), axis=-2), k))


def _interchanges(order: np.ndarray, k: int) -> np.ndarray:
    """LAPACK's ipiv (row i swapped with row ipiv[i], i = 0 .. k-1, in turn) of the row
    order ``order`` (row i of l u is row order[i] of a), for each matrix of a batch."""
    piv = np.zeros(order.shape[:-1] + (k,), np.int32)
    for index in np.ndindex(order.shape[:-1]):
        rows = list(range(order.shape[-1]))
        for i in range(k):
            j = rows.index(int(order[index][i]), i)
            piv[index][i] = j
            rows[i], rows[j] = rows[j], rows[i]
    return piv


@_scipy_named
def lu_solve(
    lu_and_piv: tuple[Any, Any], b: Any, trans: int = 0, overwrite_b: bool = False, check_finite: bool = True
) -> EagerTensor:
    """x with a x = b (``trans`` 1: aᵀ x = b, 2: aᴴ x = b) from ``lu_factor(a)``'s (lu, piv):
    two triangular solves on lu's triangles (differentiable in lu and b) and the row
    interchanges (a constant)."""
    packed, piv = _pair(lu_and_piv, "lu_and_piv", "(lu, piv), as lu_factor returns")
    packed, b = array_pair(packed, b, "lu_solve")
    packed, b = _inexact(packed), _inexact(b)
    _square(packed, "lu")
    trans = _choice(trans, (0, 1, 2), "trans")
    order = _row_order(np.asarray(held(piv)) if type(piv) is EagerTensor else np.asarray(piv), packed.shape[-1])
    s = _session(packed)
    m = packed.shape[-1]
    if b.ndim == 0 or (b.shape[0] if b.ndim == 1 else b.shape[-2]) != m:
        raise ArgumentError(f"lu has shape {list(packed.shape)} and b has shape {list(b.shape)}; b needs lu's {m} rows")
    rows = packed.runtime.constant_from(np.eye(m, dtype=np.finfo(packed.dtype).dtype)[order])  # pᵀ: b's rows in order
    if trans == 0:  # a = p l u: x = u⁻¹ l⁻¹ pᵀ b
        y = _times(rows, b)
        return s.triangular_solve(packed, s.triangular_solve(packed, y, True, 0, True), False, 0)
    # aᵀ = uᵀ lᵀ pᵀ (ᴴ for trans 2): x = p l⁻ᵀ u⁻ᵀ b
    y = s.triangular_solve(packed, s.triangular_solve(packed, b, False, trans), True, trans, True)
    return _times(tnp.matrix_transpose(rows), y, b.ndim == 1)


def _times(m: EagerTensor, x: EagerTensor, vector: bool = False) -> EagerTensor:
    """m @ x, x a stack of vectors (..., M) where ``vector`` (a solve's result for a 1-D b)."""
    if vector and x.ndim > 1:
        return tnp.matmul(m, x[..., None])[..., 0]
    return tnp.matmul(m, x)


def _row_order(piv: np.ndarray, n: int) -> np.ndarray:
    """The row order (row i of l u is row order[i] of a) of LAPACK's interchanges ``piv``."""
    if piv.dtype.kind not in "iu" or piv.shape[-1:] != (n,) or np.any(piv < 0) or np.any(piv >= n):
        raise ArgumentError(f"piv must be lu_factor's integer pivots of shape (..., {n}), got {shown(piv)}")
    order = np.empty(piv.shape, np.int64)
    for index in np.ndindex(piv.shape[:-1]):
        rows = list(range(n))
        for i, j in enumerate(piv[index]):
            rows[i], rows[int(j)] = rows[int(j)], rows[i]
        order[index] = rows
    return order


@_scipy_named
def solve_sylvester(a: Any, b: Any, q: Any) -> EagerTensor:
    """x with a x + x b = q (the op ``solve_sylvester``: SciPy's Bartels-Stewart, its values),
    differentiable in a, b and q."""
    rt = runtime_of((a, b, q))
    a, b, q = (_inexact(as_array(rt, x, "solve_sylvester", n)) for x, n in ((a, "a"), (b, "b"), (q, "q")))
    return _session(a).solve_sylvester(a, b, q)


#: solve's assume_a values (scipy's spellings; banded and tridiagonal ones are not supported).
_ASSUME = (None, "gen", "general", "sym", "symmetric", "her", "hermitian", "pos", "positive definite")
_ASSUME += ("lower triangular", "upper triangular")


@_scipy_named
def solve(
    a: Any,
    b: Any,
    lower: bool = False,
    overwrite_a: bool = False,
    overwrite_b: bool = False,
    check_finite: bool = True,
    assume_a: str | None = None,
    transposed: bool = False,
) -> EagerTensor:
    """x with a x = b (``transposed``: aᵀ x = b). ``assume_a``: None/'gen'/'general' (LU),
    'sym'/'her' (the matrix of a's ``lower`` or upper triangle), 'pos' (Cholesky, from that
    triangle), 'lower triangular'/'upper triangular'; b is (M,) or (..., M, K). ``transposed``
    transposes the matrix ``assume_a`` reads, as scipy's (a no-op for a real 'sym', 'her' or
    'pos'; scipy refuses a complex a with it, this solves the transposed system)."""
    a, b = array_pair(a, b, "solve")
    a, b = _inexact(a), _inexact(b)
    lower = flag(lower, "solve", "lower")
    transposed = flag(transposed, "solve", "transposed")
    s = _session(a)
    _choice(assume_a, _ASSUME, "assume_a")
    if assume_a in (None, "gen", "general"):
        return s.solve(tnp.matrix_transpose(a) if transposed else a, b)
    if assume_a in ("sym", "symmetric", "her", "hermitian"):
        full = _hermitian_from(a, lower)
        if assume_a in ("sym", "symmetric") and a.dtype.kind == "c":  # symmetric, not Hermitian
            t = s.tril(a) if lower else s.triu(a)
            full = s.add(t, tnp.matrix_transpose(s.tril(a, -1) if lower else s.triu(a, 1)))
        return s.solve(tnp.matrix_transpose(full) if transposed else full, b)
    if assume_a in ("pos", "positive definite"):
        if transposed and a.dtype.kind == "c":  # (Hermitian h)ᵀ = conj(h): x = conj(h⁻¹ conj(b))
            return tnp.conj(cho_solve(cho_factor(a, lower), tnp.conj(b)))
        return cho_solve(cho_factor(a, lower), b)  # a real symmetric matrix is its own transpose
    return s.triangular_solve(a, b, assume_a == "lower triangular", 1 if transposed else 0, False)


@_scipy_named(names={"x": "a"})
def inv(a: Any, overwrite_a: bool = False, check_finite: bool = True) -> EagerTensor:
    """The inverse of each matrix of a; a singular one is a SingularMatrix."""
    return tnp.linalg.inv(_inexact(array_arg(a, "inv", "a")))


@_scipy_named(names={"x": "a"})
def det(a: Any, overwrite_a: bool = False, check_finite: bool = True) -> EagerTensor:
    """The determinant of each matrix of a, differentiable at singular matrices too."""
    return tnp.linalg.det(_inexact(array_arg(a, "det", "a")))


# -- matrix functions ------------------------------------------------------------------------------
@_scipy_named(names={"a": "A", "x": "A"})
def expm(A: Any) -> EagerTensor:  # noqa: N803 (scipy's name)
    """exp(A) of each square matrix of A, by Padé scaling and squaring (Higham 2005, as
    jax.scipy.linalg.expm), composed from matmul and solve: every order differentiates."""
    a = _inexact(array_arg(A, "expm", "A"))
    _square(a, "A")
    if a.shape[-1] == 0:
        return a
    return _expm.expm(_session(a), a, _finite(a, "A"))


@_scipy_named(names={"a": "A", "x": "A"})
def expm_frechet(
    A: Any,  # noqa: N803 (scipy's names)
    E: Any,  # noqa: N803
    method: str | None = None,
    compute_expm: bool = True,
    check_finite: bool = True,
) -> Any:
    """(expm(A), L(A, E)), the Fréchet derivative of expm at A along E, from the exponential
    of the block matrix [[A, E], [0, A]] (whose upper right block is L(A, E)); L(A, E) alone
    with ``compute_expm=False``."""
    a, e = array_pair(A, E, "expm_frechet")
    a, e = _inexact(a), _inexact(e)
    _square(a, "A")
    if e.shape != a.shape:
        raise ArgumentError(f"A has shape {list(a.shape)} and E has shape {list(e.shape)}; they must be equal")
    _choice(method, (None, "SPS", "blockEnlarge"), "method")
    n = a.shape[-1]
    dtype = np.result_type(a.dtype, e.dtype)
    a, e = tnp.astype(a, dtype), tnp.astype(e, dtype)
    zeros = tnp.zeros_like(a)
    block = tnp.concat([tnp.concat([a, e], axis=-1), tnp.concat([zeros, a], axis=-1)], axis=-2)
    big = expm(block)
    frechet = big[..., :n, n:]
    return (big[..., :n, :n], frechet) if flag(compute_expm, "expm_frechet", "compute_expm") else frechet


@_scipy_named(names={"a": "A"})
def sqrtm(A: Any, disp: bool = True, blocksize: int = 64) -> EagerTensor:  # noqa: N803 (scipy's name)
    """The principal square root of each square matrix of A (the op ``sqrtm``:
    scipy.linalg.sqrtm's values); a real A with a negative real eigenvalue needs a complex
    A. ``disp=False`` (scipy's error estimate) is not supported; ``blocksize`` changes nothing."""
    if disp is not True:
        raise ArgumentError("disp=False (a result with scipy's error estimate) is not supported; leave disp=True")
    a = _inexact(array_arg(A, "sqrtm", "A"))
    return _session(a).sqrtm(a)


# -- decompositions, norms (tnp.linalg's, with scipy's signatures) ------------------------------------
@_scipy_named(names={"x": "a"})
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
    a = _inexact(array_arg(a, "eigh", "a"))
    lower = flag(lower, "eigh", "lower")
    if integer(type, "eigh", "type") != 1:
        raise ArgumentError(f"type must be 1 (a v = w b v); types 2 and 3 are not supported, got {shown(type)}")
    if subset_by_value is not None:
        raise ArgumentError("subset_by_value is not supported; use subset_by_index, or select from w")
    _square(a, "a")
    h = _hermitian_from(a, lower)
    factor = None
    if b is not None:
        factor = cholesky(b, lower=True) if lower else tnp.conj(tnp.matrix_transpose(cholesky(b)))
        s = _session(h)  # L⁻¹ a L⁻ᴴ, Hermitian
        left = s.triangular_solve(factor, h, True, 0)
        h = tnp.conj(tnp.matrix_transpose(s.triangular_solve(factor, tnp.conj(tnp.matrix_transpose(left)), True, 0)))
    w, v = tnp.linalg.eigh(h)
    if factor is not None:
        v = _session(v).triangular_solve(factor, v, True, 2)  # L⁻ᴴ y
    if subset_by_index is not None:
        lo, hi = _pair(subset_by_index, "subset_by_index", "a pair (lo, hi) of eigenvalue indices")
        lo, hi = integer(lo, "eigh", "subset_by_index[0]"), integer(hi, "eigh", "subset_by_index[1]")
        if not 0 <= lo <= hi < w.shape[-1]:
            raise ArgumentError(f"subset_by_index {(lo, hi)} is not within 0 .. {w.shape[-1] - 1}")
        w, v = w[..., lo : hi + 1], v[..., lo : hi + 1]
    return w if flag(eigvals_only, "eigh", "eigvals_only") else (w, v)


@_scipy_named
def eigvalsh(a: Any, b: Any = None, *, lower: bool = True, **kwargs: Any) -> EagerTensor:
    """The eigenvalues of :func:`eigh`, ascending."""
    return eigh(a, b, lower=lower, eigvals_only=True, **kwargs)


@_scipy_named(names={"x": "a"})
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
    a = _inexact(array_arg(a, "svd", "a"))
    _choice(lapack_driver, ("gesdd", "gesvd"), "lapack_driver")
    if not flag(compute_uv, "svd", "compute_uv"):
        return tnp.linalg.svdvals(a)
    return tuple(tnp.linalg.svd(a, full_matrices=flag(full_matrices, "svd", "full_matrices")))


@_scipy_named(names={"x": "a"})
def svdvals(a: Any, overwrite_a: bool = False, check_finite: bool = True) -> EagerTensor:
    """The singular values of each matrix of a, descending."""
    return tnp.linalg.svdvals(_inexact(array_arg(a, "svdvals", "a")))


@_scipy_named(names={"x": "a"})
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
    a = _inexact(array_arg(a, "qr", "a"))
    if flag(pivoting, "qr", "pivoting"):
        raise ArgumentError("pivoting=True is not supported (the pivots are not differentiable); leave it False")
    _choice(mode, ("full", "economic", "r"), "mode")  # no "raw"
    q, r = tnp.linalg.qr(a, mode="reduced" if mode == "economic" else "complete")
    return (r,) if mode == "r" else (q, r)


@_scipy_named(names={"x": "a"})
def norm(a: Any, ord: Any = None, axis: Any = None, keepdims: bool = False, check_finite: bool = True) -> EagerTensor:  # noqa: A002 (scipy's name)
    """NumPy's (and scipy's) norm: a vector norm over one axis, a matrix norm over two."""
    return tnp.linalg.norm(array_arg(a, "norm", "a"), ord, axis, keepdims)


@_scipy_named(names={"x": "a"})
def pinv(
    a: Any, *, atol: Any = None, rtol: Any = None, return_rank: bool = False, check_finite: bool = True
) -> EagerTensor:
    """The pseudo-inverse (tnp.linalg.pinv). Its default cutoff is NumPy's (1e-15 times the
    largest singular value), not scipy's max(M, N)·eps; ``rtol`` sets it (through svd);
    ``atol`` and ``return_rank`` are not supported."""
    if atol is not None or return_rank is not False:
        raise ArgumentError("atol and return_rank are not supported; pass rtol for the cutoff")
    return tnp.linalg.pinv(_inexact(array_arg(a, "pinv", "a")), rtol=rtol)
