"""NumPy's functions that have no derivative, as NumPy's own run on the values of their
arguments, arrays returned as constants (index builders, windows, tests of values,
histograms, bit packing, integer arithmetic, I/O), and those not about arrays at all
(print options, dtype questions), which are NumPy's as they are. Plus the few built on
a user's function: ``fromfunction``, ``apply_along_axis``, ``apply_over_axes`` and
``frompyfunc`` call it on tenferro arrays, so what it computes records."""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import numpy as tnp
from ..core.eager import EagerTensor
from ..core.errors import ArgumentError
from ._composed import numpy_name, on_values, values
from ._creation import OutOfMemory

_NO_DERIVATIVE = {
    # index builders: integers
    "diag_indices": "indices, integers",
    "diag_indices_from": "indices, integers",
    "indices": "indices, integers",
    "ix_": "indices, integers",
    "mask_indices": "indices, integers",
    "ravel_multi_index": "indices, integers",
    "tril_indices": "indices, integers",
    "tril_indices_from": "indices, integers",
    "triu_indices": "indices, integers",
    "triu_indices_from": "indices, integers",
    "unravel_index": "indices, integers",
    "lexsort": "indices, integers",
    "digitize": "indices of bins, integers",
    "tri": "a fixed matrix of ones and zeros",
    # window functions: fixed numbers of the window length
    "bartlett": "a fixed window of its length",
    "blackman": "a fixed window of its length",
    "hamming": "a fixed window of its length",
    "hanning": "a fixed window of its length",
    "kaiser": "a fixed window of its length (beta is read as a number)",
    # tests of values: bools
    "allclose": "a bool",
    "array_equal": "a bool",
    "array_equiv": "a bool",
    "isclose": "bools",
    "isin": "bools",
    "iscomplex": "bools",
    "isreal": "bools",
    "iscomplexobj": "a bool",
    "isrealobj": "a bool",
    "isneginf": "bools",
    "isposinf": "bools",
    # piecewise-constant or integer results
    "histogram": "counts and bin edges (piecewise constant in the data)",
    "histogram2d": "counts and bin edges (piecewise constant in the data)",
    "histogramdd": "counts and bin edges (piecewise constant in the data)",
    "histogram_bin_edges": "bin edges of the data's range",
    "spacing": "the gap to the next number, piecewise constant",
    "gcd": "integers",
    "lcm": "integers",
    "bitwise_count": "integers",
    "packbits": "bits",
    "unpackbits": "bits",
    # text and I/O
    "array_repr": "a string",
    "array_str": "a string",
    "einsum_path": "a contraction order",
    "save": "a file written",
    "savez": "a file written",
    "load": "data read from a file",
    "frombuffer": "data read from a buffer",
    "fromfile": "data read from a file",
    "fromiter": "data read from an iterable",
    "fromstring": "data read from a string",
}

#: NumPy's own, not about arrays of numbers.
_NUMPY_OWN = ("broadcast_shapes", "get_printoptions", "issubdtype", "printoptions", "promote_types", "set_printoptions")

__all__ = [
    *_NO_DERIVATIVE,
    *_NUMPY_OWN,
    "apply_along_axis",
    "apply_over_axes",
    "fromfunction",
    "frompyfunc",
    "geomspace",
    "logspace",
]

#: Those whose result has a derivative in a float argument tenferro does not compute (the
#: edges move with the data's range, weighted counts with the weights, a written file is
#: an exit): they refuse a tracked argument instead of losing its gradient.
_REFUSE_TRACKED = (
    "histogram",
    "histogram2d",
    "histogramdd",
    "histogram_bin_edges",
    "kaiser",
    "save",
    "savez",
    "fromiter",
)

#: NumPy's functions that make an array of a length they are given (``M``, ``N``), with
#: temporaries of that length as they compute it: checked against the machine's memory
#: first, against half of it, as tnp's creation functions are (NumPy would fill them until
#: the kernel kills the process: 1.2e9 elements is about 29 GB for a window).
_SIZED = {"bartlett": 3, "blackman": 4, "hamming": 3, "hanning": 3, "kaiser": 4, "tri": 2}


def _checked_size(function: Callable[..., Any], copies: int) -> Callable[..., Any]:
    name = function.__name__

    @functools.wraps(function)
    def sized(*args: Any, **kwargs: Any) -> Any:
        given = [*args[:2], kwargs.get("N" if name == "tri" else "M"), kwargs.get("M")]
        lengths = [abs(n) for n in given if isinstance(n, (int, float, complex, np.number)) and not isinstance(n, bool)]
        if name == "tri" and len(lengths) == 1:  # tri(N): N × N
            lengths *= 2
        count = math.prod(float(n) for n in lengths[: 2 if name == "tri" else 1] if math.isfinite(n))
        if count * 8 * copies > _MEMORY / 2:
            raise OutOfMemory(
                f"tnp.{name}: an array of {count:.3g} elements needs about {count * 8 * copies:.3g} bytes as NumPy "
                f"computes it, more than half this machine's memory ({_MEMORY:.3g} bytes); pass a smaller length"
            )
        return function(*args, **kwargs)

    return sized


def _argument(args: tuple[Any, ...], kwargs: dict[str, Any], position: int, name: str) -> Any:
    return args[position] if len(args) > position else kwargs.get(name)


def _integer(value: Any) -> bool:
    """An integer NumPy takes as one: a Python or NumPy int, or a 0-d integer array."""
    if isinstance(value, np.ndarray):
        return value.ndim == 0 and value.dtype.kind in "iu"
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _tri_shape(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any]:
    rows, columns = _argument(args, kwargs, 0, "N"), _argument(args, kwargs, 1, "M")
    return rows, rows if columns is None else columns


def _indices_shape(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any]:
    rows, columns = _argument(args, kwargs, 0, "n"), _argument(args, kwargs, 2, "m")
    return rows, rows if columns is None else columns


def _from_shape(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any]:
    try:
        shape = np.shape(_argument(args, kwargs, 0, "arr"))
    except Exception:  # not an array: the function's own check names it
        return None, None
    return tuple(shape[-2:]) if isinstance(shape, tuple) and len(shape) >= 2 else (None, None)


#: NumPy's functions of a matrix's k-th diagonal: where their k is (its position) and the
#: matrix's (rows, columns) from their arguments.
_DIAGONALS = {
    "tri": (2, _tri_shape),
    "tril_indices": (1, _indices_shape),
    "triu_indices": (1, _indices_shape),
    "tril_indices_from": (1, _from_shape),
    "triu_indices_from": (1, _from_shape),
}


def _within_edges(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` with its ``k`` clamped to the matrix's edges (-rows and columns): the
    same diagonal's ones or indices, where NumPy's ``M - k`` overflows for a k near the
    int64 bounds and gives a wrong result silently (np.tri(3, 4, -2**63 + 3) has ones)."""
    position, shape_of = _DIAGONALS[function.__name__]

    @functools.wraps(function)
    def within(*args: Any, **kwargs: Any) -> Any:
        rows, columns = shape_of(args, kwargs)
        k = _argument(args, kwargs, position, "k")
        if _integer(rows) and _integer(columns) and _integer(k):
            k = min(max(int(k), -int(rows)), int(columns))
            if len(args) > position:
                args = (*args[:position], k, *args[position + 1 :])
            else:
                kwargs = {**kwargs, "k": k}
        return function(*args, **kwargs)

    return within


#: The machine's physical memory, in bytes (os.sysconf; without it, no check).
try:
    _MEMORY = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
except (AttributeError, ValueError, OSError):
    _MEMORY = float("inf")

for _name, _why in _NO_DERIVATIVE.items():
    _function = on_values(
        getattr(np, _name), f"no derivative ({_why}); arrays come back as constants.", _name not in _REFUSE_TRACKED
    )
    _function = _within_edges(_function) if _name in _DIAGONALS else _function
    globals()[_name] = _checked_size(_function, _SIZED[_name]) if _name in _SIZED else _function
for _name in _NUMPY_OWN:
    globals()[_name] = getattr(np, _name)


@numpy_name
def logspace(
    start: Any, stop: Any, num: int = 50, endpoint: bool = True, base: Any = 10.0, dtype: Any = None, axis: int = 0
) -> EagerTensor:
    """base**linspace(start, stop, num), as NumPy's: differentiable in start, stop and base."""
    exponents = tnp.linspace(start, stop, num, endpoint=endpoint)
    if axis != 0:
        exponents = tnp.moveaxis(exponents, 0, axis)
    result = tnp.pow(base if type(base) is EagerTensor else tnp.asarray(base), exponents)
    return result if dtype is None else tnp.astype(result, np.dtype(dtype))


@numpy_name
def geomspace(
    start: Any, stop: Any, num: int = 50, endpoint: bool = True, dtype: Any = None, axis: int = 0
) -> EagerTensor:
    """Numbers spaced evenly on a log scale from start to stop (both positive or both
    negative, real), as NumPy's: logspace of their log10s, the ends set to start and stop
    exactly; differentiable in both."""
    first, last = (a if type(a) is EagerTensor else tnp.asarray(float(a)) for a in (start, stop))
    signs = np.sign(values((first, last)))
    if first.ndim or last.ndim or signs[0] == 0 or signs[0] != signs[1] or "c" in (first.dtype.kind, last.dtype.kind):
        raise ArgumentError("start and stop must be nonzero real numbers of the same sign")
    if signs[0] < 0:
        return -geomspace(-first, -last, num, endpoint, dtype, axis)
    inner = logspace(tnp.log10(first), tnp.log10(last), num, endpoint=endpoint)
    if num > 0:
        parts = [tnp.reshape(first, (1,)), inner[1 : num - 1 if endpoint and num > 1 else num]]
        if endpoint and num > 1:
            parts.append(tnp.reshape(last, (1,)))
        inner = tnp.concat(parts, axis=0)
    if axis != 0:
        inner = tnp.moveaxis(inner, 0, axis)
    return inner if dtype is None else tnp.astype(inner, np.dtype(dtype))


@numpy_name
def fromfunction(function: Callable[..., Any], shape: Any, *, dtype: Any = float, **kwargs: Any) -> Any:
    """``function(*indices)``, the index arrays of `shape` (of `dtype`) given as tenferro
    constants, as NumPy's: whatever the function computes with tnp records."""
    return function(*(tnp.asarray(i) for i in np.indices(shape, dtype=dtype)), **kwargs)


@numpy_name
def apply_along_axis(func1d: Callable[..., Any], axis: int, arr: Any, *args: Any, **kwargs: Any) -> EagerTensor:
    """func1d on every 1-d slice of arr along `axis`, the results stacked where the axis
    was: a Python loop of tenferro calls (one per slice), so it records."""
    x = arr if type(arr) is EagerTensor else tnp.asarray(arr)
    axis = int(axis) % x.ndim
    moved = tnp.moveaxis(x, axis, -1)
    outer = moved.shape[:-1]
    results = [tnp.asarray(func1d(moved[index], *args, **kwargs)) for index in np.ndindex(*outer)]
    stacked = tnp.reshape(tnp.stack(results), (*outer, *results[0].shape))
    if results[0].ndim == 0:
        return stacked
    return tnp.moveaxis(stacked, tuple(range(len(outer), stacked.ndim)), tuple(range(axis, axis + results[0].ndim)))


@numpy_name
def apply_over_axes(func: Callable[..., Any], a: Any, axes: Any) -> EagerTensor:
    """func(a, axis) for each axis in turn, the reduced axis kept (length 1), as NumPy's."""
    result = a if type(a) is EagerTensor else tnp.asarray(a)
    for axis in np.atleast_1d(axes).tolist():
        axis = axis % result.ndim
        reduced = func(result, axis)
        result = reduced if reduced.ndim == result.ndim else tnp.expand_dims(reduced, axis=axis)
    return result


def frompyfunc(func: Callable[..., Any], /, nin: int, nout: int, *, identity: Any = None) -> Callable[..., Any]:
    """A function applying the Python ``func`` to each element of its (broadcast)
    arguments, as NumPy's frompyfunc but a Python loop over 0-d tenferro arrays whose
    results are stacked (so they record), not an object-array ufunc."""

    def elementwise(*arrays: Any) -> Any:
        parts = tnp.broadcast_arrays(*[a if type(a) is EagerTensor else tnp.asarray(a) for a in arrays])
        shape = parts[0].shape
        results = [func(*(part[index] for part in parts)) for index in np.ndindex(*shape)]
        if nout == 1:
            return tnp.reshape(tnp.asarray(results), shape)
        return tuple(tnp.reshape(tnp.asarray([r[k] for r in results]), shape) for k in range(nout))

    elementwise.__name__ = getattr(func, "__name__", "frompyfunc")
    return elementwise


frompyfunc.__module__ = "tenferro.numpy"
