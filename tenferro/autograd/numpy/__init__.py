"""``autograd.numpy`` on tenferro. As in autograd, a function called on values that carry
no derivative is NumPy's own (NumPy arrays in, NumPy arrays out); called on a tracked
tenferro array (inside ``grad``), it is ``tenferro.numpy``'s, which records it. A name
tenferro.numpy lacks is NumPy's own function, which refuses a tracked tenferro array with
an error naming it: no gradient is lost silently (docs/autograd.md)."""

from typing import Any

import numpy as _np

import tenferro.numpy as _tnp

from . import _wrap, fft, linalg, random  # noqa: F401

globals().update(_wrap.namespace(_tnp, _np))


def __getattr__(name: str) -> Any:
    return _wrap.fallback("tenferro.autograd.numpy", _np, name)
