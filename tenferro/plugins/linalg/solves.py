"""Solves, inverses and determinants: ``solve``, ``triangular_solve``, ``inv``, ``det``,
``slogdet``, ``lstsq``, ``pinv``, ``matrix_power`` and ``cholesky``, batched over leading
axes as NumPy's linalg is (a right-hand side b is a vector (M,) only when b.ndim == 1, else
a stack (..., M, K) whose batch broadcasts with a's: NumPy 2's rule).

VJPs are the published ones (Giles 2008; Murray 2016 for cholesky; the formulas of
PyTorch's FunctionsManual.cpp and JAX's lax.linalg), written with session ops (this
``contract`` family's ``matmul``, shape's ``moveaxis``/``tril``/``triu``/``expand_dims``,
elementwise arithmetic), so they differentiate again. ``solve``'s VJP solves with aᵀ reusing
the forward pass's LU factorisation, and ``slogdet``/``det`` take inv(a) from it
(:mod:`.solve_lu`). An exactly singular matrix in solve, inv, a negative matrix_power,
triangular_solve or lstsq is a :class:`~.batching.SingularMatrix` error naming the op and
the batch index; cholesky of a matrix that is not positive definite a
:class:`~.batching.NotPositiveDefinite`.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from tenferro.extend import REQUIRED, ArgumentError, DTypeError, ErrorInput, OpSpec, ShapeMismatch
from tenferro.extend import unbroadcast as _unbroadcast

from . import solve_lu
from .batching import (
    NotPositiveDefinite,
    SingularMatrix,
    batch_where,
    check_matrix,
    check_rhs,
    column,
    explain_nonfinite,
    lazy,
    mT,
    scale_matrices,
    singular_error,
)

_SQUARE = np.array([[2.0, 1.0], [1.0, 3.0]])
_SINGULAR = np.stack([np.eye(2), np.array([[1.0, 2.0], [2.0, 4.0]])])  # batch index 1 is singular


def _outer(s: Any, p: Any, q: Any, vector: bool) -> Any:
    """p qᵀ for stacks of matrices (..., M, K), (..., N, K), or of vectors (..., M), (..., N)."""
    if vector:
        return s.mul(column(s, p), s.expand_dims(q, -2))
    return s.matmul(p, mT(s, q))


def _vector_rhs(s: Any, solver: Any, a: Any, g: Any, vector: bool) -> Any:
    """``solver(a, g)`` for a cotangent g of a solve with a vector b: g (..., M) is a stack
    of vectors, not a matrix, once a has batch axes."""
    if not vector or g.ndim == 1:
        return solver(a, g)
    return s.squeeze(solver(a, column(s, g)), -1)


def _batched(fn: Any, *arrays: Any, vector_b: bool = False) -> np.ndarray:
    """A reference: ``fn`` applied matrix by matrix over the broadcast batch."""
    arrays = [np.asarray(x, float) for x in arrays]
    if vector_b:
        arrays[1] = arrays[1][:, None]
    batch = np.broadcast_shapes(*(x.shape[:-2] for x in arrays))
    parts = [np.broadcast_to(x, batch + x.shape[-2:]) for x in arrays]
    out = np.array([fn(*(p[i] for p in parts)) for i in np.ndindex(batch)]) if batch else fn(*parts)
    out = out.reshape(batch + np.shape(out)[-2:]) if batch else out
    return out[..., 0] if vector_b else out


# -- solve ---------------------------------------------------------------------------------------
def _solve_kernel(op: str, transposed: bool) -> Any:
    def forward(a: Any, b: Any) -> Any:
        rows, _ = check_matrix(op, "a", a, square=True)
        check_rhs(op, a, b, rows)
        return solve_lu.solve(a, b, transposed, op)

    return forward


def _solve_vjp(transposed: bool) -> Any:
    def vjp(s: Any, g: Any, inputs: tuple[Any, Any], out: Any) -> tuple[Any, Any]:
        a, b = inputs
        vector = b.ndim == 1
        # x = a⁻¹b: gb = a⁻ᵀg, ga = -gb xᵀ. y = a⁻ᵀb: gb = a⁻¹g, ga = -y gbᵀ.
        gb = _vector_rhs(s, s.solve if transposed else s.solve_transposed, a, g, vector)
        ga = None
        if s.needs_grad(a):
            ga = _unbroadcast(s, s.neg(_outer(s, out, gb, vector) if transposed else _outer(s, gb, out, vector)), a)
        return ga, _unbroadcast(s, gb, b) if s.needs_grad(b) else None

    return vjp


def _solve_reference(transposed: bool) -> Any:
    def reference(a: Any, b: Any) -> np.ndarray:
        a = np.swapaxes(np.asarray(a, float), -1, -2) if transposed else a
        return _batched(lambda m, v: np.linalg.inv(m) @ v, a, b, vector_b=np.ndim(b) == 1)

    return reference


def _solve_errors(op: str) -> Any:
    return lambda: [
        ErrorInput((np.zeros((2, 3)), np.zeros(2)), {}, ShapeMismatch, "must be square"),
        ErrorInput((np.eye(2), np.zeros(3)), {}, ShapeMismatch, "a has shape [2, 2] and b has shape [3]"),
        ErrorInput((np.eye(2), np.zeros((3, 1))), {}, ShapeMismatch, "a has shape [2, 2] and b has shape [3, 1]"),
        ErrorInput((np.zeros((2, 2, 2)), np.zeros((3, 2, 1))), {}, ShapeMismatch, "batch axes do not broadcast"),
        ErrorInput((_SINGULAR, np.ones(2)), {}, SingularMatrix, f"{op}: a at batch index 1 is a singular matrix"),
        ErrorInput((np.zeros((2, 2)), np.ones(2)), {}, SingularMatrix, f"{op}: a is a singular matrix"),
        ErrorInput((np.eye(2, dtype=int), np.ones(2)), {}, DTypeError, "argument 'a' has dtype i64"),
    ]


def _solve_spec(name: str, transposed: bool, doc: str) -> OpSpec:
    return OpSpec(
        name=name,
        internal=transposed,
        inputs=("a", "b"),
        forward=_solve_kernel(name, transposed),
        vjp=_solve_vjp(transposed),
        residuals=("a", "out"),
        accepts="f",
        sample=lazy("solve"),
        reference=_solve_reference(transposed),
        error_inputs=_solve_errors(name),
        doc=doc,
    )


SOLVE = _solve_spec(
    "solve",
    False,
    "x with a x = b, a (..., M, M); b a vector (M,) when 1-D, else (..., M, K), batches broadcasting (NumPy 2's "
    "solve). VJP: gb = solve(aᵀ, g) with the forward pass's LU, ga = -gb xᵀ. Singular a: SingularMatrix.",
)
SOLVE_TRANSPOSED = _solve_spec(
    "solve_transposed",
    True,
    "x with aᵀ x = b (LU of a itself, so solve's VJP reuses solve's factorisation); shapes as solve.",
)


# -- triangular_solve ------------------------------------------------------------------------------
def _trans(trans: Any) -> int:
    table = {0: 0, 1: 1, 2: 1, "N": 0, "T": 1, "C": 1}
    if isinstance(trans, bool) or trans not in table:
        raise ArgumentError(f"triangular_solve: trans must be 0, 1, 2, 'N', 'T' or 'C' (scipy's), got {trans!r}")
    return table[trans]


def _triangle(a: Any, lower: bool, unit_diagonal: bool) -> Any:
    """The triangle of a that triangular_solve reads (with ones on the diagonal for
    ``unit_diagonal``), made from a itself so other engines' arrays stay what they are."""
    if not unit_diagonal:
        return np.tril(a) if lower else np.triu(a)
    ones = np.ones_like(a)
    strict = np.tril(a, -1) if lower else np.triu(a, 1)
    return np.add(strict, np.tril(np.triu(ones)))


def _triangular_solve(a: Any, b: Any, lower: bool = True, trans: Any = 0, unit_diagonal: bool = False) -> Any:
    t = _trans(trans)
    rows, _ = check_matrix("triangular_solve", "a", a, square=True)
    check_rhs("triangular_solve", a, b, rows)
    if solve_lu.is_fast(a) and type(b) is np.ndarray and b.ndim <= 2 and b.dtype == a.dtype:
        import scipy.linalg

        try:  # one big matrix: LAPACK's trtrs, O(M²K) instead of an LU
            return scipy.linalg.solve_triangular(
                a, b, trans=t, lower=bool(lower), unit_diagonal=bool(unit_diagonal), check_finite=False
            )
        except np.linalg.LinAlgError:
            raise singular_error("triangular_solve", a, hint=" (a zero on its diagonal)") from None
    tri = _triangle(a, bool(lower), bool(unit_diagonal))
    try:
        return np.linalg.solve(np.swapaxes(tri, -1, -2) if t else tri, b)
    except np.linalg.LinAlgError:
        raise singular_error("triangular_solve", tri, hint=" (a zero on its diagonal)") from None


def _triangular_vjp(
    s: Any, g: Any, inputs: tuple[Any, Any], out: Any, lower: bool, trans: Any, unit_diagonal: bool
) -> tuple[Any, Any]:
    a, b = inputs
    t = _trans(trans)
    vector = b.ndim == 1
    again = functools.partial(s.triangular_solve, lower=lower, trans=1 - t, unit_diagonal=unit_diagonal)
    gb = _vector_rhs(s, again, a, g, vector)
    ga = None
    if s.needs_grad(a):
        full = s.neg(_outer(s, out, gb, vector) if t else _outer(s, gb, out, vector))
        offset = (-1 if lower else 1) if unit_diagonal else 0
        ga = _unbroadcast(s, s.tril(full, offset) if lower else s.triu(full, offset), a)
    return ga, _unbroadcast(s, gb, b) if s.needs_grad(b) else None


def _triangular_reference(a: Any, b: Any, lower: bool = True, trans: Any = 0, unit_diagonal: bool = False) -> Any:
    import scipy.linalg

    def one(m: np.ndarray, v: np.ndarray) -> np.ndarray:
        return scipy.linalg.solve_triangular(m, v, trans=trans, lower=lower, unit_diagonal=unit_diagonal)

    return _batched(one, a, b, vector_b=np.ndim(b) == 1)


TRIANGULAR_SOLVE = OpSpec(
    name="triangular_solve",
    inputs=("a", "b"),
    params={"lower": True, "trans": 0, "unit_diagonal": False},
    forward=_triangular_solve,
    vjp=_triangular_vjp,
    residuals=("a", "out"),
    accepts="f",
    sample=lazy("triangular_solve"),
    reference=_triangular_reference,
    error_inputs=lambda: [
        ErrorInput((np.eye(2), np.ones(2)), {"trans": "X"}, ArgumentError, "trans must be"),
        ErrorInput((np.eye(2), np.ones(3)), {}, ShapeMismatch, "a has shape [2, 2] and b has shape [3]"),
        ErrorInput((np.diag([1.0, 0.0]), np.ones(2)), {}, SingularMatrix, "triangular_solve: a is a singular"),
        ErrorInput((np.zeros((2, 3)), np.ones(2)), {}, ShapeMismatch, "must be square"),
    ],
    doc="x with op(T) x = b, T the lower (or upper) triangle of a (the other is not read; ones on the diagonal "
    "with unit_diagonal), op(T) = T (trans 0/'N') or Tᵀ (1/'T'/2/'C'): scipy's solve_triangular, batched, but "
    "lower=True by default. Its gradient in a is zero outside that triangle.",
)


# -- inv, det, slogdet ---------------------------------------------------------------------------
def _inv(a: Any) -> Any:
    check_matrix("inv", "a", a, square=True)
    return solve_lu.inv(a)


def _square_errors(op: str, singular: bool = True) -> Any:
    cases = [
        ErrorInput((np.zeros((2, 3)),), {}, ShapeMismatch, f"{op}: a has shape [2, 3]"),
        ErrorInput((np.zeros(3),), {}, ShapeMismatch, "at least 2-D"),
        ErrorInput((np.eye(2, dtype=bool),), {}, DTypeError, "argument 'a' has dtype bool"),
    ]
    if singular:
        cases.append(ErrorInput((_SINGULAR,), {}, SingularMatrix, f"{op}: a at batch index 1 is a singular matrix"))
    return lambda: cases


INV = OpSpec(
    name="inv",
    inputs=("a",),
    forward=_inv,
    vjps=(lambda s, g, out, a: s.neg(s.matmul(mT(s, out), s.matmul(g, mT(s, out)))),),
    residuals=("out",),
    accepts="f",
    sample=lazy("square"),
    reference=lambda a: _batched(lambda m: np.linalg.solve(m, np.eye(len(m))), a),
    error_inputs=_square_errors("inv"),
    doc="The inverse of each matrix of a (..., M, M). VJP: -a⁻ᵀ g a⁻ᵀ. Singular a: SingularMatrix.",
)


def _det(a: Any) -> Any:
    check_matrix("det", "a", a, square=True)
    return solve_lu.det(a)


def _det_rule(s: Any, g: Any, out: Any, a: Any) -> Any:
    # d det = det · tr(a⁻¹ da): ga = g det a⁻ᵀ (inv from the LU the forward pass made)
    return scale_matrices(s, s.mul(g, out), mT(s, s.inv(a)))


DET = OpSpec(
    name="det",
    inputs=("a",),
    forward=_det,
    vjps=(_det_rule,),
    residuals=("a", "out"),
    accepts="f",
    sample=lazy("square"),
    reference=lambda a: np.prod(np.linalg.eigvals(np.asarray(a, float)), axis=-1).real,
    error_inputs=_square_errors("det", singular=False),
    doc="The determinant of each matrix of a (..., M, M). VJP: g·det·a⁻ᵀ, so its gradient at a singular "
    "matrix is a SingularMatrix error (PyTorch's, through an SVD, is not implemented).",
)


def _slogdet(a: Any) -> tuple[Any, Any]:
    check_matrix("slogdet", "a", a, square=True)
    return solve_lu.slogdet(a)


def _slogdet_rule(s: Any, g: tuple[Any, Any], out: Any, a: Any) -> Any:
    g_logabsdet = g[1]  # the sign is piecewise constant: no gradient
    if g_logabsdet is None:
        return None
    return scale_matrices(s, g_logabsdet, mT(s, s.inv(a)))


def _slogdet_reference(a: Any) -> list[np.ndarray]:
    d = np.prod(np.linalg.eigvals(np.asarray(a, float)), axis=-1).real
    return [np.sign(d), np.log(np.abs(d))]


SLOGDET = OpSpec(
    name="slogdet",
    inputs=("a",),
    forward=_slogdet,
    vjps=(_slogdet_rule,),
    multiple_results=True,
    residuals=("a",),
    accepts="f",
    sample=lazy("square"),
    reference=_slogdet_reference,
    error_inputs=_square_errors("slogdet", singular=False),
    doc="(sign, logabsdet) of each matrix of a (..., M, M), two results, as NumPy's; a singular matrix gives "
    "(0, -inf). VJP: g_logabsdet·a⁻ᵀ (the sign has none).",
)


# -- lstsq, pinv -----------------------------------------------------------------------------------
def _lstsq(a: Any, b: Any) -> Any:
    rows, cols = check_matrix("lstsq", "a", a)
    check_rhs("lstsq", a, b, rows)
    vector = np.ndim(b) == 1
    rhs = b[..., None] if vector else b
    tall = rows >= cols
    q, r = np.linalg.qr(a if tall else np.swapaxes(a, -1, -2))
    _check_full_rank(r, max(rows, cols))
    if tall:  # a = QR: x = R⁻¹ Qᵀ b, the least-squares solution
        x = np.linalg.solve(r, np.matmul(np.swapaxes(q, -1, -2), rhs))
    else:  # aᵀ = QR: x = Q R⁻ᵀ b, the solution of least norm
        x = np.matmul(q, np.linalg.solve(np.swapaxes(r, -1, -2), rhs))
    return x[..., 0] if vector else x


def _check_full_rank(r: Any, size: int) -> None:
    """SingularMatrix (with the batch index) where R's diagonal has an entry at or below
    size·eps·max|diag R|: the numerical rank test of NumPy's lstsq (rcond = size·eps).
    QR almost never gives an exact zero, so an exact test would let garbage through."""
    diag = np.abs(np.diagonal(r, axis1=-2, axis2=-1))
    if diag.shape[-1] == 0:
        return
    cutoff = size * np.finfo(r.dtype).eps * np.max(diag, axis=-1, keepdims=True)
    deficient = np.any(diag <= cutoff, axis=-1)
    if np.any(deficient):
        where = batch_where("lstsq", "a", deficient, np.shape(r)[:-2])
        raise SingularMatrix(f"{where} is rank deficient (numerically); lstsq needs full rank, use pinv")


def _lstsq_vjp(s: Any, g: Any, inputs: tuple[Any, Any], out: Any) -> tuple[Any, Any]:
    """x = a⁺b for a of full rank (Giles 2008, the pinv derivative at constant rank):
    gb = a⁺ᵀg; ga = -gb xᵀ + r wᵀ (tall a: r = b - ax, w = a⁺gb) + z (Pg)ᵀ (wide a:
    z = a⁺ᵀx, P = I - a⁺a); the other term is zero at full rank."""
    a, b = inputs
    vector = b.ndim == 1
    g2, x2 = (column(s, g), column(s, out)) if vector else (g, out)
    gb = s.lstsq(mT(s, a), g2)
    ga = None
    if s.needs_grad(a):
        ga = s.neg(s.matmul(gb, mT(s, x2)))
        if a.shape[-2] >= a.shape[-1]:
            residual = s.sub(column(s, b) if vector else b, s.matmul(a, x2))
            ga = s.add(ga, s.matmul(residual, mT(s, s.lstsq(a, gb))))
        else:
            projected = s.sub(g2, s.lstsq(a, s.matmul(a, g2)))
            ga = s.add(ga, s.matmul(s.lstsq(mT(s, a), x2), mT(s, projected)))
        ga = _unbroadcast(s, ga, a)
    gb_out = None
    if s.needs_grad(b):
        gb_out = _unbroadcast(s, s.squeeze(gb, -1) if vector else gb, b)
    return ga, gb_out


def _lstsq_reference(a: Any, b: Any) -> Any:
    return _batched(lambda m, v: np.linalg.lstsq(m, v, rcond=None)[0], a, b, vector_b=np.ndim(b) == 1)


LSTSQ = OpSpec(
    name="lstsq",
    inputs=("a", "b"),
    forward=_lstsq,
    vjp=_lstsq_vjp,
    accepts="f",
    sample=lazy("lstsq"),
    reference=_lstsq_reference,
    error_inputs=lambda: [
        ErrorInput((np.zeros((3, 2)), np.ones(2)), {}, ShapeMismatch, "a has shape [3, 2] and b has shape [2]"),
        ErrorInput((np.zeros((3, 2)), np.ones(3)), {}, SingularMatrix, "rank deficient"),
        ErrorInput((np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]]), np.ones(3)), {}, SingularMatrix, "rank deficient"),
        ErrorInput((np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0]]), np.ones(2)), {}, SingularMatrix, "rank deficient"),
        ErrorInput((np.zeros(3), np.ones(3)), {}, ShapeMismatch, "at least 2-D"),
    ],
    doc="The least-squares solution x of a x ≈ b for a (..., M, N) of full rank (the least-norm one when "
    "M < N), by QR; b as solve's. Only x: not NumPy's residuals, rank and singular values, and no rcond "
    "(a numerically rank-deficient a, a diagonal entry of R at or below max(M, N)·eps·max|diag R| as NumPy's "
    "rcond, is a SingularMatrix naming the batch index; use pinv).",
)


def _pinv(a: Any) -> Any:
    check_matrix("pinv", "a", a)
    return np.linalg.pinv(a)


def _pinv_rule(s: Any, g: Any, out: Any, a: Any) -> Any:
    """The derivative of the pseudo-inverse at constant rank (Golub & Pereyra 1973; PyTorch's
    pinv_backward): -P⁺ᵀ g P⁺ᵀ + (I - a P) gᵀ P Pᵀ + Pᵀ P gᵀ (I - P a), P = a⁺."""
    p, gt = out, mT(s, g)
    first = s.neg(s.matmul(mT(s, p), s.matmul(g, mT(s, p))))
    left = s.matmul(gt, s.matmul(p, mT(s, p)))
    second = s.sub(left, s.matmul(a, s.matmul(p, left)))
    third = s.matmul(s.matmul(mT(s, p), p), s.sub(gt, s.matmul(s.matmul(gt, p), a)))
    return s.add(first, s.add(second, third))


PINV = OpSpec(
    name="pinv",
    explain=explain_nonfinite("pinv"),
    inputs=("a",),
    forward=_pinv,
    vjps=(_pinv_rule,),
    residuals=("a", "out"),
    accepts="f",
    sample=lazy("rect"),
    reference=lambda a: _batched(lambda m: np.linalg.lstsq(m, np.eye(len(m)), rcond=None)[0], a),
    error_inputs=lambda: [
        ErrorInput((np.zeros(3),), {}, ShapeMismatch, "pinv: a has shape [3]"),
        ErrorInput((np.eye(2, dtype=int),), {}, DTypeError, "argument 'a' has dtype i64"),
    ],
    doc="The Moore-Penrose pseudo-inverse of each matrix of a (..., M, N), by SVD (NumPy's pinv, its default "
    "cutoff). Its derivative is the one at constant rank: right where a has full rank or its rank is stable.",
)


# -- matrix_power -----------------------------------------------------------------------------------
def _matrix_power(a: Any, n: Any = REQUIRED) -> Any:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise ArgumentError(f"matrix_power: n must be an int (negative: powers of the inverse), got {n!r}")
    check_matrix("matrix_power", "a", a, square=True)
    try:
        out = np.linalg.matrix_power(a, int(n))
        return np.copy(out) if int(n) == 1 else out  # NumPy returns a itself for n = 1
    except np.linalg.LinAlgError:
        raise singular_error("matrix_power", a, hint=f" (n = {int(n)} needs its inverse)") from None


def _power_cotangent(s: Any, a: Any, k: int, g: Any) -> Any:
    """The VJP of a ↦ aᵏ (k ≥ 1) along NumPy's repeated squaring: aᵏ = b·b with b = a^(k/2)
    for even k (so g_b = g bᵀ + bᵀ g), a·a^(k-1) for odd k; O(log k) matrix products, where
    the sum Σⱼ (aʲ)ᵀ g (a^(k-1-j))ᵀ takes O(k)."""
    if k == 1:
        return g
    if k % 2:
        rest = s.matrix_power(a, k - 1)
        return s.add(s.matmul(g, mT(s, rest)), _power_cotangent(s, a, k - 1, s.matmul(mT(s, a), g)))
    half = s.matrix_power(a, k // 2)
    return _power_cotangent(s, a, k // 2, s.add(s.matmul(g, mT(s, half)), s.matmul(mT(s, half), g)))


def _matrix_power_rule(s: Any, g: Any, out: Any, a: Any, n: int) -> Any:
    n = int(n)
    if n == 0:
        return None
    if n > 0:
        return _power_cotangent(s, a, n, g)
    inverse = s.inv(a)  # a⁻ⁿ = (a⁻¹)ⁿ, and inv's VJP: -a⁻ᵀ h a⁻ᵀ
    h = _power_cotangent(s, inverse, -n, g)
    return s.neg(s.matmul(mT(s, inverse), s.matmul(h, mT(s, inverse))))


def _power_reference(a: Any, n: int) -> np.ndarray:
    a = np.asarray(a, float)
    base = np.linalg.solve(a, np.broadcast_to(np.eye(a.shape[-1]), a.shape)) if n < 0 else a
    out = np.broadcast_to(np.eye(a.shape[-1]), a.shape).copy()
    for _ in range(abs(n)):
        out = out @ base
    return out


MATRIX_POWER = OpSpec(
    name="matrix_power",
    inputs=("a",),
    params={"n": REQUIRED},
    forward=_matrix_power,
    vjps=(_matrix_power_rule,),
    residuals=("a",),
    accepts="f",
    sample=lazy("matrix_power"),
    reference=_power_reference,
    error_inputs=lambda: [
        ErrorInput((_SQUARE,), {"n": 1.5}, ArgumentError, "n must be an int"),
        ErrorInput((np.zeros((2, 3)),), {"n": 2}, ShapeMismatch, "must be square"),
        ErrorInput((_SINGULAR,), {"n": -1}, SingularMatrix, "matrix_power: a at batch index 1 is a singular"),
    ],
    doc="a to the int power n (..., M, M), as NumPy's matrix_power (n = 0: the identity; n < 0: powers of "
    "inv(a)). VJP: along repeated squaring, O(log |n|) matrix products.",
)


# -- cholesky -------------------------------------------------------------------------------------
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
    return _batched(lambda m: scipy.linalg.cholesky((m + m.T) / 2, lower=not upper), a)


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

SPECS = [
    SOLVE,
    SOLVE_TRANSPOSED,
    TRIANGULAR_SOLVE,
    INV,
    DET,
    SLOGDET,
    LSTSQ,
    PINV,
    MATRIX_POWER,
    CHOLESKY,
]
