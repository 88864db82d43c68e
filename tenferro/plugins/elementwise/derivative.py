"""A unary function's derivative stated once, and both of its derivative rules made from it.

DESIGN §10: a holomorphic (or real) f with derivative f′ has the VJP g·conj(f′(z)) and the
JVP t·f′(z) (no conj). A table row states f′ as ``derivative(s, out, x)``, from the result
and the input (reading only the values its spec keeps in ``residuals``), or, where
f′ = 1/d, states d (:func:`over`: a division, not a reciprocal and a product); the two
rules come from that one expression, so they cannot disagree.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tenferro.extend import InputRule, conj

#: ``derivative(s, out, x)``: f′ (or the d of f′ = 1/d) at x, with the session's ops.
Derivative = Callable[[Any, Any, Any], Any]
#: A forward-mode rule: ``jvp(s, tangents, inputs, out) -> tangent | None``.
JvpRule = Callable[..., Any]


def times(derivative: Derivative) -> tuple[InputRule, JvpRule]:
    """The VJP g·conj(f′) and the JVP t·f′ of a function whose derivative is f′."""

    def vjp(s: Any, g: Any, out: Any, x: Any) -> Any:
        return s.mul(g, conj(s, derivative(s, out, x)))

    def jvp(s: Any, tangents: Sequence[Any], inputs: Sequence[Any], out: Any) -> Any:
        t = tangents[0]
        return None if t is None else s.mul(t, derivative(s, out, inputs[0]))

    return vjp, jvp


def over(denominator: Derivative) -> tuple[InputRule, JvpRule]:
    """The VJP g / conj(d) and the JVP t / d of a function whose derivative is 1/d."""

    def vjp(s: Any, g: Any, out: Any, x: Any) -> Any:
        return s.div(g, conj(s, denominator(s, out, x)))

    def jvp(s: Any, tangents: Sequence[Any], inputs: Sequence[Any], out: Any) -> Any:
        t = tangents[0]
        return None if t is None else s.div(t, denominator(s, out, inputs[0]))

    return vjp, jvp
