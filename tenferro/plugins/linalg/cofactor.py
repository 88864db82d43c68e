"""The derivatives of ``det``, defined at every matrix, singular ones too: two internal ops,
``cofactor(a)`` (the gradient of det: the matrix of cofactors, adj(a)ᵀ) and
``cofactor_tangent(a, e)`` (its derivative along e: the second derivative of det).

The cofactors of a well-conditioned a are the textbook det·a⁻ᵀ (an LU, cheap). Elsewhere,
singular or nearly so, where that fails or loses its digits, and for the tangent always
(its inverse formula cancels), they are computed in the frame of a's singular value
decomposition a = U S Vᴴ: det(a + E) = det(U) det(Vᴴ) det(S + Uᴴ E V), and the derivatives
of det at the diagonal S are products of singular values with one or two left out, with
no division, so a singular a (rank n - 1, n - 2, ... 0) is no special case (PyTorch also
switches to an SVD there; JAX patches its LU's last pivot). The third derivative
(``cofactor_tangent``'s derivative in a) is the inverse formula, refused where a is
(nearly) singular.

Every derivative is bilinear in its directions, so one formula serves real and complex
matrices: det is holomorphic, and the VJP of a holomorphic map h ↦ conj(f′(conj h)) in the
real inner product Re(conj(a)·b) (docs/complex.md); the directions of D²det and D³det are
interchangeable, so each VJP is the op itself with the cotangent as one more direction.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tenferro.extend import ErrorInput, NotDifferentiable, OpSpec, ShapeMismatch, check_values, conj
from tenferro.extend import batching as vmap_rules

from .batching import batch_where, batched_reference, check_matrix, lazy, mT, scale_matrices


# -- the kernels, in the singular value frame -------------------------------------------------
def _frame(a: Any) -> tuple[Any, Any, Any, Any]:
    """U, s, Vᴴ of a and det(U)·det(Vᴴ) (a unit number, per matrix), a = U diag(s) Vᴴ."""
    u, sv, vh = np.linalg.svd(a)
    return u, sv, vh, np.multiply(np.linalg.det(u), np.linalg.det(vh))[..., None, None]


def _products_without_one(x: Any) -> Any:
    """p[..., i] = Πⱼ≠ᵢ x[..., j] (prefix times suffix products: no division, so zeros are fine)."""
    ones = np.ones_like(x[..., :1])
    before = np.cumprod(np.concatenate([ones, x[..., :-1]], axis=-1), axis=-1)
    after = np.flip(np.cumprod(np.concatenate([ones, np.flip(x[..., 1:], axis=-1)], axis=-1), axis=-1), axis=-1)
    return np.multiply(before, after)


def _eye_like(sv: Any) -> Any:
    """Identity matrices (..., n, n) of sv's type, made from sv (another engine's arrays stay its own)."""
    return np.tril(np.triu(np.ones_like(np.multiply(sv[..., None, :], sv[..., :, None]))))


def _products_without_two(sv: Any) -> Any:
    """p[..., c, d] = Πⱼ∉{c,d} s[..., j] for c ≠ d, 0 on the diagonal."""
    eye = _eye_like(sv)
    off = np.subtract(np.ones_like(eye), eye)
    without_c = np.add(np.multiply(sv[..., None, :], off), eye)  # row c: s with s_c set to 1
    return np.multiply(_products_without_one(without_c), off)


def _back(u: Any, gamma: Any, vh: Any, phase: Any) -> Any:
    """The matrix G with Σ G ∘ X = det(U)det(Vᴴ) Σ Γ ∘ (Uᴴ X V): conj(U) Γ conj(Vᴴ), scaled."""
    return np.multiply(phase, np.matmul(np.matmul(np.conj(u), gamma), np.conj(vh)))


#: Below this 1-norm condition number (of every matrix of a batch) the cofactors are
#: det·a⁻ᵀ (an LU, not an SVD: the SVD costs 10-50× as much), with a relative error of
#: about κ·eps; a singular or worse conditioned matrix takes the singular value frame. The
#: tangent always does: its inverse formula det·(tr(a⁻¹e) a⁻ᵀ - (a⁻¹ e a⁻¹)ᵀ) subtracts
#: terms larger than the result (for 2×2 it is constant in a, yet came out as rounding
#: noise that moved with a, which finite differences could not converge on).
WELL_CONDITIONED = 1e4


def _through_inverse(a: Any) -> tuple[Any, Any] | None:
    """(det a, a⁻¹) where every matrix of a is well-conditioned (:data:`WELL_CONDITIONED`), else None."""
    try:
        inverse = np.linalg.inv(a)
    except np.linalg.LinAlgError:  # exactly singular
        return None
    condition = np.multiply(np.linalg.norm(a, 1, axis=(-2, -1)), np.linalg.norm(inverse, 1, axis=(-2, -1)))
    if not np.all(np.less(condition, WELL_CONDITIONED)):  # nan, inf: not less
        return None
    return np.linalg.det(a)[..., None, None], inverse


def _cofactor(a: Any) -> Any:
    check_matrix("cofactor", "a", a, square=True)
    if a.shape[-1] == 0:
        return np.zeros_like(a)
    inverse = _through_inverse(a)
    if inverse is not None:  # det·a⁻ᵀ
        return np.multiply(inverse[0], np.swapaxes(inverse[1], -1, -2))
    u, sv, vh, phase = _frame(a)
    # ∂det(S)/∂S = diag(Πⱼ≠ᵢ sⱼ)
    return _back(u, np.multiply(_products_without_one(sv)[..., None, :], _eye_like(sv)), vh, phase)


def _cofactor_tangent(a: Any, e: Any) -> Any:
    check_matrix("cofactor_tangent", "a", a, square=True)
    if np.shape(e) != np.shape(a):
        raise ShapeMismatch(f"cofactor_tangent: a has shape {list(np.shape(a))} and e {list(np.shape(e))}; equal")
    if a.shape[-1] == 0:
        return np.zeros(a.shape, np.result_type(a, e))
    u, sv, vh, phase = _frame(a)
    f = np.matmul(np.matmul(np.conj(np.swapaxes(u, -1, -2)), e), np.conj(np.swapaxes(vh, -1, -2)))  # Uᴴ E V
    pairs = _products_without_two(sv)
    # D²det(S)[F, Y] = Σ_{c≠d} π_cd (F_cc Y_dd - F_dc Y_cd): Γ = diag(π diag(F)) - π ∘ Fᵀ
    diagonal = np.matmul(pairs, np.diagonal(f, 0, -2, -1)[..., None])[..., 0]
    gamma = np.subtract(
        np.multiply(diagonal[..., None, :], _eye_like(sv)),
        np.multiply(pairs, np.swapaxes(f, -1, -2)),
    )
    return _back(u, gamma, vh, phase)


# -- the rules ---------------------------------------------------------------------------------
def _like(s: Any, ct: Any, x: Any) -> Any:
    """A cotangent for input ``x``: its real part when x is real (a real matrix, complex directions)."""
    if ct is not None and x.dtype.kind != "c" and ct.dtype.kind == "c":
        return s.real(ct)
    return ct


def second(s: Any, a: Any, h: Any) -> Any:
    """The VJP of ``cofactor`` for the cotangent h: conj(D cof(a)[conj h]) (D²det is symmetric)."""
    return _like(s, conj(s, s.cofactor_tangent(a, conj(s, h))), a)


def _trace(s: Any, x: Any) -> Any:
    return s.reduce_sum(s.diagonal(x, 0, -2, -1), -1)


def _singular(a: np.ndarray) -> None:
    """NotDifferentiable where the inverse formula of the third derivative loses its digits
    (a check_values check)."""
    sv = np.linalg.svd(a, compute_uv=False)
    bad = sv[..., -1] <= np.sqrt(np.finfo(sv.dtype).eps) * sv[..., 0]
    if np.any(bad):
        where = batch_where("det", "a", bad, np.shape(a)[:-2])
        raise NotDifferentiable(
            f"{where} is (nearly) singular: det differentiates there twice (gradient and Hessian, from the "
            f"cofactors), but its third and higher derivatives are implemented only for a well-conditioned matrix"
        )


def _third(s: Any, a: Any, e: Any, h: Any) -> Any:
    """The matrix D³det(a)[e, h, ·] (None where it is 0: matrices smaller than 3×3), by the
    inverse formula: with B = a⁻¹, τ = tr(Be), η = tr(Bh), μ = tr(BeBh),
    det(a)·((τη - μ)B - ηBeB - τBhB + BhBeB + BeBhB)ᵀ."""
    if a.shape[-1] < 3:
        return None
    check_values(a, _singular)
    b = s.inv(a)
    be, bh = s.matmul(b, e), s.matmul(b, h)
    tau, eta = _trace(s, be), _trace(s, bh)
    mu = s.reduce_sum(s.mul(mT(s, be), bh), (-2, -1))
    beb, bhb = s.matmul(be, b), s.matmul(bh, b)
    inner = s.sub(scale_matrices(s, s.sub(s.mul(tau, eta), mu), b), scale_matrices(s, eta, beb))
    inner = s.sub(inner, scale_matrices(s, tau, bhb))
    inner = s.add(inner, s.add(s.matmul(bh, beb), s.matmul(be, bhb)))
    return scale_matrices(s, s.det(a), mT(s, inner))


def _tangent_vjp_a(s: Any, g: Any, out: Any, a: Any, e: Any) -> Any:
    third = _third(s, a, e, conj(s, g))
    return None if third is None else _like(s, conj(s, third), a)


def _tangent_jvp(s: Any, tangents: Any, inputs: tuple[Any, Any], out: Any) -> Any:
    (da, de), (a, e) = tangents, inputs
    terms = [] if de is None else [s.cofactor_tangent(a, de)]
    if da is not None:
        third = _third(s, a, e, da)
        if third is not None:
            terms.append(third)
    if not terms:
        return None
    total = terms[0] if len(terms) == 1 else s.add(*terms)
    return total if total.dtype == out.dtype else s.astype(total, out.dtype)


# -- references (the textbook formulas, for invertible matrices; cofactors by minors) ----------
def _cofactors_by_minors(m: np.ndarray) -> np.ndarray:
    n = len(m)
    out = np.empty_like(m)
    for i in range(n):
        for j in range(n):
            minor = np.delete(np.delete(m, i, 0), j, 1)
            out[i, j] = (-1) ** (i + j) * (np.linalg.det(minor) if n > 1 else 1.0)
    return out


def _tangent_reference(a: Any, e: Any) -> np.ndarray:
    def one(m: np.ndarray, d: np.ndarray) -> np.ndarray:
        b = np.linalg.inv(m)  # D(det·a⁻ᵀ)[e] = det·(tr(a⁻¹e) a⁻ᵀ - a⁻ᵀ eᵀ a⁻ᵀ)
        return np.linalg.det(m) * (np.trace(b @ d) * b.T - b.T @ d.T @ b.T)

    return batched_reference(one, a, e)


COFACTOR = OpSpec(
    name="cofactor",
    internal=True,
    inputs=("a",),
    forward=_cofactor,
    batch=vmap_rules.leading,
    vjps=(lambda s, g, out, a: second(s, a, g),),
    jvp=lambda s, tangents, inputs, out: s.cofactor_tangent(inputs[0], tangents[0]),
    residuals=("a",),
    accepts="fc",
    sample=lazy("square"),
    complex_sample=lazy("square", complex_=True),
    reference=lambda a: batched_reference(_cofactors_by_minors, a),
    error_inputs=lambda: [ErrorInput((np.zeros((2, 3)),), {}, ShapeMismatch, "must be square")],
    doc="The matrix of cofactors adj(a)ᵀ = ∂det/∂a of each matrix of a (..., M, M), from its SVD: defined at "
    "singular matrices too (det's gradient). Its derivative is cofactor_tangent.",
)

COFACTOR_TANGENT = OpSpec(
    name="cofactor_tangent",
    internal=True,
    inputs=("a", "e"),
    forward=_cofactor_tangent,
    batch=vmap_rules.leading,
    vjps=(_tangent_vjp_a, lambda s, g, out, a, e: _like(s, second(s, a, g), e)),
    jvp=_tangent_jvp,
    residuals=("a", "e"),
    accepts="fc",
    sample=lazy("square_and_direction"),
    complex_sample=lazy("square_and_direction", complex_=True),
    reference=_tangent_reference,
    error_inputs=lambda: [
        ErrorInput((np.eye(2), np.eye(3)), {}, ShapeMismatch, "cofactor_tangent: a has shape [2, 2] and e [3, 3]")
    ],
    doc="D cofactor(a)[e] = D²det(a)[e, ·] (det's Hessian along e), from a's SVD: defined at singular matrices "
    "too. Its derivative in a (det's third) is the inverse formula, refused at a (nearly) singular a.",
)

SPECS = [COFACTOR, COFACTOR_TANGENT]
