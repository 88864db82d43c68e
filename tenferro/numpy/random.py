"""``tnp.random``: NumPy's random module as it is, as ``autograd.numpy.random`` is:
random numbers are data, not functions of anything differentiated, so they are NumPy
arrays (which every tnp function takes as constants), drawn from NumPy's own generators
and global state (``tnp.random.seed(0)`` is ``np.random.seed(0)``)."""

from typing import Any

import numpy as _np

__all__ = [name for name in dir(_np.random) if not name.startswith("_")]


def __getattr__(name: str) -> Any:
    return getattr(_np.random, name)


def __dir__() -> list[str]:
    return __all__
