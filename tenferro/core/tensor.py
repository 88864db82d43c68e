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


#: What ``np.<ufunc>`` and Python's operators do with a Tensor among their operands: run
#: NumPy on its read-only array and give back Tensors. Operands a Tensor's operators leave
#: to the other operand (Python then raises its TypeError, or runs that operand's operator).
_NOT_OPERANDS = (str, bytes, dict, set, type(None))


def _foreign(value: Any) -> bool:
    """Whether ``value`` is an array of a library with its own ``__array_ufunc__`` (an
    EagerTensor, a dask array): it answers, and a Tensor takes part as its NumPy array."""
    answer = getattr(type(value), "__array_ufunc__", None)
    return answer is not None and answer is not np.ndarray.__array_ufunc__ and not isinstance(value, Tensor)


def _array_of(value: Any) -> Any:
    return value._array if isinstance(value, Tensor) else value


def _tensor_of(value: Any) -> Any:
    """A NumPy result as a Tensor (NumPy made it, so it is frozen in place, not copied)."""
    if isinstance(value, tuple):
        return tuple(_tensor_of(v) for v in value)
    array = value if type(value) is np.ndarray else np.asarray(value)
    return Tensor._wrap(freeze(array))


def _computed(call: str, ufunc: np.ufunc, method: str, inputs: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """``ufunc.method(*inputs, **kwargs)`` on the Tensors' arrays, its results as Tensors;
    NumPy's own errors as the TenferroError that names ``call``."""
    out = kwargs.get("out")
    if method == "at" and isinstance(inputs[0], Tensor):  # NumPy 2.4's ufunc.at writes even into a read-only array
        raise ArgumentError(
            f"{call}.at(t, ...) writes into t in place, and a Tensor is immutable; use the result of t + ..."
        )
    if out is not None and any(isinstance(o, Tensor) for o in out):
        raise ArgumentError(
            f"{call}(..., out=<a Tensor>): a Tensor is immutable, nothing writes into it; use the result (t = t + 1)"
        )
    arrays = [_array_of(value) for value in inputs]
    # np.multiply(t, x): the EagerTensor answers, recording t as a constant (an operator has
    # returned NotImplemented for it already, so only NumPy's own calls get here with one)
    if any(_foreign(value) for value in arrays):
        return getattr(ufunc, method)(*arrays, **kwargs)
    try:
        result = getattr(ufunc, method)(*arrays, **kwargs)
    except TypeError as exc:
        raise DTypeError(f"{call} of a Tensor: {exc}") from None
    except ValueError as exc:
        raise ShapeMismatch(f"{call} of a Tensor: {exc}") from None
    return result if out is not None and any(o is not None for o in out) else _tensor_of(result)


def _binary(ufunc: np.ufunc, symbol: str) -> tuple[Any, Any]:
    """``t <symbol> other`` and ``other <symbol> t``: NumPy's ``ufunc``, a Tensor back; an
    EagerTensor operand answers itself (the op is recorded, the Tensor a constant)."""
    call = f"operator {symbol}"

    def forward(self: Tensor, other: Any) -> Any:
        if isinstance(other, _NOT_OPERANDS) or _foreign(other):
            return NotImplemented
        return _computed(call, ufunc, "__call__", (self, other), {})

    def reflected(self: Tensor, other: Any) -> Any:
        if isinstance(other, _NOT_OPERANDS) or _foreign(other):
            return NotImplemented
        return _computed(call, ufunc, "__call__", (other, self), {})

    return forward, reflected


def _unary(ufunc: np.ufunc, call: str) -> Any:
    def operator(self: Tensor) -> Tensor:
        return _computed(call, ufunc, "__call__", (self,), {})

    return operator


class Tensor:
    """An immutable n-dimensional array value: what goes into tenferro and what comes out
    (``x.value()``, ``x.grad()``, ``grads[x]``). A Tensor is never recorded; an
    :class:`~tenferro.EagerTensor` is a value of a runtime whose ops are recorded, so that
    it can be differentiated.

    ``Tensor(data)`` and :meth:`from_numpy` copy anything ``np.array`` accepts;
    :meth:`from_vec_col_major` takes flat data in column-major order (the seed API's form).
    Read it back with :meth:`as_slice` (flat, column-major), :meth:`to_numpy` (a writable
    copy) or ``np.asarray(t)`` (a read-only view, no copy).

    Arithmetic works as on a read-only NumPy array and gives Tensors: ``t * 0.1``,
    ``t + np_array``, ``np_array - t``, ``np.sqrt(t)``, ``t > 0`` (NumPy's dtype rules).
    With an EagerTensor the EagerTensor answers: ``p - 0.1 * p.grad()`` is an EagerTensor,
    the op recorded, the Tensor a constant. ``t += 1`` binds ``t`` to a new Tensor; nothing
    writes into one (``out=`` a Tensor is refused). NumPy functions other than ufuncs read
    a Tensor as its read-only array and return what NumPy returns.
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

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        """``np.sin(t)``, ``np_array * t``, ``np.add.reduce(t)``: NumPy on the arrays, Tensors back."""
        return _computed(f"np.{ufunc.__name__}", ufunc, method, inputs, kwargs)

    __add__, __radd__ = _binary(np.add, "+")
    __sub__, __rsub__ = _binary(np.subtract, "-")
    __mul__, __rmul__ = _binary(np.multiply, "*")
    __truediv__, __rtruediv__ = _binary(np.true_divide, "/")
    __floordiv__, __rfloordiv__ = _binary(np.floor_divide, "//")
    __mod__, __rmod__ = _binary(np.remainder, "%")
    __pow__, __rpow__ = _binary(np.power, "**")
    __matmul__, __rmatmul__ = _binary(np.matmul, "@")
    __and__, __rand__ = _binary(np.bitwise_and, "&")
    __or__, __ror__ = _binary(np.bitwise_or, "|")
    __xor__, __rxor__ = _binary(np.bitwise_xor, "^")
    __lshift__, __rlshift__ = _binary(np.left_shift, "<<")
    __rshift__, __rrshift__ = _binary(np.right_shift, ">>")
    # Elementwise, as NumPy's (a comparison has no reflected form: Python swaps < for >).
    __lt__ = _binary(np.less, "<")[0]
    __le__ = _binary(np.less_equal, "<=")[0]
    __gt__ = _binary(np.greater, ">")[0]
    __ge__ = _binary(np.greater_equal, ">=")[0]
    __eq__ = _binary(np.equal, "==")[0]  # type: ignore[assignment]
    __ne__ = _binary(np.not_equal, "!=")[0]  # type: ignore[assignment]
    __hash__ = object.__hash__  # by identity, as EagerTensor's: tensors still key dicts
    __neg__ = _unary(np.negative, "operator -")
    __pos__ = _unary(np.positive, "operator +")
    __abs__ = _unary(np.absolute, "abs()")
    __invert__ = _unary(np.invert, "operator ~")

    def __bool__(self) -> bool:
        return bool(self._one("bool"))

    def __float__(self) -> float:
        return float(self._one("float"))

    def __int__(self) -> int:
        return int(self._one("int"))

    def __complex__(self) -> complex:
        return complex(self._one("complex"))

    def _one(self, to: str) -> Any:
        """The one element, for ``bool(t)``, ``float(t)``...; a tensor of another size has none."""
        if self._array.size != 1:
            raise ShapeMismatch(
                f"{to}() of a Tensor of shape {list(self.shape)}: only a tensor of one element has one "
                f"{'truth value' if to == 'bool' else 'value'}; reduce it first or index its array"
            )
        return self._array.reshape(())[()]

    def __reduce__(self) -> tuple[Any, ...]:
        # Unpickling goes through the copying constructor, so the value comes back read-only.
        return (Tensor, (self._array,))

    def __repr__(self) -> str:
        body = np.array2string(self._array, threshold=8, edgeitems=3, separator=", ")
        return f"Tensor({describe(self.shape, self.dtype)}, {body})"


#: ``as_tensor(array)``: a Tensor around a read-only array tenferro made (no copy, no checks).
as_tensor = Tensor._wrap


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
