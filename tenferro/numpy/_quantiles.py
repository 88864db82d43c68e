"""NumPy's order statistics: ``quantile``, ``percentile``, ``median`` and their ``nan``
forms, by NumPy's 'linear' method (its default): the reduced axes moved last and merged,
sorted, the two neighbours of the virtual index q·(n - 1) taken and interpolated as
NumPy's ``_lerp`` does, so the values are NumPy's bitwise and the gradient reaches the
two neighbours (weights 1 - t and t). The nan forms count each slice's numbers (nans
sort last). The result differentiates in ``q`` too, through the interpolation weight."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import numpy as tnp
from ..core.eager import EagerTensor
from ..core.errors import ArgumentError
from ._aliases import no_out
from ._composed import numpy_name, values

__all__ = ["median", "nanmedian", "nanpercentile", "nanquantile", "percentile", "quantile"]


def _last(a: Any, axis: Any) -> tuple[EagerTensor, tuple[int, ...]]:
    """``a`` with the axes `axis` (None: all) moved last and merged into one, sorted
    along it, and the shape keepdims gives the result."""
    x = a if type(a) is EagerTensor else tnp.asarray(a)
    if x.dtype.kind == "c":
        raise ArgumentError("argument 'a' is complex; complex numbers have no order")
    if x.dtype.kind in "iub":
        x = tnp.astype(x, np.float64)
    if axis is None:
        axes = tuple(range(x.ndim))
    else:
        axes = tuple(operator.index(i) % max(x.ndim, 1) for i in np.atleast_1d(axis).tolist())
        if len(set(axes)) != len(axes):
            raise ArgumentError(f"argument 'axis' is {axis!r}, which repeats an axis")
    kept = [i for i in range(x.ndim) if i not in axes]
    keep_shape = tuple(1 if i in axes else n for i, n in enumerate(x.shape))
    moved = tnp.permute_dims(x, (*kept, *axes)) if axes != tuple(range(x.ndim - len(axes), x.ndim)) else x
    merged = tnp.reshape(moved, (*(x.shape[i] for i in kept), math.prod(x.shape[i] for i in axes)))
    return tnp.sort(merged, axis=-1), keep_shape


def _quantiles(q: Any) -> np.ndarray:
    qs = np.asarray(values(q), dtype=np.float64)
    if np.any(np.isnan(qs)) or np.any((qs < 0) | (qs > 1)):
        raise ArgumentError("argument 'q' must lie in [0, 1] (percentile: in [0, 100])")
    return qs


def _lerp(low: EagerTensor, high: EagerTensor, t: Any) -> EagerTensor:
    """NumPy's ``_lerp``: a + (b - a)·t, computed from b where t >= 0.5 (monotone, exact at t = 1)."""
    step = high - low
    return tnp.where(t >= 0.5, high - step * (1 - t), low + step * t)


def _interpolated(
    ordered: EagerTensor, qs: np.ndarray, counts: np.ndarray | None, tracked: EagerTensor | None = None
) -> EagerTensor:
    """The quantiles ``qs`` (flat) of each row of ``ordered`` (sorted along its last axis),
    of the first ``counts`` entries of each row (all of them where None); shape
    ordered.shape[:-1] + (qs.size,). ``tracked``: q as a tensor, whose gradient the
    interpolation weights carry."""
    n = ordered.shape[-1] if counts is None else counts[..., None]
    virtual = np.asarray((n - 1) * qs)  # NumPy's virtual index of its 'linear' method
    below = np.floor(virtual)
    t = virtual - below
    top = np.maximum(np.asarray(n) - 1, 0)
    low_index = np.clip(below, 0, top).astype(np.int64)
    high_index = np.clip(below + 1, 0, top).astype(np.int64)
    shape = (*ordered.shape[:-1], qs.size)
    low = tnp.take_along_axis(ordered, np.broadcast_to(low_index, shape), axis=-1)
    high = tnp.take_along_axis(ordered, np.broadcast_to(high_index, shape), axis=-1)
    if tracked is not None:  # a q that tracks a gradient: t = (n - 1)·q - floor, the same numbers, recorded
        t = tnp.astype(tnp.reshape(tracked, (-1,)) * (np.asarray(n) - 1) - below, ordered.dtype)
        return _lerp(low, high, tnp.broadcast_to(t, shape))
    return _lerp(low, high, np.broadcast_to(t, shape).astype(ordered.dtype))


def _shaped(result: EagerTensor, q_shape: tuple[int, ...], keep_shape: tuple[int, ...], keepdims: bool) -> EagerTensor:
    """Rows × quantiles as NumPy shapes them: the quantiles' axes first."""
    rest = keep_shape if keepdims else result.shape[:-1]
    return tnp.reshape(tnp.moveaxis(result, -1, 0), (*q_shape, *rest))


def _quantile(a: Any, q: Any, axis: Any, keepdims: bool, skip_nan: bool, scale: float = 1.0) -> EagerTensor:
    ordered, keep_shape = _last(a, axis)
    if type(q) not in (int, float) and ordered.dtype != np.float64:  # an array q makes NumPy's result float64
        ordered = tnp.astype(ordered, np.float64)
    qs = _quantiles(np.true_divide(values(q), scale) if scale != 1.0 else q)
    tracked = None
    if type(q) is EagerTensor and q.tracks_grad():
        tracked = tnp.true_divide(q, scale) if scale != 1.0 else q
    if ordered.shape[-1] == 0:
        raise ArgumentError("argument 'a' is empty along the reduced axes, which have no quantiles")
    if skip_nan:
        counts = np.sum(~np.isnan(values(ordered)), axis=-1)
        result = _interpolated(ordered, qs.ravel(), counts, tracked)
        result = tnp.where(np.broadcast_to((counts == 0)[..., None], result.shape), np.nan, result)
    else:
        result = _interpolated(ordered, qs.ravel(), None, tracked)
        last = ordered[..., -1:]
        result = tnp.where(tnp.isnan(last), np.nan, result)  # a nan sorts last and makes the slice's quantiles nan
    return _shaped(result, qs.shape, keep_shape, keepdims)


def _method(method: str) -> None:
    if method != "linear":
        raise ArgumentError(f"argument 'method' is {method!r}; tenferro.numpy computes NumPy's default, 'linear'")


def _quantile_function(name: str, skip_nan: bool, scale: float, doc: str) -> Callable[..., EagerTensor]:
    """``tnp.<name>``, one of NumPy's four quantile functions (NumPy's signature, its 'linear'
    method): quantiles or percentiles (``scale`` 100), of every entry or of the numbers."""

    def function(
        a: Any,
        q: Any,
        axis: Any = None,
        out: Any = None,
        overwrite_input: bool = False,
        method: str = "linear",
        keepdims: bool = False,
    ) -> EagerTensor:
        no_out(out)
        _method(method)
        return _quantile(a, q, axis, keepdims, skip_nan, scale)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return numpy_name(function)


quantile = _quantile_function(
    "quantile", False, 1.0, "The q-th quantiles (q in [0, 1]) along `axis`, NumPy's 'linear' method."
)
percentile = _quantile_function(
    "percentile", False, 100.0, "The q-th percentiles (q in [0, 100]) along `axis`: quantile(a, q / 100)."
)
nanquantile = _quantile_function(
    "nanquantile", True, 1.0, "The q-th quantiles of the numbers (nans left out) along `axis`."
)
nanpercentile = _quantile_function(
    "nanpercentile", True, 100.0, "The q-th percentiles of the numbers (nans left out) along `axis`."
)


def _median(a: Any, axis: Any, keepdims: bool, skip_nan: bool) -> EagerTensor:
    """The mean of the middle one or two sorted entries, as NumPy's median computes it."""
    ordered, keep_shape = _last(a, axis)
    if ordered.shape[-1] == 0:
        raise ArgumentError("argument 'a' is empty along the reduced axes, which have no median")
    n = np.sum(~np.isnan(values(ordered)), axis=-1) if skip_nan else np.asarray(ordered.shape[-1])
    top = np.maximum(n - 1, 0)
    shape = (*ordered.shape[:-1], 1)
    low = tnp.take_along_axis(ordered, np.broadcast_to(np.minimum((n - 1) // 2, top)[..., None], shape), axis=-1)
    high = tnp.take_along_axis(ordered, np.broadcast_to(np.minimum(n // 2, top)[..., None], shape), axis=-1)
    result = (low + high) / 2
    if skip_nan:
        result = tnp.where(np.broadcast_to((n == 0)[..., None], shape), np.nan, result)
    else:
        result = tnp.where(tnp.isnan(ordered[..., -1:]), np.nan, result)
    return _shaped(result, (), keep_shape, keepdims)


@numpy_name
def median(
    a: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False, keepdims: bool = False
) -> EagerTensor:
    """The median along `axis`: the middle sorted entry, or the mean of the middle two."""
    no_out(out)
    return _median(a, axis, keepdims, False)


@numpy_name
def nanmedian(
    a: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False, keepdims: bool = False
) -> EagerTensor:
    """The median of the numbers (nans left out) along `axis`."""
    no_out(out)
    return _median(a, axis, keepdims, True)
