"""The error functions and the normal distribution's: erfc, erfcx, erfinv, erfcinv, ndtr,
log_ndtr, ndtri, and the logistic ones, logit (the op ``special_logit``) and log_expit.

The inverses' derivatives are read from their results (erfinv′(y) = √π/2·exp(erfinv(y)²)),
infinite at the ends of their domains (±1 for erfinv, 0 and 2 for erfcinv, 0 and 1 for
ndtri), as the kinks declare. log_ndtr′ = φ(x)/Φ(x) is computed as
exp(-x²/2 - log_ndtr(x))/√(2π), which stays finite far into the left tail, where φ and Φ
both underflow and their ratio (≈ -x) would be 0/0.
"""

from __future__ import annotations

import math
import statistics
from typing import Any

import numpy as np
import scipy.special

from tenferro.extend import Kink

from .rules import times
from .specs import domain, reference, special

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT_PI_OVER_TWO = math.sqrt(math.pi) / 2.0
_SQRT_TWO_PI = math.sqrt(2.0 * math.pi)
_SQRT_TWO = math.sqrt(2.0)
_NORMAL = statistics.NormalDist()


def _gauss(s: Any, x: Any, scale: float) -> Any:
    """scale·exp(-x²)."""
    return s.mul(s.exp(s.neg(s.square(x))), scale)


def _log_ndtr_derivative(s: Any, out: Any, x: Any) -> Any:
    """φ(x)/Φ(x) = exp(-x²/2 - log Φ(x))/√(2π), from the result log Φ(x)."""
    return s.div(s.exp(s.sub(s.mul(s.square(x), -0.5), out)), _SQRT_TWO_PI)


def _log_expit_reference(x: float) -> float:
    return -math.log1p(math.exp(-x)) if x > 0 else x - math.log1p(math.exp(x))


SPECS = [
    special(
        "erfc",
        ("x",),
        scipy.special.erfc,
        times(lambda s, out, x: _gauss(s, x, -_TWO_OVER_SQRT_PI)),
        reference(math.erfc),
        "1 - erf(x), accurate where erf(x) is near 1 (scipy's erfc); its derivative is -2/√π·exp(-x²).",
        domain(-4.0, 6.0),
        ("x",),
    ),
    special(
        "erfcx",
        ("x",),
        scipy.special.erfcx,
        times(lambda s, out, x: s.sub(s.mul(s.mul(x, out), 2.0), _TWO_OVER_SQRT_PI)),
        reference(lambda x: math.exp(x * x) * math.erfc(x)),
        "exp(x²)·erfc(x), without overflow for large x (scipy's erfcx); its derivative is 2x·erfcx(x) - 2/√π.",
        domain(-3.0, 5.0),
        ("x", "out"),
    ),
    special(
        "erfinv",
        ("x",),
        scipy.special.erfinv,
        times(lambda s, out, x: s.mul(s.exp(s.square(out)), _SQRT_PI_OVER_TWO)),
        reference(lambda y: _NORMAL.inv_cdf((y + 1.0) / 2.0) / _SQRT_TWO),
        "The inverse of erf on (-1, 1) (scipy's erfinv): ±inf at ±1, nan outside; its derivative is "
        "√π/2·exp(erfinv(x)²), inf at ±1.",
        domain(-0.95, 0.95),
        ("out",),
        kinks=(Kink((np.array([-1.0, 1.0]),), (np.full(2, np.inf),)),),
    ),
    special(
        "erfcinv",
        ("x",),
        scipy.special.erfcinv,
        times(lambda s, out, x: s.mul(s.exp(s.square(out)), -_SQRT_PI_OVER_TWO)),
        reference(lambda y: -_NORMAL.inv_cdf(y / 2.0) / _SQRT_TWO),
        "The inverse of erfc on (0, 2) (scipy's erfcinv): inf at 0, -inf at 2, nan outside; its derivative is "
        "-√π/2·exp(erfcinv(x)²), -inf at 0 and 2.",
        domain(0.05, 1.95),
        ("out",),
        kinks=(Kink((np.array([0.0, 2.0]),), (np.full(2, -np.inf),)),),
    ),
    special(
        "ndtr",
        ("x",),
        scipy.special.ndtr,
        times(lambda s, out, x: s.div(s.exp(s.mul(s.square(x), -0.5)), _SQRT_TWO_PI)),
        reference(lambda x: 0.5 * math.erfc(-x / _SQRT_TWO)),
        "Φ(x), the standard normal distribution function (scipy's ndtr); its derivative is the density φ(x).",
        domain(-6.0, 6.0),
        ("x",),
    ),
    special(
        "log_ndtr",
        ("x",),
        scipy.special.log_ndtr,
        times(_log_ndtr_derivative),
        reference(lambda x: math.log(0.5 * math.erfc(-x / _SQRT_TWO))),
        "log Φ(x), accurate in both tails (scipy's log_ndtr); its derivative φ(x)/Φ(x) is computed as "
        "exp(-x²/2 - log_ndtr(x))/√(2π), finite (≈ -x) far into the left tail where φ and Φ underflow.",
        domain(-20.0, 6.0),
        ("x", "out"),
    ),
    special(
        "ndtri",
        ("x",),
        scipy.special.ndtri,
        times(lambda s, out, x: s.mul(s.exp(s.mul(s.square(out), 0.5)), _SQRT_TWO_PI)),
        reference(_NORMAL.inv_cdf),
        "The inverse of ndtr on (0, 1) (scipy's ndtri): -inf at 0, inf at 1, nan outside; its derivative is "
        "√(2π)·exp(ndtri(x)²/2), inf at 0 and 1.",
        domain(0.02, 0.98),
        ("out",),
        kinks=(Kink((np.array([0.0, 1.0]),), (np.full(2, np.inf),)),),
    ),
    special(
        "special_logit",
        ("x",),
        scipy.special.logit,
        times(lambda s, out, x: s.reciprocal(s.mul(x, s.sub(1.0, x)))),
        reference(lambda x: math.log(x) - math.log1p(-x)),
        "scipy's logit, log(x/(1 - x)) on (0, 1), the inverse of sigmoid (named special_logit: the example "
        "plugin tenferro-mathx has an op logit); ∓inf at 0 and 1; its derivative is 1/(x(1 - x)).",
        domain(0.05, 0.95),
        ("x",),
    ),
    special(
        "log_expit",
        ("x",),
        scipy.special.log_expit,
        times(lambda s, out, x: s.sigmoid(s.neg(x))),
        reference(_log_expit_reference),
        "log(sigmoid(x)) without overflow or underflow (scipy's log_expit); its derivative is sigmoid(-x).",
        domain(-30.0, 30.0),
        ("x",),
    ),
]
