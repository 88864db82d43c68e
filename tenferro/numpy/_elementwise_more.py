"""NumPy's elementwise functions beyond the array API's: ``cbrt`` (the op), ``sinc``,
``heaviside``, ``fmax``/``fmin``, ``float_power``, ``logaddexp2``, ``divmod``, ``modf``,
``frexp``, ``ldexp`` and ``fmod``, composed of ops so that they differentiate (``sinc``
by NumPy's own formula, so its values are NumPy's bitwise). ``fmod`` is NumPy's value
(C's fmod, which no composition of ops rounds the same) plus its linear term in a and b
(derivatives 1 and -trunc(a/b)), which adds exact zeros: the value is NumPy's bitwise."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import numpy as tnp
from .._api import stop_gradient
from ..core.eager import EagerTensor
from ..core.errors import ArgumentError
from ._composed import numpy_name, values
from ._dispatch import unary

__all__ = [
    "cbrt",
    "divmod",
    "float_power",
    "fmax",
    "fmin",
    "fmod",
    "frexp",
    "heaviside",
    "ldexp",
    "logaddexp2",
    "modf",
    "sinc",
]

cbrt = unary("cbrt", "cbrt", "The real cube root (the op cbrt); its derivative 1/(3·cbrt(x)²) is inf at 0.")

_LOG2E = 1.0 / math.log(2.0)


def _array(a: Any) -> EagerTensor:
    return a if type(a) is EagerTensor else tnp.asarray(a)


def _inexact(x: EagerTensor) -> EagerTensor:
    return x if x.dtype.kind in "fc" else tnp.astype(x, np.float64)


@numpy_name
def sinc(x: Any, /) -> EagerTensor:
    """sin(πx)/(πx), 1 at 0, as NumPy computes it (x = 0 replaced by 1e-20 first)."""
    x = _inexact(_array(x))
    y = tnp.where(x == 0, 1.0e-20, x) * math.pi
    return tnp.sin(y) / y


@numpy_name
def heaviside(x1: Any, x2: Any, /) -> EagerTensor:
    """0 where x1 < 0, 1 where x1 > 0, x2 where x1 == 0 (nan where x1 is nan); the
    gradient reaches x2 where x1 == 0."""
    x1 = _inexact(_array(x1))
    step = tnp.where(x1 > 0, 1.0, tnp.where(x1 < 0, 0.0, x2))
    return tnp.where(tnp.isnan(x1), np.nan, step)


def _number_where_nan(name: str, extreme: Callable[..., EagerTensor], doc: str) -> Callable[..., EagerTensor]:
    """``tnp.fmax``/``tnp.fmin``: ``extreme`` (maximum or minimum), but the number where one
    operand is nan, as NumPy's."""

    def function(x1: Any, x2: Any, /) -> EagerTensor:
        a, b = _array(x1), _array(x2)
        if a.dtype.kind not in "fc" and b.dtype.kind not in "fc":
            return extreme(a, b)
        return tnp.where(tnp.isnan(b), a, tnp.where(tnp.isnan(a), b, extreme(a, b)))

    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc
    return numpy_name(function)


fmax = _number_where_nan(
    "fmax", tnp.maximum, "The larger of x1 and x2, the number where one is nan (ties share the gradient)."
)
fmin = _number_where_nan(
    "fmin", tnp.minimum, "The smaller of x1 and x2, the number where one is nan (ties share the gradient)."
)


@numpy_name
def float_power(x1: Any, x2: Any, /) -> EagerTensor:
    """x1**x2 computed in float64 (complex128 for complex operands), as NumPy's float_power."""
    a, b = _array(x1), _array(x2)
    wide = np.dtype(np.complex128) if "c" in (a.dtype.kind, b.dtype.kind) else np.dtype(np.float64)
    return tnp.pow(tnp.astype(a, wide), tnp.astype(b, wide))


@numpy_name
def logaddexp2(x1: Any, x2: Any, /) -> EagerTensor:
    """log2(2**x1 + 2**x2) without overflow: max + log1p(2**-|x1 - x2|)/log 2 (x1 + 1
    where they are equal, the gradient shared)."""
    a, b = _inexact(_array(x1)), _inexact(_array(x2))
    larger = tnp.maximum(a, b)
    gap = tnp.where(a == b, 0.0, -tnp.abs(a - b))
    apart = larger + tnp.log1p(tnp.exp2(gap)) * _LOG2E
    return tnp.where(a == b, (a + b) / 2 + 1, apart)


@numpy_name
def divmod(x1: Any, x2: Any, /) -> tuple[EagerTensor, EagerTensor]:  # noqa: A001 - NumPy's name
    """(floor_divide(x1, x2), remainder(x1, x2))."""
    return tnp.floor_divide(x1, x2), tnp.remainder(x1, x2)


@numpy_name
def modf(x: Any, /) -> tuple[EagerTensor, EagerTensor]:
    """(the fractional part, the integral part) of x, both with x's sign: x - trunc(x)
    (exact in floating point) and trunc(x); the fraction's derivative is 1 off the integers."""
    x = _inexact(_array(x))
    whole = tnp.trunc(x)
    fraction = tnp.where(tnp.isinf(x), 0.0, x - whole)
    return tnp.copysign(fraction, x), whole


def _power_of_two(exponent: np.ndarray, dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """2**exponent as two factors of ``dtype`` whose product with a number is exact
    (one factor alone would overflow for a subnormal number's exponent)."""
    half = exponent // 2
    return np.ldexp(np.ones((), dtype), half), np.ldexp(np.ones((), dtype), exponent - half)


@numpy_name
def frexp(x: Any, /) -> tuple[EagerTensor, EagerTensor]:
    """(mantissa, exponent) with x = mantissa·2**exponent, 0.5 <= |mantissa| < 1: the
    exponent NumPy's (an int32 constant), the mantissa x·2**-exponent, exact, so it
    differentiates (derivative 2**-exponent)."""
    x = _inexact(_array(x))
    if x.dtype.kind == "c":
        raise ArgumentError("argument 'x' is complex; frexp takes real numbers")
    _, exponent = np.frexp(values(x))
    first, second = _power_of_two(-exponent.astype(np.int64), x.dtype)
    finite = tnp.isfinite(x)
    mantissa = tnp.where(finite, x * first * second, x)
    return mantissa, x.runtime.constant_from(exponent)


@numpy_name
def ldexp(x1: Any, x2: Any, /) -> EagerTensor:
    """x1·2**x2 for integer x2 (exact), differentiable in x1."""
    x = _inexact(_array(x1))
    exponent = np.asarray(values(x2))
    if exponent.dtype.kind not in "iu":
        raise ArgumentError(f"argument 'x2' has dtype {exponent.dtype}; ldexp takes integer exponents")
    first, second = _power_of_two(exponent.astype(np.int64), x.dtype)
    return x * first * second


@numpy_name
def fmod(x1: Any, x2: Any, /) -> EagerTensor:
    """C's fmod: x1 - x2·trunc(x1/x2), with x1's sign (NumPy's value, bitwise); the
    derivatives are 1 in x1 and -trunc(x1/x2) in x2."""
    a, b = _array(x1), _array(x2)
    value = np.fmod(values(a), values(b))
    result = a.runtime.constant_from(np.asarray(value)) if type(a) is EagerTensor else b.runtime.constant_from(value)
    if value.dtype.kind != "f" or not (a.tracks_grad() or b.tracks_grad()):
        return result
    quotient = np.trunc(np.divide(values(a), values(b)))
    # exact zeros of the primal's value, carrying the linear term (x - stop(x) is +0.0 exactly)
    change = (a - stop_gradient(a)) - (b - stop_gradient(b)) * quotient
    return tnp.where(result == 0, result, result + change)
