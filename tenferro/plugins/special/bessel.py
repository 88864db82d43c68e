"""Bessel functions of real argument, on scipy.special's kernels: the modified ones i0, i1,
iv(v, x), their exponentially scaled forms i0e, i1e, ive(v, x), and those of the first and
second kind j0, j1, jv(v, x), y0, y1, yv(v, x), yn(n, x).

Derivatives are in x only (a gradient in the order v is refused: NotDifferentiable), from the recurrences
Z_v′ = (Z_{v-1} - Z_{v+1})/2 for J and Y, I_v′ = (I_{v-1} + I_{v+1})/2 for I, minus
sign(x)·ive(v, x) for the scaled e^{-|x|}·I_v, so no rule divides by x. i0e has a kink at 0
(e^{-|x|}); the convention there is 0. Non-integer orders are real only for x > 0 (scipy's
nan elsewhere), so their samples keep x > 0; y is -inf at 0.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.special

from tenferro.extend import DTypeError, ErrorInput, Kink, ShapeMismatch, cast

from .rules import partials, refused, shifted, times
from .specs import domain, pairs, reference, shape_params, special, weak_scalars

#: Integer orders near the samples, where the reference's Y_v formula is singular.
_INTEGERS = (-2.0, -1.0, 0.0, 1.0, 2.0, 3.0)


def _rgamma(z: float) -> float:
    return 0.0 if z <= 0 and z == math.floor(z) else 1.0 / math.gamma(z)


def _series(v: float, x: float, sign: float) -> float:
    """Σ_k sign**k·(x/2)**(2k+v)/(k!·Γ(k+v+1)): J_v (sign -1) or I_v (sign +1), for x > 0
    or an integer v."""
    half = x / 2.0
    return sum(sign**k * half ** (2 * k) * _rgamma(k + v + 1) / math.factorial(k) for k in range(80)) * (
        half**v if v != math.floor(v) else math.copysign(abs(half) ** v, half if int(v) % 2 else 1.0)
    )


def _yv_reference(v: float, x: float) -> float:
    """Y_v = (J_v·cos(vπ) - J_{-v})/sin(vπ), for non-integer v."""
    return (_series(v, x, -1.0) * math.cos(v * math.pi) - _series(-v, x, -1.0)) / math.sin(v * math.pi)


def _scaled(s: Any, out: Any, x: Any, unscaled: Any) -> Any:
    """The derivative of e^{-|x|}·f(x), from e^{-|x|}·f′(x) (``unscaled``) and the result."""
    return s.sub(unscaled, s.mul(s.sign(x), out))


def _half(s: Any, a: Any, b: Any, op: str) -> Any:
    return s.mul(getattr(s, op)(a, b), 0.5)


def _yn(n: Any, x: Any) -> Any:
    """scipy's yn, in float32 for float32 x (its integer-order loop returns float64)."""
    if getattr(x, "dtype", None) == np.float32:
        n = cast(n, np.float32) if hasattr(n, "dtype") else np.float32(n)
    return scipy.special.yn(n, x)


def _yn_errors() -> list[ErrorInput]:
    return [
        ErrorInput((np.array([1.5]), np.ones(1)), {}, DTypeError, "yn: argument 'n' has dtype f64"),
        ErrorInput((np.array([1]), np.array([True])), {}, DTypeError, "argument 'x' has dtype bool"),
        ErrorInput((np.array([1, 2]), np.ones(3)), {}, ShapeMismatch, "do not broadcast"),
    ]


_ORDER_WHY = "scipy defines no derivative in the order, and the order's derivative is no Bessel function"


def _order_rule(name: str, plus: str) -> tuple[Any, Any]:
    """∂/∂x of ``name``(v, x) = (Z_{v-1} ± Z_{v+1})/2 (``plus``: "add" for I, "sub" for J, Y)."""

    def partial(s: Any, out: Any, v: Any, x: Any) -> Any:
        op = getattr(s, name)
        return _half(s, op(shifted(s, v, -1), x), op(shifted(s, v, 1), x), plus)

    return partials(refused(name, "v", _ORDER_WHY), partial)


def _ive_partial(s: Any, out: Any, v: Any, x: Any) -> Any:
    unscaled = _half(s, s.ive(shifted(s, v, -1), x), s.ive(shifted(s, v, 1), x), "add")
    return _scaled(s, out, x, unscaled)


def _non_integer_orders() -> Any:
    """A Python float order off the integers (an order takes no gradient), then x > 0."""
    from hypothesis import strategies as st

    from tenferro.extend import SampleInput, strategies

    return st.tuples(st.floats(-2.4, 2.4), strategies.floats_array(low=0.5, high=6.0)).map(
        lambda pair: SampleInput((_off_integers(pair[0]), pair[1]))
    )


def _off_integers(v: Any) -> Any:
    """v moved at least 0.125 away from the integers (the reference's formula is singular there)."""
    array = np.asarray(v, dtype=np.float64)
    nearest = np.round(array)
    close = np.abs(array - nearest) < 0.125
    moved = np.where(close, nearest + np.where(array >= nearest, 0.125, -0.125), array)
    return float(moved) if isinstance(v, float) else moved


#: The orders: a Python float or an integer array (an order takes no gradient), then x.
_ORDERS = shape_params(1, -2.5, 3.0, (0.2, 6.0))
_TINY = float(np.finfo(np.float64).tiny)


def _orders(ufunc: Callable[..., Any]) -> Callable[..., Any]:
    """scipy's function of real order ``v`` (as :func:`weak_scalars` calls it), with an
    integer-array order taken in x's precision (int64 beside float32 would pick scipy's
    double loop) and an order below the smallest normal float taken as 0, where the function
    is continuous: scipy's ive and yv give nan and -0.0 at subnormal orders (ive(-5e-324,
    1.0) is nan, ive(0.0, 1.0) 0.4658), and iv and jv do not."""
    kernel = weak_scalars(ufunc)

    def ordered(v: Any, x: Any) -> Any:
        if isinstance(v, (int, float)):
            return kernel(0.0 if abs(v) < _TINY else v, x)
        if v.dtype.kind in "iu":
            dtype = getattr(x, "dtype", None)
            v = cast(v, dtype if dtype is not None and dtype.kind == "f" else np.float64)
        return kernel(np.where(np.abs(v) < _TINY, np.zeros_like(v), v), x)

    return ordered


SPECS = [
    special(
        "i0",
        ("x",),
        scipy.special.i0,
        times(lambda s, out, x: s.i1(x)),
        reference(lambda x: _series(0.0, x, 1.0)),
        "The modified Bessel function I_0 (scipy's i0); its derivative is i1(x).",
        domain(-5.0, 5.0),
        ("x",),
    ),
    special(
        "i1",
        ("x",),
        scipy.special.i1,
        times(lambda s, out, x: _half(s, s.i0(x), s.mul(s.ive(2.0, x), s.exp(s.abs(x))), "add")),
        reference(lambda x: _series(1.0, x, 1.0)),
        "The modified Bessel function I_1 (scipy's i1); its derivative is (i0(x) + I_2(x))/2, with I_2 as "
        "ive(2, x)·e^{|x|} (scipy's iv(2, x) is nan for |x| below about 1e-300).",
        domain(-5.0, 5.0),
        ("x",),
    ),
    special(
        "i0e",
        ("x",),
        scipy.special.i0e,
        times(lambda s, out, x: _scaled(s, out, x, s.i1e(x))),
        reference(lambda x: math.exp(-abs(x)) * _series(0.0, x, 1.0)),
        "e^{-|x|}·I_0(x) (scipy's i0e); its derivative is i1e(x) - sign(x)·i0e(x). Convention: 0 at the kink "
        "x = 0 (the mean of the one-sided derivatives ±1).",
        domain(-6.0, 6.0, (0.0,)),
        ("x", "out"),
        kinks=(Kink((np.array([0.0, -0.0]),), (np.zeros(2),)),),
    ),
    special(
        "i1e",
        ("x",),
        scipy.special.i1e,
        times(lambda s, out, x: _scaled(s, out, x, _half(s, s.i0e(x), s.ive(2.0, x), "add"))),
        reference(lambda x: math.exp(-abs(x)) * _series(1.0, x, 1.0)),
        "e^{-|x|}·I_1(x) (scipy's i1e); its derivative is (i0e(x) + ive(2, x))/2 - sign(x)·i1e(x) (1/2 at 0; the "
        "second derivative jumps there).",
        domain(-6.0, 6.0, (0.0,)),
        ("x", "out"),
    ),
    special(
        "iv",
        ("v", "x"),
        _orders(scipy.special.iv),
        _order_rule("iv", "add"),
        reference(lambda v, x: _series(v, x, 1.0)),
        "The modified Bessel function I_v(x) of real order v (scipy's iv), broadcasting; differentiable in x "
        "only: ∂/∂x = (iv(v - 1, x) + iv(v + 1, x))/2. nan for x < 0 and non-integer v.",
        _ORDERS,
        ("v", "x"),
    ),
    special(
        "ive",
        ("v", "x"),
        _orders(scipy.special.ive),
        partials(refused("ive", "v", _ORDER_WHY), _ive_partial),
        reference(lambda v, x: math.exp(-abs(x)) * _series(v, x, 1.0)),
        "e^{-|x|}·I_v(x) (scipy's ive), broadcasting; differentiable in x only: ∂/∂x = (ive(v - 1, x) + "
        "ive(v + 1, x))/2 - sign(x)·ive(v, x). nan for x < 0 and non-integer v.",
        _ORDERS,
        ("v", "x", "out"),
    ),
    special(
        "j0",
        ("x",),
        scipy.special.j0,
        times(lambda s, out, x: s.neg(s.j1(x))),
        reference(lambda x: _series(0.0, x, -1.0)),
        "The Bessel function J_0 (scipy's j0); its derivative is -j1(x).",
        domain(-8.0, 8.0),
        ("x",),
    ),
    special(
        "j1",
        ("x",),
        scipy.special.j1,
        times(lambda s, out, x: _half(s, s.j0(x), s.jv(2.0, x), "sub")),
        reference(lambda x: _series(1.0, x, -1.0)),
        "The Bessel function J_1 (scipy's j1); its derivative is (j0(x) - jv(2, x))/2.",
        domain(-8.0, 8.0),
        ("x",),
    ),
    special(
        "jv",
        ("v", "x"),
        _orders(scipy.special.jv),
        _order_rule("jv", "sub"),
        reference(lambda v, x: _series(v, x, -1.0)),
        "The Bessel function J_v(x) of real order v (scipy's jv, and jn), broadcasting; differentiable in x only: "
        "∂/∂x = (jv(v - 1, x) - jv(v + 1, x))/2. nan for x < 0 and non-integer v.",
        _ORDERS,
        ("v", "x"),
    ),
    special(
        "y0",
        ("x",),
        scipy.special.y0,
        times(lambda s, out, x: s.neg(s.y1(x))),
        reference(lambda x: float(scipy.special.yv(0.0, x))),
        "The Bessel function Y_0 on x > 0 (scipy's y0): -inf at 0, nan for x < 0; its derivative is -y1(x).",
        domain(0.3, 8.0),
        ("x",),
    ),
    special(
        "y1",
        ("x",),
        scipy.special.y1,
        times(lambda s, out, x: _half(s, s.y0(x), s.yv(2.0, x), "sub")),
        reference(lambda x: float(scipy.special.yv(1.0, x))),
        "The Bessel function Y_1 on x > 0 (scipy's y1); its derivative is (y0(x) - yv(2, x))/2.",
        domain(0.3, 8.0),
        ("x",),
    ),
    special(
        "yv",
        ("v", "x"),
        _orders(scipy.special.yv),
        _order_rule("yv", "sub"),
        reference(_yv_reference),
        "The Bessel function Y_v(x) of real order v on x > 0 (scipy's yv), broadcasting; differentiable in x "
        "only: ∂/∂x = (yv(v - 1, x) - yv(v + 1, x))/2.",
        _non_integer_orders,
        ("v", "x"),
    ),
    special(
        "yn",
        ("n", "x"),
        _yn,
        _order_rule("yn", "sub"),
        reference(lambda n, x: float(scipy.special.yv(float(n), x))),
        "The Bessel function Y_n(x) of integer order n on x > 0 (scipy's yn), broadcasting; differentiable in x "
        "only: ∂/∂x = (yn(n - 1, x) - yn(n + 1, x))/2.",
        pairs((-2, 3), (0.5, 6.0), integer_a=True),
        ("n", "x"),
        accepts=("iu", "fiu"),
        error_inputs=_yn_errors,
    ),
]
