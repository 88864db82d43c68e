"""``autograd.scipy.integrate`` on tenferro: autograd's ``odeint(func, y0, t, args=(),
**kwargs)``, scipy.integrate.odeint's signature, differentiable in y0, t and args by the
adjoint method (``tenferro.scipy.integrate.odeint``). NumPy arrays out on values that
carry no derivative, as autograd's."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

import tenferro.scipy.integrate as _tenferro

from ...core.eager import holds_tracked
from ...core.errors import ArgumentError
from ...numpy._composed import values

_NAME = "tenferro.autograd.scipy.integrate.odeint"
#: scipy.integrate.odeint's keywords this odeint passes on (scipy's names).
_KEYWORDS = ("rtol", "atol", "mxstep", "hmax")


def odeint(func: Callable[..., Any], y0: Any, t: Any, args: Any = (), **kwargs: Any) -> Any:
    """The solution of dy/dt = func(y, t, *args) at the times t, as
    scipy.integrate.odeint (and autograd's) returns it: shape (len(t), len(y0)).
    ``rtol``, ``atol``, ``mxstep`` (0: LSODA's default, 500) and ``hmax`` (0: no bound)
    are scipy's; its other keywords (Dfun, full_output, tfirst, ...) are refused."""
    unknown = sorted(set(kwargs) - set(_KEYWORDS))
    if unknown:
        raise ArgumentError(
            f"{_NAME}: keyword(s) {', '.join(map(repr, unknown))} are not supported; rtol, atol, mxstep and hmax "
            f"are (scipy's meanings)",
            argument=unknown[0],
        )
    if not isinstance(args, tuple):
        args = (args,)  # scipy's own rule: a single extra argument
    options = dict(kwargs)
    if options.get("mxstep") == 0:
        options["mxstep"] = 500  # LSODA's default
    if options.get("hmax") == 0:
        options["hmax"] = math.inf
    plain = not holds_tracked((y0, t, args))
    out = _tenferro.odeint(func, y0, t, *args, **options)
    return np.asarray(values(out)).copy() if plain else out
