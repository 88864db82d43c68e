"""What a kernel needs to run on an engine's chunked arrays (dask's) as well as on NumPy's.

An engine that is not native hands kernels its own arrays, which answer NumPy's functions
and ufuncs (NEP 13/18) but are split into chunks: an operation along an axis may need that
axis whole in one chunk (a gufunc's core axis, an FFT, a sort), and dask reshapes only
where axes merge or split evenly. These helpers do nothing to a NumPy array, so a kernel
calls them unconditionally. They use the array's own ``rechunk`` (dask's method), so this
module imports no dask. Plugins reach them through :mod:`tenferro.extend`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def is_chunked(*values: Any) -> bool:
    """Whether any of ``values`` is an engine's chunked array (one with ``rechunk``)."""
    return any(type(v) is not np.ndarray and hasattr(v, "rechunk") for v in values)


def whole(x: Any, axes: Any) -> Any:
    """``x`` with each of ``axes`` (ints, negative ones from the end) in one chunk; ``x``
    itself when it is not chunked."""
    if not is_chunked(x):
        return x
    return x.rechunk({axis % x.ndim: -1 for axis in ((axes,) if isinstance(axes, int) else axes)})


def reshaped(x: Any, shape: tuple[int, ...]) -> Any:
    """``np.reshape(x, shape)`` (``shape`` without -1); for a chunked array that dask cannot
    reshape as it is chunked, after making whole every axis before the trailing ones both
    shapes share (the values are NumPy's: a reshape moves none), and for one without
    elements, zeros of that shape."""
    if not is_chunked(x):
        return np.reshape(x, shape)
    if math.prod(shape) == 0:
        return np.zeros_like(x, shape=shape)
    try:
        return np.reshape(x, shape)
    except NotImplementedError:  # dask's "merge or split existing dimensions evenly" only
        kept = 0
        while kept < min(x.ndim, len(shape)) and x.shape[x.ndim - 1 - kept] == shape[len(shape) - 1 - kept]:
            kept += 1
        return np.reshape(whole(x, tuple(range(x.ndim - kept))), shape)


def copied(x: Any) -> Any:
    """A copy of ``x`` of its own (to write into, or to return for a view): ``np.copy`` of a
    NumPy array; a chunked array is immutable (dask's), so its ``copy()`` is a new array on
    the same graph."""
    return x.copy() if is_chunked(x) else np.copy(x)


def checked(x: Any, check: Any) -> Any:
    """``x`` after ``check(values)``, a test that raises to refuse them (a value outside an
    op's domain): run now on a NumPy array; on a chunked one, whose values may not be read
    here, on each block where it is computed, so that reading the result raises."""
    if not is_chunked(x):
        check(x)
        return x
    return x.map_blocks(_checked_block, check, dtype=x.dtype)


def _checked_block(block: np.ndarray, check: Any) -> np.ndarray:
    check(block)
    return block
