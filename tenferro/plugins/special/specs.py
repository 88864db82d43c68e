"""The spec of a real special function of one or two arrays, its samples and its errors.

Every op of the family is elementwise (of one to three arrays), takes float (and integer) arrays, refuses bool and
complex ones (scipy.special's complex loops are another function's, with branch cuts this
family does not differentiate), and states its derivative with :mod:`.rules`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from tenferro.extend import (
    DTypeError,
    ErrorInput,
    InputRule,
    Kink,
    OpSpec,
    SampleInput,
    ShapeMismatch,
    explain_broadcast,
    unbroadcast,
)

from .rules import JvpRule

_BOOLS = np.array([True, False])


def reference(fn: Callable[..., float]) -> Callable[..., np.ndarray]:
    """A reference from a scalar function (the C library's, or a series), elementwise."""
    return np.vectorize(fn, otypes=[np.float64])


def weak_scalars(ufunc: Callable[..., Any]) -> Callable[..., Any]:
    """A binary ufunc of scipy.special with a Python number beside a float array taken in
    that array's precision: scipy lists its double loop first, so NumPy would otherwise
    pick it for ``beta(1.0, x_f32)`` and return float64 (NumPy's own ufuncs keep float32)."""

    def kernel(a: Any, b: Any) -> Any:
        if isinstance(a, (int, float)) and b.dtype.kind == "f":
            a = b.dtype.type(a)
        elif isinstance(b, (int, float)) and a.dtype.kind == "f":
            b = a.dtype.type(b)
        return ufunc(a, b)

    return kernel


def domain(
    low: float, high: float, avoid: tuple[float, ...] = (), params: Callable[[], Any] | None = None
) -> Callable[[], Any]:
    """Samples of one array in ``[low, high]`` away from ``avoid``; with ``params``, a
    strategy of param dicts drawn beside it."""

    def sample() -> Any:
        from tenferro.extend import strategies

        arrays = strategies.unary(low, high, avoid)
        if params is None:
            return arrays
        return arrays.flatmap(lambda one: params().map(lambda p: SampleInput(one.args, p)))

    return sample


def pairs(a_range: tuple[float, float], b_range: tuple[float, float], integer_a: bool = False) -> Callable[[], Any]:
    """Samples of two broadcastable arrays in their ranges (either may be a Python number);
    ``integer_a``: the first is an integer array (an order)."""

    def sample() -> Any:
        from hypothesis import strategies as st
        from hypothesis.extra import numpy as hnp

        from tenferro.extend import strategies

        if not integer_a:
            return strategies.broadcast_pair(a_range=a_range, b_range=b_range)

        @st.composite
        def pair(draw: Any) -> SampleInput:
            shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3))
            low, high = int(a_range[0]), int(a_range[1])
            n = draw(hnp.arrays(np.int64, shapes.input_shapes[0], elements=st.integers(low, high)))
            return SampleInput((n, draw(strategies.floats_array(shapes.input_shapes[1], *b_range))))

        return pair()

    return sample


def _errors(name: str, inputs: tuple[str, ...]) -> Callable[[], list[ErrorInput]]:
    def errors() -> list[ErrorInput]:
        x = inputs[-1]
        others = (np.ones(2),) * (len(inputs) - 1)
        listed = [
            ErrorInput((*others, _BOOLS), {}, DTypeError, f"argument '{x}' has dtype bool"),
            ErrorInput((*others, np.array([1j, 2j])), {}, DTypeError, f"{name}: argument '{x}' has dtype c128"),
        ]
        if len(inputs) >= 2:
            listed.append(ErrorInput((*others, np.ones(3)), {}, ShapeMismatch, "do not broadcast"))
        return listed

    return errors


def special(
    name: str,
    inputs: tuple[str, ...],
    forward: Callable[..., Any],
    rules: tuple[tuple[InputRule | None, ...], JvpRule],
    reference: Callable[..., Any],
    doc: str,
    sample: Callable[[], Any],
    residuals: tuple[str, ...],
    params: Mapping[str, Any] | None = None,
    kinks: tuple[Kink, ...] = (),
    accepts: str | tuple[str, ...] = "fiu",
    error_inputs: Callable[[], list[ErrorInput]] | None = None,
) -> OpSpec:
    """The spec of an elementwise special function of ``inputs`` (one to three arrays,
    broadcasting), differentiable where ``rules`` has a rule."""
    binary = len(inputs) >= 2
    return OpSpec(
        name=name,
        inputs=inputs,
        params=params or {},
        forward=forward,
        vjps=rules[0],
        jvp=rules[1],
        unbroadcast=unbroadcast if binary else None,
        accepts=accepts,
        explain=explain_broadcast(name, inputs) if binary else None,
        sample=sample,
        reference=reference,
        error_inputs=error_inputs or _errors(name, inputs),
        residuals=residuals,
        kinks=kinks,
        doc=doc,
        elementwise=True,
    )


def shape_params(count: int, low: float, high: float, x_range: tuple[float, float]) -> Callable[[], Any]:
    """Samples of ``count`` shape parameters, each a Python float in [low, high] or an
    integer array in [ceil(low), high] (constants: the ops refuse a gradient in them), then
    x, a float array in ``x_range``, all mutually broadcastable."""

    def sample() -> Any:
        from hypothesis import strategies as st
        from hypothesis.extra import numpy as hnp

        from tenferro.extend import strategies

        @st.composite
        def drawn(draw: Any) -> SampleInput:
            shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=count + 1, min_dims=0, max_dims=3, max_side=3))
            params = []
            for shape in shapes.input_shapes[:count]:
                if draw(st.booleans()):
                    params.append(draw(st.floats(low, high)))
                else:
                    ints = st.integers(math.ceil(low), int(high))
                    params.append(draw(hnp.arrays(np.int64, shape, elements=ints)))
            x = draw(strategies.floats_array(shapes.input_shapes[count], *x_range))
            return SampleInput((*params, x))

        return drawn()

    return sample
