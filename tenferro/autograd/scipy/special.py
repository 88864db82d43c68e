"""``autograd.scipy.special`` on tenferro, as ``tenferro.autograd.numpy``: scipy.special's own
function on values that carry no derivative, ``tenferro.scipy.special``'s on tracked ones;
a name tenferro.scipy.special lacks is scipy's own (it refuses a tracked array)."""

from typing import Any

import scipy.special as _scipy

import tenferro.scipy.special as _tenferro

from ..numpy import _wrap

globals().update(_wrap.namespace(_tenferro, _scipy))


def __getattr__(name: str) -> Any:
    return _wrap.fallback("tenferro.autograd.scipy.special", _scipy, name)
