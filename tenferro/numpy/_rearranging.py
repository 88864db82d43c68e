"""NumPy's functions that pick, place or reorder elements (``diag``, ``trace``,
``rot90``, ``delete``, ``insert``, ``resize``, ``trim_zeros``...): the positions are
worked out by NumPy on index arrays or on the values (they have no derivative), the
elements moved by ``take``, ``concat``, ``pad`` and slices, so the result differentiates."""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from .. import numpy as tnp
from ..core.eager import EagerTensor
from ..core.errors import ArgumentError
from ._aliases import no_out, ravel
from ._composed import numpy_name, values
from ._dispatch import call

__all__ = [
    "diag",
    "diagflat",
    "diagonal",
    "ediff1d",
    "delete",
    "fliplr",
    "flipud",
    "insert",
    "pad",
    "resize",
    "rot90",
    "trace",
    "trim_zeros",
]


def _array(a: Any) -> EagerTensor:
    return a if type(a) is EagerTensor else tnp.asarray(a)


@numpy_name
def diagonal(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> EagerTensor:
    """The `offset` diagonal of the axes (axis1, axis2), as a last axis (NumPy's form;
    ``tnp.linalg.diagonal`` is the array API's, on the last two axes)."""
    return call("tnp.diagonal", "diagonal", a, offset, axis1, axis2)


@numpy_name
def trace(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype: Any = None, out: Any = None) -> EagerTensor:
    """The sum of the `offset` diagonal of the axes (axis1, axis2)."""
    no_out(out)
    return tnp.sum(diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype)


@numpy_name
def diag(v: Any, k: int = 0) -> EagerTensor:
    """The k-th diagonal of a 2-d ``v``; or a 2-d array with the 1-d ``v`` on its k-th
    diagonal and zeros elsewhere (the einsum embedding ``i->ii``, padded by |k|)."""
    x = _array(v)
    k = operator.index(k)
    if x.ndim == 2:
        return diagonal(x, k)
    if x.ndim != 1:
        raise ArgumentError(f"argument 'v' has {x.ndim} dims; diag takes a 1-d or a 2-d array")
    square = tnp.einsum("i->ii", x)
    if k == 0:
        return square
    width = ((0, k), (k, 0)) if k > 0 else ((-k, 0), (0, -k))
    return square.runtime.current_session().pad(square, width)


@numpy_name
def diagflat(v: Any, k: int = 0) -> EagerTensor:
    """A 2-d array with the flattened ``v`` on its k-th diagonal."""
    return diag(ravel(v), k)


@numpy_name
def fliplr(m: Any) -> EagerTensor:
    """``m`` reversed along axis 1 (left to right)."""
    x = _array(m)
    if x.ndim < 2:
        raise ArgumentError(f"argument 'm' has {x.ndim} dims; fliplr needs at least 2")
    return tnp.flip(x, axis=1)


@numpy_name
def flipud(m: Any) -> EagerTensor:
    """``m`` reversed along axis 0 (up to down)."""
    x = _array(m)
    if x.ndim < 1:
        raise ArgumentError("argument 'm' is 0-d; flipud needs at least 1 dim")
    return tnp.flip(x, axis=0)


@numpy_name
def rot90(m: Any, k: int = 1, axes: tuple[int, int] = (0, 1)) -> EagerTensor:
    """``m`` rotated by 90° k times in the plane of `axes` (from the first towards the second)."""
    x = _array(m)
    if len(axes) != 2 or x.ndim < 2:
        raise ArgumentError(f"argument 'axes' is {axes!r} for an array of {x.ndim} dims; pass two distinct axes")
    first, second = (operator.index(axis) % x.ndim for axis in axes)
    if first == second:
        raise ArgumentError(f"argument 'axes' is {axes!r}; pass two distinct axes")
    k = operator.index(k) % 4
    if k == 0:
        return x
    if k == 2:
        return tnp.flip(x, axis=(first, second))
    order = list(range(x.ndim))
    order[first], order[second] = order[second], order[first]
    if k == 1:
        return tnp.permute_dims(tnp.flip(x, axis=second), tuple(order))
    return tnp.flip(tnp.permute_dims(x, tuple(order)), axis=second)


def _along(arr: Any, axis: Any) -> tuple[EagerTensor, int]:
    x = _array(arr)
    if axis is None:
        return ravel(x), 0
    if not -x.ndim <= operator.index(axis) < x.ndim:
        raise ArgumentError(f"argument 'axis' is {axis!r}, out of range for an array of {x.ndim} dims")
    return x, operator.index(axis) % x.ndim


@numpy_name
def delete(arr: Any, obj: Any, axis: int | None = None) -> EagerTensor:
    """``arr`` without the entries `obj` (an int, a slice or indices) along `axis` (None:
    of the flattened array): the others, taken."""
    x, axis = _along(arr, axis)
    kept = np.delete(np.arange(x.shape[axis]), values(obj))
    return tnp.take(x, kept, axis=axis)


@numpy_name
def insert(arr: Any, obj: Any, values: Any, axis: int | None = None) -> EagerTensor:  # noqa: A002 - NumPy's name
    """``arr`` with ``values`` inserted before the index or indices `obj` along `axis`
    (None: the flattened array), as NumPy's insert: the new slices joined after ``arr``
    and the whole taken in the order NumPy's insert gives their indices."""
    x, axis = _along(arr, axis)
    where = _values_of(obj)
    new = _array(values)
    if isinstance(where, slice):
        where = np.arange(*where.indices(x.shape[axis]))
    where = np.asarray(where)
    if where.ndim == 0:  # one place: NumPy makes values at least x.ndim-d, its first axis the inserted one
        if new.ndim < x.ndim:
            new = tnp.reshape(new, (1,) * (x.ndim - new.ndim) + new.shape)
        new = tnp.moveaxis(new, 0, axis)
        count = new.shape[axis]
        where = np.full(count, int(where))
    else:
        count = where.size
    shape = list(x.shape)
    shape[axis] = count
    new = tnp.broadcast_to(tnp.astype(new, x.dtype), tuple(shape))
    n = x.shape[axis]
    order = np.insert(np.arange(n), where, np.arange(n, n + count))
    return tnp.take(tnp.concat([x, new], axis=axis), order, axis=axis)


def _values_of(obj: Any) -> Any:
    return obj if isinstance(obj, slice) else values(obj)


@numpy_name
def resize(a: Any, new_shape: Any) -> EagerTensor:
    """An array of `new_shape` filled with ``a``'s elements repeated in C order."""
    shape = (operator.index(new_shape),) if isinstance(new_shape, (int, np.integer)) else tuple(new_shape)
    flat = ravel(a)
    total = math.prod(shape)
    if flat.shape[0] == 0 or total == 0:
        return tnp.zeros(shape, dtype=flat.dtype)
    repeats = -(-total // flat.shape[0])
    return tnp.reshape(tnp.tile(flat, (repeats,))[:total], shape)


@numpy_name
def ediff1d(ary: Any, to_end: Any = None, to_begin: Any = None) -> EagerTensor:
    """The differences of the flattened ``ary``, with ``to_begin`` and ``to_end`` joined
    before and after."""
    flat = ravel(ary)
    parts = [tnp.diff(flat)]
    if to_begin is not None:
        parts.insert(0, tnp.astype(ravel(to_begin), flat.dtype))
    if to_end is not None:
        parts.append(tnp.astype(ravel(to_end), flat.dtype))
    return parts[0] if len(parts) == 1 else tnp.concat(parts, axis=0)


@numpy_name
def trim_zeros(filt: Any, trim: str = "fb", axis: Any = None) -> EagerTensor:
    """``filt`` without its leading ('f') and trailing ('b') zeros, along `axis` (None:
    every axis, the bounding box of the nonzero elements): a slice."""
    x = _array(filt)
    trim = trim.lower()
    if not set(trim) <= {"f", "b"}:
        raise ArgumentError(f"argument 'trim' is {trim!r}; pass 'f', 'b' or 'fb'")
    nonzero = values(x) != 0
    axes = range(x.ndim) if axis is None else [operator.index(a) % x.ndim for a in np.atleast_1d(axis)]
    index = [slice(None)] * x.ndim
    for ax in axes:
        hits = np.flatnonzero(np.any(nonzero, axis=tuple(i for i in range(x.ndim) if i != ax)))
        if hits.size == 0:
            index[ax] = slice(0, 0)
            continue
        index[ax] = slice(int(hits[0]) if "f" in trim else 0, int(hits[-1]) + 1 if "b" in trim else None)
    return x[tuple(index)]


#: np.pad's modes that only move elements: an index map along each axis, taken.
_INDEX_MODES = ("edge", "reflect", "symmetric", "wrap")


@numpy_name
def pad(array: Any, pad_width: Any, mode: str = "constant", **kwargs: Any) -> EagerTensor:
    """``array`` padded by `pad_width` (NumPy's forms) with `constant_values` (mode
    'constant', the op pad) or its own elements (modes 'edge', 'reflect', 'symmetric',
    'wrap': NumPy's np.pad of each axis's index range, taken), so it differentiates."""
    x = _array(array)
    widths = np.asarray(values(pad_width))
    if widths.dtype.kind not in "iu" or (widths < 0).any():  # NumPy refuses a float or bool width too
        raise ArgumentError(
            f"pad_width must be non-negative integers (an int, a (before, after) pair, or one pair per axis), "
            f"got {widths.dtype} {np.array2string(widths, threshold=6)}"
        )
    widths = np.broadcast_to(widths, (x.ndim, 2)).tolist()
    if mode == "constant":
        fill = kwargs.pop("constant_values", 0)
        if kwargs or np.ndim(values(fill)) != 0:
            raise ArgumentError("mode 'constant' takes one scalar constant_values (no other keywords)")
        return x.runtime.current_session().pad(x, tuple(map(tuple, widths)), "constant", values(fill))
    if mode not in _INDEX_MODES or kwargs:
        raise ArgumentError(f"argument 'mode' is {mode!r}; tenferro.numpy pads with 'constant' or {_INDEX_MODES}")
    for axis, width in enumerate(widths):
        if width != [0, 0]:
            x = tnp.take(x, np.pad(np.arange(x.shape[axis]), width, mode=mode), axis=axis)
    return x
