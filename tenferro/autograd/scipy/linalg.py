"""``autograd.scipy.linalg`` on tenferro, as ``tenferro.autograd.numpy``: scipy.linalg's own
function on values that carry no derivative, ``tenferro.scipy.linalg``'s on tracked ones
(autograd's sqrtm, solve_triangular and solve_sylvester among them); a name
tenferro.scipy.linalg lacks is scipy's own (it refuses a tracked array)."""

from typing import Any

import scipy.linalg as _scipy

import tenferro.scipy.linalg as _tenferro

from ..numpy import _wrap

globals().update(_wrap.namespace(_tenferro, _scipy))


def __getattr__(name: str) -> Any:
    return _wrap.fallback("tenferro.autograd.scipy.linalg", _scipy, name)
