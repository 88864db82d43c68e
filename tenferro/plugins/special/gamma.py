"""The gamma function and its relatives: gammaln, digamma, polygamma, gamma, beta, betaln
and multigammaln, on scipy.special's kernels.

Each derivative is the next function of the family: gammaln′ = digamma, digamma′ =
polygamma(1, ·), polygamma(n, ·)′ = polygamma(n + 1, ·), so every order of derivative
exists. At the poles (0, -1, -2, ...) the values are scipy's (gammaln = inf, gamma = ±inf
or nan, digamma = ±inf or nan) and so are the derivatives computed from them; samples keep
away from them.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import scipy.special

from tenferro.extend import REQUIRED, ArgumentError, DTypeError, ErrorInput, SampleInput, checked

from .rules import partials, times
from .specs import domain, pairs, reference, special, weak_scalars

#: The non-positive integers near the samples, where gamma has its poles.
_POLES = (0.0, -1.0, -2.0, -3.0)
#: B_2, B_4, ..., B_14: the asymptotic series of the polygamma functions.
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6)


def _order(n: Any, op: str = "polygamma") -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise ArgumentError(f"{op}: the order n must be an int >= 0, got {n!r}")
    return int(n)


def _polygamma(x: Any, n: int = 0) -> Any:
    """scipy's polygamma(n, x) on x's array type: digamma for n = 0, else
    (-1)**(n+1)·n!·zeta(n + 1, x) (scipy's own formula; its Python wrapper would turn
    another engine's array into a NumPy one)."""
    n = _order(n)
    if n == 0:
        return scipy.special.digamma(x)
    return np.multiply((-1.0) ** (n + 1) * math.factorial(n), scipy.special.zeta(float(n + 1), x))


def _polygamma_reference(x: float, n: int = 0) -> float:
    """ψ⁽ⁿ⁾(x) for x > 0, independently of scipy: the recurrence ψ⁽ⁿ⁾(x) = ψ⁽ⁿ⁾(x + 1) -
    (-1)**n·n!/x**(n+1) up to x >= 15, then the asymptotic series."""
    total = 0.0
    while x < 15.0:
        total -= (-1.0) ** n * math.factorial(n) / x ** (n + 1)
        x += 1.0
    if n == 0:
        tail = math.log(x) - 1 / (2 * x) - sum(b / (2 * k * x ** (2 * k)) for k, b in enumerate(_BERNOULLI, 1))
    else:
        series = sum(
            b * math.factorial(2 * k + n - 1) / (math.factorial(2 * k) * x ** (2 * k + n))
            for k, b in enumerate(_BERNOULLI, 1)
        )
        tail = (-1.0) ** (n + 1) * (math.factorial(n - 1) / x**n + math.factorial(n) / (2 * x ** (n + 1)) + series)
    return total + tail


def _digamma_reference(x: float) -> float:
    """ψ(x), for negative x by the reflection ψ(x) = ψ(1 - x) - π·cot(πx)."""
    if x > 0:
        return _polygamma_reference(x)
    return _polygamma_reference(1.0 - x) - math.pi / math.tan(math.pi * x)


def _orders() -> Any:
    from hypothesis import strategies as st

    return st.sampled_from([0, 1, 2, 3]).map(lambda n: {"n": n})


def _multigammaln(a: Any, d: int = 1) -> Any:
    """scipy's multigammaln(a, d), summed in scipy's order, on a's array type."""
    d = _order(d, "multigammaln")
    if d < 1:
        raise ArgumentError("multigammaln: the dimension d must be an int >= 1, got 0")

    def in_domain(values: Any) -> None:
        if np.any(np.less_equal(values, 0.5 * (d - 1))):
            raise ArgumentError(f"multigammaln: a must be > (d - 1)/2 = {0.5 * (d - 1)} everywhere (scipy's domain)")

    a = checked(a, in_domain)  # (on an engine's chunked array: where each block is computed)
    total = scipy.special.gammaln(a)
    for j in range(1, d):
        total = np.add(total, scipy.special.gammaln(np.subtract(a, j / 2)))
    return np.add(total, d * (d - 1) * 0.25 * math.log(math.pi))


def _multigammaln_derivative(s: Any, out: Any, a: Any, d: int) -> Any:
    total = s.digamma(a)
    for j in range(1, d):
        total = s.add(total, s.digamma(s.sub(a, j / 2)))
    return total


def _multigammaln_sample() -> Any:
    from hypothesis import strategies as st

    from tenferro.extend import strategies

    def given(d: int) -> Any:
        low = 0.5 * (d - 1) + 0.3
        return strategies.floats_array(low=low, high=low + 5.0).map(lambda a: SampleInput((a,), {"d": d}))

    return st.sampled_from([1, 2, 3, 4]).flatmap(given)


def _multigammaln_errors() -> list[ErrorInput]:
    return [
        ErrorInput((np.array([True]),), {"d": 2}, DTypeError, "argument 'a' has dtype bool"),
        ErrorInput((np.array([1j]),), {"d": 2}, DTypeError, "multigammaln: argument 'a' has dtype c128"),
        ErrorInput((np.array([0.5, 2.0]),), {"d": 3}, ArgumentError, "a must be > (d - 1)/2 = 1.0"),
        ErrorInput((np.array([2.0]),), {"d": 0}, ArgumentError, "d must be an int >= 1"),
        ErrorInput((np.array([2.0]),), {"d": 1.5}, ArgumentError, "must be an int >= 0, got 1.5"),
    ]


def _polygamma_errors() -> list[ErrorInput]:
    return [
        ErrorInput((np.array([True]),), {"n": 1}, DTypeError, "argument 'x' has dtype bool"),
        ErrorInput((np.array([1j]),), {"n": 1}, DTypeError, "polygamma: argument 'x' has dtype c128"),
        ErrorInput((np.array([2.0]),), {"n": -1}, ArgumentError, "the order n must be an int >= 0, got -1"),
    ]


def _lgamma_sum(*terms: tuple[float, float]) -> float:
    return sum(sign * math.lgamma(v) for v, sign in terms)


_BETA = partials(
    lambda s, out, a, b: s.mul(out, s.sub(s.digamma(a), s.digamma(s.add(a, b)))),
    lambda s, out, a, b: s.mul(out, s.sub(s.digamma(b), s.digamma(s.add(a, b)))),
)
_BETALN = partials(
    lambda s, out, a, b: s.sub(s.digamma(a), s.digamma(s.add(a, b))),
    lambda s, out, a, b: s.sub(s.digamma(b), s.digamma(s.add(a, b))),
)

SPECS = [
    special(
        "gammaln",
        ("x",),
        scipy.special.gammaln,
        times(lambda s, out, x: s.digamma(x)),
        reference(math.lgamma),
        "log|Γ(x)| (scipy's gammaln); inf at the poles 0, -1, -2, ...; its derivative is digamma(x).",
        domain(-2.8, 6.0, _POLES),
        ("x",),
    ),
    special(
        "digamma",
        ("x",),
        scipy.special.digamma,
        times(lambda s, out, x: s.polygamma(x, 1)),
        reference(_digamma_reference),
        "ψ(x) = Γ′(x)/Γ(x) (scipy's digamma, psi); ±inf or nan at the poles; its derivative is polygamma(1, x).",
        domain(-2.8, 6.0, _POLES),
        ("x",),
    ),
    special(
        "polygamma",
        ("x",),
        _polygamma,
        times(lambda s, out, x, n: s.polygamma(x, n + 1)),
        reference(_polygamma_reference),
        "ψ⁽ⁿ⁾(x), the n-th derivative of digamma (scipy's polygamma(n, x), n an int param >= 0); its derivative "
        "is polygamma(n + 1, x).",
        domain(0.3, 6.0, params=_orders),
        ("x",),
        params={"n": REQUIRED},
        error_inputs=_polygamma_errors,
    ),
    special(
        "gamma",
        ("x",),
        scipy.special.gamma,
        times(lambda s, out, x: s.mul(out, s.digamma(x))),
        reference(math.gamma),
        "Γ(x) (scipy's gamma): ±inf at 0 and nan at the negative integers; its derivative is Γ(x)·ψ(x).",
        domain(-2.8, 5.0, _POLES),
        ("x", "out"),
    ),
    special(
        "beta",
        ("a", "b"),
        weak_scalars(scipy.special.beta),
        _BETA,
        reference(lambda a, b: math.gamma(a) * math.gamma(b) / math.gamma(a + b)),
        "B(a, b) = Γ(a)Γ(b)/Γ(a + b) (scipy's beta), broadcasting; ∂/∂a = B(a, b)·(ψ(a) - ψ(a + b)).",
        pairs((0.3, 4.0), (0.3, 4.0)),
        ("a", "b", "out"),
    ),
    special(
        "betaln",
        ("a", "b"),
        weak_scalars(scipy.special.betaln),
        _BETALN,
        reference(lambda a, b: _lgamma_sum((a, 1), (b, 1), (a + b, -1))),
        "log|B(a, b)| (scipy's betaln), broadcasting; ∂/∂a = ψ(a) - ψ(a + b).",
        pairs((0.3, 6.0), (0.3, 6.0)),
        ("a", "b"),
    ),
    special(
        "multigammaln",
        ("a",),
        _multigammaln,
        times(_multigammaln_derivative),
        reference(lambda a, d=1: d * (d - 1) / 4 * math.log(math.pi) + sum(math.lgamma(a - j / 2) for j in range(d))),
        "log of the multivariate gamma function Γ_d(a) (scipy's multigammaln(a, d), d an int param >= 1); a must "
        "be > (d - 1)/2 everywhere (an ArgumentError otherwise, as scipy's ValueError); its derivative is "
        "Σ_j ψ(a - j/2), j = 0 .. d - 1.",
        _multigammaln_sample,
        ("a",),
        params={"d": REQUIRED},
        error_inputs=_multigammaln_errors,
    ),
]
