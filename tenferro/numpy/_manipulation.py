"""The array API's manipulation functions (``reshape``, ``concat``, ``stack``, ``flip``...)
and NumPy's aliases (``concatenate``, ``transpose``, ``split``), each the ``shape`` op of
the current session: they record and differentiate, and errors name the function.

Values are immutable, so a view and a copy cannot be told apart: ``reshape(copy=True)``
needs no copy, and ``copy=False`` only refuses a reshape that strides do not allow.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from ..core.eager import EagerTensor, held
from ..core.errors import ArgumentError, ShapeMismatch, TenferroError
from ._dispatch import array_arg, arrays_arg, call, integer_array, renamed

__all__ = [
    "broadcast_arrays",
    "broadcast_to",
    "concat",
    "concatenate",
    "expand_dims",
    "flip",
    "moveaxis",
    "permute_dims",
    "repeat",
    "reshape",
    "roll",
    "split",
    "squeeze",
    "stack",
    "tile",
    "transpose",
    "unstack",
]

Axes = int | tuple[int, ...]


def _ints(value: Any, function: str, argument: str) -> tuple[int, ...]:
    """A shape-like argument as a tuple of ints (an int, as NumPy allows, or a 0-d integer
    tensor is one entry; integers have no derivative, so their values are read)."""
    try:
        if isinstance(value, (int, np.integer)) or (type(value) is EagerTensor and value.ndim == 0):
            return (operator.index(value),)
        return tuple(operator.index(v) for v in value)
    except TypeError:
        shown = f"a {value.dtype} tensor of shape {list(value.shape)}" if type(value) is EagerTensor else repr(value)
        raise ArgumentError(f"{function}: argument {argument!r} is {shown}; pass a tuple of ints") from None


def _joined(function: str, op: str, arrays: Any, *params: Any) -> EagerTensor:
    session, items = arrays_arg(arrays, function)
    try:
        return getattr(session, op)(items, *params)
    except TenferroError as exc:
        raise renamed(exc, function) from None


def broadcast_arrays(*arrays: Any) -> list[EagerTensor]:
    """The arrays broadcast against one another (read-only views)."""
    session, items = arrays_arg(arrays, "tnp.broadcast_arrays")
    try:
        shape = np.broadcast_shapes(*(item.shape for item in items))
    except ValueError:
        raise ShapeMismatch(
            f"tnp.broadcast_arrays: shapes {[list(item.shape) for item in items]} do not broadcast together"
        ) from None
    return [item if item.shape == shape else session.broadcast_to(item, shape) for item in items]


def broadcast_to(x: Any, /, shape: tuple[int, ...]) -> EagerTensor:
    """x broadcast to `shape` (a read-only view)."""
    return call("tnp.broadcast_to", "broadcast_to", x, _ints(shape, "tnp.broadcast_to", "shape"))


def concat(arrays: tuple[Any, ...] | list[Any], /, axis: int | None = 0) -> EagerTensor:
    """The arrays joined along an existing `axis` (None: each flattened first); `axis` may be
    passed by position, as NumPy users write ``np.concatenate((x, y), 1)``."""
    return _joined("tnp.concat", "concat", arrays, axis)


def concatenate(arrays: tuple[Any, ...] | list[Any], /, axis: int | None = 0) -> EagerTensor:
    """NumPy's name for :func:`concat`."""
    return _joined("tnp.concatenate", "concat", arrays, axis)


def stack(arrays: tuple[Any, ...] | list[Any], /, axis: int = 0) -> EagerTensor:
    """The arrays, all of one shape, joined along a new `axis` (by keyword or, as in NumPy,
    by position: ``stack([x, y], -1)``)."""
    return _joined("tnp.stack", "stack", arrays, axis)


def unstack(x: Any, /, *, axis: int = 0) -> tuple[EagerTensor, ...]:
    """The slices of x along `axis`, the inverse of stack."""
    return call("tnp.unstack", "unstack", x, axis)


def split(x: Any, indices_or_sections: int | Any, /, axis: int = 0) -> list[EagerTensor]:
    """NumPy's split: equal parts (an int), or cuts at the indices given."""
    if not isinstance(indices_or_sections, (int, np.integer)):
        cuts = integer_array(indices_or_sections, "tnp.split", "indices_or_sections")
        if cuts.ndim > 1:
            raise ArgumentError(
                f"tnp.split: argument 'indices_or_sections' must be an int (equal parts) or a 1-D sequence of cut "
                f"points, got shape {list(cuts.shape)}"
            )
        indices_or_sections = int(cuts) if cuts.ndim == 0 else tuple(cuts.tolist())  # 0-d: a count, as NumPy's
    return list(call("tnp.split", "split", x, indices_or_sections, axis))


def expand_dims(x: Any, /, axis: Axes) -> EagerTensor:
    """x with a new axis of size 1 at `axis` (of the result; a tuple inserts several)."""
    return call("tnp.expand_dims", "expand_dims", x, axis)


def squeeze(x: Any, /, axis: Axes | None = None) -> EagerTensor:
    """x without the axes of size 1 named by `axis` (None, NumPy's default: all of them)."""
    return call("tnp.squeeze", "squeeze", x, axis)


def flip(x: Any, /, *, axis: Axes | None = None) -> EagerTensor:
    """x reversed along `axis` (None: every axis)."""
    return call("tnp.flip", "flip", x, axis)


def moveaxis(x: Any, source: Axes, destination: Axes, /) -> EagerTensor:
    """x with the axes `source` moved to `destination`, the others in order."""
    return call("tnp.moveaxis", "moveaxis", x, source, destination)


def permute_dims(x: Any, /, axes: tuple[int, ...]) -> EagerTensor:
    """x with result axis i taken from x's axis axes[i]."""
    return call("tnp.permute_dims", "permute_dims", x, _ints(axes, "tnp.permute_dims", "axes"))


def transpose(x: Any, /, axes: tuple[int, ...] | None = None) -> EagerTensor:
    """NumPy's transpose: :func:`permute_dims`, all axes reversed when `axes` is None."""
    return call("tnp.transpose", "transpose", x, None if axes is None else _ints(axes, "tnp.transpose", "axes"))


def reshape(x: Any, /, shape: tuple[int, ...] | int, *, copy: bool | None = None) -> EagerTensor:
    """x's elements (C order) in `shape`, one entry may be -1. copy=False refuses a shape
    that needs a copy (x's strides do not allow it as a view)."""
    if copy is not None and type(copy) is not bool:
        raise ArgumentError(f"tnp.reshape: argument 'copy' is {copy!r}; pass True, False or None")
    if type(x) is not EagerTensor:
        x = array_arg(x, "tnp.reshape")
    result = call("tnp.reshape", "reshape", x, _ints(shape, "tnp.reshape", "shape"))
    if copy is False and held(x).size and not np.shares_memory(held(result), held(x)):
        raise ShapeMismatch(
            f"tnp.reshape: copy=False, but an array of shape {list(x.shape)} with its strides cannot be "
            f"seen as shape {list(result.shape)} without a copy; pass copy=None"
        )
    return result


def roll(x: Any, /, shift: Axes, *, axis: Axes | None = None) -> EagerTensor:
    """x shifted by `shift` along `axis` (None: flattened), elements rolling around."""
    return call("tnp.roll", "roll", x, shift, axis)


def repeat(x: Any, repeats: int | Any, /, *, axis: int | None = None) -> EagerTensor:
    """Each element of x repeated `repeats` times (an int, or one count per element along
    `axis`; None: x flattened)."""
    if not isinstance(repeats, (int, np.integer)):
        counts = integer_array(repeats, "tnp.repeat", "repeats")
        if counts.ndim > 1:
            raise ArgumentError(
                f"tnp.repeat: argument 'repeats' must be an int or a 1-D integer array, got shape {list(counts.shape)}"
            )
        repeats = int(counts.reshape(())) if counts.size == 1 else tuple(int(c) for c in counts)
    return call("tnp.repeat", "repeat", x, operator.index(repeats) if type(repeats) is not tuple else repeats, axis)


def tile(x: Any, repetitions: tuple[int, ...], /) -> EagerTensor:
    """x repeated as whole blocks `repetitions` times along each axis."""
    return call("tnp.tile", "tile", x, _ints(repetitions, "tnp.tile", "repetitions"))
