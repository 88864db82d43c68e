"""NumPy's polynomial functions on coefficient arrays, highest power first (``polyval``,
``polyfit``, ``polyadd``, ``polymul``, ``polyder``, ``polyint``, ``polydiv``, ``roots``,
``poly``, ``vander``), written as NumPy's are (Horner's rule, the running product of
``vander``, the long division), from tnp calls: they differentiate in the coefficients
and the points; ``polyfit`` is the least-squares solve of the scaled Vandermonde system
and ``roots`` the eigenvalues of the companion matrix."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from .. import numpy as tnp
from ..core.eager import EagerTensor
from ..core.errors import ArgumentError
from ._composed import numpy_name, values
from ._signal import convolve
from ._stacking import atleast_1d as _atleast_1d

__all__ = [
    "poly",
    "polyadd",
    "polyder",
    "polydiv",
    "polyfit",
    "polyint",
    "polymul",
    "polysub",
    "polyval",
    "roots",
    "vander",
]


#: The highest order of polyint: each order adds a coefficient (and a tnp call).
_MAX_ORDER = 10_000


def _array(a: Any) -> EagerTensor:
    return a if type(a) is EagerTensor else tnp.asarray(a)


@numpy_name
def polyval(p: Any, x: Any) -> EagerTensor:
    """The polynomial with coefficients ``p`` (highest power first) at ``x``, by Horner's rule."""
    p, x = _array(p), _array(x)
    y = tnp.zeros_like(x)
    for index in range(p.shape[0]):
        y = y * x + p[index]
    return y


def _padded_pair(a1: Any, a2: Any) -> tuple[EagerTensor, EagerTensor]:
    a1, a2 = _atleast_1d(a1), _atleast_1d(a2)
    diff = a2.shape[0] - a1.shape[0]
    if diff > 0:
        a1 = tnp.concat([tnp.zeros((diff,), dtype=a1.dtype), a1], axis=0)
    elif diff < 0:
        a2 = tnp.concat([tnp.zeros((-diff,), dtype=a2.dtype), a2], axis=0)
    return a1, a2


@numpy_name
def polyadd(a1: Any, a2: Any) -> EagerTensor:
    """The sum of two polynomials (the shorter padded with leading zeros)."""
    a1, a2 = _padded_pair(a1, a2)
    return a1 + a2


@numpy_name
def polysub(a1: Any, a2: Any) -> EagerTensor:
    """The difference a1 - a2 of two polynomials."""
    a1, a2 = _padded_pair(a1, a2)
    return a1 - a2


@numpy_name
def polymul(a1: Any, a2: Any) -> EagerTensor:
    """The product of two polynomials: the convolution of their coefficients."""
    return convolve(_atleast_1d(a1), _atleast_1d(a2))


@numpy_name
def polyder(p: Any, m: int = 1) -> EagerTensor:
    """The m-th derivative of the polynomial."""
    m = operator.index(m)
    if m < 0:
        raise ArgumentError(f"argument 'm' is {m}; the order of the derivative must be >= 0")
    p = _atleast_1d(p)
    for _ in range(min(m, p.shape[0])):  # after len(p) derivatives it is 0
        n = p.shape[0] - 1
        p = p[:-1] * np.arange(n, 0, -1) if n > 0 else tnp.zeros((1,), dtype=np.result_type(p.dtype, np.int64))
    return p


@numpy_name
def polyint(p: Any, m: int = 1, k: Any = None) -> EagerTensor:
    """The m-th antiderivative, with the integration constants ``k`` (zeros by default)."""
    m = operator.index(m)
    if m < 0:
        raise ArgumentError(f"argument 'm' is {m}; the order of the antiderivative must be >= 0")
    if m > _MAX_ORDER:
        raise ArgumentError(f"argument 'm' is {m}; an antiderivative of that order has that many coefficients more")
    constants = [0] * m if k is None else list(np.atleast_1d(values(k)) if type(k) is not EagerTensor else k)
    if len(constants) == 1 and m > 1:
        constants = constants * m
    if len(constants) < m:
        raise ArgumentError("argument 'k' must hold one constant per integration (m of them)")
    p = _atleast_1d(p)
    for step in range(m):
        p = p / np.arange(p.shape[0], 0, -1)
        p = tnp.concat([p, tnp.reshape(tnp.astype(tnp.asarray(constants[step]), p.dtype), (1,))], axis=0)
    return p


@numpy_name
def polydiv(u: Any, v: Any) -> tuple[EagerTensor, EagerTensor]:
    """Quotient and remainder of the long division u / v, as NumPy's (the remainder's
    leading near-zeros dropped)."""
    u, v = _atleast_1d(u) + 0.0, _atleast_1d(v) + 0.0
    m, n = u.shape[0] - 1, v.shape[0] - 1
    scale = 1.0 / v[0]
    r = u
    quotient = []
    for k in range(m - n + 1):
        d = scale * r[k]
        quotient.append(d)
        r = tnp.concat([r[:k], r[k : k + n + 1] - d * v, r[k + n + 1 :]], axis=0)
    q = tnp.stack(quotient) if quotient else tnp.zeros((1,), dtype=r.dtype)
    while r.shape[0] > 1 and np.allclose(values(r[0]), 0, rtol=1e-14):
        r = r[1:]
    return q, r


@numpy_name
def vander(x: Any, N: int | None = None, increasing: bool = False) -> EagerTensor:  # noqa: N803 - NumPy's name
    """The Vandermonde matrix of the 1-d x: columns x**(N-1), ..., x**0 (reversed if
    `increasing`), the running product of NumPy's."""
    x = _array(x)
    if x.ndim != 1:
        raise ArgumentError(f"argument 'x' has {x.ndim} dims; vander takes a 1-d array")
    n = x.shape[0] if N is None else operator.index(N)
    if n == 0:
        return tnp.zeros((x.shape[0], 0), dtype=np.result_type(x.dtype, np.int64))
    ones = tnp.ones((x.shape[0], 1), dtype=x.dtype)
    powers = tnp.cumprod(tnp.concat([ones, tnp.broadcast_to(x[:, None], (x.shape[0], n - 1))], axis=1), axis=1)
    return powers if increasing else tnp.flip(powers, axis=1)


@numpy_name
def polyfit(
    x: Any, y: Any, deg: int, rcond: Any = None, full: bool = False, w: Any = None, cov: bool = False
) -> EagerTensor:
    """The least-squares polynomial of degree `deg` through (x, y) (y's columns fitted
    each), as NumPy's: the Vandermonde matrix's columns scaled to unit norm and solved in
    the least-squares sense. Only the coefficients (not ``full``'s diagnostics or ``cov``)."""
    if full or cov:
        raise ArgumentError("full=True and cov=True are not supported; compute the residuals from polyval")
    if rcond is not None:
        raise ArgumentError("argument 'rcond' is not supported (the solve refuses a rank-deficient fit)")
    x, y = _inexact(_array(x)), _inexact(_array(y))
    deg = operator.index(deg)
    if deg < 0 or x.ndim != 1 or y.ndim not in (1, 2) or x.shape[0] != y.shape[0] or x.shape[0] == 0:
        raise ArgumentError("x must be 1-d and non-empty, y 1-d or 2-d of x's length, deg >= 0")
    lhs = vander(x, deg + 1)
    rhs = y
    if w is not None:
        w = _array(w)
        lhs = lhs * w[:, None]
        rhs = rhs * (w if rhs.ndim == 1 else w[:, None])
    scale = tnp.sqrt(tnp.sum(lhs * lhs, axis=0))
    lhs = lhs / scale
    solved = x.runtime.current_session().lstsq(lhs, rhs if rhs.ndim == 2 else rhs[:, None])
    c = solved / (scale[:, None])
    return c[:, 0] if rhs.ndim == 1 else c


def _inexact(x: EagerTensor) -> EagerTensor:
    return x if x.dtype.kind in "fc" else tnp.astype(x, np.float64)


@numpy_name
def roots(p: Any) -> EagerTensor:
    """The roots of the polynomial: the eigenvalues of its companion matrix (complex
    unless all are real), and a zero per trailing zero coefficient; in the order
    ``tnp.linalg.eigvals`` gives (by real part, then imaginary), where NumPy's is LAPACK's."""
    p = _inexact(_atleast_1d(p))
    if p.ndim != 1:
        raise ArgumentError("argument 'p' must be 1-d")
    nonzero = np.flatnonzero(values(p))
    if nonzero.size == 0:
        return tnp.zeros((0,), dtype=p.dtype)
    trailing = p.shape[0] - int(nonzero[-1]) - 1
    p = p[int(nonzero[0]) : int(nonzero[-1]) + 1]
    n = p.shape[0]
    if n < 2:
        found = tnp.zeros((0,), dtype=p.dtype)
    else:
        top = -p[1:] / p[0]
        below = tnp.asarray(np.eye(n - 2, n - 1, dtype=values(p).dtype))
        companion = tnp.concat([top[None, :], below], axis=0) if n > 2 else top[None, :]
        found = tnp.linalg.eigvals(companion)
        if not np.any(np.imag(values(found))):
            found = tnp.real(found)
    if trailing:
        found = tnp.concat([found, tnp.zeros((trailing,), dtype=found.dtype)], axis=0)
    return found


@numpy_name
def poly(seq_of_zeros: Any) -> EagerTensor:
    """The coefficients of the monic polynomial with these roots (of a square matrix:
    its characteristic polynomial), real where the roots come in conjugate pairs."""
    zeros = _array(seq_of_zeros)
    if zeros.ndim == 2 and zeros.shape[0] == zeros.shape[1] and zeros.shape[0] != 0:
        zeros = tnp.linalg.eigvals(zeros)
    elif zeros.ndim != 1:
        raise ArgumentError("argument 'seq_of_zeros' must be 1-d or a square matrix")
    zeros = _inexact(zeros)
    a = tnp.ones((1,), dtype=zeros.dtype)
    for index in range(zeros.shape[0]):
        a = convolve(a, tnp.stack([tnp.ones((), dtype=zeros.dtype), -zeros[index]]), mode="full")
    if a.dtype.kind == "c":
        found = np.asarray(values(zeros), dtype=complex)
        if np.array_equal(np.sort(found), np.sort(found.conjugate())):
            a = tnp.real(a)
    return a
