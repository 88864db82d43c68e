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

from tenferro.extend import InputRule, NotDifferentiable, derived, tangent_sum

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


def partials(*derivatives: Derivative | None) -> tuple[tuple[InputRule | None, ...], JvpRule]:
    """The per-input VJPs g·∂f/∂a, g·∂f/∂b, ... and the JVP Σ t_i·∂f/∂i of a function of
    two or three arrays (None for an input that takes no gradient: a Bessel function's
    order). Each partial is ``partial(s, out, *inputs)``, written as if nothing broadcast."""

    def vjp(key: int, partial: Derivative) -> InputRule:
        def rule(s: Any, g: Any, out: Any, *inputs: Any) -> Any:
            return s.mul(g, derived(out, key, partial, s, out, *inputs))

        return rule

    def jvp(s: Any, tangents: Sequence[Any], inputs: Sequence[Any], out: Any) -> Any:
        terms = []
        for key, (t, partial) in enumerate(zip(tangents, derivatives)):
            if t is not None and partial is not None:
                terms.append(s.mul(t, derived(out, key, partial, s, out, *inputs)))
        return tangent_sum(s, terms, out)

    rules = tuple(None if partial is None else vjp(key, partial) for key, partial in enumerate(derivatives))
    return rules, jvp


def refused(op: str, argument: str, why: str) -> Derivative:
    """The partial of an input the op has no derivative in (an incomplete gamma or beta
    function's shape parameter): asking for it raises NotDifferentiable naming the op and
    the argument, never a silent zero."""

    def partial(s: Any, out: Any, *inputs: Any) -> Any:
        raise NotDifferentiable(
            f"{op}: no derivative in the argument {argument!r} ({why}); only its derivative in the last argument "
            f"is defined, as in JAX and HIPS autograd: pass {argument} as a constant (tf.stop_gradient or a "
            f"NumPy array)",
            op=op,
            argument=argument,
        )

    return partial


def shifted(s: Any, v: Any, by: int) -> Any:
    """``v + by`` for an order ``v`` that is a tensor (integer orders stay integers) or a
    Python number."""
    return v + by if isinstance(v, (int, float)) else s.add(v, by)
