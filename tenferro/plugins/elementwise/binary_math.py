"""Binary math functions with NumPy broadcasting: arctan2, logaddexp, hypot, copysign.

Each op states its partial derivatives once (:func:`.derivative.partials` makes its VJPs
and its JVP from them), written as if nothing broadcast (``_binary`` declares
``unbroadcast=unbroadcast``). The points where they are not differentiable take PyTorch's
values, stated as kinks: arctan2 at the origin gives 0, hypot there nan, copysign at
a = 0 gives 0, logaddexp with one infinite operand gives it 1 (+inf) or 0 (-inf).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from tenferro.extend import Kink, SampleInput

from .binary import _binary
from .derivative import partials


def _avoiding(a_avoid: tuple[float, ...] = (), b_avoid: tuple[float, ...] = ()) -> Callable[[], Any]:
    """Pairs of broadcastable float arrays in [-3, 3], each kept away from its points; either
    operand may be a Python float."""

    def sample() -> Any:
        from hypothesis import strategies as st
        from hypothesis.extra import numpy as hnp

        from tenferro.extend import strategies

        @st.composite
        def pair(draw: Any) -> SampleInput:
            shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3))
            a = draw(strategies.floats_array(shapes.input_shapes[0], avoid=a_avoid))
            b = draw(strategies.floats_array(shapes.input_shapes[1], avoid=b_avoid))
            scalar = draw(st.sampled_from(["a", "b", "none"]))
            if scalar == "a" and a.size == 1:
                return SampleInput((float(a.reshape(())), b))
            if scalar == "b" and b.size == 1:
                return SampleInput((a, float(b.reshape(()))))
            return SampleInput((a, b))

        return pair()

    return sample


def _square(s: Any, v: Any) -> Any:
    return s.square(v) if hasattr(v, "shape") else v * v  # the other operand may be a Python number


def _squares(s: Any, a: Any, b: Any) -> Any:
    """a**2 + b**2, with 1 where it is 0: arctan2's rules divide by it, and take 0 at the
    origin (PyTorch's masking of the infinite reciprocal)."""
    total = s.add(_square(s, a), _square(s, b))
    return s.where_select(s.compare(total, 0, "eq"), 1.0, total)


_ORIGIN = (np.zeros(2), np.array(0.0))

_ARCTAN2 = partials(
    lambda s, out, a, b: s.div(b, _squares(s, a, b)),
    lambda s, out, a, b: s.neg(s.div(a, _squares(s, a, b))),
)
# PyTorch's sigmoid(a - b) rather than exp(a - out): exact where one operand is infinite
# (exp(inf - inf) would be nan)
_LOGADDEXP = partials(lambda s, out, a, b: s.sigmoid(s.sub(a, b)), lambda s, out, a, b: s.sigmoid(s.sub(b, a)))
_HYPOT = partials(lambda s, out, a, b: s.div(a, out), lambda s, out, a, b: s.div(b, out))
_COPYSIGN = partials(lambda s, out, a, b: s.mul(s.sign(a), s.sign(out)), lambda s, out, a, b: None)

SPECS = [
    _binary(
        "arctan2",
        np.arctan2,
        _ARCTAN2[0],
        np.vectorize(math.atan2, otypes=[np.float64]),
        "The angle of the point (b, a) (a is the y coordinate, as NumPy's and PyTorch's atan2), in [-pi, pi]. "
        "Convention (PyTorch's): the gradient at a = b = 0 is 0.",
        _avoiding(a_avoid=(0.0,)),
        kinks=(Kink(_ORIGIN, (np.zeros(2), np.array(0.0))),),
        jvp=_ARCTAN2[1],
    ),
    _binary(
        "logaddexp",
        np.logaddexp,
        _LOGADDEXP[0],
        lambda a, b: np.maximum(a, b) + np.log1p(np.exp(-np.abs(np.subtract(a, b)))),
        "log(e**a + e**b) without overflow; its gradient is the softmax of (a, b), (1, 0) where only a is "
        "+inf or only b is -inf, nan where both are -inf or both +inf (as PyTorch's).",
        residuals=("a", "b"),
        kinks=(
            Kink(
                (np.array([np.inf, 1.0, np.inf]), np.array([-np.inf, np.inf, 2.0])),
                (np.array([1.0, 0.0, 1.0]), np.array([0.0, 1.0, 0.0])),
            ),
        ),
        jvp=_LOGADDEXP[1],
    ),
    _binary(
        "hypot",
        np.hypot,
        _HYPOT[0],
        lambda a, b: np.sqrt(np.square(a) + np.square(b)),
        "sqrt(a**2 + b**2) without overflow. Convention (PyTorch's): the gradient at a = b = 0 is nan "
        "(0/0; there is no one subgradient to take).",
        _avoiding(b_avoid=(0.0,)),
        residuals=("a", "b", "out"),
        kinks=(Kink(_ORIGIN, (np.full(2, np.nan), np.array(np.nan))),),
        jvp=_HYPOT[1],
    ),
    _binary(
        "copysign",
        np.copysign,
        _COPYSIGN[0],
        lambda a, b: np.abs(a) * np.where(np.signbit(b), -1.0, 1.0),
        "|a| with the sign of b (its sign bit: -0.0 counts as negative). Conventions (PyTorch's): d/db = 0; "
        "d/da = ±1 and 0 at a = ±0.",
        _avoiding(a_avoid=(0.0,), b_avoid=(0.0,)),
        residuals=("a", "out"),
        kinks=(
            Kink(
                (np.array([0.0, -0.0, 2.0, -2.0, 2.0]), np.array([1.0, -1.0, -1.0, -0.0, 0.0])),
                (np.array([0.0, 0.0, -1.0, 1.0, 1.0]), None),
            ),
        ),
        jvp=_COPYSIGN[1],
    ),
]
