"""NumPy's other spellings of what ``tenferro.numpy`` has (``amax`` for ``max``,
``array`` for ``asarray``, ``fabs``, ``deg2rad``, ``swapaxes``, ``ravel``...) and its
questions about an array's form (``shape``, ``ndim``, ``isscalar``), in NumPy's
signatures: each a call or two of the functions it names, so it differentiates as they do.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import numpy as tnp
from ..core.eager import EagerTensor
from ..core.errors import ArgumentError
from ._composed import numpy_name

__all__ = [
    "amax",
    "amin",
    "angle",
    "around",
    "array",
    "copy",
    "deg2rad",
    "degrees",
    "fabs",
    "identity",
    "isscalar",
    "iterable",
    "ndim",
    "rad2deg",
    "radians",
    "ravel",
    "rint",
    "rollaxis",
    "shape",
    "size",
    "swapaxes",
]


def no_out(out: Any) -> None:
    """NumPy's ``out=``: tenferro arrays are immutable, so there is nothing to write into."""
    if out is not None:
        raise ArgumentError("argument 'out' is given; tenferro arrays are immutable: use the result it returns")


def _array(a: Any) -> EagerTensor:
    return a if type(a) is EagerTensor else tnp.asarray(a)


@numpy_name
def array(object: Any, dtype: Any = None, *, copy: bool = True, order: str = "K", ndmin: int = 0) -> EagerTensor:  # noqa: A002
    """NumPy's ``array``: ``tnp.asarray`` (values are immutable, so ``copy`` changes
    nothing), with leading axes of 1 up to ``ndmin``. A tracked array stays tracked."""
    x = tnp.asarray(object, dtype=dtype)
    return x if x.ndim >= ndmin else tnp.reshape(x, (1,) * (ndmin - x.ndim) + x.shape)


@numpy_name
def copy(a: Any, order: str = "K", subok: bool = False) -> EagerTensor:
    """``a`` as a tenferro array: values are immutable, so it is ``a`` itself."""
    return _array(a)


@numpy_name
def amax(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> EagerTensor:
    """``tnp.max`` in NumPy's signature."""
    no_out(out)
    return tnp.max(a, axis=axis, keepdims=keepdims)


@numpy_name
def amin(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> EagerTensor:
    """``tnp.min`` in NumPy's signature."""
    no_out(out)
    return tnp.min(a, axis=axis, keepdims=keepdims)


@numpy_name
def angle(z: Any, deg: bool = False) -> EagerTensor:
    """The argument of z in (-π, π] (degrees if `deg`), the op angle (0 or π for real z)."""
    x = _array(z)
    result = x.runtime.current_session().angle(x)
    return result * (180.0 / math.pi) if deg else result


@numpy_name
def around(a: Any, decimals: int = 0, out: Any = None) -> EagerTensor:
    """``a`` rounded to ``decimals`` places (halves to even) as NumPy computes it:
    rint(a·10**decimals)/10**decimals. Its derivative is 0, as round's."""
    no_out(out)
    x = _array(a)
    if type(decimals) is not int:
        raise ArgumentError(f"argument 'decimals' is {decimals!r}; pass an int")
    if decimals == 0:
        return tnp.round(x)
    if x.dtype.kind in "iub":
        if decimals > 0:
            return x
        scale = 10 ** (-decimals)
        return tnp.astype(tnp.round(tnp.astype(x, np.float64) / scale) * scale, x.dtype)
    if decimals > 0:
        scale = 10.0**decimals
        return tnp.round(x * scale) / scale
    scale = 10.0 ** (-decimals)
    return tnp.round(x / scale) * scale


@numpy_name
def rint(x: Any, /) -> EagerTensor:
    """``tnp.round``: to the nearest integer, halves to even."""
    return tnp.round(x)


@numpy_name
def fabs(x: Any, /) -> EagerTensor:
    """``tnp.abs`` of a real x (NumPy's fabs refuses complex numbers)."""
    x = _array(x)
    if x.dtype.kind == "c":
        raise ArgumentError("argument 'x' is complex; fabs takes real numbers (tnp.abs takes complex ones)")
    return tnp.abs(x) if x.dtype.kind == "f" else tnp.abs(tnp.astype(x, np.float64))


def _scaled(x: Any, factor: float) -> EagerTensor:
    x = _array(x)
    return x * factor if x.dtype.kind in "fc" else tnp.astype(x, np.float64) * factor


@numpy_name
def deg2rad(x: Any, /) -> EagerTensor:
    """Degrees to radians: x·π/180."""
    return _scaled(x, math.pi / 180.0)


@numpy_name
def radians(x: Any, /) -> EagerTensor:
    """Degrees to radians: x·π/180 (NumPy's other name for deg2rad)."""
    return _scaled(x, math.pi / 180.0)


@numpy_name
def rad2deg(x: Any, /) -> EagerTensor:
    """Radians to degrees: x·180/π."""
    return _scaled(x, 180.0 / math.pi)


@numpy_name
def degrees(x: Any, /) -> EagerTensor:
    """Radians to degrees: x·180/π (NumPy's other name for rad2deg)."""
    return _scaled(x, 180.0 / math.pi)


@numpy_name
def identity(n: int, dtype: Any = None) -> EagerTensor:
    """The n×n identity matrix (float64 by default), ``tnp.eye(n)``."""
    return tnp.eye(n, dtype=np.float64 if dtype is None else dtype)


@numpy_name
def ravel(a: Any, order: str = "C") -> EagerTensor:
    """``a`` flattened in C order (``order='F'``: Fortran order, the transpose's)."""
    x = _array(a)
    if order == "F":
        x = tnp.transpose(x)
    elif order not in ("C", "A", "K"):
        raise ArgumentError(f"argument 'order' is {order!r}; pass 'C', 'F', 'A' or 'K'")
    return x if x.ndim == 1 else tnp.reshape(x, (-1,))


def _axis(axis: Any, ndim: int, argument: str, extra: int = 0) -> int:
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool) or not -ndim - extra <= axis < ndim + extra:
        raise ArgumentError(f"argument {argument!r} is {axis!r}; pass an int in {-ndim}..{ndim - 1 + extra}")
    return int(axis) % (ndim + extra)


@numpy_name
def swapaxes(a: Any, axis1: int, axis2: int) -> EagerTensor:
    """``a`` with the two axes interchanged."""
    x = _array(a)
    order = list(range(x.ndim))
    i, j = _axis(axis1, x.ndim, "axis1"), _axis(axis2, x.ndim, "axis2")
    order[i], order[j] = order[j], order[i]
    return tnp.permute_dims(x, tuple(order))


@numpy_name
def rollaxis(a: Any, axis: int, start: int = 0) -> EagerTensor:
    """``a`` with `axis` moved to lie before `start` (NumPy's older moveaxis)."""
    x = _array(a)
    axis, start = _axis(axis, x.ndim, "axis"), _axis(start, x.ndim, "start", extra=1)
    if axis < start:
        start -= 1
    return x if axis == start else tnp.moveaxis(x, axis, start)


@numpy_name
def shape(a: Any) -> tuple[int, ...]:
    """The shape of ``a`` (a tenferro array, a NumPy array, a nested list or a number)."""
    return a.shape if type(a) is EagerTensor else np.shape(a)


@numpy_name
def ndim(a: Any) -> int:
    """The number of axes of ``a``."""
    return a.ndim if type(a) is EagerTensor else np.ndim(a)


@numpy_name
def size(a: Any, axis: int | None = None) -> int:
    """The number of elements of ``a`` (along `axis`, if given)."""
    dims = shape(a)
    if axis is None:
        return math.prod(dims)
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise ArgumentError(f"argument 'axis' is {axis!r}; pass an int")
    return dims[_axis(axis, len(dims), "axis")]


def isscalar(element: Any) -> bool:
    """NumPy's isscalar: True for a Python or NumPy scalar, False for any array (a 0-d
    tenferro array too, as for a 0-d NumPy array)."""
    return type(element) is not EagerTensor and bool(np.isscalar(element))


def iterable(y: Any) -> bool:
    """Whether ``iter(y)`` works (False for a 0-d array)."""
    if type(y) is EagerTensor:
        return y.ndim > 0
    return bool(np.iterable(y))


for _function in (isscalar, iterable):
    _function.__module__ = "tenferro.numpy"
