"""NumPy's 1-d signal and calculus functions: ``convolve``/``correlate`` (modes full,
same, valid: one gather of the sliding windows and a product with the kernel),
``interp`` (NumPy's formula slope·(x - xp[j]) + fp[j], differentiable in x, xp and fp),
``gradient`` and ``trapezoid`` (NumPy's difference formulas), ``unwrap`` (its phase
corrections, whose derivative is 0, added to p)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import numpy as tnp
from ..core.eager import EagerTensor
from ..core.errors import ArgumentError
from ._composed import numpy_name, values

__all__ = ["convolve", "correlate", "gradient", "interp", "trapezoid", "unwrap"]


def _array(a: Any) -> EagerTensor:
    return a if type(a) is EagerTensor else tnp.asarray(a)


def _full(a: EagerTensor, v: EagerTensor) -> EagerTensor:
    """The full convolution of the 1-d a (n) and v (m): out[k] = sum_j a[k - j]·v[j]."""
    n, m = a.shape[0], v.shape[0]
    padded = tnp.concat([tnp.zeros((m - 1,), dtype=a.dtype), a, tnp.zeros((m - 1,), dtype=a.dtype)], axis=0)
    windows = tnp.take(padded, np.arange(n + m - 1)[:, None] + np.arange(m)[None, :], axis=0)
    return tnp.matmul(windows, tnp.flip(v, axis=0))


def _moded(a: Any, v: Any, mode: str) -> tuple[EagerTensor, EagerTensor, Any]:
    a, v = _array(a), _array(v)
    if a.ndim != 1 or v.ndim != 1:
        raise ArgumentError(f"a and v must be 1-d, got shapes {list(a.shape)} and {list(v.shape)}")
    if a.shape[0] == 0 or v.shape[0] == 0:
        raise ArgumentError("a and v must not be empty")
    if mode not in ("full", "same", "valid"):
        raise ArgumentError(f"argument 'mode' is {mode!r}; pass 'full', 'same' or 'valid'")
    return a, v, mode


def _cut(full: EagerTensor, n: int, m: int, mode: str) -> EagerTensor:
    if mode == "full":
        return full
    long, short = max(n, m), min(n, m)
    if mode == "same":
        start = (short - 1) // 2
        return full[start : start + long]
    return full[short - 1 : long]


@numpy_name
def convolve(a: Any, v: Any, mode: str = "full") -> EagerTensor:
    """The discrete linear convolution of the 1-d a and v: 'full' (length n + m - 1),
    'same' (length max(n, m), centred) or 'valid' (where they overlap fully)."""
    a, v, mode = _moded(a, v, mode)
    if v.shape[0] > a.shape[0]:
        a, v = v, a
    return _cut(_full(a, v), a.shape[0], v.shape[0], mode)


@numpy_name
def correlate(a: Any, v: Any, mode: str = "valid") -> EagerTensor:
    """The cross-correlation c[k] = sum_n a[n + k]·conj(v[n]) of the 1-d a and v, as
    NumPy's correlate (mode 'valid' by default)."""
    a, v, mode = _moded(a, v, mode)
    flipped = tnp.flip(tnp.conj(v) if v.dtype.kind == "c" else v, axis=0)
    n, m = a.shape[0], v.shape[0]
    if mode == "same" and m > n:  # NumPy correlates v with a and reverses: its window sits one later
        start = (n - 1) - (n - 1) // 2
        return _full(flipped, a)[start : start + m]
    return convolve(a, flipped, mode)


@numpy_name
def interp(x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None, period: Any = None) -> EagerTensor:
    """The piecewise-linear interpolant of the points (xp, fp) (xp increasing) at x,
    fp[0] (or `left`) below xp[0] and fp[-1] (or `right`) above xp[-1]; with `period`,
    x and xp taken modulo it."""
    x, xp, fp = _array(x), _array(xp), _array(fp)
    if xp.ndim != 1 or fp.ndim != 1 or xp.shape != fp.shape or xp.shape[0] == 0:
        raise ArgumentError("xp and fp must be 1-d arrays of the same non-zero length")
    x, xp = _float(x), _float(xp)
    fp = fp if fp.dtype.kind in "fc" else tnp.astype(fp, np.float64)
    if period is not None:
        if period == 0:
            raise ArgumentError("argument 'period' must be nonzero")
        period = abs(period)
        left = right = None
        x, xp = tnp.remainder(x, period), tnp.remainder(xp, period)
        order = np.argsort(values(xp), kind="stable")
        xp, fp = tnp.take(xp, order), tnp.take(fp, order)
        xp = tnp.concat([xp[-1:] - period, xp, xp[0:1] + period], axis=0)
        fp = tnp.concat([fp[-1:], fp, fp[0:1]], axis=0)
    n = xp.shape[0]
    if n == 1:
        inside = tnp.broadcast_to(fp[0], x.shape)
    else:
        j = np.clip(np.searchsorted(values(xp), values(x), side="right") - 1, 0, n - 2)
        x0, x1 = tnp.take(xp, j), tnp.take(xp, j + 1)
        f0, f1 = tnp.take(fp, j), tnp.take(fp, j + 1)
        slope = (f1 - f0) / (x1 - x0)
        inside = slope * (x - x0) + f0
        inside = tnp.where(tnp.isnan(inside), slope * (x - x1) + f1, inside)
        inside = tnp.where(x == xp[-1], fp[-1], inside)
    below = fp[0] if left is None else left
    above = fp[-1] if right is None else right
    return tnp.where(x < xp[0], below, tnp.where(x > xp[-1], above, inside))


def _float(x: EagerTensor) -> EagerTensor:
    return x if x.dtype == np.float64 else tnp.astype(x, np.float64)


def _slicer(ndim: int, axis: int) -> Any:
    def at(index: Any) -> tuple[Any, ...]:
        key = [slice(None)] * ndim
        key[axis] = index
        return tuple(key)

    return at


@numpy_name
def gradient(f: Any, *varargs: Any, axis: Any = None, edge_order: int = 1) -> Any:
    """The gradient of the sampled f by NumPy's second-order central differences inside
    and one-sided differences of `edge_order` (1 or 2) at the ends, with spacings
    `varargs` (a scalar per axis, or the coordinates); one array per axis (one array for
    one axis)."""
    f = _array(f)
    if f.dtype.kind not in "fc":
        f = tnp.astype(f, np.float64)
    axes = list(range(f.ndim)) if axis is None else [int(a) % f.ndim for a in np.atleast_1d(axis)]
    if edge_order not in (1, 2):
        raise ArgumentError(f"argument 'edge_order' is {edge_order!r}; pass 1 or 2")
    if len(varargs) == 0:
        spacings = [1.0] * len(axes)
    elif len(varargs) == 1 and np.ndim(values(varargs[0])) == 0:
        spacings = [_spacing(varargs[0])] * len(axes)
    elif len(varargs) == len(axes):
        spacings = [_spacing(v) if np.ndim(values(v)) == 0 else _coordinates(v) for v in varargs]
    else:
        raise ArgumentError("varargs must be one spacing, or one spacing or coordinate array per axis")
    results = [_along(f, axis, spacing, edge_order) for axis, spacing in zip(axes, spacings, strict=True)]
    return results[0] if len(results) == 1 else tuple(results)


def _spacing(h: Any) -> Any:
    """A uniform spacing: a tensor as it is (the gradient divides by it, so it records), else a float."""
    return h if type(h) is EagerTensor and h.dtype.kind == "f" else float(values(h))


def _coordinates(x: Any) -> np.ndarray:
    if type(x) is EagerTensor and x.tracks_grad():
        raise ArgumentError("coordinate arrays are read as numbers; a tracked one would lose its gradient")
    return np.asarray(values(x), dtype=np.float64)


def _along(f: EagerTensor, axis: int, spacing: Any, edge_order: int) -> EagerTensor:
    n = f.shape[axis]
    if n < edge_order + 1:
        raise ArgumentError(
            f"an axis of {n} samples is too short for edge_order {edge_order}; it needs {edge_order + 1}"
        )
    at = _slicer(f.ndim, axis)
    shape = [1] * f.ndim
    shape[axis] = -1
    uniform = type(spacing) is EagerTensor or np.ndim(spacing) == 0
    if not uniform:
        if spacing.shape != (n,):
            raise ArgumentError(f"a coordinate array has shape {list(spacing.shape)}; it must match the axis ({n})")
        dx = np.diff(spacing)
        if np.all(dx == dx[0]):
            uniform, spacing = True, float(dx[0])
    if uniform:
        inner = (f[at(slice(2, None))] - f[at(slice(None, -2))]) / (2.0 * spacing)
        if edge_order == 1:
            first = (f[at(slice(1, 2))] - f[at(slice(0, 1))]) / spacing
            last = (f[at(slice(-1, None))] - f[at(slice(-2, -1))]) / spacing
        else:
            a, b, c = -1.5 / spacing, 2.0 / spacing, -0.5 / spacing
            first = a * f[at(slice(0, 1))] + b * f[at(slice(1, 2))] + c * f[at(slice(2, 3))]
            a, b, c = 0.5 / spacing, -2.0 / spacing, 1.5 / spacing
            last = a * f[at(slice(-3, -2))] + b * f[at(slice(-2, -1))] + c * f[at(slice(-1, None))]
    else:
        dx1, dx2 = dx[:-1], dx[1:]
        a = (-(dx2) / (dx1 * (dx1 + dx2))).reshape(shape)
        b = ((dx2 - dx1) / (dx1 * dx2)).reshape(shape)
        c = (dx1 / (dx2 * (dx1 + dx2))).reshape(shape)
        inner = a * f[at(slice(None, -2))] + b * f[at(slice(1, -1))] + c * f[at(slice(2, None))]
        if edge_order == 1:
            first = (f[at(slice(1, 2))] - f[at(slice(0, 1))]) / dx[0]
            last = (f[at(slice(-1, None))] - f[at(slice(-2, -1))]) / dx[-1]
        else:
            d1, d2 = dx[0], dx[1]
            a, b, c = -(2.0 * d1 + d2) / (d1 * (d1 + d2)), (d1 + d2) / (d1 * d2), -d1 / (d2 * (d1 + d2))
            first = a * f[at(slice(0, 1))] + b * f[at(slice(1, 2))] + c * f[at(slice(2, 3))]
            d1, d2 = dx[-2], dx[-1]
            a, b, c = d2 / (d1 * (d1 + d2)), -(d2 + d1) / (d1 * d2), (2.0 * d2 + d1) / (d2 * (d1 + d2))
            last = a * f[at(slice(-3, -2))] + b * f[at(slice(-2, -1))] + c * f[at(slice(-1, None))]
    return tnp.concat([first, inner, last], axis=axis)


@numpy_name
def trapezoid(y: Any, x: Any = None, dx: float = 1.0, axis: int = -1) -> EagerTensor:
    """The integral of the samples y along `axis` by the trapezoidal rule, at the points
    x (or spaced dx): sum(d·(y[1:] + y[:-1]) / 2), differentiable in y and x."""
    y = _array(y)
    axis = int(axis) % y.ndim
    at = _slicer(y.ndim, axis)
    if x is None:
        d = dx
    else:
        x = _array(x)
        d = tnp.diff(x, axis=-1 if x.ndim == 1 else axis)
        if x.ndim == 1:
            shape = [1] * y.ndim
            shape[axis] = d.shape[0]
            d = tnp.reshape(d, tuple(shape))
    return tnp.sum(d * (y[at(slice(1, None))] + y[at(slice(None, -1))]) / 2.0, axis=axis)


@numpy_name
def unwrap(p: Any, discont: Any = None, axis: int = -1, *, period: float = 2 * math.pi) -> EagerTensor:
    """p with the jumps between neighbours larger than `discont` (default period/2)
    removed by adding multiples of `period`, as NumPy's unwrap; the corrections are
    constants of its derivative, so the gradient is p's."""
    p = _array(p)
    if p.dtype.kind not in "f":
        p = tnp.astype(p, np.float64)
    axis = int(axis) % p.ndim
    dd = tnp.diff(p, axis=axis)
    if discont is None:
        discont = period / 2
    high = period / 2
    low = -high
    ddmod = tnp.remainder(dd - low, period) + low
    ddmod = tnp.where((ddmod == low) & (dd > 0), high, ddmod)
    correction = tnp.where(tnp.abs(dd) < discont, 0.0, ddmod - dd)
    at = _slicer(p.ndim, axis)
    return tnp.concat([p[at(slice(0, 1))], p[at(slice(1, None))] + tnp.cumsum(correction, axis=axis)], axis=axis)
