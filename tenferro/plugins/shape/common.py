"""Reading the static arguments of shape ops: one axis, several axes, a target shape.

Every error names the op, what the caller asked for and the shape or rank it was asked of.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from tenferro.extend import ArgumentError, AxisError, ShapeMismatch


def is_int(value: Any) -> bool:
    """A Python or NumPy integer, not a bool."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def axis_index(axis: Any, ndim: int, op: str, name: str = "axis") -> int:
    """``axis`` (possibly negative) as a non-negative axis of a tensor with ``ndim`` dims."""
    if not is_int(axis):
        raise AxisError(f"{op}: {name} must be an int, got {axis!r}")
    if not -ndim <= axis < ndim:
        raise AxisError(
            f"{op}: {name} {int(axis)} is out of range for a tensor with {ndim} dims (valid: {-ndim}..{ndim - 1})"
        )
    return int(axis) % ndim


def axis_list(axes: Any, ndim: int, op: str, name: str = "axis") -> tuple[int, ...]:
    """An int or a sequence of distinct ints, as non-negative axes in the order given."""
    items = (axes,) if is_int(axes) else axes
    try:
        items = tuple(items)
    except TypeError:
        raise AxisError(f"{op}: {name} must be an int or a tuple of ints, got {axes!r}") from None
    each = "axis" if name == "axes" else name  # one entry of "axes" is an axis
    result = tuple(axis_index(a, ndim, op, each) for a in items)
    if len(set(result)) != len(result):
        raise AxisError(f"{op}: {name} {axes!r} names the same axis twice (a tensor with {ndim} dims)")
    return result


def permutation(axes: Any, ndim: int, op: str) -> tuple[int, ...]:
    """``axes`` as a permutation of ``range(ndim)``: every axis exactly once. Tuples of
    Python ints are remembered (a matmul rule transposes on every call); errors are
    raised again each time."""
    exact = type(axes) is tuple and all(type(a) is int for a in axes)  # True == 1 must not hit 1's entry
    return (_cached_permutation if exact else _permutation)(axes, ndim, op)


def _permutation(axes: Any, ndim: int, op: str) -> tuple[int, ...]:
    perm = axis_list(axes, ndim, op, "axes")
    if len(perm) != ndim:
        raise AxisError(
            f"{op}: axes {axes!r} has {len(perm)} entries for a tensor with {ndim} dims; "
            f"give a permutation of all {ndim} axes"
        )
    return perm


_cached_permutation = functools.lru_cache(maxsize=4096)(_permutation)


@functools.lru_cache(maxsize=1024)
def inverse(perm: tuple[int, ...]) -> tuple[int, ...]:
    """The permutation that undoes ``perm``."""
    return tuple(int(i) for i in np.argsort(perm))


def target_shape(shape: Any, x_shape: tuple[int, ...], op: str) -> tuple[int, ...]:
    """``shape`` (an int or a sequence of ints, one of them possibly -1) for a tensor of
    ``x_shape``, with -1 resolved; ShapeMismatch naming both shapes and sizes otherwise."""
    items = (shape,) if is_int(shape) else shape
    if isinstance(items, (str, bytes)):
        items = None
    try:
        dims = tuple(items)
    except TypeError:
        dims = None
    if dims is None or not all(is_int(d) and d >= -1 for d in dims) or sum(d == -1 for d in dims) > 1:
        raise ArgumentError(
            f"{op}: shape must be an int or a sequence of non-negative ints (one of them may be -1), got {shape!r}"
        )
    dims = tuple(int(d) for d in dims)
    size = math.prod(x_shape)
    asked = f"{op}: cannot reshape a tensor of shape {list(x_shape)} ({size} elements) to {list(dims)}"
    if -1 in dims:
        known = math.prod(d for d in dims if d != -1)
        if known == 0 or size % known:
            raise ShapeMismatch(f"{asked}: {size} elements do not split into parts of {known} for the -1")
        dims = tuple(size // known if d == -1 else d for d in dims)
    elif math.prod(dims) != size:
        raise ShapeMismatch(f"{asked} ({math.prod(dims)} elements); the number of elements must stay the same")
    return dims
