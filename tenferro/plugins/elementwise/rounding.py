"""Piecewise-constant ops: rounding to integers, ``floor_divide``, and ``remainder`` (what
is left of that division).

Their derivatives are 0 between the jumps, and tenferro takes the same 0 on a jump, as
PyTorch and JAX do (the kinks below state it). ``remainder`` is ``a - b·floor_divide(a,
b)``: d/da = 1 and d/db = -floor_divide(a, b), on a jump too (PyTorch's). Samples keep off
the jumps: rounding ops' inputs keep away from the integers (or halves), and pairs
``(a, b)`` keep ``a`` away from every multiple of ``b``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from tenferro.extend import ArgumentError, DTypeError, ErrorInput, Kink, OpSpec, SampleInput, tangent_sum

from .binary import _binary, _binary_errors


def _away_from(points: tuple[float, ...]) -> Callable[[], Any]:
    def sample() -> Any:
        from tenferro.extend import strategies

        return strategies.unary(-3.0, 3.0, avoid=points)

    return sample


_INTEGERS = tuple(float(k) for k in range(-3, 4))
_HALVES = tuple(k + 0.5 for k in range(-4, 4))


def _zero_tangent(s: Any, tangents: Any, inputs: Any, out: Any) -> None:
    """The JVP of a piecewise-constant op: 0 (None) whatever the tangents."""
    return None


def _remainder_jvp(s: Any, tangents: Any, inputs: Any, out: Any) -> Any:
    """t_a - t_b·floor_divide(a, b) (the transpose of the VJP, reading a and b as it does)."""
    (t_a, t_b), (a, b) = tangents, inputs
    terms = [] if t_a is None else [t_a]
    if t_b is not None:
        terms.append(s.neg(s.mul(t_b, s.floor_divide(a, b))))
    return tangent_sum(s, terms, out)


def _constant(
    name: str, forward: Callable[[Any], Any], reference: Callable[[Any], Any], doc: str, jumps: tuple[float, ...]
) -> OpSpec:
    """A unary op whose derivative is 0 everywhere: between its jumps and (by convention) on
    them, at the jumps next to 0 (``jumps[3:5]``)."""
    return OpSpec(
        name=name,
        inputs=("x",),
        forward=forward,
        vjps=(lambda s, g, out, x: None,),
        jvp=_zero_tangent,
        accepts="fiu",
        residuals=(),
        sample=_away_from(jumps),
        reference=reference,
        error_inputs=lambda: [ErrorInput((np.array([True, False]),), {}, DTypeError, "accepts float")],
        doc=f"{doc} Convention (PyTorch's): its derivative is 0 everywhere, at the jumps too.",
        kinks=(Kink((np.array(jumps[3:5]),), (np.zeros(2),)),),
    )


def _scalar_reference(fn: Callable[[float], float]) -> Callable[[Any], Any]:
    """Reference from Python's scalar function (kept float for float inputs, as NumPy does)."""
    return lambda x: np.vectorize(fn, otypes=[np.asarray(x).dtype])(x) if 0 not in np.shape(x) else np.asarray(x)


def _round_half_even(v: float) -> float:
    return math.copysign(float(round(v)), v)  # Python's round is half to even; keep -0.0's sign


def _check_integer_divisor(name: str, a: Any, b: Any) -> None:
    if np.result_type(a).kind in "iu" and np.result_type(b).kind in "iu" and np.any(np.equal(b, 0)):
        raise ArgumentError(
            f"{name}: integer division by zero (argument 'b' has a zero); make a or b a float tensor "
            f"for IEEE results (inf or nan)"
        )


def _floor_divide(a: Any, b: Any) -> Any:
    _check_integer_divisor("floor_divide", a, b)
    return np.floor_divide(a, b)


def _remainder(a: Any, b: Any) -> Any:
    _check_integer_divisor("remainder", a, b)
    return np.remainder(a, b)


def _grid_pair() -> Any:
    """(a, b) with b in ±{1, 1.5, 2, 2.5} and a at least 0.15 from the half-integers, so
    from every multiple of b; a finite-difference step (<= 1/32 along a direction of
    max-norm 1) moves a - k·b by at most (1 + 3)/32 < 0.15, as |k| = |a/b| <= 3: no
    sample meets a jump."""
    from hypothesis import strategies as st
    from hypothesis.extra import numpy as hnp

    @st.composite
    def sample(draw: Any) -> SampleInput:
        shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3))
        halves = draw(hnp.arrays(np.int64, shapes.input_shapes[0], elements=st.integers(-6, 5)))
        jitter = draw(hnp.arrays(np.float64, shapes.input_shapes[0], elements=st.floats(-0.1, 0.1)))
        a = np.asarray(halves / 2.0 + 0.25 + jitter)
        b = np.asarray(draw(hnp.arrays(np.float64, shapes.input_shapes[1], elements=st.sampled_from(_DIVISORS))))
        if b.size == 1 and draw(st.booleans()):
            return SampleInput((a, float(b.reshape(()))))
        return SampleInput((a, b))

    return sample()


_DIVISORS = (-2.5, -2.0, -1.5, -1.0, 1.0, 1.5, 2.0, 2.5)
_JUMPS = (np.array([4.0, -4.0, 3.0]), np.array([2.0, 2.0, 1.5]))


def _division_errors(name: str) -> Callable[[], list[ErrorInput]]:
    return lambda: [
        *_binary_errors(),
        ErrorInput((np.array([3, 4]), np.array([2, 0])), {}, ArgumentError, f"{name}: integer division by zero"),
    ]


def _python_pairs(fn: Callable[[Any, Any], Any]) -> Callable[[Any, Any], Any]:
    """A reference from Python's float ``//`` and ``%`` (which agree with NumPy's)."""
    return lambda a, b: np.vectorize(fn, otypes=[np.result_type(a, b)])(a, b)


SPECS = [
    _constant(
        "floor", np.floor, _scalar_reference(math.floor), "Largest integer <= x (a float for float x).", _INTEGERS
    ),
    _constant("ceil", np.ceil, _scalar_reference(math.ceil), "Smallest integer >= x (a float for float x).", _INTEGERS),
    _constant("trunc", np.trunc, _scalar_reference(math.trunc), "x rounded towards 0.", _INTEGERS),
    _constant(
        "round",
        np.round,
        _scalar_reference(_round_half_even),
        "x rounded to the nearest integer, halves to even.",
        _HALVES,
    ),
    _binary(
        "floor_divide",
        _floor_divide,
        (lambda s, g, out, a, b: None, lambda s, g, out, a, b: None),
        _python_pairs(lambda a, b: a // b),
        "floor(a / b), as NumPy's floor_divide (Python's //); an integer zero divisor is an error. "
        "Convention (JAX's; PyTorch does not differentiate it): the derivative is 0 in a and b, at the jumps too.",
        _grid_pair,
        residuals=(),
        error_inputs=_division_errors("floor_divide"),
        jvp=_zero_tangent,
        kinks=(Kink(_JUMPS, (np.zeros(3), np.zeros(3))),),
    ),
    _binary(
        "remainder",
        _remainder,
        (lambda s, g, out, a, b: g, lambda s, g, out, a, b: s.neg(s.mul(g, s.floor_divide(a, b)))),
        _python_pairs(lambda a, b: a % b),
        "a - b·floor_divide(a, b): the sign of b, as NumPy's remainder and Python's %. Convention "
        "(PyTorch's): d/da = 1 and d/db = -floor_divide(a, b), at a jump (a a multiple of b) too.",
        _grid_pair,
        error_inputs=_division_errors("remainder"),
        jvp=_remainder_jvp,
        kinks=(Kink(_JUMPS, (np.ones(3), np.array([-2.0, 2.0, -2.0]))),),
    ),
]
