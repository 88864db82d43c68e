"""``autograd.scipy.signal`` on tenferro: autograd's ``convolve(A, B, axes=None,
dot_axes=None, mode='full')``, which convolves over the paired ``axes``, sums over the
paired ``dot_axes`` and takes the outer product over the rest (result axes: A's others,
B's others, the convolved ones), differentiable to any order; NumPy arrays out on values
that carry no derivative, as autograd's. scipy.signal's own names (``correlate``,
``convolve2d``, ...) are ``tenferro.scipy.signal``'s on tracked arrays, scipy's otherwise."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import scipy.signal as _scipy

import tenferro.scipy.signal as _tenferro

from ...core.eager import holds_tracked
from ...core.errors import ArgumentError, ShapeMismatch
from ...numpy._composed import values
from ...numpy._dispatch import as_array, runtime_of
from ..numpy import _wrap

globals().update(_wrap.namespace(_tenferro, _scipy))

_NAME = "tenferro.autograd.scipy.signal.convolve"


def convolve(
    A: Any,
    B: Any,
    axes: Sequence[Sequence[int]] | None = None,
    dot_axes: Sequence[Sequence[int]] | None = None,
    mode: str = "full",
) -> Any:
    """autograd's convolve: the direct convolution of A and B over ``axes`` (a pair of
    axis lists; None: every axis of A with the same of B), summed over ``dot_axes`` (a
    pair), outer over the other axes; ``mode`` 'full', 'same' (A's sizes, centred as
    scipy's) or 'valid' (B no larger than A on every convolved axis, or no smaller)."""
    rt = runtime_of((A, B))
    plain = not holds_tracked((A, B))
    a, b = as_array(rt, A, _NAME, "A"), as_array(rt, B, _NAME, "B")
    mode = _tenferro.choice(_NAME, "mode", mode, _tenferro.MODES)
    axes = (tuple(range(a.ndim)), tuple(range(a.ndim))) if axes is None else axes
    conv_a, conv_b = (_axes(axes[0], a.ndim, "axes"), _axes(axes[1], b.ndim, "axes")) if len(axes) == 2 else ((), ())
    dot_axes = ((), ()) if dot_axes is None else dot_axes
    dot_a, dot_b = _axes(dot_axes[0], a.ndim, "dot_axes"), _axes(dot_axes[1], b.ndim, "dot_axes")
    if len(axes) != 2 or len(conv_a) != len(conv_b) or len(dot_a) != len(dot_b) or set(conv_a) & set(dot_a):
        raise ArgumentError(
            f"{_NAME}: axes and dot_axes must each be a pair of axis lists of equal length, disjoint, got "
            f"axes={axes!r}, dot_axes={dot_axes!r}",
            argument="axes",
        )
    n, m = [a.shape[i] for i in conv_a], [b.shape[i] for i in conv_b]
    if any(a.shape[i] != b.shape[j] for i, j in zip(dot_a, dot_b)):
        raise ShapeMismatch(f"{_NAME}: the dot_axes of A and B differ in size", argument="dot_axes")
    start, size = _tenferro.window(_NAME, mode, n, m, names=("A", "B"))
    out = _tenferro.windowed(a, b, (conv_a, conv_b), (dot_a, dot_b), start, size)
    return np.asarray(values(out)).copy() if plain else out


def _axes(value: Any, ndim: int, name: str) -> tuple[int, ...]:
    try:
        axes = tuple(int(i) for i in value)
    except TypeError:
        raise ArgumentError(
            f"{_NAME}: argument {name!r} must be a pair of axis lists, got {value!r}", argument=name
        ) from None
    if any(not -ndim <= i < ndim for i in axes):
        raise ArgumentError(
            f"{_NAME}: argument {name!r} has an axis out of range for {ndim} axes: {value!r}", argument=name
        )
    axes = tuple(i % ndim for i in axes)
    if len(set(axes)) != len(axes):
        raise ArgumentError(f"{_NAME}: argument {name!r} names an axis twice: {value!r}", argument=name)
    return axes


def __getattr__(name: str) -> Any:
    return _wrap.fallback("tenferro.autograd.scipy.signal", _scipy, name)
