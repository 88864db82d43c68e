"""``x.at[key]``: the functional update of an immutable array, as JAX's (``.set``, ``.add``,
``.multiply``, ``.min``, ``.max``, ``.get``), on the ``scatter`` op and, for basic keys
that pick much of x, on elementwise ops over x (see ``_basic_update``): differentiable in x
and in the values. ``EagerTensor.at`` (``tenferro._array``) returns one.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..core.eager import EagerTensor
from ..core.errors import ArgumentError, ShapeMismatch, TenferroError
from ._dispatch import lift, renamed
from ._keys import followed_indices, plan, shown


class At:
    """``x.at``: ``x.at[key]`` is the functional update of the elements ``x[key]`` picks."""

    __slots__ = ("_x",)

    def __init__(self, x: EagerTensor):
        self._x = x

    def __getitem__(self, key: Any) -> Update:
        return Update(self._x, key)

    def __repr__(self) -> str:
        return f"{self._x!r}.at"


class Update:
    """``x.at[key]``: ``.set(v)``, ``.add(v)``, ``.multiply(v)``, ``.min(v)``, ``.max(v)``
    return a new array, x with v (broadcast to the shape of ``x[key]``) written into those
    elements (the ``scatter`` op, differentiable in x and v); ``.get()`` is ``x[key]``.

    Repeated positions (``x.at[[0, 0]]``): ``add``, ``multiply``, ``min`` and ``max``
    combine every update, as JAX; ``set`` keeps the last one in the order of ``x[key]``
    (NumPy's assignment; JAX leaves it unspecified), and only that one gets a gradient.
    JAX's hints ``indices_are_sorted`` and ``unique_indices`` are accepted and ignored;
    ``mode`` must be None: out-of-range indices are an error, as in ``x[key]``."""

    __slots__ = ("_x", "_key")

    def __init__(self, x: EagerTensor, key: Any):
        self._x = x
        self._key = key

    def get(self, *, indices_are_sorted: bool = False, unique_indices: bool = False, mode: Any = None) -> EagerTensor:
        _check_mode(mode, "get")
        return self._x[self._key]

    def set(self, values: Any, /, **hints: Any) -> EagerTensor:
        return _scatter(self._x, self._key, values, "set", "set", hints)

    def add(self, values: Any, /, **hints: Any) -> EagerTensor:
        return _scatter(self._x, self._key, values, "add", "add", hints)

    def multiply(self, values: Any, /, **hints: Any) -> EagerTensor:
        return _scatter(self._x, self._key, values, "mul", "multiply", hints)

    def min(self, values: Any, /, **hints: Any) -> EagerTensor:
        return _scatter(self._x, self._key, values, "min", "min", hints)

    def max(self, values: Any, /, **hints: Any) -> EagerTensor:
        return _scatter(self._x, self._key, values, "max", "max", hints)

    def __repr__(self) -> str:
        return f"x.at[{shown(self._key)}] of {self._x!r}"


_HINTS = frozenset({"indices_are_sorted", "unique_indices", "mode"})


def _check_mode(mode: Any, method: str) -> None:
    if mode is not None:
        raise ArgumentError(
            f"x.at[...].{method}: mode={mode!r} is not supported; indices must be in range (mode=None), as in x[key]"
        )


def _scatter(x: EagerTensor, key: Any, values: Any, mode: str, method: str, hints: dict[str, Any]) -> EagerTensor:
    """:func:`_update`, an op's error reworded to name ``x.at[...].<method>`` and its ``values``."""
    try:
        return _update(x, key, values, mode, method, hints)
    except TenferroError as exc:
        if exc.op is None:  # the update's own error, which names x.at[...] already
            raise
        raise renamed(exc, f"x.at[...].{method}", {"updates": "values"}) from None


def _update(x: EagerTensor, key: Any, values: Any, mode: str, method: str, hints: dict[str, Any]) -> EagerTensor:
    """x with ``values`` combined by ``mode`` into the elements ``x[key]`` picks: one
    ``scatter`` op at the coordinates of those elements (NumPy's indexing of the flat
    positions says which, in the order of ``x[key]``)."""
    if hints:
        unknown = set(hints) - _HINTS
        if unknown:
            raise ArgumentError(f"x.at[...].{method} has no argument {sorted(unknown)[0]!r}")
        _check_mode(hints.get("mode"), method)
    rt = x.runtime
    traced = followed_indices(key)
    if traced is not None:
        return _traced_update(x, key, traced, lift(rt, values, f"x.at[...].{method}", "values"), mode, method)
    p = plan(x.shape, key, "x.at")
    values = lift(rt, values, f"x.at[...].{method}", "values")
    if not p.arrays and p.mask is None and x.ndim and x.dtype.kind in "iufc":
        region = _region(x, p.numpy_key, values)
        if region is not None:
            return _basic_update(x, p.numpy_key, region, values, mode, method, key)
    positions = np.arange(math.prod(x.shape), dtype=np.intp).reshape(x.shape)[p.numpy_key]
    _check_fits(x, key, values, positions.shape, method)
    session = rt.current_session()
    if not x.ndim:  # no axes to hold coordinates: scatter into x as one element
        out = session.scatter(session.reshape(x, (1,)), rt.constant_from(positions[..., None]), values, 0, mode)
        return session.reshape(out, ())
    coordinates = np.stack(np.unravel_index(positions, x.shape), axis=-1)
    return session.scatter(x, rt.constant_from(coordinates), values, 0, mode)


def _traced_update(
    x: EagerTensor, key: Any, traced: tuple[tuple[Any, ...], list[Any]], values: Any, mode: str, method: str
) -> EagerTensor:
    """``x.at[key]`` where the key holds traced integer tensors (a trace's; see
    ``_keys.traced_indices``) among full slices: one ``scatter`` at their stacked
    coordinates along the axes they index, the tensors the op's inputs, so that the trace
    records the update; another key reads them (refused under ``tf.jit``)."""
    stand_ins, operands = traced
    p = plan(x.shape, stand_ins, "x.at", bounds=False)  # (the scatter checks the traced indices)
    axes = p.axes
    consecutive = axes == tuple(range(axes[0], axes[0] + len(axes)))
    if p.basic is not None or p.mask is not None or p.front or not consecutive:
        plan(x.shape, key, "x.at")  # reads the traced tensors: the trace's refusal, or its loop
    session = x.runtime.current_session()
    shape = p.arrays[0].shape
    picked = x.shape[: axes[0]] + shape + x.shape[axes[0] + len(axes) :]
    _check_fits(x, key, values, picked, method)
    coordinates = session.stack(index_operands(session, operands, p.arrays), axis=-1)
    return session.scatter(x, coordinates, values, axes[0], mode)


def index_operands(session: Any, operands: list[Any], broadcast: tuple[np.ndarray, ...]) -> list[Any]:
    """A key's index arrays as ops' inputs, traced tensors among them (``_keys.traced_indices``),
    broadcast to the one shape of the plan's ``broadcast`` arrays (``x[key]`` reads with them too)."""
    shape = broadcast[0].shape
    dtype = next(a.dtype for a in operands if type(a) is not np.ndarray)
    rt = session.runtime
    return [
        (a if a.shape == shape else session.broadcast_to(a, shape))
        if type(a) is not np.ndarray
        else rt.constant_from(np.broadcast_to(a, shape).astype(dtype))
        for a in operands
    ]


def _check_fits(x: EagerTensor, key: Any, values: Any, target: tuple[int, ...], method: str) -> None:
    """The ShapeMismatch for values that do not broadcast to the shape of ``x[key]``."""
    given = np.shape(values) if type(values) is not EagerTensor else values.shape
    try:
        fits = np.broadcast_shapes(given, target) == target
    except ValueError:
        fits = False
    if not fits:
        raise ShapeMismatch(
            f"x.at[{shown(key)}].{method}: values of shape {list(given)} do not broadcast to the shape "
            f"{list(target)} of x[{shown(key)}] (x has shape {list(x.shape)})"
        )


def _region(x: EagerTensor, key: tuple[Any, ...], values: Any) -> tuple[int, ...] | None:
    """The shape of ``x[key]`` for a basic key, when ``values`` can take the slice-shaped
    path of ``_basic_update`` as they are: a tensor of x's dtype, or a Python number of x's
    kind (else None: ``scatter`` casts or refuses them)."""
    kind = type(values)
    if kind is EagerTensor:
        if values.dtype != x.dtype:
            return None
    elif not (kind is float and x.dtype.kind in "fc") and not (kind is int and x.dtype.kind in "iufc"):
        return None
    return np.empty(x.shape, dtype=np.bool_)[key].shape  # a view of no data: no element is touched


#: A basic ``x.at[key]`` picking at most 1/_SMALL of x's elements scatters at their
#: coordinates; a larger one takes the slice-shaped path (elementwise ops over x).
_SMALL = 8


def _coordinates(shape: tuple[int, ...], key: tuple[Any, ...], region: tuple[int, ...]) -> np.ndarray:
    """The coordinates in x (of ``shape``) of the elements of ``x[key]`` for a basic key,
    in its order, as an array of shape ``region + (len(shape),)``: built from each axis's
    picked indices, never from all of x's positions."""
    items = list(key)
    if Ellipsis in items:
        at = items.index(Ellipsis)
        used = sum(item is not None for item in items) - 1
        items[at : at + 1] = [slice(None)] * (len(shape) - used)
    items += [slice(None)] * (len(shape) - sum(item is not None for item in items))
    axes: list[np.ndarray] = []
    out = 0  # axis of the region
    axis = 0  # axis of x
    for item in items:
        if item is None:
            out += 1
            continue
        picked = np.arange(shape[axis], dtype=np.intp)[item]
        if type(item) is slice:
            picked = picked.reshape([-1 if r == out else 1 for r in range(len(region))])
            out += 1
        axes.append(np.broadcast_to(picked, region))
        axis += 1
    return np.stack(axes, axis=-1)


def _basic_update(
    x: EagerTensor, key: tuple[Any, ...], region: tuple[int, ...], values: Any, mode: str, method: str, shown_key: Any
) -> EagerTensor:
    """``x.at[key].<mode>(values)`` for a basic key (ints, slices, None, ...), which picks
    each element at most once: ``values`` broadcast to the region and placed into zeros of
    x's shape (the op ``slice_scatter``, the adjoint of ``slice``), then combined with x
    elementwise (``add``; ``where_select`` on the region's mask for the others). The cost
    is that of one elementwise op over x, not of a coordinate per element (``scatter``),
    and the gradients are the ops': the same as ``scatter``'s for positions picked once."""
    rt = x.runtime
    session = rt.current_session()
    _check_fits(x, shown_key, values, region, method)
    if type(values) is not EagerTensor:
        if type(values) is int and x.dtype.kind in "iu":
            info = np.iinfo(x.dtype)
            if not info.min <= values <= info.max:
                raise ArgumentError(
                    f"x.at[{shown(shown_key)}].{method}: the value {values} does not fit in x's dtype {x.dtype} "
                    f"({info.min}..{info.max})"
                )
        with np.errstate(all="ignore"):  # a float beyond float32 is inf, as the cast in scatter gives
            values = rt.constant_from(np.full(region, values, dtype=x.dtype))
    elif values.shape != region:
        values = session.broadcast_to(values, region)
    if math.prod(region) * _SMALL <= math.prod(x.shape):  # a small region: its coordinates only
        return session.scatter(x, rt.constant_from(_coordinates(x.shape, key, region)), values, 0, mode)
    placed = session.slice_scatter(values, x.shape, key)
    if mode == "add":
        return session.add(x, placed)
    mask = np.zeros(x.shape, dtype=np.bool_)
    mask[key] = True
    inside = rt.constant_from(mask)
    if mode == "mul":
        placed = session.mul(x, placed)
    elif mode == "min":
        placed = session.minimum(x, placed)
    elif mode == "max":
        placed = session.maximum(x, placed)
    return session.where_select(inside, placed, x)


def _at(self: EagerTensor) -> At:
    return At(self)
