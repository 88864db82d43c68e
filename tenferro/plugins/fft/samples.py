"""Hypothesis sample strategies of the fft ops (imported only when samples are drawn:
hypothesis is a test-only dependency).

Transform lengths are drawn below, at and above the input's length along each axis (the
kernels then truncate or zero-pad), with every ``norm``; the real-output transforms
(irfft, hfft, irfftn) get an explicit length where the default 2·(m − 1) would be 0.
The float samples are the complex checks' too: the suite adds an imaginary part to each
input that accepts complex, which for irfft and hfft is an arbitrary half spectrum (the
imaginary parts of its DC and Nyquist bins are ignored, and their cotangents are zero).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tenferro.extend import SampleInput
from tenferro.testing.strategies import floats_array

from .plans import NORMS

Draw = Callable[[Any], Any]
SHAPES = hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5)
LENGTHS = st.integers(1, 8)


@st.composite
def transform_1d(draw: Draw, real_output: bool = False) -> SampleInput:
    x = draw(floats_array(SHAPES))
    axis = draw(st.integers(-x.ndim, x.ndim - 1))
    n = draw(st.none() | LENGTHS)
    if n is None and real_output and x.shape[axis] == 1:
        n = draw(LENGTHS)
    return SampleInput((x,), {"n": n, "axis": axis, "norm": draw(st.sampled_from(NORMS))})


@st.composite
def transform_nd(draw: Draw, real_output: bool = False) -> SampleInput:
    x = draw(floats_array(SHAPES))
    norm = draw(st.sampled_from(NORMS))
    if draw(st.booleans()):  # all axes, their own lengths
        if real_output and x.shape[-1] == 1:
            s = (-1,) * (x.ndim - 1) + (draw(LENGTHS),)  # (s without axes is deprecated in NumPy 2)
            return SampleInput((x,), {"s": s, "axes": tuple(range(x.ndim)), "norm": norm})
        return SampleInput((x,), {"s": None, "axes": None, "norm": norm})
    count = draw(st.integers(1, x.ndim))
    axes = draw(st.lists(st.integers(0, x.ndim - 1), min_size=count, max_size=count, unique=True))
    axes = tuple(a - x.ndim if draw(st.booleans()) else a for a in axes)
    if draw(st.booleans()) and not (real_output and x.shape[axes[-1]] == 1):
        return SampleInput((x,), {"s": None, "axes": axes, "norm": norm})
    s = tuple(draw(st.sampled_from((-1, 1, 2, 3, 4, 5, 6))) for _ in axes)
    if s[-1] == -1 and x.shape[axes[-1]] == 1 and real_output:
        s = (*s[:-1], draw(LENGTHS))
    return SampleInput((x,), {"s": s, "axes": axes, "norm": norm})


@st.composite
def shift(draw: Draw) -> SampleInput:
    x = draw(floats_array(SHAPES))
    choice = draw(st.integers(0, 2))
    if choice == 0:
        return SampleInput((x,), {"axes": None})
    if choice == 1:
        return SampleInput((x,), {"axes": draw(st.integers(-x.ndim, x.ndim - 1))})
    axes = draw(st.lists(st.integers(-x.ndim, x.ndim - 1), min_size=1, max_size=3))  # repeats shift twice
    return SampleInput((x,), {"axes": tuple(axes)})


@st.composite
def resize(draw: Draw) -> SampleInput:
    x = draw(floats_array(SHAPES))
    shape = tuple(draw(st.integers(1, 6)) for _ in x.shape)
    return SampleInput((x,), {"shape": shape})
