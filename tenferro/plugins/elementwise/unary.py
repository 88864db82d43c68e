"""Unary elementwise math: one table row per op (kernel, rule, domain, reference).

Each rule is the op's per-input VJP rule, ``rule(s, g, out, x)``, written with session
ops so it can be differentiated again. Where a function has a kink or pole, the row's doc
states the value taken there and its ``kinks`` the same as data; every choice matches
PyTorch and JAX.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.special

from tenferro.extend import DTypeError, ErrorInput, InputRule, Kink, OpSpec


def _libm(fn: Callable[[float], float]) -> Callable[[np.ndarray], np.ndarray]:
    """Reference from the C library's scalar function, independent of NumPy's SIMD loops."""
    return np.vectorize(fn, otypes=[np.float64])


def _domain(low: float = -3.0, high: float = 3.0, avoid: tuple[float, ...] = ()) -> Callable[[], Any]:
    def sample() -> Any:
        from tenferro.testing.strategies import unary

        return unary(low, high, avoid)

    return sample


_ANYWHERE = _domain()


def _unary(
    name: str,
    forward: Callable[[np.ndarray], np.ndarray],
    rule: InputRule,
    reference: Callable[[np.ndarray], np.ndarray],
    doc: str,
    domain: Callable[[], Any] = _ANYWHERE,
    residuals: tuple[str, ...] | None = ("x",),
    kinks: tuple[Kink, ...] = (),
    linear: bool = False,
    accepts: str = "fiu",
) -> OpSpec:
    return OpSpec(
        name=name,
        inputs=("x",),
        forward=forward,
        vjps=(rule,),
        linear=linear,
        accepts=accepts,
        sample=domain,
        reference=reference,
        error_inputs=lambda: [ErrorInput((np.array([True, False]),), {}, DTypeError, "accepts float")],
        residuals=residuals,
        doc=doc,
        kinks=kinks,
    )


#: The signed zeros, where abs and sign have their kink.
_ZEROS = np.array([0.0, -0.0])

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_LN2, _LN10 = math.log(2.0), math.log(10.0)
#: The ends of [-1, 1], where arcsin, arccos and arctanh have infinite derivatives.
_UNITS = np.array([-1.0, 1.0])


def _sqrt_one_minus_square(s: Any, x: Any) -> Any:
    """sqrt(1 - x**2), written (1 - x)(1 + x) so it stays accurate near ±1."""
    return s.sqrt(s.mul(s.sub(1.0, x), s.add(x, 1.0)))


SPECS = [
    _unary(
        "neg",
        np.negative,
        lambda s, g, out, x: s.neg(g),
        lambda x: 0.0 - x,
        "-x.",
        residuals=None,
        linear=True,
        accepts="fiuc",
    ),
    _unary("exp", np.exp, lambda s, g, out, x: s.mul(g, out), _libm(math.exp), "e**x.", residuals=("out",)),
    _unary(
        "log",
        np.log,
        lambda s, g, out, x: s.div(g, x),
        _libm(math.log),
        "Natural logarithm; log(0) = -inf, log(x<0) = nan.",
        _domain(0.2, 5.0),
    ),
    _unary(
        "sqrt",
        np.sqrt,
        lambda s, g, out, x: s.div(g, s.mul(out, 2.0)),
        _libm(math.sqrt),
        "Square root. Convention: sqrt'(0) = inf (so a zero cotangent gives nan there, as in PyTorch).",
        _domain(0.2, 5.0),
        residuals=("out",),
        kinks=(
            Kink((np.array([0.0]),), (np.array([np.inf]),)),
            Kink((np.array([0.0]),), (np.array([np.nan]),), g=0.0),
        ),
    ),
    _unary(
        "rsqrt",
        lambda x: np.reciprocal(np.sqrt(x)),
        lambda s, g, out, x: s.mul(s.mul(g, -0.5), s.div(out, x)),
        lambda x: x**-0.5,
        "1/sqrt(x); rsqrt(0) = inf.",
        _domain(0.2, 5.0),
        residuals=("x", "out"),
    ),
    _unary("sin", np.sin, lambda s, g, out, x: s.mul(g, s.cos(x)), _libm(math.sin), "Sine."),
    _unary("cos", np.cos, lambda s, g, out, x: s.mul(g, s.neg(s.sin(x))), _libm(math.cos), "Cosine."),
    _unary(
        "tan",
        np.tan,
        lambda s, g, out, x: s.mul(g, s.add(s.mul(out, out), 1.0)),
        _libm(math.tan),
        "Tangent.",
        _domain(-1.3, 1.3),
        residuals=("out",),
    ),
    _unary(
        "tanh",
        np.tanh,
        lambda s, g, out, x: s.mul(g, s.sub(1.0, s.mul(out, out))),
        _libm(math.tanh),
        "Hyperbolic tangent.",
        residuals=("out",),
    ),
    _unary(
        "sigmoid",
        scipy.special.expit,
        lambda s, g, out, x: s.mul(g, s.mul(out, s.sub(1.0, out))),
        lambda x: 1.0 / (1.0 + np.exp(-x)),
        "Logistic function 1/(1+e**-x), without overflow for large |x|.",
        residuals=("out",),
    ),
    _unary(
        "expm1",
        np.expm1,
        lambda s, g, out, x: s.mul(g, s.add(out, 1.0)),
        _libm(math.expm1),
        "e**x - 1, accurate near 0.",
        residuals=("out",),
    ),
    _unary(
        "log1p",
        np.log1p,
        lambda s, g, out, x: s.div(g, s.add(x, 1.0)),
        _libm(math.log1p),
        "log(1 + x), accurate near 0.",
        _domain(-0.8, 3.0),
    ),
    _unary(
        "abs",
        np.abs,
        lambda s, g, out, x: s.mul(g, s.sign(x)),
        _libm(math.fabs),
        "|x|. Convention: abs'(0) = 0 (the subgradient PyTorch and JAX use).",
        _domain(avoid=(0.0,)),
        kinks=(Kink((_ZEROS,), (np.zeros(2),)),),
    ),
    _unary(
        "sign",
        np.sign,
        lambda s, g, out, x: None,
        lambda x: (x > 0) * 1.0 - (x < 0) * 1.0,
        "-1, 0 or 1. Its derivative is 0 everywhere (including at 0).",
        _domain(avoid=(0.0,)),
        residuals=(),
        kinks=(Kink((_ZEROS,), (np.zeros(2),)),),
    ),
    _unary("square", np.square, lambda s, g, out, x: s.mul(g, s.mul(x, 2.0)), lambda x: x * x, "x*x."),
    _unary(
        "reciprocal",
        lambda x: np.divide(1.0, x),
        lambda s, g, out, x: s.neg(s.mul(g, s.mul(out, out))),
        lambda x: 1.0 / x,
        "1/x; 1/0 = inf.",
        _domain(avoid=(0.0,)),
        residuals=("out",),
    ),
    _unary(
        "erf",
        scipy.special.erf,
        lambda s, g, out, x: s.mul(g, s.mul(s.exp(s.neg(s.mul(x, x))), _TWO_OVER_SQRT_PI)),
        _libm(math.erf),
        "Gauss error function.",
    ),
    _unary(
        "positive",
        np.positive,
        lambda s, g, out, x: g,
        lambda x: x + 0.0 * x,
        "+x (a copy).",
        residuals=None,
        linear=True,
    ),
    _unary(
        "exp2",
        np.exp2,
        lambda s, g, out, x: s.mul(g, s.mul(out, _LN2)),
        _libm(lambda v: math.pow(2.0, v)),
        "2**x.",
        residuals=("out",),
    ),
    _unary(
        "log2",
        np.log2,
        lambda s, g, out, x: s.div(g, s.mul(x, _LN2)),
        _libm(math.log2),
        "Base-2 logarithm; log2(0) = -inf and its derivative there inf.",
        _domain(0.2, 5.0),
    ),
    _unary(
        "log10",
        np.log10,
        lambda s, g, out, x: s.div(g, s.mul(x, _LN10)),
        _libm(math.log10),
        "Base-10 logarithm; log10(0) = -inf and its derivative there inf.",
        _domain(0.2, 5.0),
    ),
    _unary("sinh", np.sinh, lambda s, g, out, x: s.mul(g, s.cosh(x)), _libm(math.sinh), "Hyperbolic sine."),
    _unary("cosh", np.cosh, lambda s, g, out, x: s.mul(g, s.sinh(x)), _libm(math.cosh), "Hyperbolic cosine."),
    _unary(
        "arcsin",
        np.arcsin,
        lambda s, g, out, x: s.div(g, _sqrt_one_minus_square(s, x)),
        _libm(math.asin),
        "Inverse sine on [-1, 1]. Convention (PyTorch's): the derivative at ±1 is inf.",
        _domain(-0.9, 0.9),
        kinks=(Kink((_UNITS,), (np.full(2, np.inf),)),),
    ),
    _unary(
        "arccos",
        np.arccos,
        lambda s, g, out, x: s.neg(s.div(g, _sqrt_one_minus_square(s, x))),
        _libm(math.acos),
        "Inverse cosine on [-1, 1]. Convention (PyTorch's): the derivative at ±1 is -inf.",
        _domain(-0.9, 0.9),
        kinks=(Kink((_UNITS,), (np.full(2, -np.inf),)),),
    ),
    _unary(
        "arctan",
        np.arctan,
        lambda s, g, out, x: s.div(g, s.add(s.square(x), 1.0)),
        _libm(math.atan),
        "Inverse tangent.",
    ),
    _unary(
        "arcsinh",
        np.arcsinh,
        lambda s, g, out, x: s.div(g, s.sqrt(s.add(s.square(x), 1.0))),
        _libm(math.asinh),
        "Inverse hyperbolic sine.",
    ),
    _unary(
        "arccosh",
        np.arccosh,
        lambda s, g, out, x: s.div(g, s.sqrt(s.sub(s.square(x), 1.0))),
        _libm(math.acosh),
        "Inverse hyperbolic cosine on [1, inf). Convention (PyTorch's): the derivative at 1 is inf.",
        _domain(1.2, 5.0),
        kinks=(Kink((np.array([1.0]),), (np.array([np.inf]),)),),
    ),
    _unary(
        "arctanh",
        np.arctanh,
        lambda s, g, out, x: s.div(g, s.sub(1.0, s.square(x))),
        _libm(math.atanh),
        "Inverse hyperbolic tangent on (-1, 1). Convention (PyTorch's): arctanh(±1) = ±inf, its derivative there inf.",
        _domain(-0.9, 0.9),
        kinks=(Kink((_UNITS,), (np.full(2, np.inf),)),),
    ),
]
