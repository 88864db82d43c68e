"""The index family's kernels on an engine's chunked arrays (dask's), which have no
``ufunc.at``, no ``take_along_axis`` and no sort, and whose values may not be read in this
process (a gather).

Two ways, chosen by layout:

- **Per lane** (``take_along_axis``, its scatter-add, ``sort``/``argsort``): the axis read
  along is made one chunk (``rechunk``), and NumPy's own kernel runs on each block
  (``map_blocks``). Lanes are independent, so the result is bitwise NumPy's.
- **Flat positions** (``take``, ``gather``, their scatter-add, ``scatter``'s ``add``): the
  indexed axes are merged into one, and each index becomes a position along it
  (``i0 · n1 + i1``...), read with dask's own fancy indexing by a dask integer array; the
  adjoint adds the updates at those positions with ``bincount`` (dask's, by chunks, then
  summed across chunks: repeated positions in different chunks add in another order than
  ``np.add.at``, within the documented summation bound; float32 and complex values are
  added in float64 and cast back).

Indices are values on the cluster too, so their range is checked where each block is
computed (``in_range`` on a chunked array): an index out of range is an
:class:`~.positions.IndexOutOfRange` raised when the result is read, not at the call. The
arrays are used through dask's methods (``rechunk``, ``map_blocks``) and NumPy's
protocols, so this module imports no dask.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from tenferro.extend import broadcast, is_chunked, reshaped

from .positions import in_range


def aligned_with(value: Any, like: Any) -> Any:
    """``value`` as an array of ``like``'s kind (a NumPy index made a dask array)."""
    return value if is_chunked(value) else np.asarray(value, like=like)


# -- per lane --------------------------------------------------------------------------------
def lanes(x: Any, axis: int, per_lane: Callable[..., Any], dtype: Any, *others: Any) -> Any:
    """``per_lane(block, *other_blocks)`` on blocks holding whole lanes along ``axis``:
    ``x`` and every array of ``others`` (of x's shape but along ``axis``) rechunked so that
    ``axis`` is one chunk and the other axes match ``x``'s. The result's chunks are those
    of the last array (the one whose shape it has)."""
    whole = x.rechunk({axis: -1})
    aligned = [o.rechunk(whole.chunks[:axis] + (-1,) + whole.chunks[axis + 1 :]) for o in others]
    shaped = aligned[-1] if aligned else whole
    return whole.map_blocks(per_lane, *aligned, dtype=dtype, chunks=shaped.chunks)


def read_along(x: Any, indices: Any, axis: int, op: str) -> Any:
    """``take_along_axis`` per lane (each block's indices checked there)."""

    def block(xb: np.ndarray, ib: np.ndarray) -> np.ndarray:
        return np.take_along_axis(xb, in_range(ib, xb.shape[axis], axis, op), axis=axis)

    return lanes(x, axis, block, x.dtype, aligned_with(indices, x))


def scatter_along(updates: Any, indices: Any, shape: tuple[int, ...], axis: int, op: str) -> Any:
    """Zeros of ``shape`` with ``updates`` (of the indices' shape) added along ``axis`` per
    lane: NumPy's ``np.add.at`` on each block."""
    length = shape[axis]

    def block(ub: np.ndarray, ib: np.ndarray) -> np.ndarray:
        out = np.zeros(ub.shape[:axis] + (length,) + ub.shape[axis + 1 :], ub.dtype)
        lead = np.indices(ib.shape, sparse=True)
        np.add.at(out, (*lead[:axis], in_range(ib, length, axis, op), *lead[axis + 1 :]), ub)
        return out

    indices = aligned_with(indices, updates).rechunk({axis: -1})
    whole = updates.rechunk(indices.chunks)
    chunks = whole.chunks[:axis] + ((length,),) + whole.chunks[axis + 1 :]
    return whole.map_blocks(block, indices, dtype=updates.dtype, chunks=chunks)


# -- flat positions --------------------------------------------------------------------------
def _merged(shape: tuple[int, ...], where: tuple[Any, ...]) -> tuple[int, int, Any]:
    """For an index tuple of ``a`` slices then ``m`` integer arrays (non-negative, as
    ``index_tuple`` gives): ``a``, ``m`` and each picked element's position along the
    merged axes ``a .. a+m-1`` (the arrays broadcast together)."""
    lead = sum(1 for w in where if isinstance(w, slice))
    arrays = where[lead:]
    position = arrays[0]
    for i, array in enumerate(arrays[1:], start=lead + 1):
        position = np.add(np.multiply(position, shape[i]), array)
    return lead, len(arrays), position


def read_flat(x: Any, where: tuple[Any, ...]) -> Any:
    """``x[where]`` (NumPy's meaning) by dask's fancy indexing along the merged axes."""
    shape = tuple(x.shape)
    lead, m, position = _merged(shape, where)
    merged = reshaped(x, shape[:lead] + (math.prod(shape[lead : lead + m]),) + shape[lead + m :])
    out = merged[(slice(None),) * lead + (reshaped(aligned_with(position, x), (math.prod(position.shape),)),)]
    return reshaped(out, shape[:lead] + tuple(position.shape) + shape[lead + m :])


def scatter_flat(shape: tuple[int, ...], where: tuple[Any, ...], updates: Any) -> Any:
    """Zeros of ``shape`` with ``updates`` (of ``x[where]``'s shape) added at ``where``, by
    ``bincount`` over each update's position in the result flattened."""
    lead, m, position = _merged(shape, where)
    position = aligned_with(position, updates)
    front, back = shape[:lead], shape[lead + m :]
    size = math.prod(shape[lead : lead + m])
    before = np.reshape(np.arange(math.prod(front), like=updates), front + (1,) * (position.ndim + len(back)))
    after = np.reshape(np.arange(math.prod(back), like=updates), (1,) * (lead + position.ndim) + back)
    middle = np.reshape(position, (1,) * lead + tuple(position.shape) + (1,) * len(back))
    flat = np.add(np.multiply(np.add(np.multiply(before, size), middle), math.prod(back)), after)
    updates = broadcast(updates, front + tuple(position.shape) + back)  # a 0-d update too
    flat = reshaped(np.broadcast_to(flat, updates.shape).rechunk(updates.chunks), (updates.size,))
    weights = reshaped(updates, (updates.size,))
    total = math.prod(shape)
    if updates.dtype.kind == "c":
        summed = np.bincount(flat, np.real(weights), total) + 1j * np.bincount(flat, np.imag(weights), total)
    else:
        summed = np.bincount(flat, weights, total)
    return reshaped(summed.astype(updates.dtype), shape)
