"""`Tensor`: an immutable n-dimensional value, the thing that goes in and comes out.

A `Tensor` owns a read-only NumPy array. Nothing in tenferro ever writes into an array a
kernel produced or a user handed in, so values are shared freely between tensors, traces
and gradient slots without copies or version counters. Arrays reach users only through a
`Tensor` (or ``np.asarray``), which is where read-only is enforced: kernel results inside
the trace are not flagged one by one, since that costs a microsecond per op.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .errors import ArgumentError, DTypeError, ShapeMismatch

#: dtype kinds a Tensor may hold: bool, signed/unsigned int, float, complex.
SUPPORTED_KINDS = "biufc"


def freeze(array: np.ndarray) -> np.ndarray:
    """Mark ``array`` read-only and return it."""
    array.flags.writeable = False
    return array


def dtype_name(dtype: np.dtype) -> str:
    """Short dtype names used in messages and trace listings: f64, f32, i64, bool."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return "bool"
    return f"{dtype.kind}{dtype.itemsize * 8}"


def describe(shape: tuple[int, ...], dtype: np.dtype) -> str:
    """``f64[1000]``-style type of a value."""
    return f"{dtype_name(dtype)}[{','.join(map(str, shape))}]"


def check_dtype(dtype: np.dtype, where: str) -> None:
    if dtype.kind not in SUPPORTED_KINDS:
        raise DTypeError(f"{where}: dtype {dtype} is not supported; use a bool, integer, float or complex array")


class Tensor:
    """An immutable n-dimensional array value.

    Build one with :meth:`from_vec_col_major` (flat data in column-major order, as in the
    seed API) or :meth:`from_numpy` (copies the array). Read it back with
    :meth:`as_slice` (flat, column-major), :meth:`to_numpy` (a writable copy) or
    ``np.asarray(t)`` (a read-only view, no copy).
    """

    __slots__ = ("_array",)

    def __init__(self, array: np.ndarray):
        """Wrap an array that nobody else will write to; prefer the ``from_*`` builders."""
        check_dtype(array.dtype, "Tensor")
        if array.flags.writeable:
            array = array.view()
            array.flags.writeable = False
        self._array = array

    @classmethod
    def from_vec_col_major(cls, shape: Sequence[int], data: Any) -> Tensor:
        """Tensor of ``shape`` from a flat sequence listed in column-major (Fortran) order."""
        shape = _check_shape(shape)
        flat = np.array(data, copy=True)
        if flat.ndim != 1:
            raise ShapeMismatch(
                f"Tensor.from_vec_col_major: data must be a flat sequence, got an array of shape {list(flat.shape)}"
            )
        size = int(np.prod(shape, dtype=np.int64))
        if flat.size != size:
            raise ShapeMismatch(
                f"Tensor.from_vec_col_major: shape {list(shape)} holds {size} elements, but data has {flat.size}"
            )
        check_dtype(flat.dtype, "Tensor.from_vec_col_major")
        return cls(freeze(np.ascontiguousarray(flat.reshape(shape, order="F"))))

    @classmethod
    def from_numpy(cls, array: Any) -> Tensor:
        """Tensor holding a copy of ``array`` (anything ``np.array`` accepts)."""
        copied = np.array(array, copy=True)
        check_dtype(copied.dtype, "Tensor.from_numpy")
        return cls(freeze(copied))

    @property
    def shape(self) -> tuple[int, ...]:
        return self._array.shape

    @property
    def dtype(self) -> np.dtype:
        return self._array.dtype

    @property
    def ndim(self) -> int:
        return self._array.ndim

    @property
    def size(self) -> int:
        return self._array.size

    def as_slice(self) -> np.ndarray:
        """The elements as a flat, read-only array in column-major order."""
        flat = self._array.ravel(order="F")
        if flat.flags.writeable:
            flat.flags.writeable = False
        return flat

    def to_numpy(self) -> np.ndarray:
        """A writable copy of the value."""
        return self._array.copy()

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        if copy:
            return self._array.astype(dtype, copy=True) if dtype else self._array.copy()
        return self._array if dtype is None else self._array.astype(dtype, copy=False)

    def __repr__(self) -> str:
        body = np.array2string(self._array, threshold=8, edgeitems=3, separator=", ")
        return f"Tensor({describe(self.shape, self.dtype)}, {body})"


def _check_shape(shape: Sequence[int]) -> tuple[int, ...]:
    try:
        dims = tuple(int(d) for d in shape)
        ok = all(d >= 0 and d == s for d, s in zip(dims, shape))
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise ArgumentError(f"Tensor: shape must be a sequence of non-negative ints, got {shape!r}")
    return dims
