"""``autograd.numpy`` on tenferro: ``tenferro.numpy``'s functions, and for a name it lacks,
NumPy's own function. NumPy's functions run on values that carry no derivative (NumPy
arrays, constants) and refuse a tracked tenferro array with an error that names the
function, so a name tenferro.numpy lacks never loses a gradient silently."""

from typing import Any

import numpy as _np

import tenferro.numpy as _tnp
from tenferro.numpy import *  # noqa: F403

from . import fft, linalg, random  # noqa: F401


def __getattr__(name: str) -> Any:
    """tenferro.numpy's name, else NumPy's (see the module's doc)."""
    if name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        return getattr(_tnp, name)
    except AttributeError:
        pass
    try:
        return getattr(_np, name)
    except AttributeError:
        raise AttributeError(
            f"tenferro.autograd.numpy has no {name!r} (neither tenferro.numpy nor NumPy has it)"
        ) from None
