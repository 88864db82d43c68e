"""What a kernel needs to run on an engine's chunked arrays (dask's) as well as on NumPy's.

An engine that is not native hands kernels its own arrays, which answer NumPy's functions
and ufuncs (NEP 13/18) but are split into chunks: an operation along an axis may need that
axis whole in one chunk (a gufunc's core axis, an FFT, a sort), and dask reshapes only
where axes merge or split evenly. These helpers do nothing to a NumPy array, so a kernel
calls them unconditionally. They use the array's own ``rechunk`` (dask's method), so this
module imports no dask. Plugins reach them through :mod:`tenferro.extend`.

What dask's arrays lack of NumPy's protocols is asked of them in their own terms here
(``np.sum`` for ``np.add.reduce``, the ``astype`` method for ``np.astype``), so that no
engine needs to teach dask anything process-wide.
"""

from __future__ import annotations

import contextvars
import math
from typing import Any

import numpy as np

#: The engine whose kernel runs now (set by an engine around each kernel call), or None:
#: :func:`broadcast` asks it how to chunk the axes a broadcast makes.
RUNNING: contextvars.ContextVar[Any] = contextvars.ContextVar("tenferro_running_engine", default=None)

#: A ufunc's reduction and scan as the NumPy functions engines implement (dask answers
#: ``np.sum`` but not ``np.add.reduce``).
_REDUCTIONS = {np.add: np.sum, np.multiply: np.prod, np.maximum: np.max, np.minimum: np.min}
_REDUCTIONS |= {np.logical_and: np.all, np.logical_or: np.any}
_SCANS = {np.add: np.cumsum, np.multiply: np.cumprod}


def is_chunked(*values: Any) -> bool:
    """Whether any of ``values`` is an engine's chunked array (one with ``rechunk``)."""
    return any(type(v) is not np.ndarray and hasattr(v, "rechunk") for v in values)


def reduced(ufunc: np.ufunc, x: Any, axis: Any = 0, keepdims: bool = False, **kwargs: Any) -> Any:
    """``ufunc.reduce(x, axis, keepdims=keepdims, dtype=..., initial=...)``: the ufunc's own
    method on NumPy's arrays (2-3 µs cheaper than ``np.sum``), the reduction's NumPy function
    on a chunked one; ``initial`` (max and min) is applied after it, as dask's take none."""
    if type(x) is np.ndarray or not is_chunked(x):  # (the first test alone on the hot path)
        return ufunc.reduce(x, axis=axis, keepdims=keepdims, **kwargs)
    initial = kwargs.pop("initial", None)
    out = _REDUCTIONS[ufunc](x, axis=axis, keepdims=keepdims, **kwargs)
    return out if initial is None else ufunc(out, initial)


def accumulated(ufunc: np.ufunc, x: Any, axis: int) -> Any:
    """``ufunc.accumulate(x, axis)`` (add or multiply): ``np.cumsum``/``np.cumprod`` on a
    chunked array."""
    return _SCANS[ufunc](x, axis=axis) if is_chunked(x) else ufunc.accumulate(x, axis=axis)


def cast(x: Any, dtype: Any) -> Any:
    """``np.astype(x, dtype)``, which dask does not implement (it would gather): a chunked
    array's own ``astype`` method."""
    return np.astype(x, dtype) if type(x) is np.ndarray or not is_chunked(x) else x.astype(dtype)


def broadcast(x: Any, shape: tuple[int, ...]) -> Any:
    """``np.broadcast_to(x, shape)``; on a chunked array in a kernel of an engine that says
    how (its ``broadcast_to``), the axes the broadcast makes are chunked as that engine
    chunks a new array, where dask would make each one chunk (a sum's cotangent of N
    elements in one chunk, split and sent between workers)."""
    engine = None if type(x) is np.ndarray or not is_chunked(x) else RUNNING.get()
    if engine is None or not hasattr(engine, "broadcast_to"):
        return np.broadcast_to(x, shape)
    return engine.broadcast_to(x, tuple(shape))


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
