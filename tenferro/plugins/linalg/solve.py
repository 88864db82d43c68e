"""The solves: ``solve`` (and its internal adjoint ``solve_transposed``) and
``triangular_solve``, x with op(a) x = b, batched over leading axes as NumPy's linalg is (a
right-hand side b is a vector (M,) only when b.ndim == 1, else a stack (..., M, K) whose
batch broadcasts with a's: NumPy 2's rule).

VJPs are the published ones (Giles 2008; the formulas of PyTorch's FunctionsManual.cpp and
JAX's lax.linalg), written with session ops, so they differentiate again. ``solve``'s VJP
solves with aᵀ reusing the forward pass's LU factorisation (:mod:`.solve_lu`). An exactly
singular matrix is a :class:`~.batching.SingularMatrix` error naming the op and the batch
index.

Complex a and b (mixed with real ones as NumPy promotes them): the VJPs are PyTorch's,
the real ones with every transpose a conjugate transpose (gb = a⁻ᴴg, ga = -gb xᴴ), so
``solve_transposed`` solves with aᴴ; a real operand gets the real part of its cotangent.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from tenferro.extend import ArgumentError, DTypeError, ErrorInput, OpSpec, ShapeMismatch, conj
from tenferro.extend import batching as vmap_rules
from tenferro.extend import unbroadcast as _unbroadcast

from . import solve_lu
from .batching import (
    SINGULAR,
    SingularMatrix,
    as_result,
    batched_reference,
    check_matrix,
    check_rhs,
    column,
    lazy,
    mH,
    singular_error,
    times,
)


def _outer(s: Any, p: Any, q: Any, vector: bool) -> Any:
    """p qᴴ (p qᵀ for a real q) for stacks of matrices (..., M, K), (..., N, K), or of
    vectors (..., M), (..., N)."""
    if vector:
        return s.mul(column(s, p), s.expand_dims(conj(s, q), -2))
    return s.matmul(p, mH(s, q))


def _vector_rhs(s: Any, solver: Any, a: Any, g: Any, vector: bool) -> Any:
    """``solver(a, g)`` for a cotangent g of a solve with a vector b: g (..., M) is a stack
    of vectors, not a matrix, once a has batch axes."""
    if not vector or g.ndim == 1:
        return solver(a, g)
    return s.squeeze(solver(a, column(s, g)), -1)


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
        # x = a⁻¹b: gb = a⁻ᴴg, ga = -gb xᴴ. y = a⁻ᴴb: gb = a⁻¹g, ga = -y gbᴴ (ᴴ: ᵀ when real).
        gb = _vector_rhs(s, s.solve if transposed else s.solve_transposed, a, g, vector)
        ga = None
        if s.needs_grad(a):
            ga = _unbroadcast(s, s.neg(_outer(s, out, gb, vector) if transposed else _outer(s, gb, out, vector)), a)
        return ga, _unbroadcast(s, gb, b) if s.needs_grad(b) else None

    return vjp


def _solve_jvp(transposed: bool) -> Any:
    def jvp(s: Any, tangents: Any, inputs: tuple[Any, Any], out: Any) -> Any:
        # x = a⁻¹b: dx = a⁻¹(db - da x). y = a⁻ᴴb: dy = a⁻ᴴ(db - daᴴ y) (ᴴ: ᵀ when real).
        (da, db), (a, b) = tangents, inputs
        rhs = db
        if da is not None:
            moved = times(s, mH(s, da) if transposed else da, out, b.ndim == 1)
            rhs = s.neg(moved) if rhs is None else s.sub(rhs, moved)
        solver = s.solve_transposed if transposed else s.solve
        return as_result(s, _vector_rhs(s, solver, a, rhs, b.ndim == 1), out)

    return jvp


def _solve_reference(transposed: bool) -> Any:
    def reference(a: Any, b: Any) -> np.ndarray:
        a = np.conj(np.swapaxes(np.asarray(a), -1, -2)) if transposed else a
        return batched_reference(lambda m, v: np.linalg.inv(m) @ v, a, b, vector_b=np.ndim(b) == 1)

    return reference


def _solve_errors(op: str) -> Any:
    return lambda: [
        ErrorInput((np.zeros((2, 3)), np.zeros(2)), {}, ShapeMismatch, "must be square"),
        ErrorInput((np.eye(2), np.zeros(3)), {}, ShapeMismatch, "a has shape [2, 2] and b has shape [3]"),
        ErrorInput((np.eye(2), np.zeros((3, 1))), {}, ShapeMismatch, "a has shape [2, 2] and b has shape [3, 1]"),
        ErrorInput((np.zeros((2, 2, 2)), np.zeros((3, 2, 1))), {}, ShapeMismatch, "batch axes do not broadcast"),
        ErrorInput((SINGULAR, np.ones(2)), {}, SingularMatrix, f"{op}: a at batch index 1 is a singular matrix"),
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
        jvp=_solve_jvp(transposed),
        residuals=("a", "out"),
        accepts="fc",
        sample=lazy("solve"),
        complex_sample=lazy("solve", "complex_solve_samples"),
        reference=_solve_reference(transposed),
        error_inputs=_solve_errors(name),
        batch=vmap_rules.solve,
        doc=doc,
    )


SOLVE = _solve_spec(
    "solve",
    False,
    "x with a x = b, a (..., M, M); b a vector (M,) when 1-D, else (..., M, K), batches broadcasting (NumPy 2's "
    "solve). VJP: gb = solve(aᴴ, g) with the forward pass's LU, ga = -gb xᴴ (ᵀ for real). Singular a: "
    "SingularMatrix.",
)
SOLVE_TRANSPOSED = _solve_spec(
    "solve_transposed",
    True,
    "x with aᴴ x = b (aᵀ x = b for a real a; LU of a itself, so solve's VJP reuses solve's factorisation); "
    "shapes as solve.",
)


# -- triangular_solve ------------------------------------------------------------------------------
def _trans(trans: Any) -> int:
    """0 (T), 1 (Tᵀ) or 2 (Tᴴ, which is Tᵀ for a real T)."""
    table = {0: 0, 1: 1, 2: 2, "N": 0, "T": 1, "C": 2}
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
    if _fast_triangular(a) and type(b) is np.ndarray and b.ndim <= 2 and b.dtype == a.dtype:
        import scipy.linalg

        try:  # one big matrix: LAPACK's trtrs, O(M²K) instead of an LU
            return scipy.linalg.solve_triangular(
                a, b, trans=t, lower=bool(lower), unit_diagonal=bool(unit_diagonal), check_finite=False
            )
        except np.linalg.LinAlgError:
            raise singular_error("triangular_solve", a, hint=" (a zero on its diagonal)") from None
    tri = _triangle(a, bool(lower), bool(unit_diagonal))
    op = np.swapaxes(tri, -1, -2) if t else tri
    try:
        return np.linalg.solve(np.conjugate(op) if t == 2 and np.iscomplexobj(op) else op, b)
    except np.linalg.LinAlgError:
        raise singular_error("triangular_solve", tri, hint=" (a zero on its diagonal)") from None


def _fast_triangular(a: Any) -> bool:
    """One big float64 or complex128 NumPy matrix: LAPACK's trtrs through SciPy."""
    return type(a) is np.ndarray and a.ndim == 2 and a.shape[0] >= solve_lu.FAST_SIZE and a.dtype.char in "dD"


def _triangular_vjp(
    s: Any, g: Any, inputs: tuple[Any, Any], out: Any, lower: bool, trans: Any, unit_diagonal: bool
) -> tuple[Any, Any]:
    """x = op(T)⁻¹b: gb = op(T)⁻ᴴg and op(T)'s cotangent -gb xᴴ, carried back through op: T's
    is -gb xᴴ (op = T), conj(-x gbᴴ) (Tᵀ) or -x gbᴴ (Tᴴ). For op = Tᵀ, op(T)⁻ᴴ is conj(T)⁻¹,
    a solve with T of the conjugates (no conj for real tensors, so this is the real rule)."""
    a, b = inputs
    t = _trans(trans)
    vector = b.ndim == 1
    adjoint = {0: 2 if a.dtype.kind == "c" else 1, 1: 0, 2: 0}[t]
    again = functools.partial(s.triangular_solve, lower=lower, trans=adjoint, unit_diagonal=unit_diagonal)
    gb = conj(s, _vector_rhs(s, again, a, conj(s, g), vector)) if t == 1 else _vector_rhs(s, again, a, g, vector)
    ga = None
    if s.needs_grad(a):
        full = s.neg(_outer(s, out, gb, vector) if t else _outer(s, gb, out, vector))
        full = conj(s, full) if t == 1 else full
        offset = (-1 if lower else 1) if unit_diagonal else 0
        ga = _unbroadcast(s, s.tril(full, offset) if lower else s.triu(full, offset), a)
    return ga, _unbroadcast(s, gb, b) if s.needs_grad(b) else None


def _triangular_jvp(
    s: Any,
    tangents: Any,
    inputs: tuple[Any, Any],
    out: Any,
    lower: bool = True,
    trans: Any = 0,
    unit_diagonal: bool = False,
) -> Any:
    """x = op(T)⁻¹b: dx = op(T)⁻¹(db - op(dT) x), dT the read triangle of da (without the
    diagonal for unit_diagonal); op(T)⁻¹ is the op itself."""
    (da, db), (a, b) = tangents, inputs
    t = _trans(trans)
    rhs = db
    if da is not None:
        offset = (-1 if lower else 1) if unit_diagonal else 0
        dt = s.tril(da, offset) if lower else s.triu(da, offset)
        dt = {0: dt, 1: s.moveaxis(dt, -1, -2), 2: mH(s, dt)}[t]
        moved = times(s, dt, out, b.ndim == 1)
        rhs = s.neg(moved) if rhs is None else s.sub(rhs, moved)
    again = functools.partial(s.triangular_solve, lower=lower, trans=trans, unit_diagonal=unit_diagonal)
    return as_result(s, _vector_rhs(s, again, a, rhs, b.ndim == 1), out)


def _triangular_reference(a: Any, b: Any, lower: bool = True, trans: Any = 0, unit_diagonal: bool = False) -> Any:
    import scipy.linalg

    def one(m: np.ndarray, v: np.ndarray) -> np.ndarray:
        return scipy.linalg.solve_triangular(m, v, trans=trans, lower=lower, unit_diagonal=unit_diagonal)

    return batched_reference(one, a, b, vector_b=np.ndim(b) == 1)


TRIANGULAR_SOLVE = OpSpec(
    name="triangular_solve",
    batch=vmap_rules.solve,
    inputs=("a", "b"),
    params={"lower": True, "trans": 0, "unit_diagonal": False},
    forward=_triangular_solve,
    vjp=_triangular_vjp,
    jvp=_triangular_jvp,
    residuals=("a", "out"),
    accepts="fc",
    sample=lazy("triangular_solve"),
    complex_sample=lazy("triangular_solve", "complex_solve_samples"),
    reference=_triangular_reference,
    error_inputs=lambda: [
        ErrorInput((np.eye(2), np.ones(2)), {"trans": "X"}, ArgumentError, "trans must be"),
        ErrorInput((np.eye(2), np.ones(3)), {}, ShapeMismatch, "a has shape [2, 2] and b has shape [3]"),
        ErrorInput((np.diag([1.0, 0.0]), np.ones(2)), {}, SingularMatrix, "triangular_solve: a is a singular"),
        ErrorInput((np.zeros((2, 3)), np.ones(2)), {}, ShapeMismatch, "must be square"),
    ],
    doc="x with op(T) x = b, T the lower (or upper) triangle of a (the other is not read; ones on the diagonal "
    "with unit_diagonal), op(T) = T (trans 0/'N'), Tᵀ (1/'T') or Tᴴ (2/'C', Tᵀ for a real T): scipy's "
    "solve_triangular, batched, but lower=True by default. Its gradient in a is zero outside that triangle.",
)


SPECS = [SOLVE, SOLVE_TRANSPOSED, TRIANGULAR_SOLVE]
