"""The index family's batching rules (``tf.vmap``; the rule form is ``tenferro.batching``'s).

A batch of indices is what ``tf.vmap`` over labels gives (``logp[y]`` with ``y`` mapped):
each example picks with its own indices. ``take`` of a batched x by batched indices is one
``gather`` of (example, index) pairs, a batched ``gather`` one whose coordinates start
with the example, and their adjoint ``scatter_add_to`` the scatter of those coordinates;
an index unbatched leaves the batch axis out of the picking.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tenferro.extend import batching

from .positions import picked_shape


def _axis(axis: Any, ndim: int) -> int | None:
    if isinstance(axis, bool) or not isinstance(axis, int) or not -ndim <= axis < ndim:
        return None
    return axis % ndim


def _pairs(s: Any, indices: Any, coordinates: bool = False) -> Any:
    """Batched indices with their examples' numbers first: the coordinates (example,
    index) of a ``gather`` (or its scatter) over the batch axis and the picked axis together
    (``coordinates``: the indices hold gather's coordinates in their last axis already)."""
    shape = indices.shape[:-1] if coordinates else indices.shape
    numbers = np.arange(shape[0], dtype=indices.dtype).reshape((shape[0],) + (1,) * (len(shape) - 1))
    examples = indices.runtime.constant_from(np.broadcast_to(numbers, shape).copy())
    if coordinates:
        return s.concat([s.expand_dims(examples, -1), indices], axis=-1)
    return s.stack([examples, indices], axis=-1)


def _moved(s: Any, x: Any, source: range, destination: range) -> Any:
    return x if source == destination else s.moveaxis(x, tuple(source), tuple(destination))


def take(s: Any, call: Callable[..., Any], args: Sequence[Any], batched: Sequence[bool], axis: Any) -> Any:
    """take of a batch along ``axis`` (None: of x flattened)."""
    (x, indices), (batched_x, batched_i) = args, batched
    if axis is None:
        x = s.reshape(x, (x.shape[0], -1) if batched_x else (-1,))
        axis = 0
    axis = _axis(axis, x.ndim - 1 if batched_x else x.ndim)
    if axis is None:
        return None
    if not batched_i:
        return call(x, indices, axis=axis + 1)
    if not batched_x:  # the indices' batch axis lands where the picked axis was
        return _moved(s, call(x, indices, axis=axis), range(axis, axis + 1), range(1))
    picked = indices.ndim - 1
    out = s.gather(_moved(s, x, range(axis + 1, axis + 2), range(1, 2)), _pairs(s, indices), axis=0)
    # (batch, picked..., x's other axes): the picked axes go where the axis was
    return _moved(s, out, range(1, picked + 1), range(axis + 1, axis + picked + 1))


def gather(s: Any, call: Callable[..., Any], args: Sequence[Any], batched: Sequence[bool], axis: Any) -> Any:
    """gather of a batch: the batch axis moved to ``axis``, where each example's
    coordinates gain its number first (unbatched indices: the axis past the batch axis)."""
    (x, indices), (batched_x, batched_i) = args, batched
    axis = _axis(axis, x.ndim - 1 if batched_x else x.ndim)
    if axis is None:
        return None
    if not batched_i:
        return call(x, indices, axis=axis + 1)
    if batched_x:
        x = _moved(s, x, range(1), range(axis, axis + 1))
    else:  # every example picks from the same x: x given the batch at ``axis``
        x = s.broadcast_to(s.expand_dims(x, axis), (*x.shape[:axis], indices.shape[0], *x.shape[axis:]))
    return _moved(s, call(x, _pairs(s, indices, coordinates=True), axis=axis), range(axis, axis + 1), range(1))


def take_along_axis(s: Any, call: Callable[..., Any], args: Sequence[Any], batched: Sequence[bool], axis: Any) -> Any:
    """take_along_axis of a batch: both given the batch axis, ``axis`` moved past it."""
    size = next(a.shape[0] for a, flag in zip(args, batched) if flag)
    x, indices = (a if flag else s.broadcast_to(a, (size, *a.shape)) for a, flag in zip(args, batched))
    axis = _axis(axis, x.ndim - 1)
    return None if axis is None else call(x, indices, axis=axis + 1)


def scatter_add_to(
    s: Any, call: Callable[..., Any], args: Sequence[Any], batched: Sequence[bool], shape: Any, axis: Any, layout: str
) -> Any:
    """scatter_add_to of a batch (the readers' adjoint): ``updates`` given the batch's full
    shape, then each layout as its reader's rule (x flattened, ``axis`` None, declines)."""
    (updates, indices), (batched_u, batched_i) = args, batched
    size = (updates if batched_u else indices).shape[0]
    shape = tuple(shape)
    axis = _axis(axis, len(shape))
    if axis is None:
        return None
    picked = picked_shape(shape, indices.shape[1:] if batched_i else indices.shape, axis, layout)
    updates = batching.aligned(s, updates, len(picked)) if batched_u else updates
    if updates.shape != (size, *picked):
        updates = s.broadcast_to(updates, (size, *picked))
    if layout == "along" or not batched_i:
        if layout == "along" and not batched_i:
            indices = s.broadcast_to(indices, (size, *indices.shape))
        return call(updates, indices, shape=(size, *shape), axis=axis + 1)
    if layout == "nd":  # gather's adjoint: the batch axis at ``axis``, in every example's coordinates
        moved = _moved(s, updates, range(1), range(axis, axis + 1))
        whole = (*shape[:axis], size, *shape[axis:])
        out = call(moved, _pairs(s, indices, coordinates=True), shape=whole, axis=axis, layout="nd")
        return _moved(s, out, range(axis, axis + 1), range(1))
    count = indices.ndim - 1
    moved = _moved(s, updates, range(axis + 1, axis + count + 1), range(1, count + 1))
    whole = (size, shape[axis], *shape[:axis], *shape[axis + 1 :])
    out = call(moved, _pairs(s, indices), shape=whole, axis=0, layout="nd")
    return _moved(s, out, range(1, 2), range(axis + 1, axis + 2))


def scatter(
    s: Any, call: Callable[..., Any], args: Sequence[Any], batched: Sequence[bool], axis: Any, mode: str = "set"
) -> Any:
    """scatter of a batch (``x.at[indices]`` updates; coordinates in the indices' last axis,
    as gather's): x and the updates given the batch, at ``axis`` for a batch of indices,
    whose coordinates start with the example (past the batch axis for unbatched ones)."""
    (x, indices, updates), (batched_x, batched_i, batched_u) = args, batched
    size = next(a.shape[0] for a, flag in zip(args, batched) if flag)
    ndim = x.ndim - 1 if batched_x else x.ndim
    axis = _axis(axis, ndim)
    if axis is None:
        return None
    per_example_x = x.shape[1:] if batched_x else x.shape
    coordinates = indices.shape[1:] if batched_i else indices.shape
    picked = per_example_x[:axis] + coordinates[:-1] + per_example_x[axis + coordinates[-1] :]
    x = x if batched_x else s.broadcast_to(x, (size, *x.shape))
    if hasattr(updates, "shape"):  # (a Python number broadcasts to any batch as it is)
        updates = batching.aligned(s, updates, len(picked)) if batched_u else updates
        if updates.shape != (size, *picked):
            updates = s.broadcast_to(updates, (size, *picked))
    if not batched_i:
        return call(x, indices, updates, axis=axis + 1, mode=mode)
    moved_x = _moved(s, x, range(1), range(axis, axis + 1))
    moved_u = _moved(s, updates, range(1), range(axis, axis + 1)) if hasattr(updates, "shape") else updates
    out = call(moved_x, _pairs(s, indices, coordinates=True), moved_u, axis=axis, mode=mode)
    return _moved(s, out, range(axis, axis + 1), range(1))
