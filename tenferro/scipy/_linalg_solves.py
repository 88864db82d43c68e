"""``tenferro.scipy.linalg``'s solves and factorisations: ``solve_triangular``, ``cholesky``,
``cho_factor``/``cho_solve``, ``lu``/``lu_factor``/``lu_solve``, ``solve`` and
``solve_sylvester``, on the ``linalg`` plugin's ops (triangular_solve, cholesky, lu, solve,
solve_sylvester) with scipy's signatures and triangle-reading rules."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import numpy as tnp
from ..core.arguments import shown
from ..core.eager import EagerTensor, held
from ..core.errors import ArgumentError, ShapeMismatch
from ..core.tracing import note_read
from ..plugins.linalg.batching import NotPositiveDefinite
from . import _linalg_checks as check
from ._linalg_checks import public, session


@public
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
    a, b = check.arrays("solve_triangular", a=a, b=b)
    check.rhs(b, check.matrix(a, "solve_triangular", "a"), "solve_triangular", "a", a.shape)
    trans = check.choice(trans, (0, 1, 2, "N", "T", "C"), "solve_triangular", "trans")
    lower = check.flag(lower, "solve_triangular", "lower")
    unit = check.flag(unit_diagonal, "solve_triangular", "unit_diagonal")
    return check.about("a", session(a).triangular_solve, a, b, lower, trans, unit)


def factor(x: EagerTensor, lower: bool, function: str, argument: str) -> EagerTensor:
    """The Cholesky factor (lower: L, else U) of the Hermitian matrix of x's ``lower`` or
    upper triangle, its errors naming ``function`` and ``argument`` (cholesky's a, eigh's b)."""
    values = check.finite(x, function, argument)
    check.matrix(x, function, argument)
    try:
        return session(x).cholesky(check.hermitian_from(x, lower), not lower)
    except NotPositiveDefinite as exc:
        bad = np.zeros(values.shape[:-2], bool)
        for index in np.ndindex(bad.shape):
            triangle = np.tril(values[index]) if lower else np.triu(values[index])
            diagonal = np.diag(np.diag(triangle))
            try:
                np.linalg.cholesky(triangle + triangle.conj().T - diagonal)
            except np.linalg.LinAlgError:
                bad[index] = True
        side = "lower" if lower else "upper"
        what = f"is not positive definite (read from its {side} triangle)"
        raise check.refused(exc, function, argument, bad, what) from None


@public
def cholesky(a: Any, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True) -> EagerTensor:
    """The Cholesky factor of the Hermitian positive definite matrix whose upper (``lower``:
    lower) triangle a holds, as scipy reads it: U with a = Uᴴ U (L with a = L Lᴴ). The
    other triangle is not read and gets no gradient."""
    (a,) = check.arrays("cholesky", a=a)
    return factor(a, check.flag(lower, "cholesky", "lower"), "cholesky", "a")


@public
def cho_factor(
    a: Any, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True
) -> tuple[EagerTensor, bool]:
    """(c, lower) for :func:`cho_solve`: c is :func:`cholesky`'s factor, with zeros in its
    other triangle (scipy leaves a's entries there; neither is read by cho_solve)."""
    (a,) = check.arrays("cho_factor", a=a)
    lower = check.flag(lower, "cho_factor", "lower")
    return factor(a, lower, "cho_factor", "a"), lower


def _vector_as_column(solve: Any, b: EagerTensor) -> EagerTensor:
    """``solve(b)`` for a stack of right-hand sides (..., M, K); a vector b (M,) as the
    column (M, 1), and the solution's column dropped: a stack of factors and a vector b give
    a stack of vectors, as tnp.linalg.solve's."""
    if b.ndim == 1:
        return solve(b[:, None])[..., 0]
    return solve(b)


@public
def cho_solve(
    c_and_lower: tuple[Any, bool], b: Any, overwrite_b: bool = False, check_finite: bool = True
) -> EagerTensor:
    """x with a x = b from ``cho_factor(a)``'s (c, lower): two triangular solves (L then Lᴴ,
    or Uᴴ then U), reading only c's triangle."""
    c, lower = check.pair(c_and_lower, "cho_solve", "c_and_lower", "(c, lower), as cho_factor returns")
    c, b = check.arrays("cho_solve", c=c, b=b)
    check.rhs(b, check.matrix(c, "cho_solve", "c"), "cho_solve", "c", c.shape)
    lower = check.flag(lower, "cho_solve", "lower")
    check.diagonal_nonzero(c, "cho_solve", "c")
    return _cho_solve(c, lower, b)


def _cho_solve(c: EagerTensor, lower: bool, b: EagerTensor) -> EagerTensor:
    s = session(c)
    if lower:  # L Lᴴ x = b
        return _vector_as_column(lambda b: s.triangular_solve(c, s.triangular_solve(c, b, True, 0), True, 2), b)
    return _vector_as_column(lambda b: s.triangular_solve(c, s.triangular_solve(c, b, False, 2), False, 0), b)


@public
def lu(
    a: Any, permute_l: bool = False, overwrite_a: bool = False, check_finite: bool = True, p_indices: bool = False
) -> tuple[EagerTensor, ...]:
    """(p, l, u) with a = p l u (the op ``lu``, scipy's values); ``permute_l=True`` gives
    (p l, u), ``p_indices=True`` p as row indices (a = l[p] u, an int constant). p carries
    no derivative; l and u do, where u's pivots are nonzero."""
    (a,) = check.arrays("lu", a=a)
    check.matrix(a, "lu", "a", square=False)
    permute_l, p_indices = check.flag(permute_l, "lu", "permute_l"), check.flag(p_indices, "lu", "p_indices")
    s = session(a)
    p, lower, upper = s.lu(a)
    if permute_l:
        return s.matmul(p, lower), upper
    if p_indices:
        return a.runtime.constant_from(np.argmax(np.asarray(_read_pivots(p)), axis=-1).astype(np.int32)), lower, upper
    return p, lower, upper


@public
def lu_factor(a: Any, overwrite_a: bool = False, check_finite: bool = True) -> tuple[EagerTensor, EagerTensor]:
    """(lu, piv): l's part below the diagonal and u packed in one (M, N) matrix
    (differentiable), and LAPACK's pivots (0-based row interchanges, int32, a constant), as
    scipy's."""
    (a,) = check.arrays("lu_factor", a=a)
    check.matrix(a, "lu_factor", "a", square=False)
    s = session(a)
    p, lower, upper = s.lu(a)
    m, n = a.shape[-2:]
    k = min(m, n)
    batch = ((0, 0),) * (a.ndim - 2)
    packed = s.add(s.pad(s.tril(lower, -1), (*batch, (0, 0), (0, n - k))), s.pad(upper, (*batch, (0, m - k), (0, 0))))
    return packed, a.runtime.constant_from(_interchanges(np.argmax(np.asarray(_read_pivots(p)), axis=-2), k))


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


@public
def lu_solve(
    lu_and_piv: tuple[Any, Any], b: Any, trans: int = 0, overwrite_b: bool = False, check_finite: bool = True
) -> EagerTensor:
    """x with a x = b (``trans`` 1: aᵀ x = b, 2: aᴴ x = b) from ``lu_factor(a)``'s (lu, piv):
    two triangular solves on lu's triangles (differentiable in lu and b) and the row
    interchanges (a constant)."""
    packed, piv = check.pair(lu_and_piv, "lu_solve", "lu_and_piv", "(lu, piv), as lu_factor returns")
    packed, b = check.arrays("lu_solve", lu=packed, b=b)
    m = check.matrix(packed, "lu_solve", "lu")
    check.rhs(b, m, "lu_solve", "lu", packed.shape)
    trans = check.choice(trans, (0, 1, 2), "lu_solve", "trans")
    order = _row_order(np.asarray(held(piv)) if type(piv) is EagerTensor else np.asarray(piv), m)
    check.diagonal_nonzero(packed, "lu_solve", "lu")
    s = session(packed)
    rows = packed.runtime.constant_from(np.eye(m, dtype=np.finfo(packed.dtype).dtype)[order])  # pᵀ: b's rows in order
    if trans == 0:  # a = p l u: x = u⁻¹ l⁻¹ pᵀ b
        return _vector_as_column(
            lambda b: s.triangular_solve(
                packed, s.triangular_solve(packed, tnp.matmul(rows, b), True, 0, True), False, 0
            ),
            b,
        )
    # aᵀ = uᵀ lᵀ pᵀ (ᴴ for trans 2): x = p l⁻ᵀ u⁻ᵀ b
    return _vector_as_column(
        lambda b: tnp.matmul(
            tnp.matrix_transpose(rows),
            s.triangular_solve(packed, s.triangular_solve(packed, b, False, trans), True, trans, True),
        ),
        b,
    )


def _row_order(piv: np.ndarray, n: int) -> np.ndarray:
    """The row order (row i of l u is row order[i] of a) of LAPACK's interchanges ``piv``."""
    if piv.dtype.kind not in "iu" or piv.shape[-1:] != (n,) or np.any(piv < 0) or np.any(piv >= n):
        message = f"piv must be lu_factor's integer pivots of shape (..., {n}), got {shown(piv)}"
        raise check.error(ArgumentError, "lu_solve", "lu_and_piv", message)
    order = np.empty(piv.shape, np.int64)
    for index in np.ndindex(piv.shape[:-1]):
        rows = list(range(n))
        for i, j in enumerate(piv[index]):
            rows[i], rows[int(j)] = rows[int(j)], rows[i]
        order[index] = rows
    return order


@public
def solve_sylvester(a: Any, b: Any, q: Any) -> EagerTensor:
    """x with a x + x b = q (the op ``solve_sylvester``: SciPy's Bartels-Stewart, its values),
    differentiable in a, b and q."""
    a, b, q = check.arrays("solve_sylvester", a=a, b=b, q=q)
    m, n = check.matrix(a, "solve_sylvester", "a"), check.matrix(b, "solve_sylvester", "b")
    check.matrix(q, "solve_sylvester", "q", square=False)
    if q.shape[-2:] != (m, n):
        shapes = f"a has shape {list(a.shape)}, b has shape {list(b.shape)} and q has shape {list(q.shape)}"
        message = f"{shapes}; q must be (..., {m}, {n}) (a's rows, b's columns)"
        raise check.error(ShapeMismatch, "solve_sylvester", "q", message)
    for x, name in ((a, "a"), (b, "b"), (q, "q")):
        check.finite(x, "solve_sylvester", name)
    return session(a).solve_sylvester(a, b, q)


#: solve's assume_a values (scipy's spellings; banded and tridiagonal ones are not supported).
_ASSUME = (None, "gen", "general", "sym", "symmetric", "her", "hermitian", "pos", "positive definite")
_ASSUME += ("lower triangular", "upper triangular")


@public
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
    a, b = check.arrays("solve", a=a, b=b)
    check.rhs(b, check.matrix(a, "solve", "a"), "solve", "a", a.shape)
    lower = check.flag(lower, "solve", "lower")
    transposed = check.flag(transposed, "solve", "transposed")
    assume_a = check.choice(assume_a, _ASSUME, "solve", "assume_a")
    s = session(a)
    if assume_a in (None, "gen", "general"):
        return check.about("a", s.solve, tnp.matrix_transpose(a) if transposed else a, b)
    if assume_a in ("sym", "symmetric", "her", "hermitian"):
        full = check.hermitian_from(a, lower)
        if assume_a in ("sym", "symmetric") and a.dtype.kind == "c":  # symmetric, not Hermitian
            t = s.tril(a) if lower else s.triu(a)
            full = s.add(t, tnp.matrix_transpose(s.tril(a, -1) if lower else s.triu(a, 1)))
        return check.about("a", s.solve, tnp.matrix_transpose(full) if transposed else full, b)
    if assume_a in ("pos", "positive definite"):
        c = factor(a, lower, "solve", "a")
        if transposed and a.dtype.kind == "c":  # (Hermitian h)ᵀ = conj(h): x = conj(h⁻¹ conj(b))
            return tnp.conj(_cho_solve(c, lower, tnp.conj(b)))
        return _cho_solve(c, lower, b)  # a real symmetric matrix is its own transpose
    return check.about("a", s.triangular_solve, a, b, assume_a == "lower triangular", 1 if transposed else 0, False)


def _read_pivots(p: Any) -> Any:
    """The permutation of an LU factorisation, read (its rows' order has no derivative)."""
    note_read(p, "scipy.linalg.lu's pivots")
    return held(p)
