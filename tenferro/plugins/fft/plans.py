"""Reading the static arguments of the transforms: ``n``/``axis`` and ``s``/``axes`` as
NumPy 2 reads them, ``norm``, and the adjoint's norm.

Every error names the op and the argument. A plan is the list of transformed axes with the
length of each transform (after NumPy's zero-padding or truncation of the input): the
kernels hand NumPy explicit ``s`` and ``axes`` (so NumPy 2's deprecated ``s`` without
``axes`` warns nowhere), and the rules read the same plan from the input's shape.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from tenferro.extend import ArgumentError, AxisError

#: (axes, transform lengths) of a transform over several axes.
Plan = tuple[tuple[int, ...], tuple[int, ...]]

NORMS = (None, "backward", "ortho", "forward")

#: The norm of the adjoint transform. ``backward`` scales the inverse by 1/n, ``forward``
#: the forward transform, ``ortho`` both by 1/√n; the DFT matrix W is symmetric, so the
#: adjoint of c·W is c·conj(W): the inverse transform with the same factor c, which is the
#: inverse with the other norm. (NumPy's ``hfft``/``ihfft`` swap directions the same way.)
DUAL = {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}


def is_int(value: Any) -> bool:
    """A Python or NumPy integer, not a bool."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def check_norm(norm: Any, op: str) -> None:
    if not isinstance(norm, (str, type(None))) or norm not in NORMS:
        raise ArgumentError(f"{op}: norm must be 'backward' (or None), 'ortho' or 'forward', got {norm!r}")


def _axis(axis: Any, ndim: int, op: str, name: str = "axis") -> int:
    if not is_int(axis):
        raise AxisError(f"{op}: {name} must be an int, got {axis!r}")
    if not -ndim <= axis < ndim:
        raise AxisError(
            f"{op}: {name} {int(axis)} is out of range for a tensor with {ndim} dims (valid: {-ndim}..{ndim - 1})"
        )
    return int(axis) % ndim


def _length(n: Any, default: int, op: str, name: str, axis: int, size: int, real_output: bool) -> int:
    """The transform length ``n`` (None: ``default``), a positive int; an entry -1 of ``s``
    is the input's length (NumPy's: also along irfftn's last axis)."""
    if name == "s" and is_int(n) and n == -1:
        n = size
        if n < 1:
            raise ArgumentError(f"{op}: s asks for the input's length along axis {axis}, which is 0; give a size")
    if n is None:
        if default < 1:
            given = f"{name}" if name == "n" else f"{name}'s entry for axis {axis}"
            rule = f"2·({size} - 1) = {default}" if real_output else f"{size}"
            raise ArgumentError(
                f"{op}: the transform length along axis {axis} defaults to {rule} points for an input of "
                f"length {size} there; give a positive {given}"
            )
        return default
    if not is_int(n) or n < 1:
        what = "n" if name == "n" else f"every entry of {name}"
        raise ArgumentError(f"{op}: {what} must be a positive int (or None), got {n!r}")
    return int(n)


def plan_1d(op: str, shape: tuple[int, ...], n: Any, axis: Any, real_output: bool) -> tuple[int, int]:
    """``(axis, n)`` of a one-axis transform of an input of ``shape``; ``real_output`` for the
    transforms whose result is real (irfft, hfft: n defaults to 2·(m − 1))."""
    try:
        return _plan_1d(op, tuple(shape), n, axis, real_output)
    except TypeError:  # an unhashable n or axis: the uncached call says what is wrong
        return _plan_1d.__wrapped__(op, tuple(shape), n, axis, real_output)


@functools.lru_cache(maxsize=1024)
def _plan_1d(op: str, shape: tuple[int, ...], n: Any, axis: Any, real_output: bool) -> tuple[int, int]:
    ndim = len(shape)
    if ndim == 0:
        raise AxisError(f"{op}: a 0-d tensor has no axis to transform; give at least a 1-d tensor")
    a = _axis(axis, ndim, op)
    default = 2 * (shape[a] - 1) if real_output else shape[a]
    return a, _length(n, default, op, "n", a, shape[a], real_output)


def plan_nd(op: str, shape: tuple[int, ...], s: Any, axes: Any, real_output: bool) -> Plan:
    """``(axes, s)`` of a transform over several axes, in the order given: ``axes`` None
    means the last ``len(s)`` axes (all axes without ``s``, as NumPy); an entry -1 of ``s``
    keeps the input's length, None the one-axis transform's default (the input's length, or
    2·(m − 1) along irfftn's last axis; NumPy 2 deprecates None there). The real
    output's half-spectrum axis is the last of ``axes``."""
    s, axes = (tuple(v) if isinstance(v, list) else v for v in (s, axes))  # hashable, for the cache
    try:
        return _plan_nd(op, tuple(shape), s, axes, real_output)
    except TypeError:  # unhashable entries: the uncached call says what is wrong
        return _plan_nd.__wrapped__(op, tuple(shape), s, axes, real_output)


@functools.lru_cache(maxsize=1024)
def _plan_nd(op: str, shape: tuple[int, ...], s: Any, axes: Any, real_output: bool) -> Plan:
    ndim = len(shape)
    if s is not None:
        sizes = (s,) if is_int(s) else s
        if not isinstance(sizes, (tuple, list)):
            raise ArgumentError(f"{op}: s must be None or a sequence of positive ints, got {s!r}")
    if axes is None:
        count = ndim if s is None else len(sizes)
        if count > ndim:
            raise ArgumentError(f"{op}: s {s!r} has {count} entries for a tensor with {ndim} dims")
        chosen = tuple(range(ndim - count, ndim))
    else:
        items = (axes,) if is_int(axes) else axes
        if not isinstance(items, (tuple, list)):
            raise AxisError(f"{op}: axes must be None, an int or a sequence of ints, got {axes!r}")
        chosen = tuple(_axis(a, ndim, op, "axes entry") for a in items)
        if len(set(chosen)) != len(chosen):
            raise AxisError(
                f"{op}: axes {axes!r} name the same axis twice; transform it once per call (NumPy would "
                f"transform it twice, which a second call does too)"
            )
    if not chosen:
        raise AxisError(f"{op}: axes is empty; name at least one axis to transform")
    if s is not None and len(sizes) != len(chosen):
        raise ArgumentError(f"{op}: s {s!r} and axes {axes!r} must have the same length")
    lengths = []
    for i, a in enumerate(chosen):
        real_axis = real_output and i == len(chosen) - 1
        default = 2 * (shape[a] - 1) if real_axis else shape[a]
        lengths.append(_length(None if s is None else sizes[i], default, op, "s", a, shape[a], real_axis))
    return chosen, tuple(lengths)


def resized(shape: tuple[int, ...], axes: tuple[int, ...], sizes: tuple[int, ...]) -> tuple[int, ...]:
    """``shape`` with ``axes`` set to ``sizes``."""
    out = list(shape)
    for a, n in zip(axes, sizes):
        out[a] = n
    return tuple(out)


@functools.lru_cache(maxsize=256)
def weights(n: int, axis: int, ndim: int, double: bool, dtype: np.dtype) -> np.ndarray:
    """The bins of a half spectrum of ``n`` points (n//2 + 1 of them) that stand for two
    bins of the full spectrum, weighted: ``double`` gives 2 there and 1 at DC (and at the
    Nyquist bin for an even n), else 1/2 there and 1 at DC and Nyquist. Shaped to broadcast
    along ``axis`` of a tensor with ``ndim`` dims."""
    bins = n // 2 + 1
    w = np.full(bins, 2.0 if double else 0.5, dtype=dtype)
    w[0] = 1.0
    if n % 2 == 0:
        w[-1] = 1.0
    shape = [1] * ndim
    shape[axis] = bins
    w = w.reshape(shape)
    w.setflags(write=False)
    return w
