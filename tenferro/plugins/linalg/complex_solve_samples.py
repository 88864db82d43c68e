"""Complex sample strategies of the solves, least squares, the norms and cross, where they are
more than :mod:`.samples`' own with ``complex_=True`` (imported only when samples are
drawn: hypothesis is a test-only dependency).

Matrices are built from their factors by :func:`.samples.conditioned`: U diag(d) Vᴴ with U,
V unitary and |d| in [1, 3] with random phases. Where an op has two
operands, one of them may stay real (NumPy promotes it; its cotangent must come back real).
The norms get their real samples turned by random phases: the magnitudes, and so the gaps
that keep them away from ties, stay the same.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from tenferro.extend import SampleInput
from tenferro.testing.strategies import floats_array

from . import samples
from .samples import BATCH, Draw


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
    a, b = _mixed(
        draw,
        samples.conditioned(draw, n, batch, complex_=True),
        samples.conditioned(draw, n, batch),
        samples._rhs(draw, n, batch),
    )
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
    a, b = _mixed(draw, samples.triangular(draw, batch, n, complex_=True), real, samples._rhs(draw, n, batch))
    return SampleInput((a, b), params)


@st.composite
def lstsq(draw: Draw) -> SampleInput:
    real = draw(samples.lstsq())
    real_a, b = real.args
    m, n = real_a.shape[-2:]
    a, b = _mixed(draw, samples.conditioned(draw, n, real_a.shape[:-2], kind="rect", m=m, complex_=True), real_a, b)
    return SampleInput((a, b))


# -- norms and cross: the real samples, turned --------------------------------------------------------
@st.composite
def turned(draw: Draw, name: str) -> SampleInput:
    """The real sample of ``name`` with each entry of its (one) array times a random phase."""
    sample = draw(getattr(samples, name)())
    (x,) = sample.args
    return SampleInput((np.asarray(x * samples.phases(draw, x.shape)),), sample.params)


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
