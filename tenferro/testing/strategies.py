"""Hypothesis strategies for op samples: arrays inside a domain, away from kinks and poles.

Op plugins build their ``sample`` strategies from these. Every strategy draws
:class:`~tenferro.SampleInput` values in float64. "Away from a kink" means at least
``margin`` from it, which the finite-difference oracle relies on: its steps never exceed
:data:`FD_STEP` (< ``margin``/2) along a direction of max-norm 1.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tenferro.core.spec import SampleInput

#: Largest finite-difference step the oracle takes along a direction of max-norm 1.
FD_STEP = 1.0 / 32
#: Default distance kept from kinks, poles and ties.
MARGIN = 0.125

SHAPES = hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=4)


def _push_away(x: np.ndarray, avoid: Sequence[float], margin: float) -> np.ndarray:
    """Move every element closer than ``margin`` to a point of ``avoid`` out to distance
    ``margin`` (a deterministic map, so no example is rejected)."""
    x = np.array(x, dtype=np.float64)
    for point in avoid:
        near = np.abs(x - point) < margin
        x[near] = point + np.where(x[near] >= point, margin, -margin)
    return x


def floats_array(
    shape: st.SearchStrategy[tuple[int, ...]] | tuple[int, ...] = SHAPES,
    low: float = -3.0,
    high: float = 3.0,
    avoid: Sequence[float] = (),
    margin: float = MARGIN,
) -> st.SearchStrategy[np.ndarray]:
    """float64 arrays with elements in ``[low, high]``, at least ``margin`` from ``avoid``."""
    shapes = st.just(shape) if isinstance(shape, tuple) else shape
    elements = st.floats(low, high, allow_nan=False, allow_infinity=False)
    return shapes.flatmap(lambda s: hnp.arrays(np.float64, s, elements=elements)).map(
        lambda x: _push_away(x, avoid, margin)
    )


def unary(
    low: float = -3.0, high: float = 3.0, avoid: Sequence[float] = (), margin: float = MARGIN
) -> st.SearchStrategy[SampleInput]:
    """One array argument in a domain."""
    return floats_array(SHAPES, low, high, avoid, margin).map(lambda x: SampleInput((x,)))


def _maybe_scalar(x: np.ndarray, draw: Callable[[Any], Any], allowed: bool) -> Any:
    """With some probability, replace a 0-d or size-1 operand by a Python float."""
    if allowed and x.size == 1 and draw(st.booleans()):
        return float(x.reshape(()))
    return x


@st.composite
def broadcast_pair(
    draw: Callable[[Any], Any],
    a_range: tuple[float, float] = (-3.0, 3.0),
    b_range: tuple[float, float] = (-3.0, 3.0),
    b_avoid: Sequence[float] = (),
    scalars: bool = True,
) -> SampleInput:
    """Two arrays of mutually broadcastable shapes; either may be a Python float."""
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3))
    a = draw(floats_array(shapes.input_shapes[0], *a_range))
    b = draw(floats_array(shapes.input_shapes[1], *b_range, avoid=b_avoid))
    which = draw(st.sampled_from(["a", "b", "none"]))
    a = _maybe_scalar(a, draw, scalars and which == "a")
    b = _maybe_scalar(b, draw, scalars and which == "b")
    return SampleInput((a, b))


@st.composite
def separated_pair(draw: Callable[[Any], Any], scalars: bool = True) -> SampleInput:
    """Two broadcastable arrays whose elements differ by at least 0.2 everywhere (no ties),
    for ops with a kink where a == b (maximum, minimum)."""
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3))
    low_band, high_band = draw(st.permutations([(0.1, 0.4), (0.6, 0.9)]))

    def banded(shape: tuple[int, ...], band: tuple[float, float]) -> np.ndarray:
        whole = draw(hnp.arrays(np.int64, shape, elements=st.integers(-3, 2)))
        frac = draw(hnp.arrays(np.float64, shape, elements=st.floats(*band)))
        return np.asarray(whole + frac)

    a = banded(shapes.input_shapes[0], low_band)
    b = banded(shapes.input_shapes[1], high_band)
    which = draw(st.sampled_from(["a", "b", "none"]))
    return SampleInput(
        (_maybe_scalar(a, draw, scalars and which == "a"), _maybe_scalar(b, draw, scalars and which == "b"))
    )


@st.composite
def distinct_array(draw: Callable[[Any], Any], shape: tuple[int, ...], gap: float = 0.25) -> np.ndarray:
    """An array whose elements are pairwise at least ``gap`` apart (no ties anywhere)."""
    size = int(np.prod(shape, dtype=np.int64))
    order = np.array(draw(st.permutations(range(size))), dtype=np.float64)
    jitter = draw(hnp.arrays(np.float64, size, elements=st.floats(-gap / 4, gap / 4)))
    return ((order - size / 2) * gap * 1.5 + jitter).reshape(shape)


def axes_for(ndim: int) -> st.SearchStrategy[Any]:
    """A valid ``axes`` argument for an array of ``ndim`` dims: None, an int (possibly
    negative) or a tuple of distinct ints."""
    if ndim == 0:
        return st.sampled_from([None, ()])
    ints = st.integers(-ndim, ndim - 1)
    tuples = st.lists(st.integers(0, ndim - 1), unique=True, max_size=ndim).map(tuple)
    return st.one_of(st.none(), ints, tuples)


@st.composite
def reduction(
    draw: Callable[[Any], Any],
    low: float = -3.0,
    high: float = 3.0,
    avoid: Sequence[float] = (),
    distinct: bool = False,
) -> SampleInput:
    """An array and an ``axes`` argument for it."""
    shape = draw(SHAPES)
    x = draw(distinct_array(shape)) if distinct else draw(floats_array(shape, low, high, avoid))
    return SampleInput((x,), {"axes": draw(axes_for(len(shape)))})


@st.composite
def same_shape_arrays(draw: Callable[[Any], Any], count: int, low: float = -3.0, high: float = 3.0) -> SampleInput:
    """``count`` arrays of one shape."""
    shape = draw(SHAPES)
    return SampleInput(tuple(draw(floats_array(shape, low, high)) for _ in range(count)))
