"""NumPy's reductions that ignore nan (``nansum``, ``nanmean``, ``nanvar``, ``nanmax``,
``nanargmax``, ``nancumsum``...) and ``nan_to_num``: the reduction of ``where(isnan(a),
neutral, a)``, so the gradient reaches the numbers and is 0 at the nans. An integer or bool
array has no nan and is reduced as it is. A slice of nans alone is nan (0 for nansum, as
NumPy's, which also warns)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import numpy as tnp
from ..core.eager import EagerTensor
from ..core.errors import ArgumentError
from ._aliases import no_out, ravel
from ._composed import numpy_name, values

__all__ = [
    "nan_to_num",
    "nanargmax",
    "nanargmin",
    "nancumprod",
    "nancumsum",
    "nanmax",
    "nanmean",
    "nanmin",
    "nanprod",
    "nanstd",
    "nansum",
    "nanvar",
]


def _array(a: Any) -> EagerTensor:
    return a if type(a) is EagerTensor else tnp.asarray(a)


def _inexact(x: EagerTensor) -> bool:
    return x.dtype.kind in "fc"


def _filled(x: EagerTensor, neutral: float) -> EagerTensor:
    """x with its nans replaced by ``neutral`` (x itself where it holds none)."""
    return tnp.where(tnp.isnan(x), neutral, x) if _inexact(x) else x


def _count(x: EagerTensor, axis: Any, keepdims: bool) -> EagerTensor:
    """The number of numbers (not nan) along `axis`, in x's real dtype."""
    real = np.dtype(np.float64) if x.dtype.kind in "iub" else np.finfo(x.dtype).dtype
    return tnp.sum(tnp.astype(tnp.logical_not(tnp.isnan(x)), real), axis=axis, keepdims=keepdims)


@numpy_name
def nansum(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False) -> EagerTensor:
    """The sum along `axis`, nans counted as 0."""
    no_out(out)
    return tnp.sum(_filled(_array(a), 0.0), axis=axis, dtype=dtype, keepdims=keepdims)


@numpy_name
def nanprod(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False) -> EagerTensor:
    """The product along `axis`, nans counted as 1."""
    no_out(out)
    return tnp.prod(_filled(_array(a), 1.0), axis=axis, dtype=dtype, keepdims=keepdims)


@numpy_name
def nanmean(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: bool = False) -> EagerTensor:
    """The mean of the numbers along `axis` (nan where there are none)."""
    no_out(out)
    x = _array(a)
    if dtype is not None:
        x = tnp.astype(x, np.dtype(dtype))
    if not _inexact(x):
        return tnp.mean(x, axis=axis, keepdims=keepdims)
    return tnp.sum(_filled(x, 0.0), axis=axis, keepdims=keepdims) / _count(x, axis, keepdims)


@numpy_name
def nanvar(
    a: Any,
    axis: Any = None,
    dtype: Any = None,
    out: Any = None,
    ddof: float = 0,
    keepdims: bool = False,
    *,
    correction: float | None = None,
) -> EagerTensor:
    """The variance of the numbers along `axis`, divided by their count - ddof
    (`correction`, the array API's name for ddof, as tnp.var's, wins where given)."""
    no_out(out)
    ddof = ddof if correction is None else correction
    x = _array(a)
    if dtype is not None:
        x = tnp.astype(x, np.dtype(dtype))
    if not _inexact(x):
        return tnp.var(x, axis=axis, correction=ddof, keepdims=keepdims)
    deviation = _filled(x - nanmean(x, axis=axis, keepdims=True), 0.0)
    squares = tnp.real(deviation * tnp.conj(deviation)) if x.dtype.kind == "c" else deviation * deviation
    return tnp.sum(squares, axis=axis, keepdims=keepdims) / (_count(x, axis, keepdims) - ddof)


@numpy_name
def nanstd(
    a: Any,
    axis: Any = None,
    dtype: Any = None,
    out: Any = None,
    ddof: float = 0,
    keepdims: bool = False,
    *,
    correction: float | None = None,
) -> EagerTensor:
    """The standard deviation of the numbers along `axis`: sqrt(nanvar)."""
    return tnp.sqrt(nanvar(a, axis, dtype, out, ddof, keepdims, correction=correction))


def _extreme(reduce: Any, fill: float) -> Any:
    def extreme(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> EagerTensor:
        no_out(out)
        x = _array(a)
        if not _inexact(x):
            return reduce(x, axis=axis, keepdims=keepdims)
        if x.dtype.kind == "c":
            raise ArgumentError("argument 'a' is complex; complex numbers have no order")
        nan = tnp.isnan(x)
        best = reduce(tnp.where(nan, fill, x), axis=axis, keepdims=keepdims)
        return tnp.where(tnp.all(nan, axis=axis, keepdims=keepdims), np.nan, best)

    return extreme


@numpy_name
def nanmax(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> EagerTensor:
    """The maximum of the numbers along `axis` (nan where there are none)."""
    return _extreme(tnp.max, -np.inf)(a, axis, out, keepdims)


@numpy_name
def nanmin(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> EagerTensor:
    """The minimum of the numbers along `axis` (nan where there are none)."""
    return _extreme(tnp.min, np.inf)(a, axis, out, keepdims)


def _arg_extreme(x: EagerTensor, axis: Any, keepdims: bool, find: Any, fill: float) -> EagerTensor:
    if axis is None:
        x = ravel(x)
    if _inexact(x):
        nan = values(tnp.isnan(x))
        if np.any(np.all(nan, axis=axis)):
            raise ArgumentError("argument 'a' has a slice of nans alone, which has no index of a number")
        x = tnp.where(tnp.isnan(x), fill, x)
    return find(x, axis=axis, keepdims=keepdims)


@numpy_name
def nanargmax(a: Any, axis: int | None = None, out: Any = None, *, keepdims: bool = False) -> EagerTensor:
    """The index of the maximum number along `axis` (a constant)."""
    no_out(out)
    return _arg_extreme(_array(a), axis, keepdims, tnp.argmax, -np.inf)


@numpy_name
def nanargmin(a: Any, axis: int | None = None, out: Any = None, *, keepdims: bool = False) -> EagerTensor:
    """The index of the minimum number along `axis` (a constant)."""
    no_out(out)
    return _arg_extreme(_array(a), axis, keepdims, tnp.argmin, np.inf)


@numpy_name
def nancumsum(a: Any, axis: int | None = None, dtype: Any = None, out: Any = None) -> EagerTensor:
    """The running sum along `axis` (None: of the flattened array), nans counted as 0."""
    no_out(out)
    return tnp.cumsum(_filled(_array(a), 0.0), axis, dtype)


@numpy_name
def nancumprod(a: Any, axis: int | None = None, dtype: Any = None, out: Any = None) -> EagerTensor:
    """The running product along `axis` (None: of the flattened array), nans counted as 1."""
    no_out(out)
    return tnp.cumprod(_filled(_array(a), 1.0), axis, dtype)


@numpy_name
def nan_to_num(
    x: Any, copy: bool = True, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None
) -> EagerTensor:
    """x with nan replaced by `nan`, +inf by `posinf` and -inf by `neginf` (default: the
    largest and the most negative number of x's dtype); complex parts each. The gradient
    passes where x is finite."""
    x = _array(x)
    if x.dtype.kind == "c":
        real, imag = (nan_to_num(part, nan=nan, posinf=posinf, neginf=neginf) for part in (tnp.real(x), tnp.imag(x)))
        return tnp.astype(real, x.dtype) + tnp.astype(imag, x.dtype) * 1j
    if x.dtype.kind != "f":
        return x
    big = float(np.finfo(x.dtype).max)
    high = big if posinf is None else posinf
    low = -big if neginf is None else neginf
    x = tnp.where(tnp.isnan(x), nan, x)
    return tnp.where(x == np.inf, high, tnp.where(x == -np.inf, low, x))
