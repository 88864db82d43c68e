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

from tenferro.extend import InputRule, conj, derived, tangent_sum

#: ``derivative(s, out, x)``: f′ (or the d of f′ = 1/d) at x, with the session's ops.
Derivative = Callable[[Any, Any, Any], Any]
#: A forward-mode rule: ``jvp(s, tangents, inputs, out) -> tangent | None``.
JvpRule = Callable[..., Any]


def times(derivative: Derivative) -> tuple[InputRule, JvpRule]:
    """The VJP g·conj(f′) and the JVP t·f′ of a function whose derivative is f′."""

    def vjp(s: Any, g: Any, out: Any, x: Any) -> Any:
        return s.mul(g, conj(s, derived(out, 0, derivative, s, out, x)))

    def jvp(s: Any, tangents: Sequence[Any], inputs: Sequence[Any], out: Any) -> Any:
        t = tangents[0]
        return None if t is None else s.mul(t, derived(out, 0, derivative, s, out, inputs[0]))

    return vjp, jvp


def over(denominator: Derivative) -> tuple[InputRule, JvpRule]:
    """The VJP g / conj(d) and the JVP t / d of a function whose derivative is 1/d."""

    def vjp(s: Any, g: Any, out: Any, x: Any) -> Any:
        return s.div(g, conj(s, derived(out, 0, denominator, s, out, x)))

    def jvp(s: Any, tangents: Sequence[Any], inputs: Sequence[Any], out: Any) -> Any:
        t = tangents[0]
        return None if t is None else s.div(t, derived(out, 0, denominator, s, out, inputs[0]))

    return vjp, jvp


#: ``partial(s, out, a, b)``: ∂f/∂a or ∂f/∂b of a binary op (None for 0).
Partial = Callable[[Any, Any, Any, Any], Any]


def partials(da: Partial, db: Partial) -> tuple[tuple[InputRule, InputRule], JvpRule]:
    """The per-input VJPs g·conj(∂f/∂a), g·conj(∂f/∂b) and the JVP t_a·∂f/∂a + t_b·∂f/∂b
    of a binary op holomorphic (or real) in each operand."""

    def vjp(partial: Partial) -> InputRule:
        def rule(s: Any, g: Any, out: Any, a: Any, b: Any) -> Any:
            d = partial(s, out, a, b)
            return None if d is None else s.mul(g, conj(s, d))

        return rule

    def jvp(s: Any, tangents: Sequence[Any], inputs: Sequence[Any], out: Any) -> Any:
        terms = []
        for t, partial in zip(tangents, (da, db)):
            d = None if t is None else partial(s, out, *inputs)
            if d is not None:
                terms.append(s.mul(t, d))
        return tangent_sum(s, terms, out)

    return (vjp(da), vjp(db)), jvp
