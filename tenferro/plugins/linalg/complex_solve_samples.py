"""Complex sample strategies of the solves, the functions of a square matrix, least squares,
cholesky and the norms (imported only when samples are drawn: hypothesis is a test-only
dependency).

As :mod:`.samples` does for real matrices, every matrix is built from its factors:
U diag(d) Vᴴ with U, V unitary (Cayley transforms of a skew-Hermitian matrix) and |d| in
[1, 3] with random phases, so it is as well conditioned as the real samples; Hermitian
positive definite ones (cholesky) are Q diag(d) Qᴴ with d in [1, 3]. Where an op has two
operands, one of them may stay real (NumPy promotes it; its cotangent must come back real).
The norms get their real samples turned by random phases: the magnitudes, and so the gaps
that keep them away from ties, stay the same.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import strategies as st

from tenferro.extend import SampleInput
from tenferro.testing.strategies import floats_array

from . import samples
from .samples import BATCH, SIDES, Draw

#: How far from the identity unitary factors go (the solves: anywhere).
ANY = 1.0


def unitary(draw: Draw, batch: tuple[int, ...], n: int, spread: float = ANY) -> np.ndarray:
    """Unitary n×n matrices (I - K)(I + K)⁻¹ with K skew-Hermitian, |K| <= ``spread`` (I + K
    is always invertible: its eigenvalues are 1 + iλ, λ real)."""
    k = draw(floats_array((*batch, n, n), -spread, spread)) + 1j * draw(floats_array((*batch, n, n), -spread, spread))
    k = (k - np.conj(np.swapaxes(k, -1, -2))) / 2
    one = np.eye(n)
    return np.linalg.solve(np.swapaxes(one + k, -1, -2), np.swapaxes(one - k, -1, -2)).swapaxes(-1, -2)


def phases(draw: Draw, shape: tuple[int, ...]) -> np.ndarray:
    """exp(iφ) with φ in [-π, π]."""
    return np.exp(1j * draw(floats_array(shape, -np.pi, np.pi)))


def conditioned(draw: Draw, n: int, batch: tuple[int, ...] = (), kind: str = "general", m: int | None = None) -> Any:
    """A stack of well-conditioned complex matrices: U diag(d) Vᴴ with |d| in [1, 3] and random
    phases (``"general"``), Q diag(d) Qᴴ with d in [1, 3] (``"hpd"``: Hermitian positive
    definite), or an (m, n) matrix of full rank with singular values in [1, 3] (``"rect"``)."""
    rows = n if m is None else m
    k = min(rows, n)
    d = draw(floats_array((*batch, k), 1.0, 3.0))
    if kind == "general":
        d = d * phases(draw, (*batch, k))
    q = unitary(draw, batch, rows)[..., :k]
    r = q if kind == "hpd" else unitary(draw, batch, n)[..., :k]
    a = samples.from_factors(q, d, np.conj(r))
    return (a + np.conj(np.swapaxes(a, -1, -2))) / 2 if kind == "hpd" else a


def triangular(draw: Draw, batch: tuple[int, ...], n: int) -> np.ndarray:
    """Entries with parts in [-0.5, 0.5] and a diagonal of modulus in [1, 2], any phase."""
    r = draw(floats_array((*batch, n, n), -0.5, 0.5)) + 1j * draw(floats_array((*batch, n, n), -0.5, 0.5))
    d = draw(floats_array((*batch, n), 1.0, 2.0)) * phases(draw, (*batch, n))
    r[..., np.arange(n), np.arange(n)] = d
    return r


def _complexified(draw: Draw, x: np.ndarray) -> np.ndarray:
    return np.asarray(x + 1j * draw(floats_array(x.shape, -1.0, 1.0)))


def _mixed(draw: Draw, a: np.ndarray, real_a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Complex operands, or one of them real: (a, b made complex), (a, b) or (real_a, b made
    complex), where a is complex and real_a a real matrix as well conditioned."""
    which = draw(st.sampled_from(["both", "a", "b"]))
    return (real_a if which == "b" else a), (b if which == "a" else _complexified(draw, b))


# -- the solves ------------------------------------------------------------------------------------
@st.composite
def solve(draw: Draw) -> SampleInput:
    n, batch = draw(st.integers(1, 3)), draw(BATCH)
    a, b = _mixed(draw, conditioned(draw, n, batch), samples.conditioned(draw, n, batch), samples._rhs(draw, n, batch))
    return SampleInput((a, b))


@st.composite
def triangular_solve(draw: Draw) -> SampleInput:
    n, batch = draw(st.integers(1, 3)), draw(BATCH)
    params = {
        "lower": draw(st.booleans()),
        "trans": draw(st.sampled_from([0, 1, 2, "N", "T", "C"])),
        "unit_diagonal": draw(st.booleans()),
    }
    real = samples.triangular(draw, batch, n, signed=True)
    a, b = _mixed(draw, triangular(draw, batch, n), real, samples._rhs(draw, n, batch))
    return SampleInput((a, b), params)


@st.composite
def square(draw: Draw) -> SampleInput:
    return SampleInput((conditioned(draw, draw(st.integers(1, 3)), draw(BATCH)),))


@st.composite
def matrix_power(draw: Draw) -> SampleInput:
    return SampleInput(draw(square()).args, {"n": draw(st.integers(-3, 3))})


@st.composite
def cholesky(draw: Draw) -> SampleInput:
    n, batch = draw(st.integers(1, 3)), draw(BATCH)
    return SampleInput((conditioned(draw, n, batch, kind="hpd"),), {"upper": draw(st.booleans())})


@st.composite
def rect(draw: Draw) -> SampleInput:
    m, n, batch = draw(SIDES), draw(SIDES), draw(BATCH)
    return SampleInput((conditioned(draw, n, batch, kind="rect", m=m),))


@st.composite
def lstsq(draw: Draw) -> SampleInput:
    real = draw(samples.lstsq())
    real_a, b = real.args
    m, n = real_a.shape[-2:]
    a, b = _mixed(draw, conditioned(draw, n, real_a.shape[:-2], kind="rect", m=m), real_a, b)
    return SampleInput((a, b))


# -- norms and cross: the real samples, turned --------------------------------------------------------
@st.composite
def turned(draw: Draw, name: str) -> SampleInput:
    """The real sample of ``name`` with each entry of its (one) array times a random phase."""
    sample = draw(getattr(samples, name)())
    (x,) = sample.args
    return SampleInput((np.asarray(x * phases(draw, x.shape)),), sample.params)


@st.composite
def vector_norm(draw: Draw) -> SampleInput:
    return draw(turned("vector_norm"))


@st.composite
def matrix_norm(draw: Draw) -> SampleInput:
    """The real samples, turned; for the ords that go through svd ("nuc", 2, -2) a complex
    matrix with singular values at least 0.5 apart instead (turning the entries of the real
    one moves its singular values, maybe close to a tie of 2 or -2)."""
    sample = draw(turned("matrix_norm"))
    if sample.params.get("ord", "fro") in ("nuc", 2, -2):
        (x,) = sample.args
        a = samples._separated(draw, x.shape[:-2], *x.shape[-2:], complex_=True)
        return SampleInput((a,), sample.params)
    return sample


@st.composite
def cross_pair(draw: Draw) -> SampleInput:
    sample = draw(samples.cross_pair())
    real_a, b = sample.args
    a, b = _mixed(draw, _complexified(draw, real_a), real_a, b)
    return SampleInput((a, b), sample.params)
