"""The array API's creation functions (``asarray``, ``zeros``, ``arange``, ``eye`` ...).

A new array is a constant (no gradient flows into it) of the default runtime
(``tenferro.default_runtime()``); ``*_like(x)`` makes it on x's runtime, so it mixes with
x. The functions that transform an array (``tril``, ``triu``, ``meshgrid``, ``asarray``
with a new dtype) are ops of x's session and record. Default dtypes: float64, int64,
complex128 (as NumPy).
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..core.eager import EagerTensor
from ..core.errors import ArgumentError, DTypeError, TenferroError
from ..core.runtime import EagerRuntime, default_runtime
from ..core.tensor import freeze
from ._dispatch import lift, runtime_in, session_of, stacked
from ._dtypes import as_dtype, check_device


class CopyRefused(TenferroError, ValueError):
    """``copy=False`` where tenferro must copy (a ValueError, as the standard says): its
    values are immutable and never share memory with another library's."""


__all__ = [
    "arange",
    "asarray",
    "empty",
    "empty_like",
    "eye",
    "from_dlpack",
    "full",
    "full_like",
    "linspace",
    "meshgrid",
    "ones",
    "ones_like",
    "tril",
    "triu",
    "zeros",
    "zeros_like",
]

#: The default dtype of a Python scalar (bool before int: bool is an int subclass).
_SCALAR_DTYPES = {
    builtins.bool: np.dtype(np.bool_),
    int: np.dtype(np.int64),
    float: np.dtype(np.float64),
    complex: np.dtype(np.complex128),
}


def _made(rt: EagerRuntime, array: np.ndarray) -> EagerTensor:
    """A fresh NumPy array as a constant of ``rt`` (no copy: nobody else holds it)."""
    return EagerTensor(freeze(array), rt)


def _shape(shape: Any, function: str) -> tuple[int, ...]:
    given = (shape,) if _is_int(shape) else shape
    try:
        sizes = tuple(int(n) for n in given) if all(_is_int(n) for n in given) else None
    except TypeError:
        sizes = None
    if sizes is None or any(n < 0 for n in sizes):
        raise ArgumentError(f"{function}: shape must be an int or a tuple of non-negative ints, got {shape!r}")
    return sizes


def _is_int(n: Any) -> builtins.bool:
    return isinstance(n, (int, np.integer)) and not isinstance(n, builtins.bool)


def _dtype(dtype: Any, function: str, default: Any = np.float64) -> np.dtype:
    return np.dtype(default) if dtype is None else as_dtype(dtype, function)


def _like(x: Any, function: str) -> EagerTensor:
    if type(x) is EagerTensor:
        return x
    rt = default_runtime()
    x = lift(rt, x, function)
    if type(x) is not EagerTensor:
        raise ArgumentError(f"{function}: x must be an array, got a Python {type(x).__name__}")
    return x


def asarray(
    obj: Any,
    /,
    *,
    dtype: Any = None,
    device: Any = None,
    copy: builtins.bool | None = None,
) -> EagerTensor:
    """``obj`` (a tenferro or NumPy array, a Python scalar, a nested sequence, an object
    with ``__array__`` or ``__dlpack__``) as a tenferro array. A tenferro array is
    returned as it is (values are immutable, so no copy is ever needed), or converted by
    the ``astype`` op (which records) for another ``dtype``; anything else becomes a
    constant of the default runtime. Python scalars default to bool/int64/float64/
    complex128. A nested sequence holding arrays that track gradients is joined by the op
    ``stack``, so it records. ``copy=False`` raises CopyRefused (a ValueError) where a copy or
    conversion is needed."""
    check_device(device, "tnp.asarray")
    if dtype is not None:
        dtype = as_dtype(dtype, "tnp.asarray")
    if type(obj) is EagerTensor:
        if dtype is None or obj.dtype == dtype:
            return obj
        if copy is False:
            raise CopyRefused(f"tnp.asarray: converting {obj.dtype} to {dtype} needs a copy, but copy=False")
        return session_of(obj).astype(obj, dtype)
    if copy is False:
        raise CopyRefused(
            f"tnp.asarray: a {type(obj).__name__} becomes a tenferro array only by a copy, but copy=False "
            f"(tenferro values are immutable and never share memory with NumPy's)"
        )
    if isinstance(obj, (list, tuple)) and runtime_in(obj) is not None:  # arrays inside: their stack, which records
        joined = stacked(runtime_in(obj), obj, "tnp.asarray", "obj")
        return joined if dtype is None or joined.dtype == dtype else session_of(joined).astype(joined, dtype)
    rt = default_runtime()
    kind = type(obj)
    if kind in _SCALAR_DTYPES:
        array = _scalar_array(obj, dtype or _SCALAR_DTYPES[kind])
    else:
        array = _array_of(obj, dtype)
    if array.dtype not in _KNOWN_DTYPES:
        raise DTypeError(
            f"tnp.asarray: obj has dtype {array.dtype}, which tenferro.numpy does not hold; use bool, "
            f"integer, float or complex data"
        )
    return _made(rt, array)


def _scalar_array(value: Any, dtype: np.dtype) -> np.ndarray:
    try:
        return np.array(value, dtype=dtype)
    except OverflowError:
        raise ArgumentError(f"tnp.asarray: {value!r} does not fit in {dtype}") from None


def _array_of(obj: Any, dtype: np.dtype | None) -> np.ndarray:
    if not isinstance(obj, (np.ndarray, np.generic)) and hasattr(obj, "__dlpack__") and not hasattr(obj, "__array__"):
        obj = np.from_dlpack(obj)
    if isinstance(obj, (list, tuple)):
        obj = _unwrap(obj)
    try:
        array = np.array(obj, dtype=dtype, copy=True)
    except (ValueError, TypeError, OverflowError) as exc:
        raise ArgumentError(
            f"tnp.asarray: cannot make an array of this {type(obj).__name__} ({exc}); pass an array, a Python "
            f"number or a nested sequence of numbers of one rectangular shape"
        ) from None
    return array


def _unwrap(obj: Any) -> Any:
    """A nested sequence with tenferro arrays in it, as one NumPy can read."""
    if isinstance(obj, (list, tuple)):
        return [_unwrap(item) for item in obj]
    if type(obj) is EagerTensor:
        return obj._held()
    return obj


_KNOWN_DTYPES = frozenset(
    np.dtype(t)
    for t in (
        np.bool_,
        np.int8,
        np.int16,
        np.int32,
        np.int64,
        np.uint8,
        np.uint16,
        np.uint32,
        np.uint64,
        np.float32,
        np.float64,
        np.complex64,
        np.complex128,
    )
)


def zeros(shape: int | tuple[int, ...], *, dtype: Any = None, device: Any = None) -> EagerTensor:
    """An array of zeros (a constant of the default runtime; float64 by default)."""
    check_device(device, "tnp.zeros")
    return _made(default_runtime(), np.zeros(_shape(shape, "tnp.zeros"), _dtype(dtype, "tnp.zeros")))


def ones(shape: int | tuple[int, ...], *, dtype: Any = None, device: Any = None) -> EagerTensor:
    """An array of ones (a constant of the default runtime; float64 by default)."""
    check_device(device, "tnp.ones")
    return _made(default_runtime(), np.ones(_shape(shape, "tnp.ones"), _dtype(dtype, "tnp.ones")))


def empty(shape: int | tuple[int, ...], *, dtype: Any = None, device: Any = None) -> EagerTensor:
    """An array of the shape (zeros: tenferro never hands out uninitialised memory)."""
    check_device(device, "tnp.empty")
    return _made(default_runtime(), np.zeros(_shape(shape, "tnp.empty"), _dtype(dtype, "tnp.empty")))


def _fill_dtype(fill_value: Any, function: str) -> np.dtype:
    kind = type(fill_value)
    if kind in _SCALAR_DTYPES:
        return _SCALAR_DTYPES[kind]
    if isinstance(fill_value, np.generic) and fill_value.dtype in _KNOWN_DTYPES:
        return fill_value.dtype
    if type(fill_value) is EagerTensor and fill_value.ndim == 0:
        return fill_value.dtype
    raise ArgumentError(f"{function}: fill_value must be a Python number, got {type(fill_value).__name__}")


def _filled(rt: EagerRuntime, shape: tuple[int, ...], fill_value: Any, dtype: np.dtype, function: str) -> EagerTensor:
    if type(fill_value) is EagerTensor:
        fill_value = fill_value._held()[()]
    if dtype.kind in "iu" and isinstance(fill_value, (int, np.integer)):
        info = np.iinfo(dtype)
        if not info.min <= int(fill_value) <= info.max:
            raise ArgumentError(f"{function}: fill_value {fill_value!r} does not fit in {dtype}")
    try:
        return _made(rt, np.full(shape, fill_value, dtype))
    except (TypeError, ValueError, OverflowError) as exc:
        raise ArgumentError(f"{function}: cannot fill a {dtype} array with {fill_value!r} ({exc})") from None


def full(
    shape: int | tuple[int, ...],
    fill_value: builtins.bool | int | float | complex,
    *,
    dtype: Any = None,
    device: Any = None,
) -> EagerTensor:
    """An array filled with ``fill_value``; its dtype by default is the default one of the
    value's kind (bool, int64, float64, complex128)."""
    check_device(device, "tnp.full")
    dtype = _fill_dtype(fill_value, "tnp.full") if dtype is None else as_dtype(dtype, "tnp.full")
    return _filled(default_runtime(), _shape(shape, "tnp.full"), fill_value, dtype, "tnp.full")


def zeros_like(x: Any, /, *, dtype: Any = None, device: Any = None) -> EagerTensor:
    """Zeros of x's shape and (by default) dtype, a constant of x's runtime."""
    check_device(device, "tnp.zeros_like")
    x = _like(x, "tnp.zeros_like")
    return _made(x._rt, np.zeros(x.shape, _dtype(dtype, "tnp.zeros_like", x.dtype)))


def ones_like(x: Any, /, *, dtype: Any = None, device: Any = None) -> EagerTensor:
    """Ones of x's shape and (by default) dtype, a constant of x's runtime."""
    check_device(device, "tnp.ones_like")
    x = _like(x, "tnp.ones_like")
    return _made(x._rt, np.ones(x.shape, _dtype(dtype, "tnp.ones_like", x.dtype)))


def empty_like(x: Any, /, *, dtype: Any = None, device: Any = None) -> EagerTensor:
    """An array of x's shape and (by default) dtype (zeros), a constant of x's runtime."""
    check_device(device, "tnp.empty_like")
    x = _like(x, "tnp.empty_like")
    return _made(x._rt, np.zeros(x.shape, _dtype(dtype, "tnp.empty_like", x.dtype)))


def full_like(
    x: Any,
    /,
    fill_value: builtins.bool | int | float | complex,
    *,
    dtype: Any = None,
    device: Any = None,
) -> EagerTensor:
    """``fill_value`` in x's shape and (by default) dtype, a constant of x's runtime."""
    check_device(device, "tnp.full_like")
    x = _like(x, "tnp.full_like")
    _fill_dtype(fill_value, "tnp.full_like")
    return _filled(x._rt, x.shape, fill_value, _dtype(dtype, "tnp.full_like", x.dtype), "tnp.full_like")


def arange(
    start: int | float,
    /,
    stop: int | float | None = None,
    step: int | float = 1,
    *,
    dtype: Any = None,
    device: Any = None,
) -> EagerTensor:
    """``start, start + step, ...`` up to (not including) ``stop``, as NumPy's arange
    (``arange(n)`` counts from 0); int64 when every bound is an int, else float64."""
    check_device(device, "tnp.arange")
    for name, value in (("start", start), ("stop", stop), ("step", step)):
        if (
            not (value is None and name == "stop")
            and type(value) not in (int, float)
            and not isinstance(value, (np.integer, np.floating))
        ):
            raise ArgumentError(f"tnp.arange: {name} must be an int or a float, got {type(value).__name__}")
        if value is not None and not np.isfinite(value):
            raise ArgumentError(f"tnp.arange: {name} must be finite, got {value!r}")
    if step == 0:
        raise ArgumentError("tnp.arange: step must not be 0")
    if stop is None:
        start, stop = 0, start
    if dtype is None:
        dtype = np.dtype(np.int64) if all(_is_int(v) for v in (start, stop, step)) else np.dtype(np.float64)
    else:
        dtype = as_dtype(dtype, "tnp.arange")
    size = max(int(np.ceil((stop - start) / step)), 0)
    try:
        if dtype.kind in "iu" and all(_is_int(v) for v in (start, stop, step)):
            array = np.arange(start, stop, step, dtype=dtype)
        else:  # exactly ceil((stop - start)/step) elements, the standard's count
            array = (start + step * np.arange(size, dtype=np.float64)).astype(dtype)
    except ValueError as exc:  # NumPy's "Maximum allowed size exceeded"
        raise ArgumentError(f"tnp.arange: {size} elements from {start!r} to {stop!r} by {step!r}: {exc}") from None
    return _made(default_runtime(), array)


def linspace(
    start: int | float | complex,
    stop: int | float | complex,
    /,
    num: int,
    *,
    dtype: Any = None,
    device: Any = None,
    endpoint: builtins.bool = True,
) -> EagerTensor:
    """``num`` evenly spaced values from ``start`` to ``stop`` (included with
    ``endpoint``), as NumPy's linspace; float64, or complex128 for a complex bound."""
    check_device(device, "tnp.linspace")
    if not _is_int(num) or num < 0:
        raise ArgumentError(f"tnp.linspace: num must be a non-negative int, got {num!r}")
    if dtype is None:
        complex_bound = isinstance(start, (complex, np.complexfloating)) or isinstance(
            stop, (complex, np.complexfloating)
        )
        dtype = np.dtype(np.complex128 if complex_bound else np.float64)
    else:
        dtype = as_dtype(dtype, "tnp.linspace")
    try:
        array = np.linspace(start, stop, num, endpoint=endpoint, dtype=dtype)
    except (TypeError, ValueError) as exc:
        raise ArgumentError(f"tnp.linspace: {exc}") from None
    return _made(default_runtime(), array)


def eye(
    n_rows: int,
    n_cols: int | None = None,
    /,
    *,
    k: int = 0,
    dtype: Any = None,
    device: Any = None,
) -> EagerTensor:
    """The ``n_rows`` x ``n_cols`` matrix with ones on the k-th diagonal (float64 by default)."""
    check_device(device, "tnp.eye")
    for name, value in (("n_rows", n_rows), ("n_cols", n_cols), ("k", k)):
        if not (value is None and name == "n_cols") and not _is_int(value):
            raise ArgumentError(f"tnp.eye: {name} must be an int, got {type(value).__name__}")
        if name != "k" and value is not None and value < 0:
            raise ArgumentError(f"tnp.eye: {name} must be a non-negative int, got {value!r}")
    return _made(default_runtime(), np.eye(n_rows, n_cols, k, dtype=_dtype(dtype, "tnp.eye")))


def from_dlpack(x: Any, /, *, device: Any = None, copy: builtins.bool | None = None) -> EagerTensor:
    """An array from an object with ``__dlpack__`` (a copy: tenferro values are
    immutable, so ``copy=False`` raises ValueError)."""
    check_device(device, "tnp.from_dlpack")
    if copy is False:
        raise CopyRefused("tnp.from_dlpack: tenferro arrays never share memory, but copy=False")
    if type(x) is EagerTensor:
        return x
    if not hasattr(x, "__dlpack__"):
        raise ArgumentError(f"tnp.from_dlpack: x must support __dlpack__, got {type(x).__name__}")
    return asarray(np.from_dlpack(x))


def tril(x: Any, /, *, k: int = 0) -> EagerTensor:
    """x with the elements above the k-th diagonal of its last two axes zeroed (records)."""
    session = session_of(x)
    return session.tril(_like(x, "tnp.tril"), k)


def triu(x: Any, /, *, k: int = 0) -> EagerTensor:
    """x with the elements below the k-th diagonal of its last two axes zeroed (records)."""
    session = session_of(x)
    return session.triu(_like(x, "tnp.triu"), k)


def meshgrid(*arrays: Any, indexing: str = "xy") -> list[EagerTensor]:
    """Coordinate matrices from 1-D arrays (``indexing`` 'xy', Cartesian as NumPy's
    default, or 'ij', matrix), each the reshape and broadcast of one input (records)."""
    if indexing not in ("xy", "ij"):
        raise ArgumentError(f"tnp.meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    session = session_of(*arrays)
    arrays_: Sequence[EagerTensor] = [_like(a, "tnp.meshgrid") for a in arrays]
    for index, a in enumerate(arrays_):
        if a.ndim != 1:
            raise ArgumentError(f"tnp.meshgrid: arrays[{index}] must be 1-D, got shape {list(a.shape)}")
    if len({a.dtype for a in arrays_}) > 1:
        raise DTypeError("tnp.meshgrid: the arrays must have one dtype")
    sizes = [a.shape[0] for a in arrays_]
    if indexing == "xy" and len(sizes) >= 2:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    result = []
    n = len(arrays_)
    for index, a in enumerate(arrays_):
        axis = 1 - index if indexing == "xy" and n >= 2 and index < 2 else index
        shape = [1] * n
        shape[axis] = a.shape[0]
        result.append(session.broadcast_to(session.reshape(a, tuple(shape)), tuple(sizes)))
    return result
