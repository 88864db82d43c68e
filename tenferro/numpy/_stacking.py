"""NumPy's stacking and splitting (``hstack``, ``vstack``, ``atleast_2d``, ``block``,
``array_split``...), composed of ``reshape``, ``concat`` and slices: they record and
differentiate as those do, with NumPy's shapes."""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from .. import numpy as tnp
from ..core.eager import EagerTensor
from ..core.errors import ArgumentError
from ._composed import numpy_name

__all__ = [
    "append",
    "array_split",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "block",
    "column_stack",
    "dsplit",
    "dstack",
    "hsplit",
    "hstack",
    "vsplit",
    "vstack",
]


def _atleast(arrays: tuple[Any, ...], shape_of: Any) -> Any:
    made = []
    for item in arrays:
        item = tnp.asarray(item) if type(item) is not EagerTensor else item
        shape = shape_of(item.shape)
        made.append(item if shape == item.shape else tnp.reshape(item, shape))
    return made[0] if len(made) == 1 else tuple(made)


@numpy_name
def atleast_1d(*arys: Any) -> Any:
    """Each array with at least one axis (a 0-d array becomes shape (1,))."""
    return _atleast(arys, lambda s: s or (1,))


@numpy_name
def atleast_2d(*arys: Any) -> Any:
    """Each array with at least two axes: a 1-d array of n becomes a row (1, n)."""
    return _atleast(arys, lambda s: (1,) * (2 - len(s)) + s if len(s) < 2 else s)


def _three(shape: tuple[int, ...]) -> tuple[int, ...]:
    if len(shape) == 0:
        return (1, 1, 1)
    if len(shape) == 1:
        return (1, shape[0], 1)
    if len(shape) == 2:
        return (*shape, 1)
    return shape


@numpy_name
def atleast_3d(*arys: Any) -> Any:
    """Each array with at least three axes: (n,) becomes (1, n, 1), (m, n) becomes (m, n, 1)."""
    return _atleast(arys, _three)


def _sequence(tup: Any) -> list[Any]:
    if not isinstance(tup, (list, tuple)):
        raise ArgumentError(f"argument 'tup' is a {type(tup).__name__}; pass a tuple or list of arrays")
    return list(tup)


@numpy_name
def vstack(tup: Any, *, dtype: Any = None, casting: str = "same_kind") -> EagerTensor:
    """The arrays stacked as rows (joined along axis 0 after ``atleast_2d``)."""
    parts = [atleast_2d(item) for item in _sequence(tup)]
    return _cast(tnp.concat(parts, axis=0), dtype)


@numpy_name
def hstack(tup: Any, *, dtype: Any = None, casting: str = "same_kind") -> EagerTensor:
    """The arrays joined along axis 1 (axis 0 for 1-d arrays), after ``atleast_1d``."""
    parts = [atleast_1d(item) for item in _sequence(tup)]
    return _cast(tnp.concat(parts, axis=0 if parts and parts[0].ndim == 1 else 1), dtype)


@numpy_name
def dstack(tup: Any) -> EagerTensor:
    """The arrays joined along axis 2 (depth), after ``atleast_3d``."""
    return tnp.concat([atleast_3d(item) for item in _sequence(tup)], axis=2)


@numpy_name
def column_stack(tup: Any) -> EagerTensor:
    """1-d arrays as the columns of a 2-d array (2-d arrays joined as they are)."""
    parts = []
    for item in _sequence(tup):
        item = tnp.asarray(item) if type(item) is not EagerTensor else item
        parts.append(tnp.reshape(item, (-1, 1)) if item.ndim < 2 else item)
    return tnp.concat(parts, axis=1)


def _cast(x: EagerTensor, dtype: Any) -> EagerTensor:
    return x if dtype is None else tnp.astype(x, np.dtype(dtype))


@numpy_name
def block(arrays: Any) -> EagerTensor:
    """An array assembled from nested lists of blocks, as NumPy's ``block``: the innermost
    lists join along the last axis, the next along the one before, and so on."""
    depth = _depth(arrays)
    ndim = max(depth, _max_ndim(arrays))
    return _assemble(arrays, depth, ndim, 0)


def _depth(arrays: Any) -> int:
    if isinstance(arrays, tuple):
        raise ArgumentError("argument 'arrays' holds a tuple; NumPy's block takes nested lists only")
    if isinstance(arrays, list):
        if not arrays:
            raise ArgumentError("argument 'arrays' holds an empty list")
        depths = {_depth(item) for item in arrays}
        if len(depths) != 1:
            raise ArgumentError("argument 'arrays': the lists are nested to different depths")
        return depths.pop() + 1
    return 0


def _max_ndim(arrays: Any) -> int:
    if isinstance(arrays, list):
        return max(_max_ndim(item) for item in arrays)
    return np.ndim(arrays) if type(arrays) is not EagerTensor else arrays.ndim


def _assemble(arrays: Any, depth: int, ndim: int, level: int) -> EagerTensor:
    if not isinstance(arrays, list):
        item = tnp.asarray(arrays) if type(arrays) is not EagerTensor else arrays
        return tnp.reshape(item, (1,) * (ndim - item.ndim) + item.shape) if item.ndim < ndim else item
    parts = [_assemble(item, depth, ndim, level + 1) for item in arrays]
    return tnp.concat(parts, axis=ndim - depth + level)


def _split(ary: Any, indices_or_sections: Any, axis: int, equal: bool) -> list[EagerTensor]:
    x = tnp.asarray(ary) if type(ary) is not EagerTensor else ary
    if type(axis) is not int or not -x.ndim <= axis < max(x.ndim, 1):
        raise ArgumentError(f"argument 'axis' is {axis!r}, out of range for an array of {x.ndim} dims")
    axis %= x.ndim
    n = x.shape[axis]
    if isinstance(indices_or_sections, (int, np.integer)) and not isinstance(indices_or_sections, bool):
        sections = operator.index(indices_or_sections)
        if sections <= 0:
            raise ArgumentError(f"argument 'indices_or_sections' is {sections}; the number of sections must be > 0")
        if equal and n % sections:
            raise ArgumentError(
                f"an axis of {n} does not split into {sections} equal sections; use tnp.array_split for unequal ones"
            )
        size, extra = divmod(n, sections)
        bounds = np.cumsum([0] + [size + 1] * extra + [size] * (sections - extra)).tolist()
    else:
        cuts = [operator.index(i) for i in np.asarray(indices_or_sections).tolist()]
        bounds = [0, *cuts, n]
    before = (slice(None),) * axis
    return [x[(*before, slice(lo, hi))] for lo, hi in zip(bounds[:-1], bounds[1:], strict=True)]


@numpy_name
def array_split(ary: Any, indices_or_sections: Any, axis: int = 0) -> list[EagerTensor]:
    """``ary`` split along `axis` into that many near-equal parts (the first ones one
    longer) or at those indices; each part a slice, so it differentiates."""
    return _split(ary, indices_or_sections, axis, False)


def _split_along(axis_of: Any) -> Any:
    def split(ary: Any, indices_or_sections: Any) -> list[EagerTensor]:
        x = tnp.asarray(ary) if type(ary) is not EagerTensor else ary
        return _split(x, indices_or_sections, axis_of(x), True)

    return split


@numpy_name
def hsplit(ary: Any, indices_or_sections: Any) -> list[EagerTensor]:
    """Split along axis 1 (axis 0 of a 1-d array) into equal parts or at indices."""
    return _split_along(lambda x: 0 if x.ndim == 1 else 1)(ary, indices_or_sections)


@numpy_name
def vsplit(ary: Any, indices_or_sections: Any) -> list[EagerTensor]:
    """Split along axis 0 (the array at least 2-d) into equal parts or at indices."""
    return _split_along(lambda x: _needs(x, 2, "vsplit", 0))(ary, indices_or_sections)


@numpy_name
def dsplit(ary: Any, indices_or_sections: Any) -> list[EagerTensor]:
    """Split along axis 2 (the array at least 3-d) into equal parts or at indices."""
    return _split_along(lambda x: _needs(x, 3, "dsplit", 2))(ary, indices_or_sections)


def _needs(x: EagerTensor, ndim: int, name: str, axis: int) -> int:
    """``axis``, after checking that x has the ``ndim`` axes ``name`` splits."""
    if x.ndim < ndim:
        raise ArgumentError(f"argument 'ary' has {x.ndim} dims; {name} needs at least {ndim}")
    return axis


@numpy_name
def append(arr: Any, values: Any, axis: int | None = None) -> EagerTensor:
    """``values`` joined after ``arr`` along `axis` (None: both flattened first)."""
    if axis is None:
        return tnp.concat([tnp.reshape(arr, (-1,)), tnp.reshape(values, (-1,))], axis=0)
    return tnp.concat([arr, values], axis=axis)
