"""Hypothesis sample strategies of the decompositions and norms (imported only when samples
are drawn: hypothesis is a test-only dependency).

The decompositions are sampled where they are smooth and their gauge is unambiguous:
spectra with gaps of at least 1 (singular values at least 0.5 apart and from 0), and
eigenvectors / singular vectors built from an orthogonal matrix close to the identity
(a Cayley transform of a small skew matrix), so each has one clearly largest entry and
the sign gauge does not flip under a finite-difference step.
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


def _orthogonal(draw: Draw, batch: tuple[int, ...], n: int) -> np.ndarray:
    """Orthogonal n×n matrices near the identity: (I - K)(I + K)⁻¹ with K skew, |K| <= 0.15."""
    k = draw(floats_array((*batch, n, n), -0.15, 0.15))
    k = (k - np.swapaxes(k, -1, -2)) / 2
    one = np.eye(n)
    return np.linalg.solve(np.swapaxes(one + k, -1, -2), np.swapaxes(one - k, -1, -2)).swapaxes(-1, -2)


def _spread(draw: Draw, batch: tuple[int, ...], n: int, low: float, gap: float) -> np.ndarray:
    """Values in ascending order starting at ``low`` or above, consecutive ones at least ``gap`` apart."""
    steps = draw(floats_array((*batch, n), gap, 2 * gap))
    start = draw(floats_array((*batch, 1), low, low + 1.0))
    return start + np.cumsum(steps, axis=-1) - steps[..., :1]


@st.composite
def symmetric(draw: Draw, uplo: bool = False) -> SampleInput:
    """Q diag(d) Qᵀ with eigenvalues d at least 1 apart, garbage in the triangle not read."""
    batch, n = draw(BATCH), draw(SIDES)
    q = _orthogonal(draw, batch, n)
    d = _spread(draw, batch, n, -3.0, 1.0)
    a = (q * d[..., None, :]) @ np.swapaxes(q, -1, -2)
    which = draw(st.sampled_from(["L", "U"])) if uplo else "L"
    unread = np.triu(np.ones((n, n), bool), 1) if which == "L" else np.tril(np.ones((n, n), bool), -1)
    a = np.where(unread, draw(floats_array(a.shape)), a)
    return SampleInput((a,), {"UPLO": which} if uplo and which == "U" else {})


def _separated(draw: Draw, batch: tuple[int, ...], m: int, n: int) -> np.ndarray:
    """U diag(s) Vᵀ with singular values at least 0.5 from 0 and from each other."""
    k = min(m, n)
    sv = _spread(draw, batch, k, 0.5, 0.5)[..., ::-1]
    u = _orthogonal(draw, batch, m)[..., :k]
    v = _orthogonal(draw, batch, n)[..., :k]
    return (u * sv[..., None, :]) @ np.swapaxes(v, -1, -2)


@st.composite
def separated_svd(draw: Draw, full: bool = True) -> SampleInput:
    batch, m, n = draw(BATCH), draw(SIDES), draw(SIDES)
    a = _separated(draw, batch, m, n)
    if not full:
        return SampleInput((a,))
    # full_matrices=True only where it equals the reduced svd (square): else u, vh have no derivative
    return SampleInput((a,), {"full_matrices": True} if m == n and draw(st.booleans()) else {})


@st.composite
def full_rank(draw: Draw) -> SampleInput:
    """Q R with R's diagonal in ±[1, 2] (so the leading min(m, n) columns are independent)."""
    batch, m, n = draw(BATCH), draw(SIDES), draw(SIDES)
    k = min(m, n)
    q = _orthogonal(draw, batch, m)[..., :k]
    r = np.triu(draw(floats_array((*batch, k, n), -1.0, 1.0)))
    diag = draw(floats_array((*batch, k), 1.0, 2.0)) * np.where(draw(floats_array((*batch, k), -1, 1)) < 0, -1, 1)
    r[..., np.arange(k), np.arange(k)] = diag
    return SampleInput((q @ r,))


@st.composite
def upper_triangular(draw: Draw) -> SampleInput:
    batch, n = draw(BATCH), draw(SIDES)
    r = draw(floats_array((*batch, n, n), -0.5, 0.5))
    r[..., np.arange(n), np.arange(n)] = draw(floats_array((*batch, n), 1.0, 2.0))
    return SampleInput((r,))


@st.composite
def matmul_pair(draw: Draw) -> SampleInput:
    batch, m, k, n = draw(BATCH), draw(SIDES), draw(SIDES), draw(SIDES)
    other = tuple(1 if draw(st.booleans()) else size for size in batch)
    if draw(st.booleans()):
        batch, other = other, batch
    return SampleInput((draw(floats_array((*batch, m, k))), draw(floats_array((*other, k, n)))))


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
