"""Plugin ``fft``: the discrete Fourier transforms of ``np.fft``, differentiable.

Ops: fft, ifft, rfft, irfft, hfft, ihfft (one axis: ``n``, ``axis``, ``norm``), fftn,
ifftn, rfftn, irfftn (several axes: ``s``, ``axes``, ``norm``), fftshift and ifftshift
(``axes``), and the internal fft_resize (the zero-padding / truncation the transforms apply
for ``n`` and ``s``, its own adjoint). Arguments and results are NumPy 2's: float32 and
complex64 stay single precision; rfft, ihfft and rfftn refuse complex input (as NumPy does);
repeated or empty ``axes`` are refused (NumPy would transform an axis twice).

Every op is linear, and its VJP is its adjoint transform in the real inner product
Re(conj(a)·b) (``transforms.py`` states them; docs/fft.md derives them): derivatives of
any order are exact. The rules use this family's ops and elementwise's ``mul`` and
``real``.

``fftfreq`` and ``rfftfreq`` take integers and return constants, so they are no ops (an op
takes at least one tensor): they are plain functions here, returning NumPy arrays to wrap
with ``rt.constant_from``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tenferro.extend import ArgumentError, PluginRegistrar, hookimpl

from . import shifts, transforms
from .plans import is_int

__all__ = ["fftfreq", "rfftfreq"]


def _freq_args(n: Any, d: Any, name: str) -> tuple[int, Any]:
    if not is_int(n) or n < 1:
        raise ArgumentError(f"{name}: n must be a positive int (the window length), got {n!r}")
    if isinstance(d, bool) or not isinstance(d, (int, float, np.integer, np.floating)):
        raise ArgumentError(f"{name}: d must be a real number (the sample spacing), got {d!r}")
    return int(n), d


def fftfreq(n: int, d: float = 1.0) -> np.ndarray:
    """The sample frequencies of an ``n``-point fft with sample spacing ``d``
    (np.fft.fftfreq): ``[0, 1, ..., ⌈n/2⌉ − 1, −⌊n/2⌋, ..., −1] / (d·n)``, a float64 NumPy
    array (a constant: wrap it with ``rt.constant_from``)."""
    return np.fft.fftfreq(*_freq_args(n, d, "fftfreq"))


def rfftfreq(n: int, d: float = 1.0) -> np.ndarray:
    """The sample frequencies of an ``n``-point rfft with sample spacing ``d``
    (np.fft.rfftfreq): ``[0, 1, ..., n//2] / (d·n)``, a float64 NumPy array (a constant)."""
    return np.fft.rfftfreq(*_freq_args(n, d, "rfftfreq"))


@hookimpl
def tenferro_register_ops(registrar: PluginRegistrar) -> None:
    registrar.requires("elementwise")  # mul (the half spectrum's weights) and real, in the rules
    for spec in (*transforms.SPECS, *shifts.SPECS):
        registrar.add(spec)
