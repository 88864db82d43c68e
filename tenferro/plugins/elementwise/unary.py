"""Unary elementwise math: one table row per op (kernel, rule, domain, reference).

Each rule is the op's derivative f′ stated once, from which :mod:`.derivative` makes its
VJP and its forward-mode JVP (or, for the few that are not a product with f′, the pair
written out), with session ops so it can be differentiated again. Where a function has a
kink or pole, the row's doc states the value taken there and its ``kinks`` the same as
data; every choice matches PyTorch and JAX.

Complex numbers (DESIGN §10): every op that NumPy and PyTorch define on complex numbers
accepts them (``erf`` does not: PyTorch has no complex erf). Cotangents live in the real
inner product Re(conj(a)·b), so a holomorphic f's rule is g ↦ g·conj(f′(z)), written once
for real and complex inputs with :func:`tenferro.extend.conj` (no op for a real tensor: the
real path does the same work as before). ``abs`` and ``sign`` are not holomorphic on
complex numbers and take PyTorch's formulas (abs: g·z/|z|; sign: PyTorch's ``sgn``
backward), 0 at z = 0. Complex samples keep away from each function's branch cuts and
poles: NumPy's principal branches cut along the real axis (log, sqrt, arcsin, arccosh, ...)
or the imaginary axis (arctan, arcsinh).
"""

from __future__ import annotations

import cmath
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.special

from tenferro.extend import DTypeError, ErrorInput, InputRule, Kink, OpSpec, SampleInput

from .derivative import JvpRule, over, times


def _libm(
    fn: Callable[[float], float], complex_fn: Callable[[complex], complex] | None = None
) -> Callable[[np.ndarray], np.ndarray]:
    """Reference from the C library's scalar function, independent of NumPy's SIMD loops
    (and from ``cmath``'s, ``complex_fn``, for complex arguments)."""
    real = np.vectorize(fn, otypes=[np.float64])
    if complex_fn is None:
        return real
    imaginary = np.vectorize(complex_fn, otypes=[np.complex128])
    return lambda x: imaginary(x) if np.iscomplexobj(x) else real(x)


def _domain(low: float = -3.0, high: float = 3.0, avoid: tuple[float, ...] = ()) -> Callable[[], Any]:
    def sample() -> Any:
        from tenferro.testing.strategies import unary

        return unary(low, high, avoid)

    return sample


_ANYWHERE = _domain()

#: Distance complex samples keep from a branch cut or a branch point.
_OFF_CUT = 0.25


def _complex_domain(*regions: tuple[float, float, float, float, str]) -> Callable[[], Any]:
    """Complex samples from a union of rectangles ``(re_low, re_high, im_low, im_high,
    away)``: ``away`` is ``"re"`` to keep the real part, ``"im"`` the imaginary part,
    ``_OFF_CUT`` from 0 (off the imaginary or the real axis, where the cuts are), or ``""``."""

    def sample() -> Any:
        from hypothesis import strategies as st

        from tenferro.testing.strategies import SHAPES, floats_array

        @st.composite
        def draw_one(draw: Any) -> SampleInput:
            shape = draw(SHAPES)
            re_low, re_high, im_low, im_high, away = draw(st.sampled_from(regions))
            re = draw(floats_array(shape, re_low, re_high, (0.0,) if away == "re" else (), _OFF_CUT))
            im = draw(floats_array(shape, im_low, im_high, (0.0,) if away == "im" else (), _OFF_CUT))
            return SampleInput((np.asarray(re + 1j * im),))

        return draw_one()

    return sample


#: Off the real axis (where NumPy's log, sqrt, arcsin, arccosh, ... have their cuts).
_OFF_REAL_AXIS = (-3.0, 3.0, -1.5, 1.5, "im")
#: The right half-plane near the real axis (log's, sqrt's real domain, made complex).
_RIGHT = (0.2, 5.0, -1.0, 1.0, "")
_LOG_LIKE = _complex_domain(_RIGHT, _OFF_REAL_AXIS)


def _unary(
    name: str,
    forward: Callable[[np.ndarray], np.ndarray],
    rule: tuple[InputRule, JvpRule | None],
    reference: Callable[[np.ndarray], np.ndarray],
    doc: str,
    domain: Callable[[], Any] = _ANYWHERE,
    residuals: tuple[str, ...] | None = ("x",),
    kinks: tuple[Kink, ...] = (),
    linear: bool = False,
    accepts: str = "fiuc",
    complex_domain: Callable[[], Any] | None = None,
) -> OpSpec:
    errors = [ErrorInput((np.array([True, False]),), {}, DTypeError, "accepts float")]
    if "c" not in accepts:
        errors.append(ErrorInput((np.array([1j]),), {}, DTypeError, f"{name}: argument 'x' has dtype c128"))
    return OpSpec(
        name=name,
        inputs=("x",),
        forward=forward,
        vjps=(rule[0],),
        jvp=rule[1],
        linear=linear,
        accepts=accepts,
        sample=domain,
        complex_sample=complex_domain,
        reference=reference,
        error_inputs=lambda: errors,
        residuals=residuals,
        doc=doc,
        kinks=kinks,
        elementwise=True,
    )


#: The signed zeros, where abs and sign have their kink.
_ZEROS = np.array([0.0, -0.0])
#: Complex zeros (all four signs), where complex abs and sign have theirs.
_COMPLEX_ZEROS = np.array([complex(0.0, 0.0), complex(-0.0, 0.0), complex(0.0, -0.0), complex(-0.0, -0.0)])

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_LN2, _LN10 = math.log(2.0), math.log(10.0)
#: The ends of [-1, 1], where arcsin, arccos and arctanh have infinite derivatives.
_UNITS = np.array([-1.0, 1.0])


def _sqrt_one_minus_square(s: Any, x: Any) -> Any:
    """sqrt(1 - x**2), written (1 - x)(1 + x) so it stays accurate near ±1."""
    return s.sqrt(s.mul(s.sub(1.0, x), s.add(x, 1.0)))


def _arccosh_denominator(s: Any, out: Any, x: Any) -> Any:
    """1/arccosh′(x): sqrt(x**2 - 1) for real x; for complex z sqrt(z - 1)·sqrt(z + 1), not
    sqrt(z**2 - 1): the two differ in sign where Re z < 0, and the first has arccosh's own
    cut (-inf, 1]. z + 1 as z - (-1): adding 1 + 0j would turn a -0.0 imaginary part into
    +0.0 and flip the sign on the cut left of -1."""
    if x.dtype.kind != "c":
        return s.sqrt(s.sub(s.square(x), 1.0))
    return s.mul(s.sqrt(s.sub(x, 1.0)), s.sqrt(s.sub(x, -1.0)))


def _sigmoid(x: Any) -> Any:
    """scipy's expit for real x; for complex z (scipy has no complex loop), 1/(1 + e**-z)
    where Re z >= 0 and e**z/(1 + e**z) elsewhere, so the exponential never overflows."""
    if x.dtype.kind != "c":
        return scipy.special.expit(x)
    right = np.greater_equal(np.real(x), 0)
    e = np.exp(np.where(right, np.negative(x), x))  # |e| <= 1
    return np.where(right, np.reciprocal(np.add(e, 1.0)), np.divide(e, np.add(e, 1.0)))


def _abs_reference(x: np.ndarray) -> np.ndarray:
    if np.iscomplexobj(x):
        return np.vectorize(lambda z: math.hypot(z.real, z.imag), otypes=[np.float64])(x)
    return np.vectorize(math.fabs, otypes=[np.float64])(x)


def _sign_reference(x: np.ndarray) -> np.ndarray:
    if np.iscomplexobj(x):
        return np.vectorize(lambda z: z / abs(z) if z else 0j, otypes=[np.complex128])(x)
    return (x > 0) * 1.0 - (x < 0) * 1.0


def _sign_rule(s: Any, g: Any, out: Any, x: Any) -> Any:
    """0 for real x; for complex z, PyTorch's sgn backward: (g - sgn(z)**2·conj(g)) / (2|z|),
    the adjoint of dz ↦ (dz - sgn(z)·Re(conj(sgn(z))·dz)) / |z|, and 0 at z = 0."""
    if x.dtype.kind != "c":
        return None
    size = s.abs(x)
    zero = s.compare(size, 0.0, "eq")
    twice = s.mul(s.where_select(zero, 1.0, size), 2.0)  # 1 where z == 0: no inf to mask
    return s.where_select(zero, 0.0, s.div(s.sub(g, s.mul(s.square(out), s.conj(g))), twice))


def _sign_jvp(s: Any, tangents: Any, inputs: Any, out: Any) -> Any:
    """0 for real x; for complex z, dz ↦ (dz - sgn(z)·Re(conj(sgn(z))·dz)) / |z|, 0 at z = 0."""
    t, x = tangents[0], inputs[0]
    if t is None or x.dtype.kind != "c":
        return None
    size = s.abs(x)
    zero = s.compare(size, 0.0, "eq")
    along = s.mul(out, s.real(s.mul(s.conj(out), t)))
    return s.where_select(zero, 0.0, s.div(s.sub(t, along), s.where_select(zero, 1.0, size)))


def _abs_jvp(s: Any, tangents: Any, inputs: Any, out: Any) -> Any:
    """t·sign(x) for real x; Re(conj(sgn(z))·t) for complex z (the transpose of g·sgn(z))."""
    t, x = tangents[0], inputs[0]
    if t is None:
        return None
    if x.dtype.kind != "c":
        return s.mul(t, s.sign(x))
    return s.real(s.mul(s.conj(s.sign(x)), t))


SPECS = [
    _unary(
        "neg",
        np.negative,
        (lambda s, g, out, x: s.neg(g), None),
        lambda x: 0.0 - x,
        "-x.",
        residuals=None,
        linear=True,
    ),
    _unary(
        "exp",
        np.exp,
        times(lambda s, out, x: out),
        _libm(math.exp, cmath.exp),
        "e**x.",
        residuals=("out",),
    ),
    _unary(
        "log",
        np.log,
        over(lambda s, out, x: x),
        _libm(math.log, cmath.log),
        "Natural logarithm; log(0) = -inf, log(x<0) = nan (for real x; complex: the principal branch, "
        "cut along the negative real axis).",
        _domain(0.2, 5.0),
        complex_domain=_LOG_LIKE,
    ),
    _unary(
        "sqrt",
        np.sqrt,
        over(lambda s, out, x: s.mul(out, 2.0)),
        _libm(math.sqrt, cmath.sqrt),
        "Square root (complex: the principal root, cut along the negative real axis). "
        "Convention: sqrt'(0) = inf (so a zero cotangent gives nan there, as in PyTorch).",
        _domain(0.2, 5.0),
        residuals=("out",),
        kinks=(
            Kink((np.array([0.0]),), (np.array([np.inf]),)),
            Kink((np.array([0.0]),), (np.array([np.nan]),), g=0.0),
        ),
        complex_domain=_LOG_LIKE,
    ),
    _unary(
        "cbrt",
        np.cbrt,
        over(lambda s, out, x: s.mul(s.square(out), 3.0)),
        _libm(math.cbrt),
        "Real cube root, negative for negative x (NumPy's cbrt; real only, as NumPy's). "
        "Convention: cbrt'(0) = inf (so a zero cotangent gives nan there, as sqrt's).",
        _domain(-3.0, 3.0, avoid=(0.0,)),
        residuals=("out",),
        kinks=(
            Kink((np.array([0.0]),), (np.array([np.inf]),)),
            Kink((np.array([0.0]),), (np.array([np.nan]),), g=0.0),
        ),
        accepts="fiu",
    ),
    _unary(
        "rsqrt",
        lambda x: np.reciprocal(np.sqrt(x)),
        times(lambda s, out, x: s.mul(s.div(out, x), -0.5)),
        lambda x: x**-0.5,
        "1/sqrt(x); rsqrt(0) = inf (complex: the principal root).",
        _domain(0.2, 5.0),
        residuals=("x", "out"),
        complex_domain=_LOG_LIKE,
    ),
    _unary("sin", np.sin, times(lambda s, out, x: s.cos(x)), _libm(math.sin, cmath.sin), "Sine."),
    _unary(
        "cos",
        np.cos,
        times(lambda s, out, x: s.neg(s.sin(x))),
        _libm(math.cos, cmath.cos),
        "Cosine.",
    ),
    _unary(
        "tan",
        np.tan,
        times(lambda s, out, x: s.add(s.mul(out, out), 1.0)),
        _libm(math.tan, cmath.tan),
        "Tangent.",
        _domain(-1.3, 1.3),
        residuals=("out",),
        # poles at pi/2 + k·pi on the real axis: near it, keep to (-1.3, 1.3)
        complex_domain=_complex_domain((-1.3, 1.3, -1.0, 1.0, ""), _OFF_REAL_AXIS),
    ),
    _unary(
        "tanh",
        np.tanh,
        times(lambda s, out, x: s.sub(1.0, s.mul(out, out))),
        _libm(math.tanh, cmath.tanh),
        "Hyperbolic tangent (complex: poles at i·(pi/2 + k·pi)).",
        residuals=("out",),
    ),
    _unary(
        "sigmoid",
        _sigmoid,
        times(lambda s, out, x: s.mul(out, s.sub(1.0, out))),
        lambda x: 1.0 / (1.0 + np.exp(-x)),
        "Logistic function 1/(1+e**-x), without overflow for large |x| (or |Re x|; complex: poles at i·(pi + 2k·pi)).",
        residuals=("out",),
    ),
    _unary(
        "expm1",
        np.expm1,
        times(lambda s, out, x: s.add(out, 1.0)),
        _libm(math.expm1, lambda z: cmath.exp(z) - 1.0),
        "e**x - 1, accurate near 0.",
        residuals=("out",),
    ),
    _unary(
        "log1p",
        np.log1p,
        over(lambda s, out, x: s.add(x, 1.0)),
        _libm(math.log1p, lambda z: cmath.log(1.0 + z)),
        "log(1 + x), accurate near 0 (complex: cut along the real axis below -1).",
        _domain(-0.8, 3.0),
        complex_domain=_complex_domain((-0.8, 3.0, -1.0, 1.0, ""), _OFF_REAL_AXIS),
    ),
    _unary(
        "abs",
        np.abs,
        (lambda s, g, out, x: s.mul(g, s.sign(x)), _abs_jvp),
        _abs_reference,
        "|x| (a float for complex x). Convention: abs'(0) = 0 (the subgradient PyTorch and JAX use); "
        "for complex z the gradient is g·z/|z| (PyTorch's), 0 at z = 0.",
        _domain(avoid=(0.0,)),
        kinks=(
            Kink((_ZEROS,), (np.zeros(2),)),
            Kink((_COMPLEX_ZEROS,), (np.zeros(4, complex),)),
        ),
    ),
    _unary(
        "sign",
        np.sign,
        (_sign_rule, _sign_jvp),
        _sign_reference,
        "-1, 0 or 1; for complex z, z/|z| (NumPy 2's and PyTorch's sgn), 0 at z = 0. The derivative of real "
        "sign is 0 everywhere (including at 0); complex sign has PyTorch's sgn derivative, 0 at z = 0.",
        _domain(avoid=(0.0,)),
        residuals=("x", "out"),
        kinks=(
            Kink((_ZEROS,), (np.zeros(2),)),
            Kink((_COMPLEX_ZEROS,), (np.zeros(4, complex),)),
        ),
    ),
    _unary("square", np.square, times(lambda s, out, x: s.mul(x, 2.0)), lambda x: x * x, "x*x."),
    _unary(
        "reciprocal",
        lambda x: np.divide(1.0, x),
        times(lambda s, out, x: s.neg(s.mul(out, out))),
        lambda x: 1.0 / x,
        "1/x; 1/0 = inf.",
        _domain(avoid=(0.0,)),
        residuals=("out",),
    ),
    _unary(
        "erf",
        scipy.special.erf,
        times(lambda s, out, x: s.mul(s.exp(s.neg(s.mul(x, x))), _TWO_OVER_SQRT_PI)),
        _libm(math.erf),
        "Gauss error function (real only, as PyTorch's: take s.real(z) first for a complex z).",
        accepts="fiu",
    ),
    _unary(
        "positive",
        np.positive,
        (lambda s, g, out, x: g, None),
        lambda x: x + 0.0 * x,
        "+x (a copy).",
        residuals=None,
        linear=True,
    ),
    _unary(
        "exp2",
        np.exp2,
        times(lambda s, out, x: s.mul(out, _LN2)),
        _libm(lambda v: math.pow(2.0, v), lambda z: complex(2.0) ** z),
        "2**x.",
        residuals=("out",),
    ),
    _unary(
        "log2",
        np.log2,
        over(lambda s, out, x: s.mul(x, _LN2)),
        _libm(math.log2, lambda z: cmath.log(z) / _LN2),
        "Base-2 logarithm; log2(0) = -inf and its derivative there inf (complex: log's branch).",
        _domain(0.2, 5.0),
        complex_domain=_LOG_LIKE,
    ),
    _unary(
        "log10",
        np.log10,
        over(lambda s, out, x: s.mul(x, _LN10)),
        _libm(math.log10, cmath.log10),
        "Base-10 logarithm; log10(0) = -inf and its derivative there inf (complex: log's branch).",
        _domain(0.2, 5.0),
        complex_domain=_LOG_LIKE,
    ),
    _unary(
        "sinh",
        np.sinh,
        times(lambda s, out, x: s.cosh(x)),
        _libm(math.sinh, cmath.sinh),
        "Hyperbolic sine.",
    ),
    _unary(
        "cosh",
        np.cosh,
        times(lambda s, out, x: s.sinh(x)),
        _libm(math.cosh, cmath.cosh),
        "Hyperbolic cosine.",
    ),
    _unary(
        "arcsin",
        np.arcsin,
        over(lambda s, out, x: _sqrt_one_minus_square(s, x)),
        _libm(math.asin, cmath.asin),
        "Inverse sine on [-1, 1] (complex: cuts along the real axis beyond ±1). Convention (PyTorch's): the "
        "derivative at ±1 is inf.",
        _domain(-0.9, 0.9),
        kinks=(Kink((_UNITS,), (np.full(2, np.inf),)),),
        complex_domain=_complex_domain((-0.9, 0.9, -1.0, 1.0, ""), _OFF_REAL_AXIS),
    ),
    _unary(
        "arccos",
        np.arccos,
        over(lambda s, out, x: s.neg(_sqrt_one_minus_square(s, x))),
        _libm(math.acos, cmath.acos),
        "Inverse cosine on [-1, 1] (complex: cuts along the real axis beyond ±1). Convention (PyTorch's): the "
        "derivative at ±1 is -inf.",
        _domain(-0.9, 0.9),
        kinks=(Kink((_UNITS,), (np.full(2, -np.inf),)),),
        complex_domain=_complex_domain((-0.9, 0.9, -1.0, 1.0, ""), _OFF_REAL_AXIS),
    ),
    _unary(
        "arctan",
        np.arctan,
        over(lambda s, out, x: s.add(s.square(x), 1.0)),
        _libm(math.atan, cmath.atan),
        "Inverse tangent (complex: cuts along the imaginary axis beyond ±i).",
        complex_domain=_complex_domain((-3.0, 3.0, -0.6, 0.6, ""), (-3.0, 3.0, -2.0, 2.0, "re")),
    ),
    _unary(
        "arcsinh",
        np.arcsinh,
        over(lambda s, out, x: s.sqrt(s.add(s.square(x), 1.0))),
        _libm(math.asinh, cmath.asinh),
        "Inverse hyperbolic sine (complex: cuts along the imaginary axis beyond ±i).",
        complex_domain=_complex_domain((-3.0, 3.0, -0.6, 0.6, ""), (-3.0, 3.0, -2.0, 2.0, "re")),
    ),
    _unary(
        "arccosh",
        np.arccosh,
        over(_arccosh_denominator),
        _libm(math.acosh, cmath.acosh),
        "Inverse hyperbolic cosine on [1, inf) (complex: cut along the real axis below 1). Convention "
        "(PyTorch's): the derivative at 1 is inf.",
        _domain(1.2, 5.0),
        kinks=(Kink((np.array([1.0]),), (np.array([np.inf]),)),),
        complex_domain=_complex_domain((1.2, 5.0, -1.0, 1.0, ""), _OFF_REAL_AXIS),
    ),
    _unary(
        "arctanh",
        np.arctanh,
        over(lambda s, out, x: s.sub(1.0, s.square(x))),
        _libm(math.atanh, cmath.atanh),
        "Inverse hyperbolic tangent on (-1, 1) (complex: cuts along the real axis beyond ±1). Convention "
        "(PyTorch's): arctanh(±1) = ±inf, its derivative there inf.",
        _domain(-0.9, 0.9),
        kinks=(Kink((_UNITS,), (np.full(2, np.inf),)),),
        complex_domain=_complex_domain((-0.9, 0.9, -1.0, 1.0, ""), _OFF_REAL_AXIS),
    ),
]
