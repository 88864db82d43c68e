"""The parts of a complex number: ``conj``, ``real``, ``imag``, ``angle``.

Cotangents live in the real inner product ⟨a, b⟩ = Re(conj(a)·b) (PyTorch's convention,
DESIGN §10), so each op's VJP is its adjoint there: conj's is conj, real's puts the
(real) cotangent in the real part, imag's in the imaginary part (g ↦ i·g). On a real
input, ``conj`` and ``real`` are the identity and ``imag`` is zero, as in NumPy.

``angle`` is arg(z) = atan2(Im z, Re z) in (-pi, pi], with PyTorch's gradient
g·i·z/|z|**2 = i·g/conj(z) (0 at z = 0); on a real input it is 0 or pi (NumPy's values)
and its gradient 0.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tenferro.extend import DTypeError, ErrorInput, Kink, OpSpec, SampleInput


def _unary() -> Any:
    from tenferro.testing.strategies import unary

    return unary()


def _to_input(s: Any, g: Any, x: Any) -> Any:
    """The real cotangent ``g`` as a cotangent of ``x`` (complex when ``x`` is)."""
    return g if g.dtype == x.dtype else s.astype(g, x.dtype)


def _imag_vjp(s: Any, g: Any, out: Any, x: Any) -> Any:
    return s.mul(s.astype(g, x.dtype), 1j) if x.dtype.kind == "c" else None


def _real(x: Any) -> Any:
    return np.real(x) if x.dtype.kind == "c" else np.positive(x)  # np.real(real array) is the array itself


def _angle(x: Any) -> Any:
    """NumPy's angle, kept to ufuncs (engine-neutral): a real x is the point (x, 0), so
    its angle is 0 for x >= +0 and pi for x < 0 or x = -0.0, nan for nan."""
    if x.dtype.kind == "c":
        return np.arctan2(np.imag(x), np.real(x))
    return np.arctan2(np.zeros_like(x), x)


def _angle_rule(s: Any, g: Any, out: Any, x: Any) -> Any:
    """PyTorch's angle backward: i·g/conj(z), 0 at z = 0; 0 for a real x (piecewise constant)."""
    if x.dtype.kind != "c":
        return None
    zero = s.compare(x, 0.0, "eq")
    safe = s.where_select(zero, 1.0, x)  # 1 where z == 0: no inf to mask (nor nan in a second derivative)
    return s.where_select(zero, 0.0, s.div(s.mul(g, 1j), s.conj(safe)))


def _angle_jvp(s: Any, tangents: Any, inputs: Any, out: Any) -> Any:
    """Im(t/z), the transpose of the VJP (d arg z = Im(dz/z)), 0 at z = 0; 0 for a real x."""
    t, x = tangents[0], inputs[0]
    if t is None or x.dtype.kind != "c":
        return None
    zero = s.compare(x, 0.0, "eq")
    return s.where_select(zero, 0.0, s.imag(s.div(t, s.where_select(zero, 1.0, x))))


def _angle_sample() -> Any:
    from tenferro.testing.strategies import unary

    return unary(avoid=(0.0,))  # a real angle jumps at 0


def _angle_complex_sample() -> Any:
    """Off the negative real axis, where the angle jumps from pi to -pi (and away from 0)."""
    from hypothesis import strategies as st

    from tenferro.testing.strategies import SHAPES, floats_array

    @st.composite
    def draw_one(draw: Any) -> SampleInput:
        shape = draw(SHAPES)
        if draw(st.booleans()):  # anywhere off the real axis
            re, im = draw(floats_array(shape)), draw(floats_array(shape, -1.5, 1.5, avoid=(0.0,), margin=0.25))
        else:  # near the positive real axis
            re, im = draw(floats_array(shape, 0.2, 3.0)), draw(floats_array(shape, -1.0, 1.0))
        return SampleInput((np.asarray(re + 1j * im),))

    return draw_one()


def _spec(name: str, forward: Any, rule: Any, reference: Any, doc: str, returns_view: bool = False) -> OpSpec:
    return OpSpec(
        name=name,
        inputs=("x",),
        returns_view=returns_view,
        forward=forward,
        vjps=(rule,),
        linear=True,
        accepts="fiuc",
        sample=_unary,
        reference=reference,
        error_inputs=lambda: [ErrorInput((np.array([True]),), {}, DTypeError, "accepts float")],
        doc=doc,
    )


SPECS = [
    _spec(
        "conj",
        np.conjugate,
        lambda s, g, out, x: s.conj(g),
        lambda x: np.asarray(x).conj(),
        "The complex conjugate (x itself, copied, for a real x).",
    ),
    _spec(
        "real",
        _real,
        lambda s, g, out, x: _to_input(s, g, x),
        lambda x: np.asarray(x).real.copy(),
        "The real part, a float tensor (x itself, copied, for a real x).",
        returns_view=True,
    ),
    _spec(
        "imag",
        np.imag,
        _imag_vjp,
        lambda x: np.asarray(x).imag.copy(),
        "The imaginary part, a float tensor (zeros for a real x).",
        returns_view=True,
    ),
    OpSpec(
        name="angle",
        inputs=("x",),
        forward=_angle,
        vjps=(_angle_rule,),
        jvp=_angle_jvp,
        accepts="fiuc",
        sample=_angle_sample,
        complex_sample=_angle_complex_sample,
        reference=np.angle,
        residuals=("x",),
        error_inputs=lambda: [ErrorInput((np.array([True]),), {}, DTypeError, "accepts float")],
        kinks=(
            Kink((np.array([0j, -1 + 0j]),), (np.array([0j, -1j]),)),  # on the cut: the formula's value
            Kink((np.array([-1.0, 0.0, 2.0]),), (np.zeros(3),)),
        ),
        doc=(
            "The argument arg(z) = atan2(Im z, Re z) of a complex z, in (-pi, pi] (a float tensor); for a real "
            "x, 0 where x >= +0 and pi where x < 0 or x = -0.0, as NumPy's (PyTorch gives 0 at -0.0). "
            "Gradient (PyTorch's): i·g/conj(z), 0 at z = 0, the same formula on the cut (the negative real "
            "axis, where the angle jumps); 0 for a real x."
        ),
    ),
]
