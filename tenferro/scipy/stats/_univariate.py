"""The univariate distributions, each by its standard form's formulas as scipy.stats
writes them (``_logpdf``, ``_cdf``, ... of ``scipy/stats/_continuous_distns.py`` and
``_discrete_distns.py``), on tenferro.numpy and tenferro.scipy.special, so the values are
scipy's to a few ulps and every order of derivative exists. The incomplete gamma and beta
functions and stdtr differentiate in their last argument only: a cdf whose shape parameter
enters there (gamma's a, beta's a and b, t's df, chi2's df, nbinom's n) refuses a gradient
in it with NotDifferentiable.
"""

from __future__ import annotations

import math
from typing import Any

from ... import numpy as tnp
from ...plugins.special.incomplete import t_log_normalizer
from .. import special as tsp
from ._family import Univariate

_LOG_SQRT_2PI = math.log(math.sqrt(2 * math.pi))
_SQRT_2PI = math.sqrt(2 * math.pi)
_LOG_PI = math.log(math.pi)
_LOG_2 = math.log(2.0)
_INF = math.inf


def _above(p: Any) -> Any:
    return p > 0


def _and(*masks: Any) -> Any:
    out = masks[0]
    for mask in masks[1:]:
        out = tnp.logical_and(out, mask)
    return out


# -- continuous ------------------------------------------------------------------------


def _t_logpdf(z: Any, df: Any) -> Any:
    finite = tnp.isfinite(df)
    d = tnp.where(finite, df, 1.0)  # df = inf is the normal distribution, as scipy's
    t = t_log_normalizer(d.runtime.current_session(), d) - (d + 1) / 2 * tnp.log1p(z * z / d)
    return tnp.where(finite, t, -(z**2) / 2.0 - _LOG_SQRT_2PI)


def _laplace_cdf(z: Any) -> Any:
    positive = z > 0
    above = 1.0 - 0.5 * tnp.exp(-tnp.where(positive, z, 0.0))
    return tnp.where(positive, above, 0.5 * tnp.exp(tnp.where(positive, 0.0, z)))


def _cauchy_logpdf(z: Any) -> Any:
    absz = tnp.abs(z)
    small = absz < 1
    near = -_LOG_PI - tnp.log1p(tnp.where(small, absz, 0.0) ** 2)
    far_z = tnp.where(small, 1.0, absz)
    far = -_LOG_PI - (2 * tnp.log(far_z) + tnp.log1p((1 / far_z) ** 2))
    return tnp.where(small, near, far)


def _lognorm_logpdf(z: Any, s: Any) -> Any:
    return -(tnp.log(z) ** 2) / (2 * s**2) - tnp.log(s * z * _SQRT_2PI)


NORM = Univariate(
    "norm",
    (),
    (-_INF, _INF),
    {
        "logpdf": lambda z: -(z**2) / 2.0 - _LOG_SQRT_2PI,
        "pdf": lambda z: tnp.exp(-(z**2) / 2.0) / _SQRT_2PI,
        "cdf": tsp.ndtr,
        "logcdf": tsp.log_ndtr,
        "sf": lambda z: tsp.ndtr(-z),
        "logsf": lambda z: tsp.log_ndtr(-z),
        "ppf": tsp.ndtri,
        "isf": lambda q: -tsp.ndtri(q),
    },
    doc="The normal distribution N(loc, scale²).",
)
T = Univariate(
    "t",
    ("df",),
    (-_INF, _INF),
    {
        "logpdf": _t_logpdf,
        "cdf": lambda z, df: tsp.stdtr(df, z),
        "sf": lambda z, df: tsp.stdtr(df, -z),
    },
    valid=_above,
    safe=(1.0,),
    refused={"cdf": ("df",), "sf": ("df",), "logcdf": ("df",), "logsf": ("df",)},
    doc="Student's t distribution with df > 0 degrees of freedom (df = inf: the normal).",
)
GAMMA = Univariate(
    "gamma",
    ("a",),
    (0.0, _INF),
    {
        "logpdf": lambda z, a: tsp.xlogy(a - 1.0, z) - z - tsp.gammaln(a),
        "cdf": lambda z, a: tsp.gammainc(a, z),
        "sf": lambda z, a: tsp.gammaincc(a, z),
    },
    valid=_above,
    safe=(1.0,),
    refused={"cdf": ("a",), "sf": ("a",), "logcdf": ("a",), "logsf": ("a",)},
    doc="The gamma distribution with shape a > 0.",
)
BETA = Univariate(
    "beta",
    ("a", "b"),
    (0.0, 1.0),
    {
        "logpdf": lambda z, a, b: tsp.xlog1py(b - 1.0, -z) + tsp.xlogy(a - 1.0, z) - tsp.betaln(a, b),
        "cdf": lambda z, a, b: tsp.betainc(a, b, z),
        "sf": lambda z, a, b: tsp.betaincc(a, b, z),
    },
    valid=lambda a, b: tnp.logical_and(a > 0, b > 0),
    safe=(1.0, 1.0),
    refused={k: ("a", "b") for k in ("cdf", "sf", "logcdf", "logsf")},
    doc="The beta distribution on [0, 1] with shapes a, b > 0.",
)
CHI2 = Univariate(
    "chi2",
    ("df",),
    (0.0, _INF),
    {
        "logpdf": lambda z, df: tsp.xlogy(df / 2.0 - 1, z) - z / 2.0 - tsp.gammaln(df / 2.0) - (_LOG_2 * df) / 2.0,
        "cdf": lambda z, df: tsp.gammainc(df / 2, z / 2),
        "sf": lambda z, df: tsp.gammaincc(df / 2, z / 2),
    },
    valid=_above,
    safe=(1.0,),
    refused={k: ("df",) for k in ("cdf", "sf", "logcdf", "logsf")},
    doc="The chi-squared distribution with df > 0 degrees of freedom.",
)
EXPON = Univariate(
    "expon",
    (),
    (0.0, _INF),
    {
        "logpdf": lambda z: -z,
        "pdf": lambda z: tnp.exp(-z),
        "cdf": lambda z: -tnp.expm1(-z),
        "sf": lambda z: tnp.exp(-z),
        "logsf": lambda z: -z,
        "ppf": lambda q: -tnp.log1p(-q),
        "isf": lambda q: -tnp.log(q),
    },
    doc="The exponential distribution of rate 1/scale.",
)
LAPLACE = Univariate(
    "laplace",
    (),
    (-_INF, _INF),
    {
        "logpdf": lambda z: -tnp.abs(z) - _LOG_2,
        "pdf": lambda z: 0.5 * tnp.exp(-tnp.abs(z)),
        "cdf": _laplace_cdf,
        "sf": lambda z: _laplace_cdf(-z),
        "ppf": lambda q: tnp.where(q > 0.5, -tnp.log(2 * (1 - q)), tnp.log(2 * q)),
        "isf": lambda q: -tnp.where(q > 0.5, -tnp.log(2 * (1 - q)), tnp.log(2 * q)),
    },
    doc="The Laplace (double exponential) distribution.",
)
LOGISTIC = Univariate(
    "logistic",
    (),
    (-_INF, _INF),
    {
        "logpdf": lambda z: -tnp.abs(z) - 2.0 * tnp.log1p(tnp.exp(-tnp.abs(z))),
        "cdf": tsp.expit,
        "logcdf": tsp.log_expit,
        "sf": lambda z: tsp.expit(-z),
        "logsf": lambda z: tsp.log_expit(-z),
        "ppf": tsp.logit,
        "isf": lambda q: -tsp.logit(q),
    },
    doc="The logistic distribution.",
)
CAUCHY = Univariate(
    "cauchy",
    (),
    (-_INF, _INF),
    {
        "logpdf": _cauchy_logpdf,
        "pdf": lambda z: 1.0 / math.pi / (1.0 + z * z),
        "cdf": lambda z: tnp.arctan2(1.0, -z) / math.pi,
        "sf": lambda z: tnp.arctan2(1.0, z) / math.pi,
        "ppf": lambda q: tnp.tan(math.pi * (q - 0.5)),
        "isf": lambda q: tnp.tan(math.pi * (0.5 - q)),
    },
    doc="The Cauchy distribution.",
)
UNIFORM = Univariate(
    "uniform",
    (),
    (0.0, 1.0),
    {
        "logpdf": lambda z: tnp.zeros_like(z),
        "pdf": lambda z: tnp.ones_like(z),
        "cdf": lambda z: z,
        "sf": lambda z: 1.0 - z,
        "ppf": lambda q: q,
        "isf": lambda q: 1.0 - q,
    },
    doc="The uniform distribution on [loc, loc + scale].",
)
LOGNORM = Univariate(
    "lognorm",
    ("s",),
    (0.0, _INF),
    {
        "logpdf": _lognorm_logpdf,
        "cdf": lambda z, s: tsp.ndtr(tnp.log(z) / s),
        "logcdf": lambda z, s: tsp.log_ndtr(tnp.log(z) / s),
        "sf": lambda z, s: tsp.ndtr(-tnp.log(z) / s),
        "logsf": lambda z, s: tsp.log_ndtr(-tnp.log(z) / s),
        "ppf": lambda q, s: tnp.exp(s * tsp.ndtri(q)),
        "isf": lambda q, s: tnp.exp(-s * tsp.ndtri(q)),
    },
    valid=_above,
    safe=(1.0,),
    open_support=True,
    doc="The log-normal distribution with shape s > 0 (the log's standard deviation).",
)

# -- discrete --------------------------------------------------------------------------


def _binom_logpmf(k: Any, n: Any, p: Any) -> Any:
    combiln = tsp.gammaln(n + 1) - (tsp.gammaln(k + 1) + tsp.gammaln(n - k + 1))
    return combiln + tsp.xlogy(k, p) + tsp.xlog1py(n - k, -p)


def _probability(p: Any) -> Any:
    return tnp.logical_and(p >= 0, p <= 1)


POISSON = Univariate(
    "poisson",
    ("mu",),
    (0.0, _INF),
    {
        "logpmf": lambda k, mu: tsp.xlogy(k, mu) - tsp.gammaln(k + 1) - mu,
        "cdf": lambda k, mu: tsp.gammaincc(k + 1, mu),
        "sf": lambda k, mu: tsp.gammainc(k + 1, mu),
    },
    valid=lambda mu: mu >= 0,
    safe=(1.0,),
    discrete=True,
    doc="The Poisson distribution of mean mu >= 0.",
)
BINOM = Univariate(
    "binom",
    ("n", "p"),
    lambda n, p: (0.0, n),
    {
        "logpmf": _binom_logpmf,
        "cdf": lambda k, n, p: tsp.betainc(n - k, k + 1, 1.0 - p),
        "sf": lambda k, n, p: tsp.betainc(k + 1, n - k, p),
    },
    valid=lambda n, p: _and(n >= 0, tnp.floor(n) == n, _probability(p)),
    safe=(1.0, 0.5),
    discrete=True,
    refused={k: ("n",) for k in ("cdf", "sf", "logcdf", "logsf")},
    doc="The binomial distribution of n trials (an integer >= 0) of success probability p.",
)
BERNOULLI = Univariate(
    "bernoulli",
    ("p",),
    (0.0, 1.0),
    {
        "logpmf": lambda k, p: _binom_logpmf(k, 1.0, p),
        "cdf": lambda k, p: 1.0 - p + tnp.zeros_like(k),  # k = 0 (k >= 1 is beyond the support: 1)
        "sf": lambda k, p: p + tnp.zeros_like(k),
    },
    valid=_probability,
    safe=(0.5,),
    discrete=True,
    doc="The Bernoulli distribution of success probability p.",
)
GEOM = Univariate(
    "geom",
    ("p",),
    (1.0, _INF),
    {
        "logpmf": lambda k, p: tsp.xlog1py(k - 1, -p) + tnp.log(p),
        "cdf": lambda k, p: -tnp.expm1(tnp.log1p(-p) * k),
        "sf": lambda k, p: tnp.exp(k * tnp.log1p(-p)),
        "logsf": lambda k, p: k * tnp.log1p(-p),
    },
    valid=lambda p: tnp.logical_and(p > 0, p <= 1),
    safe=(0.5,),
    discrete=True,
    doc="The geometric distribution (trials to the first success, k >= 1) of success probability p.",
)
NBINOM = Univariate(
    "nbinom",
    ("n", "p"),
    (0.0, _INF),
    {
        "logpmf": lambda k, n, p: (
            tsp.gammaln(n + k) - tsp.gammaln(k + 1) - tsp.gammaln(n) + n * tnp.log(p) + tsp.xlog1py(k, -p)
        ),
        "cdf": lambda k, n, p: tsp.betainc(n, k + 1, p),
        "sf": lambda k, n, p: tsp.betainc(k + 1, n, 1.0 - p),
    },
    valid=lambda n, p: _and(n > 0, p > 0, p <= 1),
    safe=(1.0, 0.5),
    discrete=True,
    refused={k: ("n",) for k in ("cdf", "sf", "logcdf", "logsf")},
    doc="The negative binomial distribution (failures before the n-th success, n > 0) of success probability p.",
)

DISTRIBUTIONS = (
    NORM,
    T,
    GAMMA,
    BETA,
    CHI2,
    EXPON,
    LAPLACE,
    LOGISTIC,
    CAUCHY,
    UNIFORM,
    LOGNORM,
    POISSON,
    BINOM,
    BERNOULLI,
    GEOM,
    NBINOM,
)
