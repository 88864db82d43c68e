"""The rule vocabulary: the ways an op states its derivative, and what the core derives.

- **Per-input rules** (HIPS autograd's ``defvjp(f, vjp_x, vjp_y)``): ``vjps=(rule_x,
  rule_y)``, one per input, each ``rule(s, g, out, *inputs, **params)`` returning that
  input's cotangent (``None`` for zero). A rule is called only for an input that needs a
  gradient; an input without a rule (``None`` in its place) gets none.
- **Broadcasting**: an op that broadcasts its tensor inputs like NumPy gives
  ``unbroadcast=tenferro.extend.unbroadcast``; its per-input rules are then written as if
  nothing broadcast, and the core applies ``unbroadcast(s, ct, input)`` to a cotangent
  whose shape or dtype differs from its input's (only then: in the sweep this costs
  nothing when nothing broadcast). The function uses ops of the ``elementwise`` family;
  the core itself names none.
- **Linearity** (JAX's ``deflinear``/``defbilinear``): ``linear=True`` says the op is
  linear in its differentiable inputs jointly (``add``, ``sum_to``, ``where_select`` in
  ``a, b``); ``multilinear=True`` says it is linear in each one separately (``mul``,
  ``dot_general``). The conformance suite checks both exactly, without finite
  differences; a linear op's forward-mode rule is the op itself (:func:`linear_jvp`),
  a multilinear op's the sum of the op with one input replaced by its tangent
  (:func:`multilinear_jvp`).
- **The whole-op rule**, tenferro's first form and still accepted:
  ``vjp(s, g, inputs, out, **params)`` returning one cotangent per input.
- **Forward mode**: an optional ``jvp(s, tangents, inputs, out, **params)`` returning the
  result's tangent from one tangent per input (``None`` for zero). An op without one is
  still differentiable in forward mode: the core transposes its VJP (slower; see
  :mod:`tenferro.core.forward`).

Every rule computes with the ops of session ``s``, so derivatives are recorded inside
``rt.grad`` and can be differentiated again. ``out`` is the op's result: an EagerTensor
where the spec lists ``"out"`` in its residuals, else its node, which has the result's
``shape``, ``dtype`` and ``ndim`` only (passing it to an op is a RuleError naming the
missing residual).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

#: A per-input rule: ``rule(s, g, out, *inputs, **params) -> cotangent | None``.
InputRule = Callable[..., Any]
#: A whole-op rule: ``vjp(s, g, inputs, out, **params) -> one cotangent per input``.
WholeRule = Callable[..., Sequence[Any]]


#: How a broadcasting op sums a cotangent back to its input: ``unbroadcast(s, ct, input)``.
Unbroadcast = Callable[[Any, Any, Any], Any]


def linear_jvp(op: str, differentiable: Sequence[bool], variadic: bool = False) -> Callable[..., Any]:
    """The forward-mode rule of an op linear in its differentiable inputs: the op applied
    to their tangents (zeros where a tangent is None), the other inputs as they are (a
    variadic op's items all share its one input's flag)."""
    flags = tuple(differentiable)

    def jvp(s: Any, tangents: Sequence[Any], inputs: tuple[Any, ...], out: Any, /, **params: Any) -> Any:
        # positional-only: an op may have a param named s, tangents, inputs or out (fftn has s)
        if not any(result.dtype.kind in "fc" for result in (out if isinstance(out, tuple) else (out,))):
            return None  # integer or bool results (astype to int) carry no tangent
        args = [
            (t if t is not None else _zeros(s, x)) if flags[0 if variadic else i] else x
            for i, (t, x) in enumerate(zip(tangents, inputs))
        ]
        return getattr(s, op)(*([args] if variadic else args), **params)

    jvp.derived_for = op  # type: ignore[attr-defined]  # the registry derives it again for a renamed op
    return jvp


def multilinear_jvp(op: str, differentiable: Sequence[bool]) -> Callable[..., Any]:
    """The forward-mode rule of an op linear in each differentiable input separately (the
    product rule): the sum over inputs with a tangent of the op with that input replaced
    by its tangent."""
    flags = tuple(differentiable)

    def jvp(s: Any, tangents: Sequence[Any], inputs: tuple[Any, ...], out: Any, /, **params: Any) -> Any:
        total = None
        for i, t in enumerate(tangents):
            if t is None or not flags[i]:
                continue
            term = getattr(s, op)(*inputs[:i], t, *inputs[i + 1 :], **params)
            total = term if total is None else s.add_any(total, term)
        return total

    jvp.derived_for = op  # type: ignore[attr-defined]
    return jvp


def _zeros(s: Any, like: Any) -> Any:
    """A constant of zeros with ``like``'s shape and dtype (a scalar stays a scalar), made by
    the session's engine (a DaskEngine's are made on the workers, not sent to them)."""
    if not hasattr(like, "shape"):
        return type(like)(0)
    engine = s._engine
    zeros = np.zeros if engine is None else engine.zeros
    return s.runtime.constant_from(zeros(like.shape, like.dtype))
