"""Ops without gradients: float predicates (isnan, isinf, isfinite, signbit), logical ops
(truth as NumPy's: nonzero is true, nan too) and bitwise ops on integers (and bools).

Like ``compare``, none declares a rule: a bool or integer result carries no gradient, so
a tracked float argument is fine and its result is a constant. Bitwise ops accept bool
and integer tensors only (shifts integers only); a float is a DTypeError naming the op and
the argument.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tenferro.extend import ArgumentError, DTypeError, ErrorInput, OpSpec, SampleInput, ShapeMismatch, explain_broadcast

#: Values where predicates and truth differ: signed zeros, infinities, nan.
_SPECIAL = (0.0, -0.0, 1.5, -2.0, np.inf, -np.inf, np.nan)


def _floats(draw: Any, shape: tuple[int, ...]) -> np.ndarray:
    from hypothesis import strategies as st
    from hypothesis.extra import numpy as hnp

    return draw(hnp.arrays(np.float64, shape, elements=st.sampled_from(_SPECIAL) | st.floats(-3.0, 3.0)))


def _ints(low: int, high: int) -> Callable[[Any, tuple[int, ...]], np.ndarray]:
    def draw_ints(draw: Any, shape: tuple[int, ...]) -> np.ndarray:
        from hypothesis import strategies as st
        from hypothesis.extra import numpy as hnp

        return draw(hnp.arrays(np.int64, shape, elements=st.integers(low, high)))

    return draw_ints


def _one(make: Callable[[Any, tuple[int, ...]], np.ndarray]) -> Callable[[], Any]:
    def sample() -> Any:
        from hypothesis import strategies as st

        from tenferro.extend import strategies

        @st.composite
        def one(draw: Any) -> SampleInput:
            return SampleInput((make(draw, draw(strategies.SHAPES)),))

        return one()

    return sample


def _two(
    make_a: Callable[[Any, tuple[int, ...]], np.ndarray], make_b: Callable[[Any, tuple[int, ...]], np.ndarray]
) -> Callable[[], Any]:
    def sample() -> Any:
        from hypothesis import strategies as st
        from hypothesis.extra import numpy as hnp

        @st.composite
        def pair(draw: Any) -> SampleInput:
            shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3))
            a, b = make_a(draw, shapes.input_shapes[0]), make_b(draw, shapes.input_shapes[1])
            if b.size == 1 and draw(st.booleans()):  # a Python number as the second operand
                return SampleInput((a, b.reshape(()).item()))
            return SampleInput((a, b))

        return pair()

    return sample


_COMPLEX = np.array([1j])


def _unary(
    name: str,
    forward: Any,
    reference: Any,
    doc: str,
    accepts: str,
    sample: Callable[[], Any],
    complex_sample: Callable[[], Any] | None = None,
) -> OpSpec:
    rejected = np.array([0.5]) if "f" not in accepts else _COMPLEX
    return OpSpec(
        batch="elementwise",
        name=name,
        inputs=("x",),
        forward=forward,
        accepts=accepts,
        sample=sample,
        complex_sample=complex_sample,
        reference=reference,
        error_inputs=lambda: [
            ErrorInput(([0.5],), {}, ArgumentError, f"{name}: argument 'x' is a list; wrap arrays")
            if "c" in accepts  # every numeric dtype is accepted
            else ErrorInput((rejected,), {}, DTypeError, f"{name}: argument 'x' has dtype")
        ],
        doc=f"{doc} No gradient.",
    )


def _binary(name: str, forward: Any, reference: Any, doc: str, accepts: str, sample: Callable[[], Any]) -> OpSpec:
    rejected = np.array([0.5, 1.0]) if "f" not in accepts else _COMPLEX
    return OpSpec(
        batch="elementwise",
        name=name,
        inputs=("a", "b"),
        forward=forward,
        accepts=accepts,
        explain=explain_broadcast(name, ("a", "b")),
        sample=sample,
        reference=reference,
        error_inputs=lambda: [
            ErrorInput((np.zeros(2, np.int64), np.zeros(3, np.int64)), {}, ShapeMismatch, "do not broadcast"),
            ErrorInput((rejected, np.ones(1, np.int64)), {}, DTypeError, f"{name}: argument 'a' has dtype"),
            ErrorInput((np.ones(1, np.int64), rejected), {}, DTypeError, f"{name}: argument 'b' has dtype"),
            *(
                [ErrorInput((np.ones(1, np.int64), np.ones(1, np.uint64)), {}, DTypeError, "i64 and b has u64")]
                if name.startswith("bitwise")
                else []
            ),
        ],
        doc=f"{doc} No gradient.",
    )


def _python(fn: Callable[[int, int], int]) -> Callable[[Any, Any], np.ndarray]:
    """A reference from Python's integer operators, element by element."""
    return lambda a, b: np.vectorize(lambda x, y: fn(int(x), int(y)), otypes=[np.result_type(a, b)])(a, b)


def _short(dtype: Any) -> str:
    """i64, u64, ...: the dtype names of tenferro's messages."""
    dtype = np.dtype(dtype)
    return "bool" if dtype.kind == "b" else f"{dtype.kind}{dtype.itemsize * 8}"


def _integers(name: str, ufunc: np.ufunc) -> Callable[[Any, Any], Any]:
    """A bitwise ufunc that first refuses a pair of integer dtypes no integer dtype holds
    (int64 with uint64: NumPy promotes them to float64, where it has no bitwise loop)."""

    def forward(a: Any, b: Any) -> Any:
        if hasattr(a, "dtype") and hasattr(b, "dtype") and np.result_type(a, b).kind == "f":
            raise DTypeError(
                f"{name}: a has dtype {_short(a.dtype)} and b has {_short(b.dtype)}, and no integer dtype "
                f"holds both (NumPy would promote them to f64); cast one of them with astype first"
            )
        return ufunc(a, b)

    return forward


def _truth(x: Any) -> np.ndarray:
    return np.not_equal(x, 0)  # nan != 0: nan is true, as in NumPy and Python


def _complexes(draw: Any, shape: tuple[int, ...]) -> np.ndarray:
    """Complex numbers whose real and imaginary parts are each special (±0, ±inf, nan) or not."""
    z = np.empty(shape, np.complex128)
    z.real, z.imag = _floats(draw, shape), _floats(draw, shape)  # (not re + 1j*im: 1j*inf has a nan real part)
    return z


_FLOAT = _one(_floats)
_COMPLEXES = _one(_complexes)
_FLOAT_PAIRS = _two(_floats, _floats)
_INT_PAIRS = _two(_ints(-100, 100), _ints(-100, 100))
_SHIFTS = _two(_ints(-1000, 1000), _ints(0, 10))

SPECS = [
    _unary(
        "isnan",
        np.isnan,
        lambda x: np.not_equal(x, x),
        "Whether x is nan (complex: either part is nan).",
        "biufc",
        _FLOAT,
        _COMPLEXES,
    ),
    _unary(
        "isinf",
        np.isinf,
        lambda x: np.equal(np.abs(x), np.inf),
        "Whether x is +inf or -inf (complex: either part is infinite, even if the other is nan).",
        "biufc",
        _FLOAT,
        _COMPLEXES,
    ),
    _unary(
        "isfinite",
        np.isfinite,
        lambda x: np.less(np.abs(x), np.inf),
        "Whether x is neither inf nor nan (complex: both parts are finite).",
        "biufc",
        _FLOAT,
        _COMPLEXES,
    ),
    _unary(
        "signbit",
        np.signbit,
        lambda x: np.less(np.copysign(1.0, x), 0),
        "Whether x's sign bit is set (true for -0.0 and negative nan).",
        "biuf",
        _FLOAT,
    ),
    _unary("logical_not", np.logical_not, lambda x: np.equal(x, 0), "not x, as a bool tensor.", "biuf", _FLOAT),
    _binary(
        "logical_and",
        np.logical_and,
        lambda a, b: _truth(a) & _truth(b),
        "a and b (nonzero is true), broadcasting.",
        "biuf",
        _FLOAT_PAIRS,
    ),
    _binary(
        "logical_or",
        np.logical_or,
        lambda a, b: _truth(a) | _truth(b),
        "a or b (nonzero is true), broadcasting.",
        "biuf",
        _FLOAT_PAIRS,
    ),
    _binary(
        "logical_xor",
        np.logical_xor,
        lambda a, b: _truth(a) != _truth(b),
        "a xor b (nonzero is true), broadcasting.",
        "biuf",
        _FLOAT_PAIRS,
    ),
    _unary(
        "bitwise_invert",
        np.invert,
        lambda x: np.subtract(-1, x),
        "~x: every bit flipped (-x - 1 for signed integers; not x for bools).",
        "biu",
        _one(_ints(-100, 100)),
    ),
    _binary(
        "bitwise_and",
        _integers("bitwise_and", np.bitwise_and),
        _python(lambda x, y: x & y),
        "a & b, broadcasting.",
        "biu",
        _INT_PAIRS,
    ),
    _binary(
        "bitwise_or",
        _integers("bitwise_or", np.bitwise_or),
        _python(lambda x, y: x | y),
        "a | b, broadcasting.",
        "biu",
        _INT_PAIRS,
    ),
    _binary(
        "bitwise_xor",
        _integers("bitwise_xor", np.bitwise_xor),
        _python(lambda x, y: x ^ y),
        "a ^ b, broadcasting.",
        "biu",
        _INT_PAIRS,
    ),
    _binary(
        "bitwise_left_shift",
        _integers("bitwise_left_shift", np.left_shift),
        lambda a, b: np.multiply(a, np.power(2, b)),
        "a << b (a·2**b, wrapping on overflow as NumPy's), broadcasting.",
        "iu",
        _SHIFTS,
    ),
    _binary(
        "bitwise_right_shift",
        _integers("bitwise_right_shift", np.right_shift),
        lambda a, b: np.floor_divide(a, np.power(2, b)),
        "a >> b (floor(a / 2**b), sign-extending), broadcasting.",
        "iu",
        _SHIFTS,
    ),
]
