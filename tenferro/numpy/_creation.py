"""The array API's creation functions (``asarray``, ``zeros``, ``arange``, ``eye`` ...).

A new array made from Python or NumPy values is a constant (no gradient flows into it) of
the default runtime (``tenferro.default_runtime()``); ``*_like(x)`` makes it on x's
runtime, so it mixes with x. A tenferro array among the values makes the result with ops
of its session, so it records and differentiates in it: the fill value of ``full`` and
``full_like``, the bounds of ``linspace`` and ``arange``, the arrays ``tril``, ``triu``,
``meshgrid`` and ``asarray`` (a new dtype, a list holding arrays) transform. Sizes, counts
and shapes are integers (a 0-d integer tensor counts as one), which have no derivative.
Default dtypes: float64, int64, complex128 (as NumPy).
"""

from __future__ import annotations

import builtins
import math
import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..core.arguments import flag, integer
from ..core.eager import EagerTensor, held
from ..core.errors import ArgumentError, AxisError, ContextMismatch, DTypeError, ShapeMismatch, TenferroError
from ..core.runtime import EagerRuntime, default_runtime
from ..core.tensor import freeze, read
from ..core.tracing import note_read
from ._dispatch import as_array, call, lift, runtime_in, session_of, stacked
from ._dtypes import as_dtype, check_device


class CopyRefused(TenferroError, ValueError):
    """``copy=False`` where tenferro must copy (a ValueError, as the standard says): its
    values are immutable and never share memory with another library's."""


class OutOfMemory(TenferroError, MemoryError):
    """An array too large for this machine's memory (a MemoryError, as NumPy's)."""


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


def _shape(shape: Any, function: str, argument: str = "shape") -> tuple[int, ...]:
    """A shape: an int or a sequence of non-negative ints (a 0-d integer tensor counts as an
    int, a 1-d one as a sequence; their values are read, integers have no derivative)."""
    given = (shape,) if _is_int(shape) else shape
    if type(given) is EagerTensor and given.ndim == 1 and given.dtype.kind in "iu":
        note_read(given, function)
        given = held(given).tolist()
    try:
        sizes = tuple(operator.index(n) for n in given) if all(_is_int(n) for n in given) else None
    except TypeError:
        sizes = None
    if sizes is None or any(n < 0 for n in sizes):
        raise ArgumentError(
            f"{function}: {argument} must be an int or a tuple of non-negative ints, got {_shown(shape)}"
        )
    return sizes


def _count(n: Any, function: str, argument: str) -> int:
    """A non-negative count (``num`` of linspace, ``n`` of eye): an int or a 0-d integer tensor."""
    if not _is_int(n) or operator.index(n) < 0:
        raise ArgumentError(f"{function}: {argument} must be a non-negative int, got {_shown(n)}")
    return operator.index(n)


def _is_int(n: Any) -> builtins.bool:
    """An int of a shape or a count: a Python or NumPy int (not a bool), or a 0-d integer tensor."""
    if type(n) is EagerTensor:
        return n.ndim == 0 and n.dtype.kind in "iu"
    return isinstance(n, (int, np.integer)) and not isinstance(n, builtins.bool)


def _shown(value: Any) -> str:
    """A value as an error message shows it (a tensor by its dtype and shape, not its numbers)."""
    if type(value) is EagerTensor:
        return f"a {value.dtype} tensor of shape {list(value.shape)}"
    return repr(value)


def _allocated(function: str, shape: tuple[int, ...], dtype: np.dtype, make: Callable[[], np.ndarray]) -> np.ndarray:
    """``make()``, an array of ``shape`` and ``dtype``, or the error that says it is too large:
    an ArgumentError past what NumPy can address, OutOfMemory past what the machine has."""
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes > np.iinfo(np.intp).max or any(n > np.iinfo(np.intp).max for n in shape):
        raise ArgumentError(
            f"{function}: an array of shape {list(shape)} and dtype {dtype} would hold {nbytes:.3g} bytes, more than "
            f"NumPy can address; pass a smaller shape"
        )
    try:
        return make()
    except MemoryError:
        raise OutOfMemory(
            f"{function}: an array of shape {list(shape)} and dtype {dtype} needs {nbytes:.3g} bytes, more than this "
            f"machine can allocate; pass a smaller shape"
        ) from None


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
    try:
        array = np.array(obj, dtype=dtype, copy=True)
    except (ValueError, TypeError, OverflowError) as exc:
        raise ArgumentError(
            f"tnp.asarray: cannot make an array of this {type(obj).__name__} ({exc}); pass an array, a Python "
            f"number or a nested sequence of numbers of one rectangular shape"
        ) from None
    return array


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
    return _constant("tnp.zeros", np.zeros, shape, dtype, device)


def ones(shape: int | tuple[int, ...], *, dtype: Any = None, device: Any = None) -> EagerTensor:
    """An array of ones (a constant of the default runtime; float64 by default)."""
    return _constant("tnp.ones", np.ones, shape, dtype, device)


def empty(shape: int | tuple[int, ...], *, dtype: Any = None, device: Any = None) -> EagerTensor:
    """An array of the shape (zeros: tenferro never hands out uninitialised memory)."""
    return _constant("tnp.empty", np.zeros, shape, dtype, device)


def zeros_like(x: Any, /, *, dtype: Any = None, device: Any = None) -> EagerTensor:
    """Zeros of x's shape and (by default) dtype, a constant of x's runtime (x's values do
    not matter, so it has no derivative in x)."""
    return _constant_like("tnp.zeros_like", np.zeros, x, dtype, device)


def ones_like(x: Any, /, *, dtype: Any = None, device: Any = None) -> EagerTensor:
    """Ones of x's shape and (by default) dtype, a constant of x's runtime."""
    return _constant_like("tnp.ones_like", np.ones, x, dtype, device)


def empty_like(x: Any, /, *, dtype: Any = None, device: Any = None) -> EagerTensor:
    """An array of x's shape and (by default) dtype (zeros), a constant of x's runtime."""
    return _constant_like("tnp.empty_like", np.zeros, x, dtype, device)


def _constant(
    function: str, make: Callable[..., np.ndarray], shape: Any, dtype: Any, device: Any, rt: EagerRuntime | None = None
) -> EagerTensor:
    """``make(shape, dtype)`` (np.zeros, np.ones) as a constant of ``rt`` (default: the default runtime)."""
    check_device(device, function)
    sizes = _shape(shape, function)
    dtype = _dtype(dtype, function)
    return _made(rt or default_runtime(), _allocated(function, sizes, dtype, lambda: make(sizes, dtype)))


def _constant_like(function: str, make: Callable[..., np.ndarray], x: Any, dtype: Any, device: Any) -> EagerTensor:
    x = _like(x, function)
    return _constant(function, make, x.shape, x.dtype if dtype is None else dtype, device, x.runtime)


def full(
    shape: int | tuple[int, ...],
    fill_value: builtins.bool | int | float | complex | EagerTensor,
    *,
    dtype: Any = None,
    device: Any = None,
) -> EagerTensor:
    """An array of ``shape`` filled with ``fill_value``: a number, or an array that broadcasts
    to the shape (as NumPy's and JAX's full). Its dtype by default is the value's (a Python
    number's default one: bool, int64, float64, complex128). A tenferro fill value makes
    the result on its runtime by the ops ``astype`` and ``broadcast_to``, so it records
    and differentiates in the value (JAX's rule: ``tf.grad`` of ``sum(full((3,), a))`` is 3)."""
    check_device(device, "tnp.full")
    return _filled(None, _shape(shape, "tnp.full"), fill_value, dtype, "tnp.full")


def full_like(
    x: Any,
    /,
    fill_value: builtins.bool | int | float | complex | EagerTensor,
    *,
    dtype: Any = None,
    device: Any = None,
) -> EagerTensor:
    """``fill_value`` in x's shape and (by default) dtype, on x's runtime: a constant, or
    differentiable in a tenferro fill value as :func:`full` is (never in x, whose values do
    not matter)."""
    check_device(device, "tnp.full_like")
    x = _like(x, "tnp.full_like")
    return _filled(x, x.shape, fill_value, x.dtype if dtype is None else dtype, "tnp.full_like")


def _filled(
    like: EagerTensor | None, shape: tuple[int, ...], fill_value: Any, dtype: Any, function: str
) -> EagerTensor:
    """``fill_value`` broadcast to ``shape`` in ``dtype`` (None: the value's), on the runtime of
    ``like`` (None: of the value, or the default one)."""
    if dtype is not None:
        dtype = as_dtype(dtype, function)
    tensor_fill = type(fill_value) is EagerTensor or (
        isinstance(fill_value, (list, tuple)) and runtime_in(fill_value) is not None
    )
    if tensor_fill:
        return _broadcast_fill(like, shape, fill_value, dtype, function)
    value = _fill_array(fill_value, function)
    if dtype is None:
        dtype = _SCALAR_DTYPES[type(fill_value)] if type(fill_value) in _SCALAR_DTYPES else value.dtype
    if dtype.kind in "iu" and isinstance(fill_value, (int, np.integer)) and not isinstance(fill_value, builtins.bool):
        info = np.iinfo(dtype)
        if not info.min <= int(fill_value) <= info.max:
            raise ArgumentError(f"{function}: fill_value {fill_value!r} does not fit in {dtype}")
    try:
        array = _allocated(function, shape, dtype, lambda: np.full(shape, value, dtype))
    except (TypeError, ValueError, OverflowError) as exc:
        raise ArgumentError(
            f"{function}: cannot fill a {dtype} array of shape {list(shape)} with {fill_value!r} ({exc})"
        ) from None
    return _made(default_runtime() if like is None else like.runtime, array)


def _fill_array(fill_value: Any, function: str) -> Any:
    """A fill value that holds no tenferro array, as NumPy reads it: a Python number as it
    is (so it takes the dtype asked for), anything else as a NumPy array of numbers."""
    if type(fill_value) in _SCALAR_DTYPES:
        return fill_value
    try:
        value = np.asarray(fill_value)
    except (TypeError, ValueError) as exc:
        raise ArgumentError(f"{function}: fill_value must be a number or an array of numbers ({exc})") from None
    if value.dtype not in _KNOWN_DTYPES:
        raise ArgumentError(
            f"{function}: fill_value must be a number or an array of numbers, got {type(fill_value).__name__}"
            + (f" of dtype {value.dtype}" if isinstance(fill_value, np.ndarray) else "")
        )
    return value


def _broadcast_fill(
    like: EagerTensor | None, shape: tuple[int, ...], fill_value: Any, dtype: np.dtype | None, function: str
) -> EagerTensor:
    """A tenferro fill value cast (``astype``) and broadcast (``broadcast_to``): both record."""
    value = (
        fill_value
        if type(fill_value) is EagerTensor
        else stacked(runtime_in(fill_value), fill_value, function, "fill_value")
    )
    if like is not None and value.runtime is not like.runtime:
        raise ContextMismatch(
            f"{function}: fill_value belongs to {value.runtime!r}, but x to {like.runtime!r}; tensors of two runtimes "
            f"cannot be mixed"
        )
    if not _broadcasts(value.shape, shape):
        raise ShapeMismatch(
            f"{function}: fill_value has shape {list(value.shape)}, which does not broadcast to the shape {list(shape)}"
        )
    session = value.runtime.current_session()
    if dtype is not None and value.dtype != dtype:
        value = session.astype(value, dtype)
    return session.broadcast_to(value, shape)


def _broadcasts(shape: tuple[int, ...], to: tuple[int, ...]) -> builtins.bool:
    """Whether an array of ``shape`` broadcasts to ``to`` (NumPy's rule, one way)."""
    if len(shape) > len(to):
        return False
    return all(n == m or n == 1 for n, m in zip(reversed(shape), reversed(to)))


def arange(
    start: int | float | EagerTensor,
    /,
    stop: int | float | EagerTensor | None = None,
    step: int | float | EagerTensor = 1,
    *,
    dtype: Any = None,
    device: Any = None,
) -> EagerTensor:
    """``start, start + step, ...`` up to (not including) ``stop``, as NumPy's arange
    (``arange(n)`` counts from 0); int64 when every bound is an int, else float64. A bound
    may be a 0-d tensor: its value sets the count (an integer), and a float ``start`` or
    ``step`` enters the values ``start + step·i`` by ops, which differentiate in it."""
    check_device(device, "tnp.arange")
    given = {"start": start, "stop": stop, "step": step}
    numbers = {name: _bound(value, name) for name, value in given.items() if value is not None or name != "stop"}
    if numbers["step"] == 0:
        raise ArgumentError("tnp.arange: step must not be 0")
    if stop is None:
        given["start"], given["stop"] = 0, start
        numbers["start"], numbers["stop"] = 0, numbers["start"]
    first, last, by = numbers["start"], numbers["stop"], numbers["step"]
    integral = all(_integral(value) for value in given.values())
    dtype = np.dtype(np.int64 if integral else np.float64) if dtype is None else as_dtype(dtype, "tnp.arange")
    if integral:  # exact for any Python int (float division loses the count past 2**53)
        size = max(-((first - last) // by), 0)
    else:
        size = max(math.ceil((last - first) / by), 0)
    tracked = [v for v in (given["start"], given["step"]) if type(v) is EagerTensor and v.dtype.kind == "f"]
    if tracked:  # start + step·i by ops, which record
        rt = tracked[0].runtime
        s = rt.current_session()
        counts = rt.constant_from(_allocated("tnp.arange", (size,), tracked[0].dtype, lambda: np.arange(size)))
        values = s.add(_operand(given["start"], first), s.mul(_operand(given["step"], by), counts))
        return values if values.dtype == dtype else s.astype(values, dtype)
    if dtype.kind in "iu" and integral:
        for name, value in zip(("start", "stop", "step"), (first, last, by)):
            integer(value, "tnp.arange", name)  # NumPy's arange counts in int64
        array = _allocated("tnp.arange", (size,), dtype, lambda: np.arange(first, last, by, dtype=dtype))
    else:  # exactly ceil((stop - start)/step) elements, the standard's count
        array = _allocated(
            "tnp.arange", (size,), dtype, lambda: (first + by * np.arange(size, dtype=np.float64)).astype(dtype)
        )
    return _made(default_runtime(), array)


def _bound(value: Any, name: str) -> int | float:
    """An arange bound as a Python number (a 0-d real tensor's value: it sets the count)."""
    if type(value) is EagerTensor and value.ndim == 0 and value.dtype.kind in "iuf":
        note_read(value, f"the bound {name}")
        number = held(value)[()]
        number = int(number) if value.dtype.kind in "iu" else float(number)
    elif _is_int(value):
        number = int(value)  # (a NumPy integer's arithmetic would wrap around)
    elif type(value) is float or isinstance(value, np.floating):
        number = float(value)
    else:
        raise ArgumentError(f"tnp.arange: {name} must be an int or a float, got {_shown(value)}")
    if isinstance(number, (float, np.floating)) and not math.isfinite(number):
        raise ArgumentError(f"tnp.arange: {name} must be finite, got {value!r}")
    return number


def _integral(value: Any) -> builtins.bool:
    return _is_int(value) or (type(value) is EagerTensor and value.dtype.kind in "iu")


def _operand(given: Any, number: int | float) -> Any:
    """A bound as an op operand: a float tensor as it is (it records), else its number."""
    return given if type(given) is EagerTensor and given.dtype.kind == "f" else number


def linspace(
    start: int | float | complex | EagerTensor,
    stop: int | float | complex | EagerTensor,
    /,
    num: int,
    *,
    dtype: Any = None,
    device: Any = None,
    endpoint: builtins.bool = True,
    axis: int = 0,
) -> EagerTensor:
    """``num`` evenly spaced values from ``start`` to ``stop`` (included with
    ``endpoint``), as NumPy's linspace, with its values and dtype (float64 for Python
    numbers, complex128 for a complex one, else the bounds' inexact dtype). The bounds may
    be arrays that broadcast together (NumPy's rule: the samples run along ``axis`` of the
    result). A tenferro bound makes the samples by ops, which differentiate in start and stop."""
    check_device(device, "tnp.linspace")
    return spaced("tnp.linspace", start, stop, num, endpoint, dtype, axis)[0]


def spaced(
    function: str, start: Any, stop: Any, num: Any, endpoint: Any, dtype: Any, axis: Any
) -> tuple[EagerTensor, Any]:
    """linspace's samples and their step (NumPy's ``retstep``; nan where there is no
    interval): by NumPy for Python and NumPy bounds, by ops for tenferro ones."""
    num = _count(num, function, "num")
    if dtype is not None:
        dtype = as_dtype(dtype, function)
    endpoint = flag(endpoint, function, "endpoint")
    if type(axis) is EagerTensor:
        raise ArgumentError(f"{function}: axis must be an int, got {_shown(axis)}")
    axis = integer(axis, function, "axis")
    rt = runtime_in((start, stop))
    if rt is None:
        try:
            array, step = _allocated(
                function,
                (num,),
                np.dtype(np.float64),
                lambda: np.linspace(start, stop, num, endpoint=endpoint, dtype=dtype, axis=axis, retstep=True),
            )
        except (TypeError, ValueError) as exc:
            raise ArgumentError(f"{function}: start and stop must be numbers or arrays of numbers ({exc})") from None
        except np.exceptions.AxisError as exc:
            raise AxisError(f"{function}: {exc}") from None
        if array.dtype not in _KNOWN_DTYPES:
            raise DTypeError(f"{function}: start and stop must be numbers, got arrays of dtype {array.dtype}")
        return _made(default_runtime(), array), step
    s = rt.current_session()
    low, high = as_array(rt, start, function, "start"), as_array(rt, stop, function, "stop")
    inexact = np.result_type(low.dtype, high.dtype, 0.0)
    low, high = (v if v.dtype == inexact else s.astype(v, inexact) for v in (low, high))
    try:
        delta = s.sub(high, low)
    except TenferroError:
        raise ShapeMismatch(
            f"{function}: start of shape {list(low.shape)} and stop of shape {list(high.shape)} do not broadcast "
            f"together"
        ) from None
    if not -delta.ndim - 1 <= axis <= delta.ndim:
        raise AxisError(f"{function}: axis {axis} is out of range for a result of {delta.ndim + 1} dims")
    div = num - 1 if endpoint else num
    counts = rt.constant_from(
        _allocated(function, (num, *delta.shape), inexact, lambda: np.arange(num, dtype=inexact)).reshape(
            -1, *(1,) * delta.ndim
        )
    )
    if div > 0:
        step: Any = s.div(delta, div)
        note_read(step, "tnp.linspace")
        if np.any(read(held(step)) == 0):  # a step that underflows (NumPy's gh-5437): scale first
            samples = s.mul(s.div(counts, div), delta)
        else:
            samples = s.mul(counts, step)
    else:  # no interval: the step is undefined (nan), as NumPy's
        step = math.nan
        samples = s.mul(counts, delta)
    samples = s.add(samples, low)
    if endpoint and num > 1:  # the last sample is stop itself, as NumPy's
        last = s.broadcast_to(s.reshape(high, (1, *high.shape)), (1, *samples.shape[1:]))
        samples = s.concat([s.slice(samples, (slice(None, -1),)), last], 0)
    if axis != 0:
        samples = s.moveaxis(samples, 0, axis)
    if dtype is not None and dtype != samples.dtype:
        if dtype.kind in "iu":
            samples = s.floor(samples)  # NumPy rounds down for an integer dtype
        samples = s.astype(samples, dtype)
    return samples, step


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
    rows = _count(n_rows, "tnp.eye", "n_rows")
    cols = rows if n_cols is None else _count(n_cols, "tnp.eye", "n_cols")
    if not _is_int(k):
        raise ArgumentError(f"tnp.eye: k must be an int, got {_shown(k)}")
    dtype = _dtype(dtype, "tnp.eye")
    return _made(
        default_runtime(),
        _allocated("tnp.eye", (rows, cols), dtype, lambda: np.eye(rows, cols, operator.index(k), dtype)),
    )


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
    try:
        imported = np.from_dlpack(x)
    except (BufferError, TypeError, ValueError, RuntimeError) as exc:
        raise ArgumentError(
            f"tnp.from_dlpack: x (a {type(x).__name__}) cannot be exported by DLPack ({exc}); DLPack carries bool, "
            f"integer, float and complex data"
        ) from None
    if imported.dtype not in _KNOWN_DTYPES:
        raise DTypeError(
            f"tnp.from_dlpack: x holds {imported.dtype} data, which tenferro.numpy does not hold; convert it to "
            f"bool, integer, float or complex data first"
        )
    return asarray(imported)


def tril(x: Any, /, *, k: int = 0) -> EagerTensor:
    """x with the elements above the k-th diagonal of its last two axes zeroed (records)."""
    return call("tnp.tril", "tril", _like(x, "tnp.tril"), integer(k, "tnp.tril", "k"))


def triu(x: Any, /, *, k: int = 0) -> EagerTensor:
    """x with the elements below the k-th diagonal of its last two axes zeroed (records)."""
    return call("tnp.triu", "triu", _like(x, "tnp.triu"), integer(k, "tnp.triu", "k"))


def meshgrid(*arrays: Any, indexing: str = "xy") -> list[EagerTensor]:
    """Coordinate matrices from 1-D arrays (``indexing`` 'xy', Cartesian as NumPy's
    default, or 'ij', matrix), each the reshape and broadcast of one input (records)."""
    if type(indexing) is not str or indexing not in ("xy", "ij"):
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
