"""Least squares: ``lstsq`` (by QR, for a of full rank) and ``pinv`` (by SVD), batched over
leading axes as NumPy's linalg is; b as :mod:`.solve`'s.

VJPs are the pseudo-inverse's derivative at constant rank (Golub & Pereyra 1973; Giles
2008; PyTorch's pinv_backward), written with session ops, so they differentiate again. A
numerically rank-deficient a in lstsq is a :class:`~.batching.SingularMatrix` error naming
the batch index. Complex a and b: every transpose of the real formulas is a conjugate
transpose (the pseudo-inverse is built from aᴴ), as PyTorch's; a real operand of a complex
lstsq gets the real part of its cotangent.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tenferro.extend import DTypeError, ErrorInput, OpSpec, ShapeMismatch
from tenferro.extend import batching as vmap_rules
from tenferro.extend import unbroadcast as _unbroadcast

from .batching import (
    SingularMatrix,
    as_result,
    batch_where,
    batched_reference,
    check_matrix,
    check_rhs,
    column,
    explain_nonfinite,
    lazy,
    mH,
)


def _adjoint(x: Any) -> Any:
    """xᴴ of a stack of matrices (xᵀ for real x)."""
    xt = np.swapaxes(x, -1, -2)
    return np.conjugate(xt) if np.iscomplexobj(xt) else xt


def _lstsq(a: Any, b: Any) -> Any:
    rows, cols = check_matrix("lstsq", "a", a)
    check_rhs("lstsq", a, b, rows)
    vector = np.ndim(b) == 1
    rhs = b[..., None] if vector else b
    tall = rows >= cols
    q, r = np.linalg.qr(a if tall else _adjoint(a))
    _check_full_rank(r, max(rows, cols))
    if tall:  # a = QR: x = R⁻¹ Qᴴ b, the least-squares solution
        x = np.linalg.solve(r, np.matmul(_adjoint(q), rhs))
    else:  # aᴴ = QR: x = Q R⁻ᴴ b, the solution of least norm
        x = np.matmul(q, np.linalg.solve(_adjoint(r), rhs))
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
    gb = a⁺ᴴg; ga = -gb xᴴ + r wᴴ (tall a: r = b - ax, w = a⁺gb) + z (Pg)ᴴ (wide a:
    z = a⁺ᴴx, P = I - a⁺a); the other term is zero at full rank (ᴴ is ᵀ for real a)."""
    a, b = inputs
    vector = b.ndim == 1
    g2, x2 = (column(s, g), column(s, out)) if vector else (g, out)
    gb = s.lstsq(mH(s, a), g2)
    ga = None
    if s.needs_grad(a):
        ga = s.neg(s.matmul(gb, mH(s, x2)))
        if a.shape[-2] >= a.shape[-1]:
            residual = s.sub(column(s, b) if vector else b, s.matmul(a, x2))
            ga = s.add(ga, s.matmul(residual, mH(s, s.lstsq(a, gb))))
        else:
            projected = s.sub(g2, s.lstsq(a, s.matmul(a, g2)))
            ga = s.add(ga, s.matmul(s.lstsq(mH(s, a), x2), mH(s, projected)))
        ga = _unbroadcast(s, ga, a)
    gb_out = None
    if s.needs_grad(b):
        gb_out = _unbroadcast(s, s.squeeze(gb, -1) if vector else gb, b)
    return ga, gb_out


def _lstsq_jvp(s: Any, tangents: Any, inputs: tuple[Any, Any], out: Any) -> Any:
    """x = a⁺b at full rank, with d(a⁺) = -a⁺ da a⁺ + a⁺a⁺ᴴ daᴴ (I - a a⁺) + (I - a⁺a) daᴴ a⁺ᴴ a⁺
    (Golub & Pereyra): dx = a⁺(db - da x) plus, for a tall a, a⁺a⁺ᴴ daᴴ r (r = b - a x), for a
    wide one (I - a⁺a) p with p = daᴴ a⁺ᴴ x (a⁺ᴴ y is lstsq(aᴴ, y))."""
    (da, db), (a, b) = tangents, inputs
    vector = b.ndim == 1
    x = column(s, out) if vector else out
    rhs = None if db is None else (column(s, db) if vector else db)
    extra = None
    if da is not None:
        moved = s.neg(s.matmul(da, x))
        rhs = moved if rhs is None else s.add(rhs, moved)
        if a.shape[-2] >= a.shape[-1]:
            residual = s.sub(column(s, b) if vector else b, s.matmul(a, x))
            rhs = s.add(rhs, s.lstsq(mH(s, a), s.matmul(mH(s, da), residual)))
        else:
            extra = s.matmul(mH(s, da), s.lstsq(mH(s, a), x))
            rhs = s.sub(rhs, s.matmul(a, extra))
    dx = s.lstsq(a, rhs)
    if extra is not None:
        dx = s.add(dx, extra)
    return as_result(s, s.squeeze(dx, -1) if vector else dx, out)


def _lstsq_reference(a: Any, b: Any) -> Any:
    return batched_reference(lambda m, v: np.linalg.lstsq(m, v, rcond=None)[0], a, b, vector_b=np.ndim(b) == 1)


LSTSQ = OpSpec(
    name="lstsq",
    inputs=("a", "b"),
    forward=_lstsq,
    batch=vmap_rules.solve,
    vjp=_lstsq_vjp,
    jvp=_lstsq_jvp,
    accepts="fc",
    sample=lazy("lstsq"),
    complex_sample=lazy("lstsq", "complex_solve_samples"),
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
    pinv_backward): -Pᴴ g Pᴴ + (I - a P) gᴴ P Pᴴ + Pᴴ P gᴴ (I - P a), P = a⁺ (ᴴ: ᵀ for real a)."""
    p, gt = out, mH(s, g)
    first = s.neg(s.matmul(mH(s, p), s.matmul(g, mH(s, p))))
    left = s.matmul(gt, s.matmul(p, mH(s, p)))
    second = s.sub(left, s.matmul(a, s.matmul(p, left)))
    third = s.matmul(s.matmul(mH(s, p), p), s.sub(gt, s.matmul(s.matmul(gt, p), a)))
    return s.add(first, s.add(second, third))


def _pinv_jvp(s: Any, tangents: Any, inputs: tuple[Any], out: Any) -> Any:
    """dP = -P dA P + P Pᴴ dAᴴ (I - A P) + (I - P A) dAᴴ Pᴴ P at constant rank (Golub &
    Pereyra 1973; the transpose of the VJP's three terms)."""
    (da,), (a,), p = tangents, inputs, out
    dat = mH(s, da)
    first = s.neg(s.matmul(p, s.matmul(da, p)))
    left = s.matmul(s.matmul(p, mH(s, p)), dat)
    second = s.sub(left, s.matmul(s.matmul(left, a), p))
    right = s.matmul(dat, s.matmul(mH(s, p), p))
    third = s.sub(right, s.matmul(p, s.matmul(a, right)))
    return s.add(first, s.add(second, third))


PINV = OpSpec(
    name="pinv",
    batch=vmap_rules.leading,
    explain=explain_nonfinite("pinv"),
    inputs=("a",),
    forward=_pinv,
    vjps=(_pinv_rule,),
    jvp=_pinv_jvp,
    residuals=("a", "out"),
    accepts="fc",
    sample=lazy("rect"),
    complex_sample=lazy("rect", complex_=True),
    reference=lambda a: batched_reference(lambda m: np.linalg.lstsq(m, np.eye(len(m)), rcond=None)[0], a),
    error_inputs=lambda: [
        ErrorInput((np.zeros(3),), {}, ShapeMismatch, "pinv: a has shape [3]"),
        ErrorInput((np.eye(2, dtype=int),), {}, DTypeError, "argument 'a' has dtype i64"),
    ],
    doc="The Moore-Penrose pseudo-inverse of each matrix of a (..., M, N), by SVD (NumPy's pinv, its default "
    "cutoff). Its derivative is the one at constant rank: right where a has full rank or its rank is stable.",
)


SPECS = [LSTSQ, PINV]
