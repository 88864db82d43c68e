"""The regularized incomplete gamma and beta functions and Student's t distribution
function: gammainc, gammaincc, betainc, betaincc and stdtr, on scipy.special's kernels. They are the
distribution functions of ``tenferro.scipy.stats`` (gamma, chi2, poisson, beta, binom, t).

Each is differentiable in its last argument, x (t for stdtr), whose derivative is a density
written with the family's ops (so it differentiates again): gammainc′ =
x^(a-1)·e^(-x)/Γ(a), betainc′ = x^(a-1)(1-x)^(b-1)/B(a, b), stdtr′ = Student's t density.
The derivatives in the shape parameters (a, b, df) are no closed form (series of
hypergeometric functions, as Boost and TensorFlow's igamma_grad_a compute them), and are
refused: asking for one raises NotDifferentiable naming the argument, as jax.lax.betainc
and HIPS autograd refuse them, never a silent zero.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.integrate
import scipy.special

from tenferro.extend import cast

from .rules import partials, refused
from .specs import reference, shape_params, special

#: The ops' kernels for Python numbers, so a rule on a constant shape parameter needs no op:
#: NumPy's and scipy's, as the ops', so a parameter outside the domain gives nan or inf as
#: on a tensor (math.lgamma(0) and math.log(-1) raise; lgamma differences cancel in betaln).
_PYTHON: dict[str, Callable[..., Any]] = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "neg": np.negative,
    "gammaln": scipy.special.gammaln,
    "log": np.log,
    "betaln": scipy.special.betaln,
}


def _op(s: Any, name: str, *args: Any) -> Any:
    """``s.<name>(*args)``, or its value as a Python float when every argument is a Python
    number (a shape parameter given as a number: an op needs a tensor argument)."""
    if all(isinstance(a, (int, float)) for a in args):
        with np.errstate(all="ignore"):
            return float(_PYTHON[name](*args))
    return getattr(s, name)(*args)


def t_log_normalizer(s: Any, df: Any) -> Any:
    """log of Student's t density's constant Γ((df + 1)/2)/(√(df·π)·Γ(df/2)), written as
    -betaln(df/2, 1/2) - log(df)/2: scipy's gammaln((df + 1)/2) - gammaln(df/2) cancels for
    large df (a logpdf of -19.1 for -1.04 at df = 1e16). With session ops ``s``, or in
    Python for a Python number; the one form of stats.t's logpdf, stdtr's derivative and
    its reference."""
    log_beta = _op(s, "betaln", _op(s, "mul", df, 0.5), 0.5)
    return _op(s, "neg", _op(s, "add", log_beta, _op(s, "mul", _op(s, "log", df), 0.5)))


def _in_precision(ufunc: Callable[..., Any]) -> Callable[..., Any]:
    """scipy's ufunc with integer arrays and Python numbers beside float32 arrays taken in
    float32 (scipy lists its double loop first, so NumPy would pick it and return float64)."""

    def kernel(*args: Any) -> Any:
        kinds = [a.dtype for a in args if hasattr(a, "dtype") and a.dtype.kind == "f"]
        if kinds and all(k == np.float32 for k in kinds):
            args = tuple(
                (cast(a, np.float32) if a.dtype.kind != "f" else a) if hasattr(a, "dtype") else np.float32(a)
                for a in args
            )
        return ufunc(*args)

    return kernel


def _gamma_density(s: Any, out: Any, a: Any, x: Any) -> Any:
    """x^(a-1)·e^(-x)/Γ(a), as exp(xlogy(a - 1, x) - x - gammaln(a)) (scipy.stats.gamma's)."""
    return s.exp(s.sub(s.sub(s.special_xlogy(_op(s, "sub", a, 1.0), x), x), _op(s, "gammaln", a)))


def _beta_density(s: Any, out: Any, a: Any, b: Any, x: Any) -> Any:
    """x^(a-1)(1-x)^(b-1)/B(a, b), as exp(xlogy(a - 1, x) + xlog1py(b - 1, -x) - betaln(a, b))."""
    logs = s.add(s.special_xlogy(_op(s, "sub", a, 1.0), x), s.xlog1py(_op(s, "sub", b, 1.0), s.neg(x)))
    return s.exp(s.sub(logs, _op(s, "betaln", a, b)))


def _t_density(s: Any, out: Any, df: Any, t: Any) -> Any:
    """Student's t density (scipy.stats.t's logpdf, exponentiated)."""
    half = _op(s, "mul", _op(s, "add", df, 1.0), 0.5)
    return s.exp(s.sub(t_log_normalizer(s, df), s.mul(s.log1p(s.div(s.square(t), df)), half)))


def _quad(f: Callable[[float], float], low: float, high: float) -> float:
    return scipy.integrate.quad(f, low, high, epsabs=1e-14, epsrel=1e-12, limit=200)[0]


def _gammainc_reference(a: float, x: float) -> float:
    """P(a, x) by quadrature, independently of cephes: with t = u^(1/a), the integrand
    t^(a-1)·e^(-t) dt becomes e^(-u^(1/a)) du/a, smooth at 0 for every a > 0."""
    return _quad(lambda u: math.exp(-(u ** (1.0 / a))), 0.0, x**a) / (a * math.gamma(a))


def _betainc_reference(a: float, b: float, x: float) -> float:
    """I_x(a, b) by quadrature, with t = u^(1/a) as for gammainc."""
    integral = _quad(lambda u: (1.0 - u ** (1.0 / a)) ** (b - 1.0), 0.0, x**a) / a
    return integral * math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b))


def _stdtr_reference(df: float, t: float) -> float:
    const = t_log_normalizer(None, df)
    half = _quad(lambda u: math.exp(const - (df + 1) / 2 * math.log1p(u * u / df)), 0.0, abs(t))
    return 0.5 + math.copysign(half, t)


_GAMMA_WHY = "∂P(a, x)/∂a is a series, no closed form"
_BETA_WHY = "∂I_x(a, b)/∂a and ∂/∂b are series, no closed form"

SPECS = [
    special(
        "gammainc",
        ("a", "x"),
        _in_precision(scipy.special.gammainc),
        partials(refused("gammainc", "a", _GAMMA_WHY), _gamma_density),
        reference(_gammainc_reference),
        "The regularized lower incomplete gamma function P(a, x) (scipy's gammainc), a > 0, x >= 0, "
        "broadcasting; differentiable in x only: ∂/∂x = x^(a-1)·e^(-x)/Γ(a). A derivative in a raises "
        "NotDifferentiable.",
        shape_params(1, 0.3, 6.0, (0.05, 10.0)),
        ("a", "x"),
    ),
    special(
        "gammaincc",
        ("a", "x"),
        _in_precision(scipy.special.gammaincc),
        partials(refused("gammaincc", "a", _GAMMA_WHY), lambda s, out, a, x: s.neg(_gamma_density(s, out, a, x))),
        reference(lambda a, x: 1.0 - _gammainc_reference(a, x)),
        "The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x) (scipy's gammaincc), accurate "
        "where P is near 1; differentiable in x only: ∂/∂x = -x^(a-1)·e^(-x)/Γ(a). A derivative in a raises "
        "NotDifferentiable.",
        shape_params(1, 0.3, 6.0, (0.05, 10.0)),
        ("a", "x"),
    ),
    special(
        "betainc",
        ("a", "b", "x"),
        _in_precision(scipy.special.betainc),
        partials(refused("betainc", "a", _BETA_WHY), refused("betainc", "b", _BETA_WHY), _beta_density),
        reference(_betainc_reference),
        "The regularized incomplete beta function I_x(a, b) (scipy's betainc), a, b > 0, 0 <= x <= 1, "
        "broadcasting; differentiable in x only: ∂/∂x = x^(a-1)(1-x)^(b-1)/B(a, b). A derivative in a or b "
        "raises NotDifferentiable.",
        shape_params(2, 0.5, 5.0, (0.05, 0.95)),
        ("a", "b", "x"),
    ),
    special(
        "betaincc",
        ("a", "b", "x"),
        _in_precision(scipy.special.betaincc),
        partials(
            refused("betaincc", "a", _BETA_WHY),
            refused("betaincc", "b", _BETA_WHY),
            lambda s, out, a, b, x: s.neg(_beta_density(s, out, a, b, x)),
        ),
        reference(lambda a, b, x: 1.0 - _betainc_reference(a, b, x)),
        "1 - I_x(a, b) (scipy's betaincc), accurate where I_x is near 1; differentiable in x only: ∂/∂x = "
        "-x^(a-1)(1-x)^(b-1)/B(a, b). A derivative in a or b raises NotDifferentiable.",
        shape_params(2, 0.5, 5.0, (0.05, 0.95)),
        ("a", "b", "x"),
    ),
    special(
        "stdtr",
        ("df", "t"),
        _in_precision(scipy.special.stdtr),
        partials(refused("stdtr", "df", "∂/∂df is a series of incomplete beta functions"), _t_density),
        reference(_stdtr_reference),
        "Student's t distribution function with df > 0 degrees of freedom (scipy's stdtr), broadcasting; "
        "differentiable in t only: ∂/∂t is the t density. A derivative in df raises NotDifferentiable.",
        shape_params(1, 0.5, 30.0, (-6.0, 6.0)),
        ("df", "t"),
    ),
]
