"""A minimal duck array: what the ``engine_neutral`` check hands a kernel in place of NumPy.

Another engine passes its own arrays (dask's, later CuPy's) to the same kernels. Those
arrays dispatch NumPy's functions and ufuncs through ``__array_ufunc__`` and
``__array_function__``, but they are not ndarrays: like the array API standard's array
object they have ``shape``, ``dtype``, ``ndim``, ``size``, ``.T``, indexing and operators,
and no ``.astype``/``.reshape``/``.copy``/``.flags``. :class:`DuckArray` is that much and
no more, so a kernel that works on it does not depend on NumPy's own array, and a kernel
that does is told which call to change. Plugin authors can call their kernels on it too::

    from tenferro.testing import DuckArray
    assert isinstance(my_kernel(DuckArray(np.ones(3))), DuckArray)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.lib.mixins import NDArrayOperatorsMixin

#: What NumPy looks up on an object it converts to an array (np.asarray, np.array, ...).
_CONVERSIONS = frozenset({"__array__", "__array_interface__", "__array_struct__"})


class CoercedToNumPy(TypeError):
    """A kernel converted an engine's array to a NumPy array (dask would compute it there)."""


class MixedWithNumPy(TypeError):
    """A kernel passed a NumPy array of its own making beside an engine's array (a GPU
    engine's arrays refuse that)."""


class DuckArray(NDArrayOperatorsMixin):
    """An ndarray in disguise: NumPy's functions, ufuncs and operators work on it and give
    DuckArrays back; ndarray-only attributes and conversion to NumPy raise, naming the call."""

    __slots__ = ("_data",)

    def __init__(self, data: Any):
        self._data = np.asarray(data)

    def unwrap(self) -> np.ndarray:
        """The NumPy array inside."""
        return self._data

    shape = property(lambda self: self._data.shape)
    dtype = property(lambda self: self._data.dtype)
    ndim = property(lambda self: self._data.ndim)
    size = property(lambda self: self._data.size)
    T = property(lambda self: DuckArray(self._data.T))

    def __getitem__(self, key: Any) -> DuckArray:
        return DuckArray(self._data[_unwrap(key)])

    def __setitem__(self, key: Any, value: Any) -> None:
        self._data[_unwrap(key)] = _unwrap(value)

    def __bool__(self) -> bool:
        return bool(self._data)

    def __int__(self) -> int:
        return int(self._data)

    def __float__(self) -> float:
        return float(self._data)

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        call = f"np.{ufunc.__name__}" + ("" if method == "__call__" else f".{method}")
        return _wrap(getattr(ufunc, method)(*_operands(inputs, call), **_operands(kwargs, call)))

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        call = f"np.{func.__name__}"
        return _wrap(func(*_operands(args, call), **_operands(kwargs, call)))

    def __getattr__(self, name: str) -> Any:
        # Reached only for what DuckArray lacks: say which NumPy-only call the kernel made.
        if name in _CONVERSIONS:
            raise CoercedToNumPy(
                "the kernel converted its array argument to a NumPy array (np.asarray, np.array, or a "
                "function that does not dispatch); another engine's array must stay what it is: use NumPy "
                "functions and ufuncs on it, and np.zeros_like(x)-style functions to make new arrays"
            )
        if not name.startswith("__") and hasattr(np.ndarray, name):
            dispatching = callable(getattr(np, name, None))
            instead = f"use np.{name}(x, …)" if dispatching else "guard it by type(x) is np.ndarray"
            if name == "astype":  # (np.astype dispatches, but dask's arrays do not implement it)
                instead = "use tenferro.extend.cast(x, dtype), which every engine's array takes"
            raise AttributeError(f"the kernel used ndarray.{name}, which another engine's array lacks; {instead}")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __repr__(self) -> str:
        return f"DuckArray({self._data!r})"


def _unwrap(value: Any) -> Any:
    """``value`` with every DuckArray in it (also inside tuples, lists and dicts) unwrapped."""
    if isinstance(value, DuckArray):
        return value._data
    if isinstance(value, (tuple, list)):
        return type(value)(_unwrap(v) for v in value)
    if isinstance(value, dict):
        return {k: _unwrap(v) for k, v in value.items()}
    return value


def _operands(values: Any, call: str) -> Any:
    """The arguments of a NumPy call on DuckArrays, unwrapped; MixedWithNumPy if a NumPy
    array is among them (NumPy scalars, like Python ones, are fine)."""
    if isinstance(values, np.ndarray):
        raise MixedWithNumPy(
            f"the kernel passed a NumPy array of its own making ({values.dtype}{list(values.shape)}) to {call} "
            f"beside another engine's array; make it from an argument instead (np.zeros_like(x), ...)"
        )
    if isinstance(values, (tuple, list)):
        return type(values)(_operands(v, call) for v in values)
    if isinstance(values, dict):
        return {k: _operands(v, call) for k, v in values.items()}
    return _unwrap(values)


def _wrap(value: Any) -> Any:
    """NumPy arrays and scalars in a result as DuckArrays (a full reduction's NumPy scalar
    as a 0-d one, as an array API namespace returns it)."""
    if isinstance(value, (np.ndarray, np.generic)):
        return DuckArray(value)
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # np.linalg's results (QRResult, ...)
        return type(value)(*(_wrap(v) for v in value))
    if isinstance(value, (tuple, list)):
        return type(value)(_wrap(v) for v in value)
    return value
