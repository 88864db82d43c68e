"""``autograd.numpy.linalg`` on tenferro, as ``tenferro.autograd.numpy``: NumPy's function on values
that carry no derivative, ``tenferro.numpy.linalg``'s on tracked ones."""

from typing import Any

import numpy as _np

import tenferro.numpy.linalg as _tenferro

from . import _wrap

globals().update(_wrap.namespace(_tenferro, _np.linalg))


def __getattr__(name: str) -> Any:
    return _wrap.fallback("tenferro.autograd.numpy.linalg", _np.linalg, name)
