"""`Tensor`: an immutable n-dimensional value, the thing that goes in and comes out.

A `Tensor` owns a read-only NumPy array. Nothing in tenferro ever writes into an array a
kernel produced or a user handed in, so values are shared freely between tensors, traces
and gradient slots without copies or version counters. Immutability is enforced at both
borders: what comes in is copied (``Tensor(data)``, ``Tensor.from_numpy``), and what goes
out is a copy (``to_numpy``) or a read-only view whose base is a read-only buffer
(``np.asarray(t)``, ``as_slice``), so that setting the view's ``writeable`` flag back
cannot reach the stored value either.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .errors import ArgumentError, DTypeError, ShapeMismatch

#: dtype kinds a Tensor may hold: bool, signed/unsigned int, float, complex.
SUPPORTED_KINDS = "biufc"
#: The dtypes a variable, a recorded result and so a gradient may have.
TRACKED = frozenset(np.dtype(t) for t in (np.float32, np.float64, np.complex64, np.complex128))
#: The most dimensions a tensor may have (NumPy's own limit).
MAX_DIMS = 64
#: The most elements a tensor may have (what memory can address).
MAX_ELEMENTS = np.iinfo(np.intp).max


def freeze(array: np.ndarray) -> np.ndarray:
    """Mark ``array`` read-only and return it."""
    array.setflags(write=False)
    return array


def seal(value: Any) -> Any:
    """:func:`freeze` for a value of any engine: a NumPy array is made read-only; another
    engine's array (a dask array) is immutable already and returned as it is."""
    if type(value) is np.ndarray:
        value.setflags(write=False)
    return value


def read(value: Any) -> np.ndarray:
    """A value as a read-only NumPy array: itself for NumPy, computed (gathered to this
    process) for another engine's array. Only the exits call it (``x.value()``,
    ``np.asarray(x)``, ``x.grad()``, ``grads[x]``, printing)."""
    if type(value) is np.ndarray:
        return value
    return freeze(np.array(value))


def read_only_view(array: np.ndarray) -> np.ndarray:
    """A view of ``array`` that cannot be made writeable: its base is a read-only buffer,
    not ``array``, so neither the view's flag nor its base's can be turned back on."""
    return np.asarray(memoryview(array).toreadonly())


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


def array_from(data: Any, where: str) -> np.ndarray:
    """A fresh, read-only copy of anything ``np.array`` accepts, or the TenferroError that
    says why it cannot hold a tensor (ragged data, an unsupported dtype)."""
    if isinstance(data, Tensor):
        return data._array
    try:
        copied = np.array(data, copy=True)
    except (ValueError, TypeError, OverflowError) as exc:
        raise ArgumentError(
            f"{where}: cannot make a tensor of this {type(data).__name__} ({exc}); pass a NumPy array or "
            f"a nested sequence of numbers of one rectangular shape"
        ) from None
    check_dtype(copied.dtype, where)
    return freeze(copied)


class Tensor:
    """An immutable n-dimensional array value.

    ``Tensor(data)`` and :meth:`from_numpy` copy anything ``np.array`` accepts;
    :meth:`from_vec_col_major` takes flat data in column-major order (the seed API's form).
    Read it back with :meth:`as_slice` (flat, column-major), :meth:`to_numpy` (a writable
    copy) or ``np.asarray(t)`` (a read-only view, no copy).
    """

    __slots__ = ("_array",)

    def __init__(self, data: Any):
        self._array = array_from(data, "Tensor")

    @classmethod
    def _wrap(cls, array: np.ndarray) -> Tensor:
        """A Tensor around a read-only array tenferro made (no copy, no checks)."""
        tensor = cls.__new__(cls)
        tensor._array = array
        return tensor

    @classmethod
    def from_vec_col_major(cls, shape: Sequence[int], data: Any) -> Tensor:
        """Tensor of ``shape`` from a flat sequence listed in column-major (Fortran) order."""
        shape = check_shape(shape, "Tensor.from_vec_col_major")
        flat = array_from(data, "Tensor.from_vec_col_major")
        if flat.ndim != 1:
            raise ShapeMismatch(
                f"Tensor.from_vec_col_major: data must be a flat sequence, got an array of shape {list(flat.shape)}"
            )
        size = int(np.prod(shape, dtype=object))
        if flat.size != size:
            raise ShapeMismatch(
                f"Tensor.from_vec_col_major: shape {list(shape)} holds {size} elements, but data has {flat.size}"
            )
        return cls._wrap(freeze(np.ascontiguousarray(flat.reshape(shape, order="F"))))

    @classmethod
    def from_numpy(cls, array: Any) -> Tensor:
        """Tensor holding a copy of ``array`` (anything ``np.array`` accepts)."""
        return cls._wrap(array_from(array, "Tensor.from_numpy"))

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
        return read_only_view(self._array.ravel(order="F"))

    def to_numpy(self) -> np.ndarray:
        """A writable copy of the value."""
        return self._array.copy()

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        if copy or (dtype is not None and np.dtype(dtype) != self._array.dtype):
            return self._array.astype(dtype or self._array.dtype, copy=True)
        return read_only_view(self._array)

    def __reduce__(self) -> tuple[Any, ...]:
        # Unpickling goes through the copying constructor, so the value comes back read-only.
        return (Tensor, (self._array,))

    def __repr__(self) -> str:
        body = np.array2string(self._array, threshold=8, edgeitems=3, separator=", ")
        return f"Tensor({describe(self.shape, self.dtype)}, {body})"


class Hollow:
    """Stands in for a value a trace did not keep (see :mod:`tenferro.core.trace`): its
    shape and dtype only, so that rules can still ask for them."""

    __slots__ = ("shape", "dtype")

    def __init__(self, shape: tuple[int, ...], dtype: np.dtype):
        self.shape = shape
        self.dtype = dtype

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))


def check_shape(shape: Any, where: str) -> tuple[int, ...]:
    """``shape`` as a tuple of non-negative ints, or ArgumentError: a string, floats, bools,
    more than MAX_DIMS dims or more elements than memory can address are refused."""
    if (  # the common case, a shape from .shape, kept cheap: it is on every unbroadcast
        type(shape) is tuple
        and len(shape) <= MAX_DIMS
        and all(type(d) is int and 0 <= d <= MAX_ELEMENTS for d in shape)
        and math.prod(shape) <= MAX_ELEMENTS
    ):
        return shape
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (shape,)
    elif isinstance(shape, np.ndarray) and shape.ndim == 0:  # np.array(3): one dim, as NumPy reads it
        shape = shape.reshape(1)
    if isinstance(shape, (str, bytes)) or not isinstance(shape, (Sequence, np.ndarray)):
        raise ArgumentError(f"{where}: shape must be a sequence of non-negative ints, got {shape!r}")
    dims = tuple(shape)
    if any(isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 0 for d in dims):
        raise ArgumentError(f"{where}: shape must be a sequence of non-negative ints, got {shape!r}")
    dims = tuple(int(d) for d in dims)
    if len(dims) > MAX_DIMS:
        raise ArgumentError(f"{where}: a tensor has at most {MAX_DIMS} dims, got {len(dims)}")
    if any(d > MAX_ELEMENTS for d in dims):  # (0, 2**70) has no elements, and NumPy still refuses it
        raise ArgumentError(f"{where}: shape {list(dims)} has a dim longer than memory can address")
    if math.prod(dims) > MAX_ELEMENTS:
        raise ArgumentError(f"{where}: shape {list(dims)} has more elements than memory can address")
    return dims
