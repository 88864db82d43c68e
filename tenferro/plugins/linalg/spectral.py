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


def _refuse(i_j: np.ndarray, w: np.ndarray, why: str) -> None:
    batch, i, j = tuple(int(k) for k in i_j[:-2]), int(i_j[-2]), int(i_j[-1])
    at = f" of the matrix at batch index {batch}" if batch else ""
    raise NotDifferentiable(
        f"eigh: eigenvalues {i} and {j}{at} are (nearly) equal ({float(w[(*batch, i)])!r} and "
        f"{float(w[(*batch, j)])!r}), where {why}; the second derivative there exists for functions linear in "
        f"the eigenvalues with equal weights on equal ones (their sum), or move the eigenvalues apart"
    )


def _divided_differences(s: Any, w: Any, g: Any) -> Any:
    """F̃[i, j] = (g[j] - g[i]) / (w[j] - w[i]) off the diagonal, exactly 0 inside a cluster
    of equal weights; NotDifferentiable for a cluster whose weights differ."""
    close, weights = _clusters(values(w)), values(g)
    unequal = close & (weights[..., None, :] != weights[..., :, None])
    if unequal.any():
        _refuse(np.argwhere(unequal)[0], values(w), "the weights on them differ, so V diag(g) Vᴴ has no derivative")
    n = w.shape[-1]
    skip = np.eye(n, dtype=bool) | close  # the diagonal and the clusters: 0, with no division by 0 there
    between = lambda x: s.sub(s.expand_dims(x, -2), s.expand_dims(x, -1))  # noqa: E731  [i, j] = x[j] - x[i]
    gaps = s.add(between(w), constant(s, skip.astype(w.dtype)))
    return s.mul(s.div(between(g), gaps), constant(s, (~skip).astype(w.dtype)))


def _refuse_weights_derivative(w: Any) -> None:
    close = _clusters(values(w))
    if close.any():
        _refuse(np.argwhere(close)[0], values(w), "V diag(g) Vᴴ has no derivative in the weights g")


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


SPECS = [EIGH_WEIGHTED]
