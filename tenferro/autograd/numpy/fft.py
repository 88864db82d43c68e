"""``autograd.numpy.fft`` on tenferro, as ``tenferro.autograd.numpy``: NumPy's function on values
that carry no derivative, ``tenferro.numpy.fft``'s on tracked ones."""

from typing import Any

import numpy as _np

import tenferro.numpy.fft as _tenferro

from . import _wrap

globals().update(_wrap.namespace(_tenferro, _np.fft))


def __getattr__(name: str) -> Any:
    return _wrap.fallback("tenferro.autograd.numpy.fft", _np.fft, name)
