"""Derivative rules of real special functions, each stated once as the function's
derivative, from which both the VJP (g·f′) and the forward-mode JVP (t·f′) are made.

The derivatives are written with session ops (this family's and ``elementwise``'s), so
every rule can be differentiated again. The functions are real (the family refuses complex
arguments), so no conjugation is needed; unlike ``elementwise``'s table, a derivative
also receives the op's params (polygamma's order ``n``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tenferro.extend import InputRule, derived, tangent_sum

#: ``derivative(s, out, *inputs, *params)``: ∂f/∂(one input), with session ops.
Derivative = Callable[..., Any]
#: A forward-mode rule: ``jvp(s, tangents, inputs, out, **params) -> tangent | None``.
JvpRule = Callable[..., Any]


def times(derivative: Derivative) -> tuple[tuple[InputRule], JvpRule]:
    """The VJP g·f′ (one rule, for the one input) and the JVP t·f′ of a unary function
    with derivative f′."""

    def vjp(s: Any, g: Any, out: Any, x: Any, **params: Any) -> Any:
        return s.mul(g, derived(out, 0, derivative, s, out, x, *params.values()))

    def jvp(s: Any, tangents: Sequence[Any], inputs: Sequence[Any], out: Any, **params: Any) -> Any:
        t = tangents[0]
        return None if t is None else s.mul(t, derived(out, 0, derivative, s, out, inputs[0], *params.values()))

    return (vjp,), jvp


def partials(da: Derivative | None, db: Derivative | None) -> tuple[tuple[InputRule | None, InputRule | None], JvpRule]:
    """The per-input VJPs g·∂f/∂a, g·∂f/∂b and the JVP t_a·∂f/∂a + t_b·∂f/∂b of a binary
    function (None for an input that takes no gradient: a Bessel function's order). Each
    partial is ``partial(s, out, a, b)``, written as if nothing broadcast."""

    def vjp(key: int, partial: Derivative) -> InputRule:
        def rule(s: Any, g: Any, out: Any, a: Any, b: Any) -> Any:
            return s.mul(g, derived(out, key, partial, s, out, a, b))

        return rule

    def jvp(s: Any, tangents: Sequence[Any], inputs: Sequence[Any], out: Any) -> Any:
        terms = []
        for key, (t, partial) in enumerate(zip(tangents, (da, db))):
            if t is not None and partial is not None:
                terms.append(s.mul(t, derived(out, key, partial, s, out, *inputs)))
        return tangent_sum(s, terms, out)

    rules = tuple(None if partial is None else vjp(key, partial) for key, partial in enumerate((da, db)))
    return (rules[0], rules[1]), jvp


def shifted(s: Any, v: Any, by: int) -> Any:
    """``v + by`` for an order ``v`` that is a tensor (integer orders stay integers) or a
    Python number."""
    return v + by if isinstance(v, (int, float)) else s.add(v, by)
