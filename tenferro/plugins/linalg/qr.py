"""``qr``, NumPy's reduced QR, batched over leading axes. Real and complex floating inputs.
The rule is Walter & Lehmann (2018) / PyTorch's ``linalg_qr_backward``, written with session
ops (R⁻¹ through the internal op ``decomp_triu_inv`` of :mod:`.decomp_common`), so second
order works. Gauge: r's diagonal is real and non-negative (docs/linalg-decompositions.md).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tenferro.extend import NotDifferentiable, OpSpec, check_values
from tenferro.extend import batching as vmap_rules

from .batching import check_matrix, constant, diag_embed, lazy
from .decomp_common import adjoint, is_complex, matrix_errors


def _qr(a: Any) -> tuple[Any, Any]:
    m, n = check_matrix("qr", "a", a)
    q, r = np.linalg.qr(a)  # NumPy's default, reduced (dask's qr, tsqr, takes no mode)
    k = min(m, n)
    if k == 0:
        return q, r
    diag = np.diagonal(r, axis1=-2, axis2=-1)
    one = np.ones_like(diag)
    if r.dtype.kind == "c":  # the phase that makes the diagonal real and non-negative (1 where it is 0)
        size = np.abs(diag)
        phases = np.where(size == 0, one, np.divide(np.conj(diag), np.where(size == 0, np.ones_like(size), size)))
    else:
        phases = np.where(np.less(diag, 0), np.negative(one), one)  # (..., k)
    # triu: a row flipped by -1 would turn R's zeros below the diagonal into -0.0
    return np.multiply(q, np.expand_dims(np.conj(phases), -2)), np.triu(np.multiply(r, np.expand_dims(phases, -1)))


def _rank_deficient(r: np.ndarray) -> None:
    """NotDifferentiable where R has a (nearly) zero on its diagonal (a check_values check)."""
    diag = np.abs(np.diagonal(r, axis1=-2, axis2=-1))
    if 0 in np.shape(diag):  # no column: nothing to divide by (np.max without initial=: dask's has none)
        return
    if np.any(diag <= np.sqrt(np.finfo(r.dtype).eps) * np.max(diag, axis=-1, keepdims=True)):
        raise NotDifferentiable(
            "qr: the input is (nearly) rank deficient (R has a zero on its diagonal), where Q and R "
            "have no derivative; make the leading min(m, n) columns independent"
        )


def _qr_square_tangent(s: Any, da: Any, q: Any, r: Any) -> tuple[Any, Any]:
    """JAX's qr_jvp_rule (m ≥ n): with C = Qᴴ dA R⁻¹ and Ω = tril(C, -1) - tril(C, -1)ᴴ +
    i·Im(diag C) (skew-Hermitian; the last term keeps R's diagonal real), dQ = Q (Ω - C) +
    dA R⁻¹ and dR = (C - Ω) R."""
    h = adjoint(r)
    da_rinv = s.matmul(da, s.decomp_triu_inv(r))
    c = s.matmul(h(s, q), da_rinv)
    lower = s.tril(c, -1)
    omega = s.sub(lower, h(s, lower))
    if is_complex(c):
        omega = s.add(omega, diag_embed(s, s.mul(s.astype(s.imag(s.diagonal(c, 0, -2, -1)), c.dtype), 1j)))
    return s.add(s.matmul(q, s.sub(omega, c)), da_rinv), s.matmul(s.sub(c, omega), r)


def _qr_jvp(s: Any, tangents: Any, inputs: tuple[Any], out: tuple[Any, Any]) -> tuple[Any, Any]:
    """m ≥ n: :func:`_qr_square_tangent`. Wide: A = [X | Y], X = Q U, R = [U | V], V = Qᴴ Y,
    so (dQ, dU) are X's and dV = dQᴴ Y + Qᴴ dY (Walter & Lehmann, as the VJP)."""
    (da,), (q, r) = tangents, out
    m, n = da.shape[-2:]
    check_values(r, _rank_deficient)
    if m >= n:
        return _qr_square_tangent(s, da, q, r)
    left, right = (Ellipsis, slice(None), slice(0, m)), (Ellipsis, slice(None), slice(m, None))
    v = s.slice(r, right)
    dq, du = _qr_square_tangent(s, s.slice(da, left), q, s.slice(r, left))
    h = adjoint(r)
    dv = s.add(s.matmul(h(s, dq), s.matmul(q, v)), s.matmul(h(s, q), s.slice(da, right)))
    return dq, s.concat([du, dv], -1)


def _qr_square_rule(s: Any, gq: Any, gr: Any, q: Any, r: Any) -> Any:
    """Ā = (gQ + Q N) R⁻ᴴ, N = triu(M) + triu(M, 1)ᴴ with Re(M) on its diagonal (R's diagonal
    is real), M = gR Rᴴ - Qᴴ gQ (Q m×k, R k×k)."""
    h = adjoint(r)
    terms = []
    if gr is not None:
        terms.append(s.matmul(gr, h(s, r)))
    if gq is not None:
        terms.append(s.neg(s.matmul(h(s, q), gq)))
    m = terms[0] if len(terms) == 1 else s.add(*terms)
    if is_complex(m):  # X + Xᴴ with X = triu(M), its diagonal halved: Re(M) there
        k = m.shape[-1]
        half = s.mul(s.triu(m), constant(s, (np.ones((k, k)) - np.eye(k) / 2).astype(m.dtype)))
        sym = s.add(half, h(s, half))
    else:
        sym = s.add(s.triu(m), h(s, s.triu(m, 1)))
    b = s.matmul(q, sym)
    if gq is not None:
        b = s.add(b, gq)
    return s.matmul(b, h(s, s.decomp_triu_inv(r)))


def _qr_rule(s: Any, g: Any, out: Any, a: Any) -> Any:
    (gq, gr), (q, r) = g, out
    m, n = a.shape[-2:]
    check_values(r, _rank_deficient)
    if m >= n:
        return _qr_square_rule(s, gq, gr, q, r)
    # wide: A = [X | Y] with X = Q U, R = [U | V], V = Qᴴ Y (Walter & Lehmann; PyTorch)
    left, right = (Ellipsis, slice(None), slice(0, m)), (Ellipsis, slice(None), slice(m, None))
    u = s.slice(r, left)
    gu = gv = None
    if gr is not None:
        gu, gv = s.slice(gr, left), s.slice(gr, right)
        y_gv = s.matmul(s.matmul(q, s.slice(r, right)), adjoint(gv)(s, gv))  # Y gVᴴ
        gq = y_gv if gq is None else s.add(gq, y_gv)
    gx = _qr_square_rule(s, gq, gu, q, u)
    gy = s.matmul(q, gv) if gv is not None else constant(s, np.zeros((*a.shape[:-1], n - m), a.dtype))
    return s.concat([gx, gy], -1)


def _qr_reference(a: Any) -> tuple[np.ndarray, np.ndarray]:
    # Gram-Schmidt on the leading columns (modified, twice): a different route than Householder
    a = np.asarray(a)
    a = a.astype(np.complex128 if np.iscomplexobj(a) else np.float64)
    m, n = a.shape[-2:]
    k = min(m, n)
    q = np.zeros((*a.shape[:-1], k), a.dtype)
    for j in range(k):
        v = a[..., :, j].copy()
        for _ in range(2):
            for i in range(j):
                v -= np.sum(np.conj(q[..., :, i]) * v, axis=-1, keepdims=True) * q[..., :, i]
        q[..., :, j] = v / np.linalg.norm(v, axis=-1, keepdims=True)
    return q, np.triu(np.conj(np.swapaxes(q, -1, -2)) @ a)


QR = OpSpec(
    name="qr",
    inputs=("a",),
    forward=_qr,
    vjps=(_qr_rule,),
    jvp=_qr_jvp,
    multiple_results=True,
    batch=vmap_rules.leading,
    residuals=("out",),
    accepts="fc",
    sample=lazy("full_rank"),
    complex_sample=lazy("full_rank", complex_=True),
    reference=_qr_reference,
    error_inputs=lambda: matrix_errors("qr", square=False),
    doc="(q, r) with a = q r, q with orthonormal columns and r upper triangular (NumPy's reduced "
    "qr), real or complex. Gauge: r's diagonal is real and non-negative, so q and r are unique "
    "for a of full rank; "
    "differentiating a (nearly) rank-deficient a raises NotDifferentiable.",
)


SPECS = [QR]
