"""``fftshift`` and ``ifftshift``: the zero-frequency bin moved to the centre and back.

Each is a roll by ⌊n/2⌋ (ifftshift: by −⌊n/2⌋) along each of ``axes``; a roll is a
permutation, whose adjoint is its inverse, so each op's VJP is the other op.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tenferro.extend import AxisError, ErrorInput, OpSpec

from .plans import is_int
from .transforms import lazy


def shift_axes(axes: Any, ndim: int, op: str) -> Any:
    """``axes`` checked: None (all axes), an int or a sequence of ints in range. As in NumPy,
    an axis named twice is shifted twice."""
    if ndim == 0:
        raise AxisError(f"{op}: a 0-d tensor has no axis to shift; give at least a 1-d tensor")
    if axes is None:
        return None
    items = (axes,) if is_int(axes) else axes
    if not isinstance(items, (tuple, list)) or not all(is_int(a) for a in items):
        raise AxisError(f"{op}: axes must be None, an int or a sequence of ints, got {axes!r}")
    for a in items:
        if not -ndim <= a < ndim:
            raise AxisError(
                f"{op}: axis {int(a)} is out of range for a tensor with {ndim} dims (valid: {-ndim}..{ndim - 1})"
            )
    return tuple(int(a) for a in items)


def _spec(name: str, other: str, transform: Any, doc: str) -> OpSpec:
    def forward(x: Any, axes: Any = None) -> Any:
        return transform(x, shift_axes(axes, np.ndim(x), name))

    return OpSpec(
        name=name,
        inputs=("x",),
        params={"axes": None},
        forward=forward,
        vjps=(lambda s, g, out, x, axes: getattr(s, other)(g, axes),),
        linear=True,
        accepts="biufc",
        sample=lazy("shift"),
        reference=lambda x, axes=None: transform(np.asarray(x), axes),
        error_inputs=lambda: [
            ErrorInput((np.zeros((2, 3)),), {"axes": 2}, AxisError, "axis 2 is out of range for a tensor with 2 dims"),
            ErrorInput((np.zeros((2, 3)),), {"axes": 0.5}, AxisError, "axes must be None, an int"),
            ErrorInput((np.zeros(()),), {}, AxisError, "a 0-d tensor has no axis"),
        ],
        doc=doc,
    )


SPECS = [
    _spec(
        "fftshift",
        "ifftshift",
        np.fft.fftshift,
        "x rolled by n//2 along each of `axes` (None: all), moving the zero-frequency bin to the "
        "centre (np.fft.fftshift). Its adjoint is ifftshift.",
    ),
    _spec(
        "ifftshift",
        "fftshift",
        np.fft.ifftshift,
        "The inverse of fftshift: x rolled by -(n//2) along each of `axes` (None: all) "
        "(np.fft.ifftshift). Its adjoint is fftshift.",
    ),
]
