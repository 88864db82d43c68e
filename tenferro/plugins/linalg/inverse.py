"""Functions of a square matrix: ``inv``, ``det``, ``slogdet`` (on the LU factorisation of
:mod:`.solve_lu`, which ``solve`` shares) and ``matrix_power``, batched over leading axes as
NumPy's linalg is.

VJPs are the published ones (Giles 2008; PyTorch's FunctionsManual.cpp), written with
session ops, so they differentiate again; ``slogdet``'s takes inv(a) from the forward
pass's LU, ``det``'s is the cofactor matrix (:mod:`.cofactor`, from the SVD: defined at
singular matrices, where slogdet's is a NotDifferentiable). An exactly singular matrix in
inv or a negative matrix_power is a :class:`~.batching.SingularMatrix` error naming the op
and the batch index.

Complex matrices: inv, det and matrix_power are holomorphic, so each VJP is the real one
with every transpose a conjugate transpose (g ↦ g·conj(f′)): inv's is -a⁻ᴴ g a⁻ᴴ, det's
g·conj(C), C the cofactors (conj(det)·a⁻ᴴ for an invertible a). slogdet of a complex
matrix is (sign, logabsdet) with a complex sign (det/|det|) and a real logabsdet; both
carry gradients (PyTorch's slogdet_backward).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tenferro.extend import (
    REQUIRED,
    ArgumentError,
    DTypeError,
    ErrorInput,
    NotDifferentiable,
    OpSpec,
    ShapeMismatch,
    check_values,
    conj,
)
from tenferro.extend import batching as vmap_rules

from . import solve_lu
from .batching import (
    SINGULAR,
    SQUARE,
    SingularMatrix,
    batch_where,
    batched_reference,
    check_matrix,
    lazy,
    mH,
    scale_matrices,
    singular_error,
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
        cases.append(ErrorInput((SINGULAR,), {}, SingularMatrix, f"{op}: a at batch index 1 is a singular matrix"))
    return lambda: cases


INV = OpSpec(
    name="inv",
    batch=vmap_rules.leading,
    inputs=("a",),
    forward=_inv,
    vjps=(lambda s, g, out, a: s.neg(s.matmul(mH(s, out), s.matmul(g, mH(s, out)))),),
    jvp=lambda s, t, inputs, out: s.neg(s.matmul(out, s.matmul(t[0], out))),  # -a⁻¹ da a⁻¹
    residuals=("out",),
    accepts="fc",
    sample=lazy("square"),
    complex_sample=lazy("square", complex_=True),
    reference=lambda a: batched_reference(lambda m: np.linalg.solve(m, np.eye(len(m))), a),
    error_inputs=_square_errors("inv"),
    doc="The inverse of each matrix of a (..., M, M). VJP: -a⁻ᴴ g a⁻ᴴ (ᵀ for real a). Singular a: SingularMatrix.",
)


def _det(a: Any) -> Any:
    check_matrix("det", "a", a, square=True)
    return solve_lu.det(a)


def _det_rule(s: Any, g: Any, out: Any, a: Any) -> Any:
    # d det = Σ C ∘ da with C the cofactors (det·a⁻ᵀ where a is invertible): ga = g·conj(C)
    return scale_matrices(s, g, conj(s, s.cofactor(a)))


def _det_jvp(s: Any, tangents: Any, inputs: tuple[Any], out: Any) -> Any:
    return s.reduce_sum(s.mul(s.cofactor(inputs[0]), tangents[0]), (-2, -1))  # d det = Σ C ∘ da


def _log_det_tangent(s: Any, a: Any, da: Any) -> Any:
    """d log det a = tr(a⁻¹ da) = Σ (a⁻ᵀ ∘ da) (inv from the LU the forward pass made)."""
    return s.reduce_sum(s.mul(s.moveaxis(s.inv(a), -1, -2), da), (-2, -1))


def _det_reference(a: Any) -> np.ndarray:
    a = np.asarray(a)
    d = np.prod(np.linalg.eigvals(np.asarray(a, np.result_type(a, float))), axis=-1)
    return d if np.iscomplexobj(a) else d.real


DET = OpSpec(
    name="det",
    batch=vmap_rules.leading,
    inputs=("a",),
    forward=_det,
    vjps=(_det_rule,),
    jvp=_det_jvp,
    residuals=("a",),
    accepts="fc",
    sample=lazy("any_rank"),
    complex_sample=lazy("any_rank", complex_=True),
    reference=_det_reference,
    error_inputs=_square_errors("det", singular=False),
    doc="The determinant of each matrix of a (..., M, M). VJP: g·conj(C), C the cofactors adj(a)ᵀ (det·a⁻ᵀ where "
    "a is invertible), computed from a's SVD, so the gradient and the Hessian exist at singular matrices too.",
)


def _slogdet(a: Any) -> tuple[Any, Any]:
    check_matrix("slogdet", "a", a, square=True)
    return solve_lu.slogdet(a)


def _singular(logabsdet: np.ndarray) -> None:
    """NotDifferentiable where a is singular (logabsdet = -inf): log|det| has no derivative
    there (it tends to -inf, its gradient a⁻ᵀ has no limit), where inv would fail."""
    if np.any(np.isneginf(logabsdet)):
        where = batch_where("slogdet", "a", np.isneginf(logabsdet), np.shape(logabsdet))
        raise NotDifferentiable(
            f"{where} is singular (logabsdet = -inf), where logabsdet has no derivative (its gradient a⁻ᵀ "
            f"does not exist); differentiate det, whose derivative exists at every matrix"
        )


def _slogdet_rule(s: Any, g: tuple[Any, Any], out: tuple[Any, Any], a: Any) -> Any:
    """With w = log det a = logabsdet + i·θ and sign = exp(iθ): w's cotangent is
    g_logabsdet - i·Im(conj(g_sign)·sign), and a's is that times a⁻ᴴ (log det is holomorphic,
    with derivative a⁻ᵀ). A real sign is piecewise constant: no gradient."""
    g_sign, g_logabsdet = g
    if a.dtype.kind == "c" and g_sign is not None:
        turn = s.mul(s.imag(s.mul(s.conj(g_sign), out[0])), -1j)
        g_log = turn if g_logabsdet is None else s.add(g_logabsdet, turn)
    elif g_logabsdet is None:
        return None
    else:
        g_log = g_logabsdet
    check_values(out[1], _singular)
    return scale_matrices(s, g_log, mH(s, s.inv(a)))


def _slogdet_jvp(s: Any, tangents: Any, inputs: tuple[Any], out: tuple[Any, Any]) -> tuple[Any, Any]:
    """d log det = tr(a⁻¹ da) = dlogabsdet + i·dθ: dlogabsdet is its real part, dsign =
    sign·i·dθ (a real sign is piecewise constant: zero)."""
    a = inputs[0]
    if a.dtype.kind != "c" and not s.wants_tangent(out[1]):
        return None, None  # only the sign is read: piecewise constant
    check_values(out[1], _singular)
    dlog = _log_det_tangent(s, a, tangents[0])
    if a.dtype.kind != "c":
        return None, dlog
    turn = s.mul(s.astype(s.imag(dlog), a.dtype), 1j)
    return s.mul(out[0], turn), s.real(dlog)


def _slogdet_reference(a: Any) -> list[np.ndarray]:
    d = _det_reference(a)
    return [d / np.abs(d), np.log(np.abs(d))]


SLOGDET = OpSpec(
    name="slogdet",
    inputs=("a",),
    forward=_slogdet,
    vjps=(_slogdet_rule,),
    jvp=_slogdet_jvp,
    multiple_results=True,
    batch=vmap_rules.leading,
    residuals=("a", "out"),
    accepts="fc",
    sample=lazy("square"),
    complex_sample=lazy("square", complex_=True),
    reference=_slogdet_reference,
    error_inputs=_square_errors("slogdet", singular=False),
    doc="(sign, logabsdet) of each matrix of a (..., M, M), two results, as NumPy's; a singular matrix gives "
    "(0, -inf). A complex a has a complex sign det/|det| (real logabsdet). VJP: g_logabsdet·a⁻ᵀ for real a (the "
    "sign is piecewise constant); (g_logabsdet - i·Im(conj(g_sign)·sign))·a⁻ᴴ for complex a (PyTorch's). At a "
    "singular a (logabsdet = -inf) logabsdet has no derivative: NotDifferentiable.",
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
    for even k (so g_b = g bᴴ + bᴴ g), a·a^(k-1) for odd k; O(log k) matrix products, where
    the sum Σⱼ (aʲ)ᴴ g (a^(k-1-j))ᴴ takes O(k)."""
    if k == 1:
        return g
    if k % 2:
        rest = s.matrix_power(a, k - 1)
        return s.add(s.matmul(g, mH(s, rest)), _power_cotangent(s, a, k - 1, s.matmul(mH(s, a), g)))
    half = s.matrix_power(a, k // 2)
    return _power_cotangent(s, a, k // 2, s.add(s.matmul(g, mH(s, half)), s.matmul(mH(s, half), g)))


def _matrix_power_rule(s: Any, g: Any, out: Any, a: Any, n: int) -> Any:
    n = int(n)
    if n == 0:
        return None
    if n > 0:
        return _power_cotangent(s, a, n, g)
    inverse = s.inv(a)  # a⁻ⁿ = (a⁻¹)ⁿ, and inv's VJP: -a⁻ᴴ h a⁻ᴴ
    h = _power_cotangent(s, inverse, -n, g)
    return s.neg(s.matmul(mH(s, inverse), s.matmul(h, mH(s, inverse))))


def _power_tangent(s: Any, a: Any, k: int, da: Any) -> Any:
    """d(aᵏ) (k ≥ 1) along NumPy's repeated squaring, the transpose of
    :func:`_power_cotangent`: d(b·b) = db b + b db with b = a^(k/2) for even k, d(a·a^(k-1))
    = da a^(k-1) + a d(a^(k-1)) for odd k."""
    if k == 1:
        return da
    if k % 2:
        rest = s.matrix_power(a, k - 1)
        return s.add(s.matmul(da, rest), s.matmul(a, _power_tangent(s, a, k - 1, da)))
    half = s.matrix_power(a, k // 2)
    dhalf = _power_tangent(s, a, k // 2, da)
    return s.add(s.matmul(dhalf, half), s.matmul(half, dhalf))


def _matrix_power_jvp(s: Any, tangents: Any, inputs: tuple[Any], out: Any, n: int) -> Any:
    n, a, da = int(n), inputs[0], tangents[0]
    if n == 0:
        return None
    if n > 0:
        return _power_tangent(s, a, n, da)
    inverse = s.inv(a)  # a⁻ⁿ = (a⁻¹)ⁿ, d(a⁻¹) = -a⁻¹ da a⁻¹
    return _power_tangent(s, inverse, -n, s.neg(s.matmul(inverse, s.matmul(da, inverse))))


def _power_reference(a: Any, n: int) -> np.ndarray:
    a = np.asarray(a, np.result_type(a, float))
    base = np.linalg.solve(a, np.broadcast_to(np.eye(a.shape[-1]), a.shape)) if n < 0 else a
    out = np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape).copy()
    for _ in range(abs(n)):
        out = out @ base
    return out


MATRIX_POWER = OpSpec(
    name="matrix_power",
    batch=vmap_rules.leading,
    inputs=("a",),
    params={"n": REQUIRED},
    forward=_matrix_power,
    vjps=(_matrix_power_rule,),
    jvp=_matrix_power_jvp,
    residuals=("a",),
    accepts="fc",
    sample=lazy("matrix_power"),
    complex_sample=lazy("matrix_power", complex_=True),
    reference=_power_reference,
    error_inputs=lambda: [
        ErrorInput((SQUARE,), {"n": 1.5}, ArgumentError, "n must be an int"),
        ErrorInput((np.zeros((2, 3)),), {"n": 2}, ShapeMismatch, "must be square"),
        ErrorInput((SINGULAR,), {"n": -1}, SingularMatrix, "matrix_power: a at batch index 1 is a singular"),
    ],
    doc="a to the int power n (..., M, M), as NumPy's matrix_power (n = 0: the identity; n < 0: powers of "
    "inv(a)). VJP: along repeated squaring, O(log |n|) matrix products.",
)


SPECS = [INV, DET, SLOGDET, MATRIX_POWER]
