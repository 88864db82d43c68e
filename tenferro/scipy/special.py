"""``tenferro.scipy.special``: scipy.special's functions with scipy's names and
signatures, differentiable, on the ``special`` plugin's ops (and ``erf`` and ``expit`` on
``elementwise``'s, ``logsumexp`` on ``reduce``'s, ``softmax``/``log_softmax`` on ``nn``'s).

Arguments are tenferro arrays, NumPy arrays or Python numbers, as in ``tenferro.numpy``;
integer arrays give float64 results, as scipy's do; complex arguments are refused (a
DTypeError). A gradient in a Bessel function's real order ``v`` is refused
(NotDifferentiable); the integer orders and multigammaln's ``d`` never track one. Errors
name ``tenferro.scipy.special.<function>`` and its argument. ``scipy.special.erf(x)``
itself on a tenferro array runs the function of the same name here (scipy.special's
functions are NumPy ufuncs). See docs/special.md.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import numpy as tnp
from ..core.eager import EagerTensor
from ..core.errors import ArgumentError
from ..numpy._dispatch import array_arg, as_array, binary, call, integer_array, lift, run, runtime_of, unary

_PREFIX = "tenferro.scipy.special."

#: scipy's name -> (op, doc).
_UNARY = {
    "gammaln": ("gammaln", "log|Γ(x)|; its derivative is digamma(x)."),
    "digamma": ("digamma", "ψ(x) = Γ′(x)/Γ(x); its derivative is polygamma(1, x)."),
    "psi": ("digamma", "ψ(x), digamma's other name."),
    "gamma": ("gamma", "Γ(x); its derivative is Γ(x)·ψ(x)."),
    "erf": ("erf", "The error function; its derivative is 2/√π·exp(-x²)."),
    "erfc": ("erfc", "1 - erf(x), accurate where erf(x) is near 1."),
    "erfcx": ("erfcx", "exp(x²)·erfc(x), without overflow."),
    "erfinv": ("erfinv", "The inverse of erf on (-1, 1)."),
    "erfcinv": ("erfcinv", "The inverse of erfc on (0, 2)."),
    "ndtr": ("ndtr", "Φ(x), the standard normal distribution function."),
    "log_ndtr": ("log_ndtr", "log Φ(x), accurate in both tails; its derivative stays finite far into the left tail."),
    "ndtri": ("ndtri", "The inverse of ndtr on (0, 1)."),
    "expit": ("sigmoid", "1/(1 + e**-x), without overflow."),
    "logit": ("special_logit", "log(x/(1 - x)), the inverse of expit."),
    "log_expit": ("log_expit", "log(expit(x)) without overflow or underflow."),
    "entr": ("entr", "-x·log(x), 0 at 0, -inf for x < 0."),
    "i0": ("i0", "The modified Bessel function I_0."),
    "i1": ("i1", "The modified Bessel function I_1."),
    "i0e": ("i0e", "e^{-|x|}·I_0(x)."),
    "i1e": ("i1e", "e^{-|x|}·I_1(x)."),
    "j0": ("j0", "The Bessel function J_0."),
    "j1": ("j1", "The Bessel function J_1."),
    "y0": ("y0", "The Bessel function Y_0, for x > 0."),
    "y1": ("y1", "The Bessel function Y_1, for x > 0."),
}
#: scipy's name -> (op, doc, scipy's names of the operands, the op's -> scipy's argument names).
_BINARY = {
    "beta": ("beta", "B(a, b) = Γ(a)Γ(b)/Γ(a + b).", ("a", "b"), {}),
    "betaln": ("betaln", "log|B(a, b)|.", ("a", "b"), {}),
    "xlogy": ("special_xlogy", "x·log(y), 0 where x == 0.", ("x", "y"), {}),
    "xlog1py": ("xlog1py", "x·log1p(y), 0 where x == 0.", ("x", "y"), {}),
    "iv": ("iv", "I_v(z), the modified Bessel function of real order v; differentiable in z.", ("v", "z"), {"x": "z"}),
    "ive": ("ive", "e^{-|z|}·I_v(z); differentiable in z.", ("v", "z"), {"x": "z"}),
    "jv": ("jv", "J_v(z), the Bessel function of real order v; differentiable in z.", ("v", "z"), {"x": "z"}),
    "jn": ("jv", "J_n(z), jv's other name.", ("v", "z"), {"x": "z"}),
    "yv": ("yv", "Y_v(z), the Bessel function of real order v (z > 0); differentiable in z.", ("v", "z"), {"x": "z"}),
    "yn": ("yn", "Y_n(x), the Bessel function of integer order n, for x > 0; differentiable in x.", ("n", "x"), {}),
    "gammainc": (
        "gammainc",
        "P(a, x), the regularized lower incomplete gamma function; differentiable in x.",
        ("a", "x"),
        {},
    ),
    "gammaincc": ("gammaincc", "Q(a, x) = 1 - P(a, x), the upper one; differentiable in x.", ("a", "x"), {}),
    "stdtr": (
        "stdtr",
        "Student's t distribution function of t with df degrees of freedom; differentiable in t.",
        ("df", "t"),
        {},
    ),
}


def _public(function: Any, name: str) -> Any:
    function.__module__ = __name__
    return function


for _name, (_op, _doc) in _UNARY.items():
    globals()[_name] = _public(unary(_name, _op, _doc, label=_PREFIX + _name), _name)
for _name, (_op, _doc, _operands, _names) in _BINARY.items():
    globals()[_name] = _public(binary(_name, _op, _doc, label=_PREFIX + _name, operands=_operands, names=_names), _name)


def polygamma(n: Any, x: Any) -> EagerTensor:
    """ψ⁽ⁿ⁾(x), the n-th derivative of digamma, for integer orders n >= 0 (an int or an
    integer array, broadcast against x; no gradient); its derivative in x is
    polygamma(n + 1, x)."""
    function = _PREFIX + "polygamma"
    orders = integer_array(n, function, "n")
    if orders.ndim == 0:
        return call(function, "polygamma", x, int(orders))
    x = array_arg(x, function)
    result = None
    for order in np.unique(orders):  # one op per order, each where its order is
        value = call(function, "polygamma", x, int(order))
        result = value if result is None else tnp.where(orders == order, value, result)
    return tnp.broadcast_to(result, np.broadcast_shapes(orders.shape, x.shape))


def multigammaln(a: Any, d: int) -> EagerTensor:
    """log Γ_d(a), the multivariate gamma function of dimension d (an int >= 1); a must be
    > (d - 1)/2 everywhere. Its derivative is Σ_j ψ(a - j/2), j = 0 .. d - 1."""
    function = _PREFIX + "multigammaln"
    if isinstance(d, (np.integer, np.ndarray)) and np.ndim(d) == 0 and np.asarray(d).dtype.kind in "iu":
        d = int(d)
    return call(function, "multigammaln", a, d)


def betainc(a: Any, b: Any, x: Any) -> EagerTensor:
    """I_x(a, b), the regularized incomplete beta function, broadcasting; differentiable in x
    (x^(a-1)(1-x)^(b-1)/B(a, b)); a derivative in a or b raises NotDifferentiable."""
    return _ternary("betainc", a, b, x)


def betaincc(a: Any, b: Any, x: Any) -> EagerTensor:
    """1 - I_x(a, b), accurate where I_x(a, b) is near 1; differentiable in x only."""
    return _ternary("betaincc", a, b, x)


def _ternary(op: str, a: Any, b: Any, x: Any) -> EagerTensor:
    function = _PREFIX + op
    rt = runtime_of((a, b, x))
    a, b = lift(rt, a, function, "a"), lift(rt, b, function, "b")
    x = lift(rt, x, function, "x") if EagerTensor in (type(a), type(b)) else as_array(rt, x, function, "x")
    return run(function, None, getattr(rt.current_session(), op), a, b, x)


def logsumexp(
    a: Any, axis: Any = None, b: Any = None, keepdims: bool = False, return_sign: bool = False
) -> EagerTensor:
    """log(Σ b·exp(a)) over ``axis`` (None: all), without overflow; ``b`` (weights,
    broadcast against a, >= 0) is differentiable too. ``return_sign`` is not supported:
    the sign of a sum with negative weights has no derivative to give."""
    function = _PREFIX + "logsumexp"
    if return_sign:
        raise ArgumentError(
            f"{function}: return_sign=True is not supported; with weights b >= 0 the sum is positive, else "
            f"compute the sum yourself"
        )
    a = array_arg(a, function, "a")
    if b is not None:
        a = tnp.add(a, tnp.log(b))
    return run(function, {"x": "a"}, a.runtime.current_session().logsumexp, a, axis, bool(keepdims))


def softmax(x: Any, axis: Any = None) -> EagerTensor:
    """exp(x)/Σ exp(x) over ``axis`` (None: all elements, as scipy's), without overflow."""
    return _softmax(x, axis, "softmax")


def log_softmax(x: Any, axis: Any = None) -> EagerTensor:
    """x - logsumexp(x) over ``axis`` (None: all elements, as scipy's), without overflow."""
    return _softmax(x, axis, "log_softmax")


def _softmax(x: Any, axis: Any, op: str) -> EagerTensor:
    function = _PREFIX + op
    x = array_arg(x, function)
    s = x.runtime.current_session()
    if isinstance(axis, (int, np.integer)) and not isinstance(axis, bool):
        return run(function, None, getattr(s, op), x, int(axis))
    # None or a tuple of axes: x - logsumexp over them (the nn ops take one axis)
    shifted = tnp.subtract(x, run(function, None, s.logsumexp, x, axis, True))
    return shifted if op == "log_softmax" else tnp.exp(shifted)


__all__ = sorted(
    [*_UNARY, *_BINARY, "betainc", "betaincc", "polygamma", "multigammaln", "logsumexp", "softmax", "log_softmax"]
)
