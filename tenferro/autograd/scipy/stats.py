"""``autograd.scipy.stats`` on tenferro: a module per distribution (``from
tenferro.autograd.scipy.stats import norm``, ``tenferro.autograd.scipy.stats.norm.logpdf``),
each function scipy.stats's own on values that carry no derivative and
``tenferro.scipy.stats``'s on tracked ones, as ``tenferro.autograd.numpy`` calls NumPy's; a
name tenferro lacks (``norm.rvs``) is scipy's own, refusing a tracked array."""

from __future__ import annotations

import sys
import types
from typing import Any

import scipy.stats as _scipy

import tenferro.scipy.stats as _tenferro

from ..numpy import _wrap


def _distribution(name: str) -> types.ModuleType:
    ours, theirs = getattr(_tenferro, name), getattr(_scipy, name)
    made = types.ModuleType(f"{__name__}.{name}", ours.__doc__)
    vars(made).update(_wrap.namespace(ours, theirs))

    def fallback(attribute: str) -> Any:
        return _wrap.fallback(made.__name__, theirs, attribute)

    made.__getattr__ = fallback  # type: ignore[method-assign]  # PEP 562: scipy's own for the rest
    sys.modules[made.__name__] = made
    return made


globals().update({name: _distribution(name) for name in _tenferro.__all__})
__all__ = list(_tenferro.__all__)
