"""Hypothesis sample strategies of the linalg family (imported only when samples are drawn:
hypothesis is a test-only dependency).

Every matrix is built from its factors: U diag(d) Vᵀ with U, V orthogonal (Cayley
transforms of a skew matrix) and d chosen, so it is as well conditioned as the op needs.
The solves take d in ±[1, 3] and U, V anywhere; the decompositions are sampled where
they are smooth and their gauge is unambiguous: spectra with gaps of at least 1
(singular values at least 0.5 apart and from 0), and U, V close to the identity, so each
vector has one clearly largest entry and the sign gauge does not flip under a
finite-difference step.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tenferro.extend import SampleInput
from tenferro.testing.strategies import MARGIN, floats_array

Draw = Callable[[Any], Any]
BATCH = hnp.array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=2)
SIDES = st.integers(1, 4)


#: How far from the identity orthogonal factors go: anywhere (solves), or near it, where the
#: decompositions' sign gauge is unambiguous.
ANY, NEAR = 1.0, 0.15


def _entries(draw: Draw, shape: tuple[int, ...], low: float, high: float, complex_: bool) -> np.ndarray:
    """Floats in [low, high]; with ``complex_``, complex numbers with both parts there."""
    real = draw(floats_array(shape, low, high))
    return real + 1j * draw(floats_array(shape, low, high)) if complex_ else real


def phases(draw: Draw, shape: tuple[int, ...]) -> np.ndarray:
    return np.exp(1j * draw(floats_array(shape, -math.pi, math.pi)))


def orthogonal(draw: Draw, batch: tuple[int, ...], n: int, spread: float = NEAR, complex_: bool = False) -> np.ndarray:
    """Orthogonal (with ``complex_``, unitary) n×n matrices (I - K)(I + K)⁻¹ with K skew
    (skew-Hermitian), |K| <= ``spread`` (I + K is always invertible: its eigenvalues are
    1 + iλ)."""
    k = _entries(draw, (*batch, n, n), -spread, spread, complex_)
    k = (k - np.conj(np.swapaxes(k, -1, -2))) / 2
    one = np.eye(n)
    h = lambda x: np.conj(np.swapaxes(x, -1, -2))  # noqa: E731
    return h(np.linalg.solve(h(one + k), h(one - k)))


def from_factors(u: np.ndarray, d: np.ndarray, v: np.ndarray) -> np.ndarray:
    """U diag(d) Vᵀ for stacks: u (..., M, K), d (..., K), v (..., N, K) (U diag(d) Vᴴ is
    ``from_factors(u, d, np.conj(v))``)."""
    return (u * d[..., None, :]) @ np.swapaxes(v, -1, -2)


def _signs(draw: Draw, shape: tuple[int, ...]) -> np.ndarray:
    return np.where(draw(floats_array(shape, -1.0, 1.0)) < 0, -1.0, 1.0)


def conditioned(
    draw: Draw,
    n: int,
    batch: tuple[int, ...] = (),
    kind: str = "general",
    m: int | None = None,
    complex_: bool = False,
) -> Any:
    """A stack of well-conditioned matrices: Q diag(d) Rᴴ with Q, R orthogonal (unitary with
    ``complex_``) and |d| in [1, 3] (``kind="general"``, d's signs or phases drawn too),
    Q diag(d) Qᴴ with d in [1, 3] (``"spd"``: symmetric or Hermitian positive definite),
    or an (m, n) matrix of full rank with singular values in [1, 3] (``"rect"``)."""
    rows = n if m is None else m
    k = min(rows, n)
    d = draw(floats_array((*batch, k), 1.0, 3.0))
    if kind == "general":
        d = d * (phases if complex_ else _signs)(draw, (*batch, k))
    q = orthogonal(draw, batch, rows, ANY, complex_)[..., :k]
    r = q if kind == "spd" else orthogonal(draw, batch, n, ANY, complex_)[..., :k]
    a = from_factors(q, d, np.conj(r))
    return (a + np.conj(np.swapaxes(a, -1, -2))) / 2 if kind == "spd" else a


def triangular(draw: Draw, batch: tuple[int, ...], n: int, signed: bool = False, complex_: bool = False) -> np.ndarray:
    """Entries in [-0.5, 0.5] and a diagonal in [1, 2] (±[1, 2] with ``signed``; times a
    phase with ``complex_``): its triangles are well conditioned."""
    r = _entries(draw, (*batch, n, n), -0.5, 0.5, complex_)
    d = draw(floats_array((*batch, n), 1.0, 2.0))
    if complex_:
        d = d * phases(draw, (*batch, n))
    elif signed:
        d = d * _signs(draw, (*batch, n))
    r[..., np.arange(n), np.arange(n)] = d
    return r


def _spread(draw: Draw, batch: tuple[int, ...], n: int, low: float, gap: float) -> np.ndarray:
    """Values in ascending order starting at ``low`` or above, consecutive ones at least ``gap`` apart."""
    steps = draw(floats_array((*batch, n), gap, 2 * gap))
    start = draw(floats_array((*batch, 1), low, low + 1.0))
    return start + np.cumsum(steps, axis=-1) - steps[..., :1]


@st.composite
def symmetric(draw: Draw, uplo: bool = False, complex_: bool = False) -> SampleInput:
    """Q diag(d) Qᵀ with eigenvalues d at least 1 apart (Q diag(d) Qᴴ with Q unitary, with
    ``complex_``), plus a skew (skew-Hermitian) part that eigh's symmetrising removes, so the
    gradient must be symmetric (Hermitian) to pass; UPLO drawn too (it changes nothing)."""
    batch, n = draw(BATCH), draw(SIDES)
    q = orthogonal(draw, batch, n, NEAR, complex_)
    a = from_factors(q, _spread(draw, batch, n, -3.0, 1.0), np.conj(q))
    which = draw(st.sampled_from(["L", "U"])) if uplo else "L"
    k = _entries(draw, a.shape, -3.0, 3.0, complex_)
    a = a + (k - np.conj(np.swapaxes(k, -1, -2))) / 2
    return SampleInput((a,), {"UPLO": which} if uplo and which == "U" else {})


@st.composite
def symmetric_and_weights(draw: Draw, complex_: bool = False) -> SampleInput:
    """A sample of :func:`symmetric` and weights for its eigenvalues (eigh_weighted)."""
    a = draw(symmetric(complex_=complex_)).args[0]
    return SampleInput((a, draw(floats_array(a.shape[:-1], -2.0, 2.0))))


def _separated(draw: Draw, batch: tuple[int, ...], m: int, n: int, complex_: bool = False) -> np.ndarray:
    """U diag(s) Vᴴ with singular values at least 0.5 from 0 and from each other."""
    k = min(m, n)
    sv = _spread(draw, batch, k, 0.5, 0.5)[..., ::-1]
    u, v = orthogonal(draw, batch, m, NEAR, complex_), orthogonal(draw, batch, n, NEAR, complex_)
    return from_factors(u[..., :k], sv, np.conj(v[..., :k]))


@st.composite
def separated_svd(draw: Draw, full: bool = True, complex_: bool = False) -> SampleInput:
    batch, m, n = draw(BATCH), draw(SIDES), draw(SIDES)
    a = _separated(draw, batch, m, n, complex_)
    if not full:
        return SampleInput((a,))
    # full_matrices=True only where it equals the reduced svd (square): else u, vh have no derivative
    return SampleInput((a,), {"full_matrices": True} if m == n and draw(st.booleans()) else {})


@st.composite
def separated_and_weights(draw: Draw, complex_: bool = False) -> SampleInput:
    """A matrix of :func:`_separated` singular values and weights for them (svd_weighted)."""
    batch, m, n = draw(BATCH), draw(SIDES), draw(SIDES)
    a = _separated(draw, batch, m, n, complex_)
    return SampleInput((a, draw(floats_array((*batch, min(m, n)), -2.0, 2.0))))


@st.composite
def full_rank(draw: Draw, complex_: bool = False) -> SampleInput:
    """Q R with R's diagonal in ±[1, 2] (times a phase, with ``complex_``), so the leading
    min(m, n) columns are independent."""
    batch, m, n = draw(BATCH), draw(SIDES), draw(SIDES)
    k = min(m, n)
    q = orthogonal(draw, batch, m, NEAR, complex_)[..., :k]
    r = np.triu(_entries(draw, (*batch, k, n), -1.0, 1.0, complex_))
    d = draw(floats_array((*batch, k), 1.0, 2.0))
    r[..., np.arange(k), np.arange(k)] = d * (phases(draw, (*batch, k)) if complex_ else _signs(draw, (*batch, k)))
    return SampleInput((q @ r,))


@st.composite
def upper_triangular(draw: Draw, complex_: bool = False) -> SampleInput:
    return SampleInput((triangular(draw, draw(BATCH), draw(SIDES), complex_=complex_),))


@st.composite
def general_eig(draw: Draw, complex_: bool = False) -> SampleInput:
    """W B W⁻¹ with W = I + E, |E| <= 0.05 entrywise (so each eigenvector has one clearly
    largest entry: the phase gauge is unambiguous), and eigenvalues at least 1 apart. A real
    B is block diagonal: real eigenvalues, and 2×2 blocks [[a, b], [-c, a]] (b in [1, 2], c
    in [0.2, 0.4]) whose eigenvalues a ± i·sqrt(bc) are a complex pair with eigenvectors
    (sqrt(b), ±i·sqrt(c)) (one entry clearly larger); a complex B is diagonal, with
    eigenvalues spread along the real axis and drawn imaginary parts."""
    batch, n = draw(BATCH), draw(SIDES)
    centres = _spread(draw, batch, n, -3.0, 1.0)
    w = np.eye(n) + _entries(draw, (*batch, n, n), -0.05, 0.05, complex_)
    if complex_:
        b = np.eye(n) * (centres + 1j * draw(floats_array((*batch, n), -1.0, 1.0)))[..., None, :]
    else:
        b = np.eye(n) * centres[..., None, :]
        pairs = draw(st.integers(0, n // 2))
        for p in range(pairs):
            i = 2 * p
            upper, lower = draw(floats_array(batch, 1.0, 2.0)), draw(floats_array(batch, 0.2, 0.4))
            middle = (centres[..., i] + centres[..., i + 1]) / 2
            b[..., i, i] = b[..., i + 1, i + 1] = middle
            b[..., i, i + 1], b[..., i + 1, i] = upper, -lower
    a = w @ b @ np.linalg.inv(w)
    # on a grid of 2⁻²⁰: no subnormal (or nearly so) entries, on which LAPACK's balancing in
    # geev loses the eigenvectors' accuracy (drawn floats may be as small as 5e-324)
    grid = lambda x: np.round(x * 2.0**20) / 2.0**20  # noqa: E731
    return SampleInput((grid(a.real) + 1j * grid(a.imag) if complex_ else grid(a),))


# -- the solves ------------------------------------------------------------------------------
def _rhs(draw: Draw, n: int, batch_a: tuple[int, ...]) -> np.ndarray:
    """A right-hand side for a (batch_a..., n, n): a vector, or a stack whose batch broadcasts."""
    if draw(st.booleans()):
        return draw(floats_array((n,)))
    batch_b = draw(st.sampled_from([batch_a, batch_a[1:], (), (3,) if batch_a in ((), (1,)) else batch_a]))
    return draw(floats_array((*batch_b, n, draw(st.integers(1, 2)))))


@st.composite
def solve(draw: Draw) -> SampleInput:
    n, batch = draw(st.integers(1, 3)), draw(BATCH)
    return SampleInput((conditioned(draw, n, batch), _rhs(draw, n, batch)))


@st.composite
def triangular_solve(draw: Draw) -> SampleInput:
    n, batch = draw(st.integers(1, 3)), draw(BATCH)
    params = {
        "lower": draw(st.booleans()),
        "trans": draw(st.sampled_from([0, 1, "N", "T"])),
        "unit_diagonal": draw(st.booleans()),
    }
    return SampleInput((triangular(draw, batch, n, signed=True), _rhs(draw, n, batch)), params)


@st.composite
def square(draw: Draw, complex_: bool = False) -> SampleInput:
    return SampleInput((conditioned(draw, draw(st.integers(1, 3)), draw(BATCH), complex_=complex_),))


@st.composite
def any_rank(draw: Draw, complex_: bool = False) -> SampleInput:
    """Square matrices of any rank: U diag(d) Vᴴ with |d| in [1, 3] and some of d (none, one,
    two, ... all) set to 0, or an exactly singular one (a row repeated, a zero row): det and
    its derivatives are checked at singular matrices, where they are smooth (polynomials)."""
    n, batch = draw(st.integers(1, 3)), draw(BATCH)
    d = draw(floats_array((*batch, n), 1.0, 3.0)) * (phases if complex_ else _signs)(draw, (*batch, n))
    zeros = draw(st.integers(0, n))
    d[..., n - zeros :] = 0.0
    u, v = orthogonal(draw, batch, n, ANY, complex_), orthogonal(draw, batch, n, ANY, complex_)
    a = from_factors(u, d, np.conj(v))
    if n > 1 and draw(st.booleans()):  # exactly singular: the LU meets an exact 0
        a[..., -1, :] = a[..., 0, :] if draw(st.booleans()) else 0.0
    return SampleInput((a,))


@st.composite
def square_and_direction(draw: Draw, complex_: bool = False) -> SampleInput:
    """A well-conditioned square matrix and a direction of its shape (cofactor_tangent)."""
    a = draw(square(complex_)).args[0]
    return SampleInput((a, _entries(draw, a.shape, -1.0, 1.0, complex_)))


@st.composite
def matrix_power(draw: Draw, complex_: bool = False) -> SampleInput:
    return SampleInput(draw(square(complex_)).args, {"n": draw(st.integers(-3, 3))})


@st.composite
def cholesky(draw: Draw, complex_: bool = False) -> SampleInput:
    n, batch = draw(st.integers(1, 3)), draw(BATCH)
    return SampleInput((conditioned(draw, n, batch, kind="spd", complex_=complex_),), {"upper": draw(st.booleans())})


@st.composite
def rect(draw: Draw, complex_: bool = False) -> SampleInput:
    m, n, batch = draw(SIDES), draw(SIDES), draw(BATCH)
    return SampleInput((conditioned(draw, n, batch, kind="rect", m=m, complex_=complex_),))


@st.composite
def lstsq(draw: Draw) -> SampleInput:
    m, n, batch = draw(SIDES), draw(SIDES), draw(BATCH)
    a = conditioned(draw, n, batch, kind="rect", m=m)
    if draw(st.booleans()):
        b = draw(floats_array((m,)))
    else:
        b = draw(floats_array((*draw(st.sampled_from([batch, ()])), m, draw(st.integers(1, 2)))))
    return SampleInput((a, b))


# -- norms and cross -------------------------------------------------------------------------
def _distinct_magnitudes(draw: Draw, shape: tuple[int, ...]) -> np.ndarray:
    """Nonzero values whose magnitudes are pairwise at least MARGIN apart (no ties for max |x|)."""
    size = math.prod(shape)
    order = np.array(draw(st.permutations(range(size))), dtype=np.float64)
    jitter = draw(floats_array((size,), 0.0, MARGIN))
    signs = np.where(draw(floats_array((size,), -1.0, 1.0)) < 0, -1.0, 1.0)
    return (signs * (0.5 + 2 * MARGIN * order + jitter)).reshape(shape)


@st.composite
def vector_norm(draw: Draw) -> SampleInput:
    shape = draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=4))
    x = _distinct_magnitudes(draw, shape)
    ndim = len(shape)
    axes = st.one_of(st.none(), st.integers(-ndim, ndim - 1)) if ndim else st.none()
    params = {"axis": draw(axes), "ord": draw(st.sampled_from([2, 1, math.inf, -math.inf, 0, 3, 1.5]))}
    if draw(st.booleans()):
        params["keepdims"] = True
    return SampleInput((x,), params)


@st.composite
def matrix_norm(draw: Draw) -> SampleInput:
    ord = draw(st.sampled_from(["fro", "nuc", 2, -2, 1, -1, math.inf, -math.inf]))  # noqa: A001
    batch, m, n = draw(BATCH), draw(SIDES), draw(SIDES)
    if ord in ("nuc", 2, -2):
        x = _separated(draw, batch, m, n)
    else:
        x = draw(floats_array((*batch, m, n), avoid=(0.0,)))
        if ord != "fro":  # separate the column (row) sums of |x| by 2·MARGIN: no ties at the extreme
            along = -2 if ord in (1, -1) else -1
            sums = np.sum(np.abs(x), axis=along, keepdims=True)
            rank = np.argsort(np.argsort(sums, axis=-1 if along == -2 else -2), axis=-1 if along == -2 else -2)
            x = x + np.sign(x) * rank * (2 * MARGIN / x.shape[along])
    params: dict[str, Any] = {"ord": ord} if ord != "fro" or draw(st.booleans()) else {}
    if draw(st.booleans()):
        params["keepdims"] = True
    return SampleInput((x,), params)


@st.composite
def cross_pair(draw: Draw) -> SampleInput:
    batch = draw(hnp.array_shapes(min_dims=0, max_dims=2, min_side=1, max_side=3))
    other = tuple(1 if draw(st.booleans()) else size for size in batch)
    a, b = draw(floats_array((*batch, 3))), draw(floats_array((*other, 3)))
    axis = draw(st.integers(-a.ndim, -1)) if a.ndim > 1 and draw(st.booleans()) else -1
    if axis != -1:
        a, b = np.moveaxis(a, -1, axis), np.moveaxis(b, -1, axis)
    return SampleInput((a, b), {"axis": axis} if axis != -1 or draw(st.booleans()) else {})


# -- Sylvester equations, square roots, LU ---------------------------------------------------
def _right_half_plane(draw: Draw, batch: tuple[int, ...], n: int, complex_: bool) -> np.ndarray:
    """W diag(d) W⁻¹ with W = I + E (|E| <= 0.3: not normal) and eigenvalues d in [1, 3] (a
    complex d has a phase in [-1, 1] rad): well inside the right half-plane, so a x + x b is
    far from singular and sqrtm's principal root is smooth."""
    d = draw(floats_array((*batch, n), 1.0, 3.0))
    if complex_:
        d = d * np.exp(1j * draw(floats_array((*batch, n), -1.0, 1.0)))
    w = np.eye(n) + _entries(draw, (*batch, n, n), -0.3, 0.3, complex_)
    return (w * d[..., None, :]) @ np.linalg.inv(w)


@st.composite
def sylvester(draw: Draw, complex_: bool = False) -> SampleInput:
    batch, m, n = draw(BATCH), draw(st.integers(1, 3)), draw(st.integers(1, 3))
    a = _right_half_plane(draw, batch, m, complex_)
    b = _right_half_plane(draw, batch[1:] if draw(st.booleans()) else batch, n, complex_)
    q = _entries(draw, (*batch, m, n), -2.0, 2.0, complex_)
    return SampleInput((a, b, q))


@st.composite
def sqrtm(draw: Draw, complex_: bool = False) -> SampleInput:
    return SampleInput((_right_half_plane(draw, draw(BATCH), draw(st.integers(1, 3)), complex_),))


@st.composite
def lu(draw: Draw, complex_: bool = False) -> SampleInput:
    """P L U with L's entries below the diagonal at most 0.5 in magnitude and U's diagonal in
    ±[1, 2] (times a phase): partial pivoting picks P again, each pivot clearly the largest
    of its column (no tie a finite-difference step could flip), and no pivot near zero."""
    batch, m, n = draw(BATCH), draw(SIDES), draw(SIDES)
    k = min(m, n)
    lower = np.tril(_entries(draw, (*batch, m, k), -0.5, 0.5, complex_), -1) + np.eye(m, k)
    upper = np.triu(triangular(draw, batch, max(k, n), signed=True, complex_=complex_)[..., :k, :n])
    order = np.array(draw(st.permutations(range(m))))
    return SampleInput(((lower @ upper)[..., order, :],))
