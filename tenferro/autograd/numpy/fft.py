"""``autograd.numpy.fft`` on tenferro: ``tenferro.numpy.fft``, and NumPy's own function for a name
it lacks (run on values that carry no derivative; a tracked array is refused)."""

from typing import Any

import numpy as _np

import tenferro.numpy.fft as _tenferro
from tenferro.numpy.fft import *  # noqa: F403


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        return getattr(_tenferro, name)
    except AttributeError:
        return getattr(_np.fft, name)
