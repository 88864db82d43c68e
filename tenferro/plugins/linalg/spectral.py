"""``eigh_weighted(a, g)`` = V diag(g) Vᴴ, (w, V) = eigh(a): the gradient of a function of
a's eigenvalues alone (eigvalsh's VJP, and eigh's where its eigenvectors carry no
cotangent), as an internal op of its own, so that its derivative is defined where the
eigenvalues repeat.

Written with eigh's results, V diag(g) Vᴴ differentiates through dV, whose 1/(w[j] - w[i])
is infinite at a repeated eigenvalue: the Hessian of ``sum(eigvalsh(a))`` at a = I was
refused. As a function of a (g fixed) it is Σ g_k P_k over the eigenspaces when the weights
are equal on each cluster of (nearly) equal eigenvalues, smooth in a; its derivative is
V (F̃ ∘ Vᴴ dA V) Vᴴ with the divided differences F̃[i, j] = (g[j] - g[i]) / (w[j] - w[i]),
exactly 0 where the weights are equal (Daleckii-Krein). So second derivatives of functions
linear in the eigenvalues with equal weights on each cluster (the trace) exist at repeated
eigenvalues. Elsewhere at a cluster (unequal weights there, or weights with a derivative of
their own: the second derivative of Σ f(w) at a repeated eigenvalue needs f''s divided
differences, which the graph does not hold) the rules raise NotDifferentiable naming eigh.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tenferro.extend import ErrorInput, NotDifferentiable, OpSpec, ShapeMismatch
from tenferro.extend import batching as vmap_rules

from .batching import check_matrix, constant, diag_embed, lazy, scale_columns
from .decomp_common import adjoint, diagonal_of_product, gap_tolerance, hermitian_part, hermitian_values, values


def _weighted(a: Any, g: Any) -> Any:
    check_matrix("eigh_weighted", "a", a, square=True)
    if np.shape(g) != np.shape(a)[:-1]:
        raise ShapeMismatch(f"eigh_weighted: a has shape {list(np.shape(a))} and g {list(np.shape(g))}")
    _, v = np.linalg.eigh(hermitian_values(a))
    return np.matmul(np.multiply(v, np.expand_dims(g, -2)), np.conj(np.swapaxes(v, -1, -2)))


def _clusters(w: np.ndarray) -> np.ndarray:
    """Where two eigenvalues of a matrix are (nearly) equal, off the diagonal (eigh's tolerance)."""
    close = np.abs(w[..., None, :] - w[..., :, None]) <= gap_tolerance(w)
    return close & ~np.eye(w.shape[-1], dtype=bool)


#: (op, what its values are called, its weighted sum of projectors) for the messages
EIGH, SVD = ("eigh", "eigenvalues", "V diag(g) Vᴴ"), ("svd", "singular values", "U diag(g) Vᴴ")


def _refuse(i_j: np.ndarray, w: np.ndarray, why: str, kind: tuple[str, str, str] = EIGH) -> None:
    batch, i, j = tuple(int(k) for k in i_j[:-2]), int(i_j[-2]), int(i_j[-1])
    at = f" of the matrix at batch index {batch}" if batch else ""
    op, what, _ = kind
    raise NotDifferentiable(
        f"{op}: {what} {i} and {j}{at} are (nearly) equal ({float(w[(*batch, i)])!r} and "
        f"{float(w[(*batch, j)])!r}), where {why}; the second derivative there exists for functions linear in "
        f"the {what} with equal weights on equal ones (their sum), or move the {what} apart"
    )


def _divided_differences(s: Any, w: Any, g: Any, kind: tuple[str, str, str] = EIGH) -> Any:
    """F̃[i, j] = (g[j] - g[i]) / (w[j] - w[i]) off the diagonal, exactly 0 inside a cluster
    of equal weights; NotDifferentiable for a cluster whose weights differ."""
    close, weights = _clusters(values(w)), values(g)
    unequal = close & (weights[..., None, :] != weights[..., :, None])
    if unequal.any():
        why = f"the weights on them differ, so {kind[2]} has no derivative"
        _refuse(np.argwhere(unequal)[0], values(w), why, kind)
    n = w.shape[-1]
    skip = np.eye(n, dtype=bool) | close  # the diagonal and the clusters: 0, with no division by 0 there
    between = lambda x: s.sub(s.expand_dims(x, -2), s.expand_dims(x, -1))  # noqa: E731  [i, j] = x[j] - x[i]
    gaps = s.add(between(w), constant(s, skip.astype(w.dtype)))
    return s.mul(s.div(between(g), gaps), constant(s, (~skip).astype(w.dtype)))


def _refuse_weights_derivative(w: Any, kind: tuple[str, str, str] = EIGH) -> None:
    close = _clusters(values(w))
    if close.any():
        _refuse(np.argwhere(close)[0], values(w), f"{kind[2]} has no derivative in the weights g", kind)


def _vjp_a(s: Any, ct: Any, out: Any, a: Any, g: Any) -> Any:
    # ⟨H, V (F̃ ∘ Vᴴ dA V) Vᴴ⟩ = ⟨V (F̃ ∘ Vᴴ H V) Vᴴ, dA⟩, on the Hermitian part read
    w, v = s.eigh(a)
    h = adjoint(v)
    inner = s.mul(_divided_differences(s, w, g), s.matmul(h(s, v), s.matmul(ct, v)))
    return hermitian_part(s, s.matmul(v, s.matmul(inner, h(s, v))))


def _vjp_g(s: Any, ct: Any, out: Any, a: Any, g: Any) -> Any:
    w, v = s.eigh(a)
    _refuse_weights_derivative(w)
    d = diagonal_of_product(s, v, s.matmul(ct, v))  # Re diag(Vᴴ H V)
    return s.real(d) if d.dtype.kind == "c" else d


def _jvp(s: Any, tangents: Any, inputs: tuple[Any, Any], out: Any) -> Any:
    (da, dg), (a, g) = tangents, inputs
    w, v = s.eigh(a)
    h = adjoint(v)
    terms = []
    if da is not None:
        terms.append(s.mul(_divided_differences(s, w, g), s.matmul(h(s, v), s.matmul(hermitian_part(s, da), v))))
    if dg is not None:
        _refuse_weights_derivative(w)
        terms.append(diag_embed(s, dg))
    inner = terms[0] if len(terms) == 1 else s.add(*terms)
    result = s.matmul(v, s.matmul(inner, h(s, v)))
    return result if result.dtype == out.dtype else s.astype(result, out.dtype)


def _reference(a: Any, g: Any) -> np.ndarray:
    a = np.asarray(a)
    w, v = np.linalg.eig((a + np.conj(np.swapaxes(a, -1, -2))) / 2)  # the general eigensolver
    v = v / np.linalg.norm(v, axis=-2, keepdims=True)
    order = np.argsort(w.real, axis=-1)
    v = np.take_along_axis(v if np.iscomplexobj(a) else v.real, order[..., None, :], -1)
    return (v * np.asarray(g)[..., None, :]) @ np.conj(np.swapaxes(v, -1, -2))


EIGH_WEIGHTED = OpSpec(
    name="eigh_weighted",
    internal=True,
    inputs=("a", "g"),
    forward=_weighted,
    batch=vmap_rules.leading,
    vjps=(_vjp_a, _vjp_g),
    jvp=_jvp,
    residuals=("a", "g"),
    accepts=("fc", "f"),
    sample=lazy("symmetric_and_weights"),
    complex_sample=lazy("symmetric_and_weights", complex_=True),
    reference=_reference,
    error_inputs=lambda: [ErrorInput((np.eye(2), np.ones(3)), {}, ShapeMismatch, "eigh_weighted: a has shape")],
    doc="V diag(g) Vᴴ with V the eigenvectors of a's Hermitian part (the gradient of a function of the "
    "eigenvalues): its derivative in a is the divided differences', defined at repeated eigenvalues with equal "
    "weights on them.",
)


def eigenvalue_cotangent(s: Any, a: Any, v: Any, w: Any, gw: Any) -> Any:
    """a's cotangent from the eigenvalues' gw: V diag(gw) Vᴴ from eigh's own V where no two
    eigenvalues are close (no extra eigh), else through :data:`EIGH_WEIGHTED`."""
    if not _clusters(values(w)).any():
        return s.matmul(scale_columns(s, v, gw), adjoint(v)(s, v))
    return s.eigh_weighted(a, gw)


# -- svd_weighted: U diag(g) Vᴴ ------------------------------------------------------------------
def _svd_weighted(a: Any, g: Any) -> Any:
    check_matrix("svd_weighted", "a", a)
    if np.shape(g) != (*np.shape(a)[:-2], min(np.shape(a)[-2:])):
        raise ShapeMismatch(f"svd_weighted: a has shape {list(np.shape(a))} and g {list(np.shape(g))}")
    u, _, vh = np.linalg.svd(a, full_matrices=False)
    return np.matmul(np.multiply(u, np.expand_dims(g, -2)), vh)


def _svd_coefficients(s: Any, sv: Any, g: Any, m: int, n: int) -> tuple[Any, Any, Any]:
    """A, B and c of dM = U (A ∘ P + B ∘ Pᴴ + diag(i c Im diag P)) Vᴴ (+ the non-square terms
    with C = diag(c)), P = Uᴴ dA V, M = U diag(g) Vᴴ: A = (D⁻ + D⁺)/2, B = (D⁻ - D⁺)/2 with the
    divided differences D⁻ = (g_j - g_i)/(s_j - s_i) (0 in a cluster of equal weights) and
    D⁺ = (g_j + g_i)/(s_j + s_i), off the diagonal; c = g/s. A (nearly) zero singular value
    must carry no weight (its vectors' pairing is not defined), and none is allowed in a
    non-square matrix (its vectors have no derivative)."""
    sv_values, weights = values(sv), values(g)
    zero = sv_values <= np.sqrt(np.finfo(sv_values.dtype).eps) * np.max(sv_values, axis=-1, keepdims=True, initial=0.0)
    if np.any(zero & ((weights != 0) | (m != n))):
        raise NotDifferentiable(
            "svd: a (nearly) zero singular value with a weight (or of a non-square matrix) has singular vectors "
            "without a derivative, so U diag(g) Vᴴ has none there; its second derivative is not defined"
        )
    minus = _divided_differences(s, sv, g, SVD)
    k = sv.shape[-1]
    both_zero = (zero[..., None, :] & zero[..., :, None]) | np.eye(k, dtype=bool)  # 0 there, with no 0/0
    plus = s.div(
        s.add(s.expand_dims(g, -2), s.expand_dims(g, -1)),
        s.add(s.add(s.expand_dims(sv, -2), s.expand_dims(sv, -1)), constant(s, both_zero.astype(sv.dtype))),
    )
    plus = s.mul(plus, constant(s, (~both_zero).astype(sv.dtype)))
    c = s.div(g, s.add(sv, constant(s, zero.astype(sv.dtype))))  # g/s, 0 (g is 0) where s is
    return s.mul(s.add(minus, plus), 0.5), s.mul(s.sub(minus, plus), 0.5), c


def _svd_vjp_a(s: Any, ct: Any, out: Any, a: Any, g: Any) -> Any:
    """The transpose of the JVP: with Q = Uᴴ H V, U (A ∘ Q + Bᵀ ∘ Qᴴ + diag(i c Im diag Q)) Vᴴ,
    plus (I - UUᴴ) H V C Vᴴ (m > k) and U C Uᴴ H (I - VVᴴ) (n > k)."""
    m, n = a.shape[-2:]
    u, sv, vh = s.svd(a)
    h = adjoint(u)
    ab, b, c = _svd_coefficients(s, sv, g, m, n)
    ct_v = s.matmul(ct, h(s, vh))
    q = s.matmul(h(s, u), ct_v)
    inner = s.add(s.mul(ab, q), s.mul(s.moveaxis(b, -1, -2), h(s, q)))
    if q.dtype.kind == "c":
        inner = s.add(inner, diag_embed(s, s.mul(s.astype(s.mul(c, s.imag(s.diagonal(q, 0, -2, -1))), q.dtype), 1j)))
    result = s.matmul(u, s.matmul(inner, vh))
    if m > n:
        result = s.add(result, s.matmul(scale_columns(s, s.sub(ct_v, s.matmul(u, q)), c), vh))
    if n > m:
        result = s.add(result, s.matmul(scale_columns(s, u, c), s.sub(s.matmul(h(s, u), ct), s.matmul(q, vh))))
    return result if result.dtype == a.dtype or a.dtype.kind == "c" else s.real(result)


def _svd_vjp_g(s: Any, ct: Any, out: Any, a: Any, g: Any) -> Any:
    u, sv, vh = s.svd(a)
    _refuse_weights_derivative(sv, SVD)
    d = diagonal_of_product(s, u, s.matmul(ct, adjoint(vh)(s, vh)))  # Re diag(Uᴴ H V)
    return s.real(d) if d.dtype.kind == "c" else d


def _svd_jvp(s: Any, tangents: Any, inputs: tuple[Any, Any], out: Any) -> Any:
    (da, dg), (a, g) = tangents, inputs
    m, n = a.shape[-2:]
    u, sv, vh = s.svd(a)
    h = adjoint(u)
    terms = []
    if da is not None:
        ab, b, c = _svd_coefficients(s, sv, g, m, n)
        da_v = s.matmul(da, h(s, vh))
        p = s.matmul(h(s, u), da_v)
        inner = s.add(s.mul(ab, p), s.mul(b, h(s, p)))
        if p.dtype.kind == "c":
            turn = s.astype(s.mul(c, s.imag(s.diagonal(p, 0, -2, -1))), p.dtype)
            inner = s.add(inner, diag_embed(s, s.mul(turn, 1j)))
        terms.append(s.matmul(u, s.matmul(inner, vh)))
        if m > n:
            terms.append(s.matmul(scale_columns(s, s.sub(da_v, s.matmul(u, p)), c), vh))
        if n > m:
            terms.append(s.matmul(scale_columns(s, u, c), s.sub(s.matmul(h(s, u), da), s.matmul(p, vh))))
    if dg is not None:
        _refuse_weights_derivative(sv, SVD)
        terms.append(s.matmul(scale_columns(s, u, dg), vh))
    result = terms[0]
    for term in terms[1:]:
        result = s.add(result, term)
    return result if result.dtype == out.dtype else s.astype(result, out.dtype)


def _svd_reference(a: Any, g: Any) -> np.ndarray:
    from .svd import svd_reference  # from AᴴA's eigendecomposition: another route than gesdd

    u, _, vh = svd_reference(a)
    return (u * np.asarray(g)[..., None, :]) @ vh


SVD_WEIGHTED = OpSpec(
    name="svd_weighted",
    internal=True,
    inputs=("a", "g"),
    forward=_svd_weighted,
    batch=vmap_rules.leading,
    vjps=(_svd_vjp_a, _svd_vjp_g),
    jvp=_svd_jvp,
    residuals=("a", "g"),
    accepts=("fc", "f"),
    sample=lazy("separated_and_weights"),
    complex_sample=lazy("separated_and_weights", complex_=True),
    reference=_svd_reference,
    error_inputs=lambda: [ErrorInput((np.eye(2), np.ones(3)), {}, ShapeMismatch, "svd_weighted: a has shape")],
    doc="U diag(g) Vᴴ from a's reduced SVD (the gradient of a function of the singular values): its derivative "
    "in a is the divided differences', defined at repeated singular values with equal weights on them.",
)


def singular_value_cotangent(s: Any, a: Any, u: Any, sv: Any, vh: Any, gs: Any) -> Any:
    """a's cotangent from the singular values' gs: U diag(gs) Vᴴ from svd's own U, Vᴴ where
    no two singular values are close (no extra svd), else through :data:`SVD_WEIGHTED`
    (u, vh reduced)."""
    if not _clusters(values(sv)).any():
        return s.matmul(scale_columns(s, u, gs), vh)
    return s.svd_weighted(a, gs)


SPECS = [EIGH_WEIGHTED, SVD_WEIGHTED]
