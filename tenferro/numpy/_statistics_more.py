"""NumPy's statistics beyond the array API's: ``average`` (weighted), ``ptp``, ``cov``
and ``corrcoef``, written as NumPy computes them (the same sums, products and division
order) from tnp calls, so their values are NumPy's and they differentiate in the data
and in the weights."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import numpy as tnp
from ..core.eager import EagerTensor
from ..core.errors import ArgumentError
from ._aliases import array, no_out
from ._composed import numpy_name, values

__all__ = ["average", "corrcoef", "cov", "ptp"]


def _array(a: Any) -> EagerTensor:
    return a if type(a) is EagerTensor else tnp.asarray(a)


def _inexact(x: EagerTensor) -> EagerTensor:
    return x if x.dtype.kind in "fc" else tnp.astype(x, np.float64)


@numpy_name
def average(a: Any, axis: Any = None, weights: Any = None, returned: bool = False, *, keepdims: bool = False) -> Any:
    """The weighted mean sum(a·w)/sum(w) along `axis` (the mean without weights); a 1-d
    `weights` lies along the one `axis`. ``returned=True``: also the sum of the weights."""
    x = _inexact(_array(a))
    if weights is None:
        avg = tnp.mean(x, axis=axis, keepdims=keepdims)
        if not returned:
            return avg
        scale = x.size / max(avg.size, 1)
        return avg, tnp.full(avg.shape, scale, dtype=avg.dtype)
    w = _array(weights)
    if w.shape != x.shape:
        if axis is None:
            raise ArgumentError("argument 'weights' differs from a in shape; pass axis for 1-d weights")
        if w.ndim != 1 or not isinstance(axis, int):
            raise ArgumentError("argument 'weights' must have a's shape, or be 1-d along the one axis given")
        if w.shape[0] != x.shape[axis]:
            raise ArgumentError("argument 'weights' has a length different from a's along axis")
        w = tnp.moveaxis(tnp.reshape(w, (w.shape[0],) + (1,) * (x.ndim - 1)), 0, axis)
        w = tnp.broadcast_to(w, x.shape)
    dtype = np.result_type(x.dtype, w.dtype, np.float64 if w.dtype.kind in "iub" else w.dtype)
    w = tnp.astype(w, dtype) if w.dtype != dtype else w
    scale = tnp.sum(w, axis=axis, keepdims=keepdims)
    if not np.all(values(scale) != 0):
        raise ArgumentError("argument 'weights' sums to zero, which has no average")
    avg = tnp.sum(x * w, axis=axis, keepdims=keepdims) / scale
    return (avg, tnp.broadcast_to(scale, avg.shape)) if returned else avg


@numpy_name
def ptp(a: Any, axis: Any = None, out: Any = None, keepdims: bool = False) -> EagerTensor:
    """The range max - min along `axis`."""
    no_out(out)
    x = _array(a)
    return tnp.max(x, axis=axis, keepdims=keepdims) - tnp.min(x, axis=axis, keepdims=keepdims)


@numpy_name
def cov(
    m: Any,
    y: Any = None,
    rowvar: bool = True,
    bias: bool = False,
    ddof: int | None = None,
    fweights: Any = None,
    aweights: Any = None,
    *,
    dtype: Any = None,
) -> EagerTensor:
    """The covariance matrix of the variables in the rows of ``m`` (columns if not
    `rowvar`), ``y``'s appended, normalised by N - ddof (ddof 1, or 0 with `bias`), with
    frequency and analytic weights, as NumPy's cov."""
    x = array(m, ndmin=2)
    dtype = np.result_type(x.dtype, np.float64) if dtype is None else np.dtype(dtype)
    x = tnp.astype(x, dtype) if x.dtype != dtype else x
    if not rowvar and x.shape[0] != 1:
        x = tnp.transpose(x)
    if y is not None:
        other = array(y, ndmin=2)
        if not rowvar and other.shape[0] != 1:
            other = tnp.transpose(other)
        x = tnp.concat([x, tnp.astype(other, dtype)], axis=0)
    if ddof is None:
        ddof = 0 if bias else 1
    w = None
    if fweights is not None:
        f = np.asarray(fweights, dtype=np.float64)
        if f.ndim != 1 or f.shape[0] != x.shape[1] or np.any(f < 0) or np.any(f != np.around(f)):
            raise ArgumentError("argument 'fweights' must be non-negative integers, one per observation")
        w = tnp.asarray(f)
    if aweights is not None:
        aw = _array(aweights)
        if aw.ndim != 1 or aw.shape[0] != x.shape[1]:
            raise ArgumentError("argument 'aweights' must be 1-d, one per observation")
        aw = tnp.astype(aw, np.float64) if aw.dtype.kind != "f" else aw
        w = aw if w is None else w * aw
    avg, w_sum = average(x, axis=1, weights=None if w is None else tnp.broadcast_to(w, x.shape), returned=True)
    w_sum = w_sum[0]
    if w is None:
        fact = x.shape[1] - ddof
    elif ddof == 0:
        fact = w_sum
    elif aweights is None:
        fact = w_sum - ddof
    else:
        fact = w_sum - ddof * tnp.sum(w * aw) / w_sum
    centred = x - avg[:, None]
    weighted = tnp.transpose(centred if w is None else centred * w)
    c = tnp.matmul(centred, tnp.conj(weighted) if weighted.dtype.kind == "c" else weighted)
    c = c * (1 / fact)
    return tnp.squeeze(c, axis=tuple(i for i, n in enumerate(c.shape) if n == 1)) if 1 in c.shape else c


@numpy_name
def corrcoef(x: Any, y: Any = None, rowvar: bool = True, *, dtype: Any = None) -> EagerTensor:
    """The correlation coefficients cov / (std_i·std_j), clipped to [-1, 1] as NumPy's."""
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        return c / c
    stddev = tnp.sqrt(tnp.real(tnp.linalg.diagonal(c)) if c.dtype.kind == "c" else tnp.linalg.diagonal(c))
    c = c / stddev[:, None]
    c = c / stddev[None, :]
    if c.dtype.kind == "c":
        return tnp.clip(tnp.real(c), -1, 1) + tnp.clip(tnp.imag(c), -1, 1) * 1j
    return tnp.clip(c, -1, 1)
