"""Static slicing, NumPy's basic indexing as an op: ``slice(x, index)`` and its adjoint
``slice_scatter``.

``index`` is what goes between the brackets of ``x[...]`` in NumPy's basic indexing: an
int, a slice, ``None`` (a new axis), ``Ellipsis``, or a tuple of them. A slice may also be
spelled as a ``(start, stop, step)`` tuple, which is hashable on every Python (``slice``
objects are hashable only from Python 3.12) and always sits inside the outer tuple:
``((1, None, -1),)`` is ``x[1::-1]``, while a bare ``(1, 2, 0)`` is ``x[1, 2, 0]``. The
rules pass the index on as given. Bounds
out of range are clipped as NumPy clips them, steps may be negative, an int drops its axis
(and must be in range). Integer arrays and boolean masks are the ``index`` family's.

The result is a read-only view of ``x``. Its VJP is ``slice_scatter``: the cotangent
written into a zero tensor of ``x``'s shape at the same positions (one allocation, no
mask product); ``slice_scatter``'s own VJP is ``slice``, so both differentiate again.
"""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from tenferro.extend import (
    REQUIRED,
    ArgumentError,
    AxisError,
    ErrorInput,
    OpSpec,
    ShapeMismatch,
    batching,
    check_shape,
    is_chunked,
    reshaped,
)

from .common import is_int
from .views import lazy

_KINDS = "int, slice, (start, stop, step), None or Ellipsis"


def _bound(value: Any, index: Any, op: str) -> int | None:
    if value is None or is_int(value):
        return None if value is None else int(value)
    raise ArgumentError(f"{op}: slice bounds and steps must be ints or None, got {value!r} in index {index!r}")


def _as_slice(item: Any, index: Any, op: str) -> builtins.slice:
    if isinstance(item, tuple) and len(item) != 3:
        raise ArgumentError(f"{op}: a slice spelled as a tuple is (start, stop, step), got {item!r} in {index!r}")
    start, stop, step = (item.start, item.stop, item.step) if isinstance(item, builtins.slice) else item
    sl = builtins.slice(_bound(start, index, op), _bound(stop, index, op), _bound(step, index, op))
    if sl.step == 0:
        raise ArgumentError(f"{op}: slice step cannot be 0 (in index {index!r})")
    return sl


def parse_index(index: Any, shape: tuple[int, ...], op: str) -> tuple[tuple[Any, ...], tuple[int, ...]]:
    """The NumPy key of ``index`` for a tensor of ``shape`` (ints, slices and None, one per
    item, ending in Ellipsis so that the result is always an array view), and the shape
    of the result."""
    if type(index) is int and shape and -shape[0] <= index < shape[0]:  # x[0]: the common key, at once
        return (index, Ellipsis), shape[1:]
    items = index if isinstance(index, tuple) else (index,)
    ndim = len(shape)
    ellipses = sum(1 for item in items if item is Ellipsis)
    if ellipses > 1:
        raise ArgumentError(f"{op}: an index can have only one Ellipsis (...), got {index!r}")
    consumed = len(items) - ellipses - sum(1 for item in items if item is None)
    if consumed > ndim:
        raise AxisError(f"{op}: index {index!r} indexes {consumed} axes, but the tensor has {ndim} dims")
    key: list[Any] = []
    out: list[int] = []
    axis = 0
    for item in items:
        if item is Ellipsis:
            for _ in range(ndim - consumed):
                key.append(builtins.slice(None))
                out.append(shape[axis])
                axis += 1
        elif item is None:
            key.append(None)
            out.append(1)
        elif is_int(item):
            size = shape[axis]
            if not -size <= item < size:
                raise AxisError(
                    f"{op}: index {int(item)} is out of range for axis {axis} of size {size} "
                    f"(shape {list(shape)}; valid: {-size}..{size - 1})"
                )
            key.append(int(item))
            axis += 1
        elif isinstance(item, (builtins.slice, tuple)):
            sl = _as_slice(item, index, op)
            key.append(sl)
            out.append(len(range(*sl.indices(shape[axis]))))
            axis += 1
        else:
            raise ArgumentError(
                f"{op}: index items must be {_KINDS}, got {item!r} in {index!r}; for integer-array or mask "
                f"indexing use the index family (take, gather)"
            )
    out.extend(shape[axis:])
    key.append(Ellipsis)
    return tuple(key), tuple(out)


def _slice(x: Any, index: Any) -> Any:
    key, _ = parse_index(index, np.shape(x), "slice")
    return x[key]


def _slice_scatter(g: Any, shape: Any, index: Any) -> Any:
    shape = check_shape(shape, "slice_scatter")
    key, expected = parse_index(index, shape, "slice_scatter")
    if np.shape(g) != expected:
        raise ShapeMismatch(
            f"slice_scatter: index {index!r} of shape {list(shape)} selects {list(expected)}, "
            f"but the argument has shape {list(np.shape(g))}"
        )
    out = np.zeros_like(g, shape=shape)
    if is_chunked(g):  # dask's assignment takes no new axes: g without the ones None adds
        if g.size == 0:
            return out
        key, g = _forward_steps(*_without_new_axes(key, g, shape), shape)
    out[key] = g
    return out


def _forward_steps(key: tuple[Any, ...], g: Any, shape: tuple[int, ...]) -> tuple[tuple[Any, ...], Any]:
    """``key`` with each slice of negative step as the positive-step slice over the same
    elements, and ``g`` flipped along those axes: dask's assignment through a reversed
    slice misplaces the values or fails. (``key``: ints and slices, then one Ellipsis.)"""
    items, flips, g_axis = [], [], 0
    for axis, item in enumerate(key):
        if type(item) is slice:
            picked = range(*item.indices(shape[axis]))
            if picked.step < 0:
                item = slice(picked[-1], picked[0] + 1, -picked.step) if len(picked) else slice(0, 0)
                flips.append(g_axis)
            g_axis += 1
        items.append(item)
    return tuple(items), np.flip(g, axis=tuple(flips)) if flips else g


def _without_new_axes(key: tuple[Any, ...], g: Any, shape: tuple[int, ...]) -> tuple[tuple[Any, ...], Any]:
    """``key`` without its None items and ``g`` without the size-1 axes they made."""
    kept = tuple(item for item in key if item is not None)
    selected = np.broadcast_to(np.zeros(()), shape)[kept].shape  # (a view: no memory)
    return kept, reshaped(g, selected)


def _reference(x: Any, index: Any) -> np.ndarray:
    items = index if isinstance(index, tuple) else (index,)
    key = tuple(builtins.slice(*i) if isinstance(i, tuple) else i for i in items)
    return np.array(np.asarray(x)[key])


def _scatter_reference(g: Any, shape: Any, index: Any) -> np.ndarray:
    out = np.zeros(shape, np.result_type(np.asarray(g), np.float64))
    items = index if isinstance(index, tuple) else (index,)
    out[tuple(builtins.slice(*i) if isinstance(i, tuple) else i for i in items)] = g
    return out


_X = np.zeros((2, 3))

SLICE = OpSpec(
    name="slice",
    inputs=("x",),
    params={"index": REQUIRED},
    forward=_slice,
    vjps=(lambda s, g, out, x, index: s.slice_scatter(g, x.shape, index),),
    linear=True,
    batch=batching.basic_slice,
    returns_view=True,
    accepts="biufc",
    sample=lazy("slicing"),
    reference=_reference,
    error_inputs=lambda: [
        ErrorInput((_X,), {"index": (0, 0, 0)}, AxisError, "indexes 3 axes, but the tensor has 2 dims"),
        ErrorInput((_X,), {"index": (slice(None), 3)}, AxisError, "index 3 is out of range for axis 1 of size 3"),
        ErrorInput((_X,), {"index": slice(None, None, 0)}, ArgumentError, "step cannot be 0"),
        ErrorInput((_X,), {"index": (Ellipsis, 0, Ellipsis)}, ArgumentError, "only one Ellipsis"),
        ErrorInput((_X,), {"index": (np.array([0, 1]),)}, ArgumentError, "use the index family"),
        ErrorInput((_X,), {"index": 0.5}, ArgumentError, "index items must be"),
        ErrorInput((_X,), {"index": slice(0.5, None)}, ArgumentError, "must be ints or None"),
    ],
    doc="x[index] for NumPy's basic indexing (ints, slices or (start, stop, step), None, ...), "
    "a read-only view; bounds are clipped as NumPy clips them.",
)

SLICE_SCATTER = OpSpec(
    name="slice_scatter",
    inputs=("g",),
    internal=True,
    params={"shape": REQUIRED, "index": REQUIRED},
    forward=_slice_scatter,
    vjps=(lambda s, gg, out, g, shape, index: s.slice(gg, index),),
    linear=True,
    batch=batching.slice_scatter,
    accepts="biufc",
    sample=lazy("slice_scatter"),
    reference=_scatter_reference,
    error_inputs=lambda: [
        ErrorInput((np.zeros(2),), {"shape": (3,), "index": slice(0, 3)}, ShapeMismatch, "selects"),
    ],
    doc="Zeros of `shape` with g written at x[index]: the adjoint of slice (its VJP).",
)

SPECS = [SLICE, SLICE_SCATTER]
