"""Where an index tensor points: the three index layouts of the family, their checks, and
the NumPy index tuple each one stands for.

A layout says how an integer tensor ``indices`` picks elements of an array ``x`` around
an ``axis``:

- ``"take"`` (``take``): every element of ``indices`` is a position along ``axis``; the
  picked values have shape ``x.shape[:axis] + indices.shape + x.shape[axis + 1:]``. With
  ``axis=None`` the positions are into ``x`` flattened (C order) and the shape is
  ``indices.shape``.
- ``"along"`` (``take_along_axis``, PyTorch's ``gather``): ``indices`` has ``x``'s rank and
  its shape except along ``axis``; element ``i`` of the result is ``x`` at ``i`` with the
  ``axis`` coordinate replaced by ``indices[i]``. The shape is ``indices.shape``.
- ``"nd"`` (``gather``, ``scatter``): the last dimension of ``indices``, of size ``k``,
  holds coordinates along axes ``axis .. axis + k - 1``: NumPy's
  ``x[:, ..., :, indices[..., 0], ..., indices[..., k - 1]]`` with ``axis`` slices first.
  The shape is ``x.shape[:axis] + indices.shape[:-1] + x.shape[axis + k:]``.

Negative positions count from the end, as in NumPy (-1 is the last); any position outside
``[-n, n)`` is an :class:`IndexOutOfRange` naming the op, the argument, the position, the
axis and its length. Nothing wraps around and nothing is clipped.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tenferro.extend import ArgumentError, AxisError, ShapeMismatch, normalize_axes

LAYOUTS = ("take", "along", "nd")


class IndexOutOfRange(ArgumentError, IndexError):
    """An index tensor holds a position outside the axis it indexes (also an IndexError,
    as NumPy's own)."""


def check_layout(layout: Any, op: str) -> str:
    if layout not in LAYOUTS:
        raise ArgumentError(f"{op}: layout must be one of {', '.join(map(repr, LAYOUTS))}, got {layout!r}")
    return layout


def one_axis(axis: Any, ndim: int, op: str) -> int:
    """``axis`` (an int, possibly negative) as a non-negative axis of an array of ``ndim`` dims."""
    if axis is None or isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise AxisError(f"{op}: axis must be an int, got {axis!r}")
    return normalize_axes(axis, ndim, op)[0]


def in_range(indices: Any, length: int, axis: int | None, op: str, arg: str = "indices") -> Any:
    """``indices`` with negative positions counted from the end, after checking that every
    one lies in ``[-length, length)``."""
    if type(indices) is not np.ndarray and hasattr(indices, "map_blocks"):
        # an engine's chunked array (dask's): each block is checked where it is computed, so
        # an index out of range raises when the result is read (reading it here would gather)
        return indices.map_blocks(in_range, length, axis, op, arg, dtype=indices.dtype)
    if 0 in np.shape(indices):
        return indices
    if type(indices) is np.ndarray:  # the method skips np.min's dispatch (2.8 -> 1.3 µs each)
        low, high = int(indices.min()), int(indices.max())
    else:  # another engine's array: NumPy's function dispatches to it
        low, high = int(np.min(indices)), int(np.max(indices))
    if high >= length or low < -length:
        bad = high if high >= length else low
        where = "x flattened" if axis is None else f"axis {axis}"
        raise IndexOutOfRange(
            f"{op}: argument {arg!r} holds the index {bad}, out of range for {where} of length {length} "
            f"(valid: {-length}..{length - 1}; negative indices count from the end)"
        )
    if low >= 0:
        return indices
    return np.where(np.less(indices, 0), np.add(indices, length), indices)


def picked_shape(shape: tuple[int, ...], indices_shape: tuple[int, ...], axis: Any, layout: str) -> tuple[int, ...]:
    """The shape of the values that ``indices`` picks from an array of ``shape``
    (axis already normalized, shapes already checked)."""
    if layout == "take":
        return tuple(indices_shape) if axis is None else shape[:axis] + tuple(indices_shape) + shape[axis + 1 :]
    if layout == "along":
        return tuple(indices_shape)
    k = indices_shape[-1]
    return shape[:axis] + tuple(indices_shape[:-1]) + shape[axis + k :]


def normalize(shape: tuple[int, ...], indices_shape: tuple[int, ...], axis: Any, layout: str, op: str) -> Any:
    """``axis`` normalized for ``layout`` (None stays None for ``take``), after checking that
    ``indices`` of ``indices_shape`` fits an array of ``shape`` in that layout."""
    ndim = len(shape)
    if layout == "take" and axis is None:
        return None
    axis = one_axis(axis, ndim, op)
    if layout == "along":
        if len(indices_shape) != ndim or any(n != m for d, (n, m) in enumerate(zip(shape, indices_shape)) if d != axis):
            raise ShapeMismatch(
                f"{op}: indices of shape {list(indices_shape)} do not fit x of shape {list(shape)} along axis "
                f"{axis}: they need x's rank and its sizes in every other axis"
            )
    elif layout == "nd":
        k = indices_shape[-1] if indices_shape else 0
        if not 1 <= k <= ndim - axis:
            raise ShapeMismatch(
                f"{op}: indices of shape {list(indices_shape)} hold coordinates in their last axis, of "
                f"{k}; x of shape {list(shape)} has {ndim - axis} axes from axis {axis} on, so that size "
                f"must be 1..{ndim - axis}"
            )
    return axis


def index_tuple(shape: tuple[int, ...], indices: Any, axis: Any, layout: str, op: str) -> tuple[Any, ...]:
    """The NumPy index (a tuple of slices and integer arrays) of the elements ``indices``
    picks from an array of ``shape`` (flattened for ``take`` with ``axis=None``), every
    position checked and made non-negative. ``axis`` is normalized already."""
    if layout == "take":
        if axis is None:
            return (in_range(indices, int(np.prod(shape, dtype=np.int64)), None, op),)
        return (slice(None),) * axis + (in_range(indices, shape[axis], axis, op),)
    if layout == "along":
        where = []
        for d, n in enumerate(shape):
            if d == axis:
                where.append(in_range(indices, n, axis, op))
            else:
                where.append(np.reshape(np.arange(n, like=indices), (1,) * d + (n,) + (1,) * (len(shape) - d - 1)))
        return tuple(where)
    k = np.shape(indices)[-1]
    columns = tuple(in_range(indices[..., i], shape[axis + i], axis + i, op) for i in range(k))
    return (slice(None),) * axis + columns
